// The recorded sources built into emutrace. A source is a folder under sources/ (its files listed
// in the folder's sources.cmake) and one row below.
#include "sources/registry.h"

#include "config/units.h"
#include "emutrace/config_error.h"
#include "emutrace/registry.h"

// clang-format off
#define EMUTRACE_BUILTIN_SOURCES(ROW) \
    ROW(ptm)                          \
    ROW(etm)                          \
    ROW(ring)                         \
    ROW(swo)                          \
    /* one row per source, above */
// clang-format on

namespace emutrace::sources {

#define EMUTRACE_DECLARE(name) SourceType name##_source();
EMUTRACE_BUILTIN_SOURCES(EMUTRACE_DECLARE)
#undef EMUTRACE_DECLARE

std::uint8_t trace_id_option(const AnalysisSetup& setup, const std::string& name, unsigned lowest, unsigned highest) {
    const std::optional<std::string> given = setup.flag(name);
    if (!given || given->empty()) return 0;
    const std::optional<std::uint64_t> id = config::parse_integer(*given);
    if (!id || *id < lowest || *id > highest)
        throw ConfigError("--" + name + ": expected a trace ID from " + std::to_string(lowest) + " to " + std::to_string(highest) + ", got '" +
                          given->substr(0, 40) + "'");
    return static_cast<std::uint8_t>(*id);
}

void add_builtin_sources(AnalysisRegistry& registry) {
#define EMUTRACE_ADD(name) registry.add(name##_source());
    EMUTRACE_BUILTIN_SOURCES(EMUTRACE_ADD)
#undef EMUTRACE_ADD
}

}  // namespace emutrace::sources
