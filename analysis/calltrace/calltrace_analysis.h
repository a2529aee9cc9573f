#pragma once
// The call-trace analysis as a registry row: function entry/exit tracer, profile, timing
// constraints with their baseline check, and the Perfetto and compact-trace writers
// (docs/calltrace.md).

#include "emutrace/analysis.h"

namespace emutrace::analysis {

AnalysisType calltrace_analysis();

}  // namespace emutrace::analysis
