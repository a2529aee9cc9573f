#pragma once
// The loop-context WCET analysis as a registry row (docs/wcet.md): measures the run, bounds the
// scenario's function with IPET, and fails the run when the bound is untrusted or over its limit.

#include "emutrace/analysis.h"

namespace emutrace::analysis::wcet {

AnalysisType wcet_analysis();

}  // namespace emutrace::analysis::wcet
