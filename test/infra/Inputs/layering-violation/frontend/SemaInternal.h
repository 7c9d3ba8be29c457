// Fixture for layers-include-only-lower-layers.test: the old place of TargetInfo.h.
#pragma once

#include "backend/TargetInfo.h"
#include "frontend/AST.h"
