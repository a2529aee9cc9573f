#pragma once
// The sink interface is public: include/emutrace/sink.h.
#include "emutrace/sink.h"
