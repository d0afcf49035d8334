// The log sink lives in the public API (include/devplace/log.h).
#pragma once

#include "devplace/log.h"
