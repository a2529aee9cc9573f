#pragma once
// The event model is public: include/emutrace/event.h.
#include "emutrace/event.h"
