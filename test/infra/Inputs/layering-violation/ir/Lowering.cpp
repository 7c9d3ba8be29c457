// Fixture for layers-include-only-lower-layers.test: ir/ including backend/ is an error.
#include "ir/Lowering.h"

#include "backend/LLVMEmitter.h"
#include "frontend/AST.h"
#include "target/TargetInfo.h"
