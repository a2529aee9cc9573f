#pragma once
// The recorded sources built into emutrace: one folder under sources/ per protocol (its codec
// from bytes to packets to events, and its row), and one row in registry.cpp. Each folder's code
// defines `SourceType emutrace::sources::<name>_source();`.

#include <cstdint>
#include <string>

#include "emutrace/source.h"

namespace emutrace {
class AnalysisRegistry;
}

namespace emutrace::sources {

/// Adds every built-in source to `registry`, in registry order.
void add_builtin_sources(AnalysisRegistry& registry);

/// A source's trace-ID option `name` (--trace-id, --tpiu-id): 0 when not given, else a number from
/// `lowest` to `highest` (a ConfigError naming the option otherwise).
std::uint8_t trace_id_option(const AnalysisSetup& setup, const std::string& name, unsigned lowest, unsigned highest);

}  // namespace emutrace::sources
