#pragma once
// The execution-time estimate (ExecutionTimes) as the summary's table and as JSON, for a
// recording (its overhead is the firmware-side recorder's alone) and for a replay.

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/replay/execution_times.h"
#include "emutrace/analysis.h"

namespace emutrace::analysis::replay {

/// `replayer` gives the per-thread event counts (n_nd, n_d); null for a recording.
nlohmann::json times_json(const ExecutionTimes& times, const Replayer* replayer, const SourceTotals& totals, const AnalysisSetup& setup);
/// A few lines: the program's work, overhead and estimate, then the busiest contexts.
std::string times_summary(const nlohmann::json& times);

}  // namespace emutrace::analysis::replay
