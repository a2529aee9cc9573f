// The recorded sources built into emutrace. A source is a folder under sources/ (its files listed
// in the folder's sources.cmake) and one row below.
#include "sources/registry.h"

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

void add_builtin_sources(AnalysisRegistry& registry) {
#define EMUTRACE_ADD(name) registry.add(name##_source());
    EMUTRACE_BUILTIN_SOURCES(EMUTRACE_ADD)
#undef EMUTRACE_ADD
}

}  // namespace emutrace::sources
