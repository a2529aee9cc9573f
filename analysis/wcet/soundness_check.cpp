#include "analysis/wcet/soundness_check.h"

#include <set>

#include "config/units.h"

namespace emutrace::analysis::wcet {
namespace {

std::uint64_t distance(std::uint64_t a, std::uint64_t b) {
    return a > b ? a - b : b - a;
}

std::string name_of(const decode::Program& program, std::uint32_t start) {
    for (const auto& f : program.functions())
        if (f.start == start) return f.name;
    return config::hex32(start);
}

}  // namespace

SoundnessReport check_soundness(const decode::Program& program, const StatisticsTable& run, const CallTimes& calls, std::uint64_t unmatched_returns,
                                std::uint64_t saturations, std::uint64_t granularity) {
    SoundnessReport r;
    r.switched_out = calls.switched_out();
    if (unmatched_returns)
        r.disagreements.push_back({0, std::to_string(unmatched_returns) + " returns matched no call on the call tracer's shadow stack"});
    if (saturations)
        r.disagreements.push_back(
            {0, std::to_string(saturations) + " returns matched no call in the loop context (or calls nested deeper than it follows)"});
    std::set<std::uint32_t> functions;
    for (const auto& [start, f] : run.functions) functions.insert(start);
    for (const auto& [start, t] : calls.times()) functions.insert(start);
    const TimeStat none;
    for (std::uint32_t start : functions) {
        auto a = run.functions.find(start);
        auto c = calls.times().find(start);
        const TimeStat& cfg = a == run.functions.end() ? none : a->second.time;
        const TimeStat& branches = c == calls.times().end() ? none : c->second;
        std::string what;
        if (cfg.count != branches.count)
            what = std::to_string(cfg.count) + " runs from the CFG, " + std::to_string(branches.count) + " from the branch events";
        else if (distance(cfg.max, branches.max) > granularity)
            what = "longest run " + std::to_string(cfg.max) + " cycles from the CFG, " + std::to_string(branches.max) + " from the branch events";
        else if (distance(cfg.total, branches.total) > granularity * cfg.count)
            what = "total " + std::to_string(cfg.total) + " cycles from the CFG, " + std::to_string(branches.total) + " from the branch events";
        if (!what.empty()) r.disagreements.push_back({start, name_of(program, start) + " (" + config::hex32(start) + "): " + what});
    }
    return r;
}

}  // namespace emutrace::analysis::wcet
