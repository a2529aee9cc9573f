// Recording for record/replay as a registry row: the replay: section names which firmware
// functions are which synchronisation operation and which devices are inputs; --record LOG writes
// the run's events with their happens-before links (docs/replay.md).
#include <cstdio>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "analysis/replay/recorder.h"
#include "config/config_error.h"
#include "decode/elf_image.h"
#include "decode/instruction_decoder.h"
#include "decode/program.h"
#include "emutrace/analysis.h"

namespace emutrace::analysis {
namespace replay {
namespace {

const std::pair<const char*, Operation> kRoles[] = {
    {"lock", Operation::Lock},     {"unlock", Operation::Unlock}, {"send", Operation::Send},   {"receive", Operation::Receive},
    {"create", Operation::Create}, {"delete", Operation::Delete}, {"delay", Operation::Delay}, {"yield", Operation::Yield},
};

// The addresses of a function's return instructions: the last instruction of each block that
// returns. Fails on a function that can leave otherwise (a tail call): its acquisition would
// happen in another function.
std::vector<std::uint32_t> returns_of(const decode::ElfImage& image, const decode::Function& f, const config::Node& where) {
    decode::InstructionDecoder decoder(f.isa);
    std::vector<std::uint32_t> out;
    for (const auto& b : f.blocks) {
        if (b.exit == decode::BlockExit::TailCall || b.exit == decode::BlockExit::Indirect || b.falls_out)
            where.fail(f.name + " can leave other than by a return (a tail call or an indirect branch): its end cannot be watched");
        if (b.exit != decode::BlockExit::Return) continue;
        std::vector<std::uint8_t> bytes = image.bytes_at(b.start, b.end - b.start);
        std::vector<decode::Instruction> insns = decoder.decode(bytes, b.start);
        if (!insns.empty()) out.push_back(insns.back().address);
    }
    if (out.empty()) where.fail(f.name + " never returns: an acquisition in it cannot be recorded");
    return out;
}

RecorderConfig parse(const AnalysisSetup& setup, const config::Node& n) {
    std::vector<std::string> keys = {"inputs", "interrupts"};
    for (const auto& [role, op] : kRoles) keys.push_back(role);
    n.allow_only(keys);
    RecorderConfig c;
    const decode::Program& program = setup.program();
    for (const auto& [role, op] : kRoles) {
        if (!n.has(role)) continue;
        for (const config::Node& item : n[role].items()) {
            const std::string name = item.str();
            const decode::Function* f = program.function(name);
            if (!f) item.fail("no function '" + name + "' with a size in " + setup.firmware() + "'s symbol table");
            const bool acquisition = op == Operation::Lock || op == Operation::Receive;
            auto add = [&](std::uint32_t at, bool at_return) {
                if (!c.watches.emplace(at, WatchedCall{op, at_return, name}).second) item.fail(name + " is named twice in replay:");
            };
            add(f->start, false);
            if (acquisition)
                for (std::uint32_t at : returns_of(setup.image(), *f, item)) add(at, true);
        }
    }
    if (n.has("inputs"))
        for (const config::Node& item : n["inputs"].items()) c.input_devices.push_back(item.str());
    if (n.has("interrupts")) c.interrupts = n["interrupts"].boolean();
    if (c.watches.empty()) n.fail("replay: names no synchronisation function (lock, unlock, send, receive, create, delete, delay, yield)");
    return c;
}

class ReplayAnalysis final : public Analysis {
public:
    ReplayAnalysis(RecorderConfig config, std::string path) : points_(addresses(config)), recorder_(std::move(config)), path_(std::move(path)) {}
    std::vector<trace::TraceSink*> sinks() override { return {&recorder_}; }
    std::vector<std::uint32_t> watch_points() const override { return points_; }
    void finish(const SourceTotals&) override {
        if (!path_.empty()) recorder_.log().save(path_);
    }
    std::string summary() const override {
        const EventLog& log = recorder_.log();
        std::string s = "replay: recorded " + std::to_string(log.events.size()) + " events of " + std::to_string(recorder_.threads()) + " threads (";
        bool first = true;
        for (const auto& [op, n] : counts()) {
            s += (first ? "" : ", ") + std::string(operation_name(op)) + " " + std::to_string(n);
            first = false;
        }
        return s + ")" + (path_.empty() ? "" : " into " + path_) + "\n";
    }
    std::string json() const override {
        nlohmann::json by_op = nlohmann::json::object();
        for (const auto& [op, n] : counts()) by_op[operation_name(op)] = n;
        return nlohmann::json{{"events", recorder_.log().events.size()}, {"threads", recorder_.threads()}, {"operations", by_op}, {"log", path_}}
            .dump();
    }

private:
    static std::vector<std::uint32_t> addresses(const RecorderConfig& c) {
        std::vector<std::uint32_t> out;
        for (const auto& [at, call] : c.watches) out.push_back(at);
        return out;
    }
    std::map<Operation, std::size_t> counts() const {
        std::map<Operation, std::size_t> n;
        for (const auto& e : recorder_.log().events) ++n[e.op];
        return n;
    }

    std::vector<std::uint32_t> points_;
    Recorder recorder_;
    std::string path_;
};

std::unique_ptr<Analysis> create(const AnalysisSetup& setup) {
    config::Node section = setup.section("replay");
    std::string path = setup.output("record");
    if (!section.defined()) {
        if (!path.empty()) throw ConfigError("--record: the scenario has no replay: section naming the synchronisation functions (docs/replay.md)");
        return nullptr;
    }
    if (!setup.emulated()) throw ConfigError("replay: recording needs an emulated run");
    return std::make_unique<ReplayAnalysis>(parse(setup, section), path);
}

}  // namespace
}  // namespace replay

AnalysisType replay_analysis() {
    return {"replay",
            "record/replay (P-Replayer): records the synchronisation and input events of the configured functions and devices with their "
            "happens-before links",
            {"replay"},
            {{"record", "LOG", "Write the run's synchronisation and input events as a replay log (needs a replay: section)"}},
            {},
            trace::WantWatches | trace::WantExceptions | trace::WantMmio,
            &replay::create};
}

}  // namespace emutrace::analysis
