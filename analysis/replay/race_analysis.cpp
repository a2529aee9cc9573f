// Race detection as a registry row: `emutrace replay LOG --races` runs the FastTrack-style
// detector (race_detector.h) on the replayed execution. The scenario's races: section names the
// functions whose memory accesses are synchronisation, not data (the RTOS kernel), by glob; the
// replay: section's functions always are.
#include <memory>

#include <nlohmann/json.hpp>

#include "analysis/replay/race_detector.h"
#include "analysis/replay/replay_config.h"
#include "config/json_text.h"
#include "config/units.h"
#include "decode/in_tree_setup.h"
#include "decode/program.h"
#include "decode/source_lines.h"
#include "emutrace/analysis.h"
#include "emutrace/config_error.h"

namespace emutrace::analysis {
namespace replay {
namespace {

constexpr std::size_t kListed = 20;  // races the summary lists

class RaceAnalysis final : public Analysis {
public:
    RaceAnalysis(const AnalysisSetup& setup, RaceConfig config) : setup_(setup), detector_(std::move(config)), lines_(setup.firmware()) {}
    std::vector<trace::TraceSink*> sinks() override { return {&detector_}; }
    std::string summary() const override {
        const auto& races = detector_.races();
        std::string s = "races: " + std::to_string(races.size()) + " racing pairs of access sites among " +
                        std::to_string(detector_.accesses_checked()) + " shared-memory accesses checked\n";
        for (std::size_t i = 0; i < races.size() && i < kListed; ++i) {
            const Race& r = races[i];
            s += "  " + setup_.describe(r.address) + " (" + config::hex32(r.address) + "), " + std::to_string(r.count) + "x:\n";
            s += "    " + site(r.earlier) + "\n    " + site(r.later) + "\n";
        }
        if (races.size() > kListed) s += "  ... and " + std::to_string(races.size() - kListed) + " more (--json has all)\n";
        return s;
    }
    std::string json() const override {
        nlohmann::json list = nlohmann::json::array();
        for (const Race& r : detector_.races())
            list.push_back({{"address", config::hex32(r.address)},
                            {"symbol", setup_.describe(r.address)},
                            {"count", r.count},
                            {"earlier", access_json(r.earlier)},
                            {"later", access_json(r.later)}});
        return config::json_text(nlohmann::json{{"checked_accesses", detector_.accesses_checked()}, {"races", list}});
    }

private:
    std::string thread(std::uint32_t t) const { return detector_.context_names().name(t); }
    std::string where(std::uint32_t pc) const {
        auto line = lines_.at(pc);
        return setup_.describe(pc) + (line ? " (" + *line + ")" : "");
    }
    std::string site(const RaceAccess& a) const {
        return std::string(a.write ? "write" : "read ") + " by " + thread(a.thread) + " at " + where(a.pc);
    }
    nlohmann::json access_json(const RaceAccess& a) const {
        auto line = lines_.at(a.pc);
        return {{"thread", thread(a.thread)},
                {"pc", config::hex32(a.pc)},
                {"function", setup_.describe(a.pc)},
                {"line", line ? *line : ""},
                {"write", a.write}};
    }

    const AnalysisSetup& setup_;
    RaceDetector detector_;
    decode::SourceLines lines_;
};

std::unique_ptr<Analysis> create(const AnalysisSetup& setup) {
    config::Node section = setup.section("races");
    if (!setup.flag("races")) {
        if (section.defined()) section.allow_only({"ignore", "stack_slack"});
        return nullptr;
    }
    if (!setup.flag("replay")) throw ConfigError("--races: races are found in a replay: emutrace replay LOG --races (docs/replay.md)");
    config::Node replay_section = setup.section("replay");
    if (!has_replay_config(setup))
        throw ConfigError("--races: the scenario has no replay: section naming the synchronisation functions, nor an rtos: preset");
    RaceConfig c;
    ReplaySection replay = parse_replay_section(setup, replay_section);
    c.watches = replay.calls.watches;
    std::vector<std::string> globs;
    if (section.defined()) {
        section.allow_only({"ignore", "stack_slack"});
        if (section.has("ignore"))
            for (const config::Node& g : section["ignore"].items()) globs.push_back(g.str());
        if (section.has("stack_slack")) c.stack_slack = static_cast<std::uint32_t>(section["stack_slack"].integer());
    }
    for (const auto& [at, call] : c.watches) globs.push_back(call.function);
    for (std::string& f : kernel_functions(setup)) globs.push_back(std::move(f));  // the RTOS's own state
    c.ignored = function_ranges(in_tree(setup).program(), globs);
    c.ignored.insert(c.ignored.end(), replay.instrumentation.begin(), replay.instrumentation.end());  // the recorder's ring
    return std::make_unique<RaceAnalysis>(setup, std::move(c));
}

}  // namespace
}  // namespace replay

AnalysisType race_analysis() {
    return {"races",
            "data races (FastTrack over RAM accesses, handlers as threads) in a replayed execution, with both access sites",
            {"races"},
            {},
            {{"races", "", "Find data races in the replay (emutrace replay LOG --races; the races: section ignores the RTOS's functions)"}},
            trace::WantMemory | trace::WantWatches | trace::WantExceptions | trace::WantBranches | trace::WantMmio,
            &replay::create};
}

}  // namespace emutrace::analysis
