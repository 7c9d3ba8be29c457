// Includes "same.h", which exists both here and in incdir/: this directory wins.
#include "same.h"
