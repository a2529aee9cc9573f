#pragma once
// The whole public surface of libemutrace in one include.

#include "emutrace/analysis.h"
#include "emutrace/config.h"
#include "emutrace/event.h"
#include "emutrace/plugin.h"
#include "emutrace/registry.h"
#include "emutrace/session.h"
#include "emutrace/sink.h"
#include "emutrace/source.h"
#include "emutrace/version.h"
