// The analyses built into emutrace. An in-tree analysis is a folder under analysis/ (its sources
// listed in the folder's sources.cmake) whose code defines
//     AnalysisType emutrace::analysis::<name>_analysis();
// and one row below. Registry order is report order.
#include "emutrace/registry.h"
#include "sources/registry.h"

// clang-format off
#define EMUTRACE_BUILTIN_ANALYSES(ROW) \
    ROW(calltrace)                     \
    ROW(wcet)                          \
    ROW(pft)                           \
    ROW(etm)                           \
    ROW(swo)                           \
    ROW(event_log)                     \
    ROW(sampler)                       \
    ROW(replay)                        \
    ROW(race)                          \
    ROW(coverage)                      \
    /* one row per analysis, above */
// clang-format on

namespace emutrace {
namespace analysis {
#define EMUTRACE_DECLARE(name) AnalysisType name##_analysis();
EMUTRACE_BUILTIN_ANALYSES(EMUTRACE_DECLARE)
#undef EMUTRACE_DECLARE
}  // namespace analysis

AnalysisRegistry AnalysisRegistry::builtin() {
    AnalysisRegistry r;
#define EMUTRACE_ADD(name) r.add(analysis::name##_analysis());
    EMUTRACE_BUILTIN_ANALYSES(EMUTRACE_ADD)
#undef EMUTRACE_ADD
    sources::add_builtin_sources(r);
    return r;
}

}  // namespace emutrace
