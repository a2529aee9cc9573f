#pragma once
// Scenario nodes are public: include/emutrace/config.h.
#include "emutrace/config.h"
