// A header that includes a file that does not exist.
#include "no-such-inner.h"
