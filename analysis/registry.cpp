// The analyses built into emutrace: one row each. An in-tree analysis is a folder under analysis/
// with a function returning its AnalysisType, plus its row here.
#include "analysis/calltrace/calltrace_analysis.h"
#include "analysis/wcet/wcet_analysis.h"
#include "analysis/writers/writer_analyses.h"
#include "emutrace/registry.h"

namespace emutrace {

AnalysisRegistry AnalysisRegistry::builtin() {
    AnalysisRegistry r;
    r.add(analysis::calltrace_analysis());
    r.add(analysis::wcet::wcet_analysis());
    r.add(analysis::pft_analysis());
    r.add(analysis::event_log_analysis());
    return r;
}

}  // namespace emutrace
