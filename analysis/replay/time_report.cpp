#include "analysis/replay/time_report.h"

#include <algorithm>

#include "analysis/replay/replayer.h"
#include "config/units.h"

namespace emutrace::analysis::replay {
namespace {

using config::grouped;

constexpr std::size_t kListed = 8;  // contexts the summary lists

}  // namespace

nlohmann::json times_json(const ExecutionTimes& times, const Replayer* replayer, const SourceTotals& totals, const AnalysisSetup& setup) {
    nlohmann::json threads = nlohmann::json::array(), functions = nlohmann::json::array();
    std::uint64_t cycles = 0, overhead = 0, recorder_calls = 0;
    for (const auto& [id, t] : times.contexts()) {
        cycles += t.cycles;
        overhead += t.instrumentation + t.hold;
        recorder_calls += t.recorder_calls;
        const std::size_t events = replayer ? replayer->events_of(id) : 0, delayed = replayer ? replayer->delayed_of(id) : 0;
        threads.push_back({{"thread", times.context_names().name(id, false)},
                           {"id", config::hex32(id)},
                           {"cycles", t.cycles},
                           {"instrumentation", t.instrumentation},
                           {"recorder_calls", t.recorder_calls},
                           {"hold", t.hold},
                           {"estimate", t.estimate()},
                           {"events", events},
                           {"delayed", delayed},
                           // Equation 5' per event, as measured: c_nd from the recorder's cycles, c_d from the holds'.
                           {"c_nd", events ? static_cast<double>(t.instrumentation) / static_cast<double>(events) : 0.0},
                           {"c_d", delayed ? static_cast<double>(t.hold) / static_cast<double>(delayed) : 0.0}});
    }
    for (const auto& [f, t] : times.functions())
        functions.push_back({{"function", setup.describe(f)}, {"calls", t.calls}, {"cycles", t.cycles}, {"estimate", t.estimate()}});
    const std::uint64_t sleep = std::min(totals.sleep_cycles, cycles), work = cycles - sleep;
    return {{"cycles", cycles},
            {"sleep", sleep},
            {"work", work},
            {"overhead", overhead},
            {"recorder_calls", recorder_calls},
            {"estimate", work - std::min(work, overhead)},
            {"threads", threads},
            {"functions", functions}};
}

std::string times_summary(const nlohmann::json& times) {
    std::string s = "  execution time: work " + grouped(times["work"]) + " cycles, replay overhead " + grouped(times["overhead"]) +
                    " (the firmware's recorder and the holds; attached analyses cost none): estimate " + grouped(times["estimate"]) + "\n";
    std::vector<nlohmann::json> rows(times["threads"].begin(), times["threads"].end());
    std::sort(rows.begin(), rows.end(),
              [](const auto& a, const auto& b) { return a["cycles"].template get<std::uint64_t>() > b["cycles"].template get<std::uint64_t>(); });
    char line[160];
    std::snprintf(line, sizeof line, "    %-16s %12s %10s %10s %12s %7s %7s\n", "thread", "cycles", "recorder", "holds", "estimate", "events",
                  "delayed");
    s += line;
    for (std::size_t i = 0; i < rows.size() && i < kListed; ++i) {
        const auto& r = rows[i];
        std::snprintf(line, sizeof line, "    %-16s %12s %10s %10s %12s %7zu %7zu\n", r["thread"].get<std::string>().c_str(),
                      grouped(r["cycles"]).c_str(), grouped(r["instrumentation"]).c_str(), grouped(r["hold"]).c_str(), grouped(r["estimate"]).c_str(),
                      r["events"].get<std::size_t>(), r["delayed"].get<std::size_t>());
        s += line;
    }
    return s;
}

}  // namespace emutrace::analysis::replay
