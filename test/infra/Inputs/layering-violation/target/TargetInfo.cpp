// Fixture for layers-include-only-lower-layers.test: the bottom layer includes nothing above it.
#include "target/TargetInfo.h"

#include "ir/IR.h"
