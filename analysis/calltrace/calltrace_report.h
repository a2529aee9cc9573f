#pragma once
// The call tracer's part of the --report page: constraints with slack, margins and each
// violation's call stack; the timeline of calls per thread; the profile as bars and as a
// flame graph; the execution frequencies (the entry/exit tracing paper's Figure 7).

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/calltrace/call_path_tree.h"
#include "analysis/calltrace/call_timeline.h"
#include "analysis/calltrace/profile.h"
#include "analysis/constraints/constraint_checker.h"
#include "analysis/constraints/constraint_margins.h"
#include "decode/source_lines.h"

namespace emutrace::analysis {

struct CalltraceReport {
    const CallTracer& tracer;
    const Profile& profile;
    const ConstraintChecker& checker;
    const ConstraintMargins& margins;
    const CallPathTree& paths;
    const CallTimeline& timeline;
    const decode::SourceLines& lines;
    std::uint64_t clock_hz = 0;
    std::uint64_t total_cycles = 0;
    std::string perfetto;        ///< the Perfetto file written beside, if any
    nlohmann::json regressions;  ///< against the baseline: [{name, measure, baseline, now, change}]
    std::string baseline;        ///< its path; empty: none
    std::string html() const;
};

}  // namespace emutrace::analysis
