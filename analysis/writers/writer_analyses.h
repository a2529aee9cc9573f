#pragma once
// The trace writers as registry rows: the CoreSight PFT stream and snapshot, and the event log.

#include "emutrace/analysis.h"

namespace emutrace::analysis {

AnalysisType pft_analysis();
AnalysisType event_log_analysis();

}  // namespace emutrace::analysis
