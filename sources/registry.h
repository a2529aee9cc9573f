#pragma once
// The recorded sources built into emutrace: one folder under sources/ per protocol (its codec
// from bytes to packets to events, and its row), and one row in registry.cpp. Each folder's code
// defines `SourceType emutrace::sources::<name>_source();`.

#include "emutrace/source.h"

namespace emutrace {
class AnalysisRegistry;
}

namespace emutrace::sources {

/// Adds every built-in source to `registry`, in registry order.
void add_builtin_sources(AnalysisRegistry& registry);

}  // namespace emutrace::sources
