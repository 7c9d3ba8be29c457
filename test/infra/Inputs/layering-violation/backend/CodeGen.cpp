// Fixture for layers-include-only-lower-layers.test: downward includes are fine.
#include "backend/CodeGen.h"
#include "frontend/AST.h"
#include "ir/IR.h"
#include "stdlib/Stdlib.h"
#include "target/TargetInfo.h"
