// devplace::Error lives in the public API (include/devplace/error.h).
#pragma once

#include "devplace/error.h"
