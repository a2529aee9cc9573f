// Record/replay as a registry row (docs/replay.md). The replay: section names which firmware
// functions are which synchronisation operation and which devices are inputs. `--record LOG`
// writes a run's events with their happens-before links; `--replay LOG` (emutrace replay) runs the
// firmware again with the log as its outside world, holds threads to keep the recorded order, and
// stops at the first event that differs.
#include <cstdio>
#include <map>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "analysis/replay/dump_log.h"
#include "analysis/replay/log_translation.h"
#include "analysis/replay/replay_campaign.h"
#include "analysis/replay/replay_config.h"
#include "analysis/replay/time_report.h"
#include "config/json_text.h"
#include "config/units.h"
#include "decode/elf_image.h"
#include "decode/in_tree_setup.h"
#include "emutrace/analysis.h"
#include "emutrace/config_error.h"

namespace emutrace::analysis {
namespace replay {
namespace {

std::string operation_counts(const std::map<Operation, std::size_t>& counts) {
    std::string s;
    for (const auto& [op, n] : counts) s += (s.empty() ? "" : ", ") + std::string(operation_name(op)) + " " + std::to_string(n);
    return s;
}

class RecordAnalysis final : public Analysis {
public:
    /// `times`: also measure execution times (costs the recording the stream's branch events).
    /// The log is written as the run goes: a recording of days keeps none of its events in memory.
    RecordAnalysis(const AnalysisSetup& setup, ReplaySection section, std::string path, bool times)
        : setup_(setup), points_(watch_addresses(section.calls)), recorder_(std::move(section.calls)),
          times_(std::move(section.instrumentation), nullptr, section.site_cycles), path_(std::move(path)), measure_times_(times) {
        if (!path_.empty()) writer_.emplace(path_), recorder_.write_to(&*writer_);
    }
    std::vector<trace::TraceSink*> sinks() override {
        if (measure_times_) return {&recorder_, &times_};
        return {&recorder_};
    }
    std::vector<std::uint32_t> watch_points() const override { return points_; }
    void finish(const SourceTotals& totals) override {
        if (writer_) writer_->finish(kEmulatedCycles | (totals.complete ? kComplete : 0), recorder_.log().timing);
        if (measure_times_) times_json_ = times_json(times_, nullptr, totals, setup_);
    }
    std::string summary() const override {
        return "replay: recorded " + std::to_string(recorder_.events()) + " events of " + std::to_string(recorder_.threads()) + " threads (" +
               operation_counts(recorder_.operations()) + ")" + (path_.empty() ? "" : " into " + path_) + "\n";
    }
    std::string json() const override {
        nlohmann::json by_op = nlohmann::json::object();
        for (const auto& [op, n] : recorder_.operations()) by_op[operation_name(op)] = n;
        return config::json_text(nlohmann::json{{"mode", "record"},
                                                {"events", recorder_.events()},
                                                {"threads", recorder_.threads()},
                                                {"operations", by_op},
                                                {"log", path_},
                                                {"times", times_json_}});
    }

private:
    const AnalysisSetup& setup_;
    std::vector<std::uint32_t> points_;
    Recorder recorder_;
    ExecutionTimes times_;
    std::string path_;
    std::optional<EventLogWriter> writer_;
    bool measure_times_;
    nlohmann::json times_json_;
};

class ReplayAnalysis final : public Analysis {
public:
    /// `log_name`: the file the log came from (a log, or a device's memory dump).
    ReplayAnalysis(const AnalysisSetup& setup, ReplaySection section, EventLog log, std::string log_name, std::string record_path, bool in_order)
        : setup_(setup), points_(watch_addresses(section.calls)), hold_(section.hold ? section.hold->name : ""),
          replayer_(ReplayConfig{std::move(section.calls), section.hold, 2000, in_order}, std::move(log), in_tree(setup).image()),
          times_(std::move(section.instrumentation), &replayer_, section.site_cycles), log_path_(std::move(log_name)),
          record_path_(std::move(record_path)) {}
    std::vector<trace::TraceSink*> sinks() override { return {&replayer_, &times_}; }
    std::vector<std::uint32_t> watch_points() const override { return points_; }
    trace::Steering* steering() override { return &replayer_; }
    void finish(const SourceTotals& totals) override {
        times_json_ = times_json(times_, &replayer_, totals, setup_);
        if (record_path_.empty()) return;
        EventLog out = replayer_.replayed();
        out.flags = kEmulatedCycles | (totals.complete && !replayer_.divergence() ? kComplete : 0);
        out.save(record_path_);
    }
    std::string summary() const override {
        const std::size_t total = replayer_.expected().events.size();
        std::string s =
            "replay: " + log_path_ + ": " + std::to_string(replayer_.reproduced()) + " of " + std::to_string(total) + " events reproduced";
        if (const auto& d = replayer_.divergence()) {
            s += "; DIVERGED at " + (d->expected ? "event #" + std::to_string(d->expected->seq) : std::string("an event beyond the log")) +
                 ", thread " + thread(d->seen.thread) + ", cycle " + std::to_string(d->cycle) + " (" + d->why + ")\n";
            s += "  expected: " + (d->expected ? shown(*d->expected, d->seen) : std::string("(no more events of this thread)")) + "\n";
            s += "  seen:     " + (d->expected ? shown(d->seen, *d->expected) : text(d->seen)) + "\n";
            s += "  at " + setup_.describe(d->pc) + ", call stack: " + stack(d->stack) + "\n";
            return s;
        }
        s += order_identical() ? "; the same global order" : "; the same happens-before order (the global order differs)";
        s += "; interrupts delivered " + std::string(replayer_.by_cycle() ? "at their recorded cycles" : "in order");
        s += "; threads held " + std::to_string(replayer_.holds()) + " times";
        if (replayer_.holds()) s += " (" + std::to_string(replayer_.held_cycles()) + " cycles in " + hold_ + ")";
        s += "\n";
        if (auto m = replayer_.first_missing())
            s += "  " + std::to_string(replayer_.missing()) + " events never ran; the first: #" + std::to_string(m->seq) + " " + text(*m) +
                 " in thread " + thread(m->thread) + "\n";
        return s + times_summary(times_json_);
    }
    std::string json() const override {
        nlohmann::json j{{"mode", "replay"},
                         {"log", log_path_},
                         {"events", replayer_.expected().events.size()},
                         {"reproduced", replayer_.reproduced()},
                         {"same_global_order", order_identical()},
                         {"interrupts_by_cycle", replayer_.by_cycle()},
                         {"holds", replayer_.holds()},
                         {"held_cycles", replayer_.held_cycles()},
                         {"delayed_events", replayer_.delayed_events()},
                         {"divergence", nullptr},
                         {"times", times_json_}};
        if (const auto& d = replayer_.divergence()) {
            nlohmann::json stack_names = nlohmann::json::array();
            for (std::uint32_t f : d->stack) stack_names.push_back(setup_.describe(f));
            j["divergence"] = {{"event", d->expected ? d->expected->seq : 0},
                               {"thread", thread(d->seen.thread)},
                               {"cycle", d->cycle},
                               {"pc", config::hex32(d->pc)},
                               {"expected", d->expected ? shown(*d->expected, d->seen) : ""},
                               {"seen", d->expected ? shown(d->seen, *d->expected) : text(d->seen)},
                               {"why", d->why},
                               {"call_stack", stack_names}};
        }
        return config::json_text(j);
    }
    std::vector<std::string> failures() const override {
        if (const auto& d = replayer_.divergence())
            return {"replay of " + log_path_ + " diverged at " +
                    (d->expected ? "event #" + std::to_string(d->expected->seq) : std::string("an event beyond the log")) + " in thread " +
                    thread(d->seen.thread) + ": expected " + (d->expected ? text(*d->expected) : std::string("nothing")) + ", saw " + text(d->seen)};
        if (auto m = replayer_.first_missing())
            return {"replay of " + log_path_ + " ended with " + std::to_string(replayer_.missing()) + " events not reproduced, the first #" +
                    std::to_string(m->seq) + " " + text(*m)};
        return {};
    }

private:
    bool order_identical() const {
        const auto& a = replayer_.expected().events;
        const auto& b = replayer_.replayed().events;
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i].thread != b[i].thread || a[i].op != b[i].op || a[i].object != b[i].object || a[i].value != b[i].value) return false;
        return true;
    }
    std::string thread(std::uint32_t t) const { return replayer_.context_names().name(t); }
    std::string text(const LogEvent& e) const {
        std::string s = operation_name(e.op);
        switch (e.op) {
            case Operation::Interrupt:
                return s + "(exception " + std::to_string(e.object) + (e.object >= 16 ? " = IRQ " + std::to_string(e.object - 16) : "") + ", at " +
                       setup_.describe(e.value) + ")";
            case Operation::Delay: return s + "(" + std::to_string(e.value) + ")";
            case Operation::Create: return s + "(" + setup_.describe(e.object) + ")";
            case Operation::Input: return s + "(" + config::hex32(e.object) + " = " + config::hex32(e.value) + ")";
            case Operation::Send:
            case Operation::Receive: return s + "(" + setup_.describe(e.object) + ", " + std::to_string(e.value) + ")";
            default: return s + "(" + setup_.describe(e.object) + ")";
        }
    }
    // An event as a divergence shows it beside the other: where the two read the same (an
    // interrupt that differs only in being external, a value text() leaves out, two addresses one
    // symbol names alike), with every field that can differ.
    std::string shown(const LogEvent& e, const LogEvent& other) const {
        std::string s = text(e);
        if (s != text(other)) return s;
        return s + " [object " + config::hex32(e.object) + ", value " + config::hex32(e.value) + ", " +
               (e.flags & kExternal ? "external" : "internal") + "]";
    }
    std::string stack(const std::vector<std::uint32_t>& frames) const {
        if (frames.empty()) return "(unknown)";
        std::string s;
        for (std::uint32_t f : frames) s += (s.empty() ? "" : " > ") + setup_.describe(f);
        return s;
    }

    const AnalysisSetup& setup_;
    std::vector<std::uint32_t> points_;
    std::string hold_;
    Replayer replayer_;
    ExecutionTimes times_;
    nlohmann::json times_json_;
    std::string log_path_, record_path_;
};

std::unique_ptr<Analysis> create(const AnalysisSetup& setup) {
    config::Node section = setup.section("replay");
    const std::string record = setup.output("record");
    const std::optional<std::string> dump = setup.flag("from-dump");
    if (dump && setup.flag("replay")) throw ConfigError("--from-dump: replay either a log or a memory dump, not both");
    const std::string log = dump ? *dump : setup.flag("replay").value_or("");
    if (setup.flag("base") && !dump) throw ConfigError("--base: the address of a raw memory dump given with --from-dump");
    if (!has_replay_config(setup)) {
        if (!record.empty() || !log.empty())
            throw ConfigError(std::string(log.empty() ? "--record" : "replay") +
                              ": the scenario has no replay: section naming the synchronisation functions, nor an rtos: preset (docs/replay.md)");
        return nullptr;
    }
    ReplaySection parsed = parse_replay_section(setup, section);
    if (setup.flag("in-order") && log.empty()) throw ConfigError("--in-order: only a replay (--replay LOG, emutrace replay) delivers interrupts");
    if (log.empty() && record.empty()) return nullptr;  // the section is checked, but nothing to do: no watch points, no cost
    if (!setup.emulated()) throw ConfigError("replay: recording and replay need an emulated run");
    if (log.empty()) return std::make_unique<RecordAnalysis>(setup, std::move(parsed), record, setup.flag("times").has_value());
    EventLog expected;
    if (dump) {
        expected = log_from_dump(decode::MemoryDump::load(*dump, decode::parse_dump_base(setup.flag("base").value_or(""))), *dump);
    } else {
        expected = EventLog::load(log);
    }
    if (auto recorded_on = setup.flag("log-elf"))
        expected = translate_log(expected, decode::ElfImage::load(*recorded_on).symbols(), in_tree(setup).image().symbols(), *recorded_on);
    return std::make_unique<ReplayAnalysis>(setup, std::move(parsed), std::move(expected), log, record, setup.flag("in-order").has_value());
}

}  // namespace
}  // namespace replay

AnalysisType replay_analysis() {
    AnalysisType t{
        "replay",
        "record/replay (P-Replayer): records the synchronisation and input events of the configured functions and devices with their "
        "happens-before links; replays a log with the same order, stopping at the first event that differs",
        {"replay"},
        {{"record", "LOG", "Write the run's synchronisation and input events as a replay log (needs a replay: section)"}},
        {{"replay", "LOG", "Replay this log: inputs and external interrupts from it, its happens-before order kept (emutrace replay)"},
         {"from-dump", "DUMP",
          "Replay the log a firmware-side recorder (firmware/replay) left in this memory dump of the board: ELF core, Intel HEX, or raw with --base"},
         {"base", "ADDR", "Address of the first byte of a raw --from-dump dump, e.g. 0x20000000"},
         {"times", "",
          "With --record: also measure execution time per thread and function (JSON replay.times), the true figures a replay's estimate is "
          "judged against"},
         {"site-cycles", "N",
          "Cycles a call of the firmware-side recorder costs its caller, removed from the execution-time estimate (default calibrated in "
          "bench/bench_replay)"},
         {"log-elf", "ELF",
          "The build the log was recorded on, when another build is replayed: its mutexes, queues, threads and functions are matched by symbol"},
         {"in-order", "",
          "Deliver the log's interrupts once the events before them have run, not at their cycle (automatic when the core, clock or timing "
          "differ from the recording's)"}},
        trace::WantWatches | trace::WantExceptions | trace::WantMmio,
        &replay::create};
    t.campaign = replay_campaign();
    return t;
}

}  // namespace emutrace::analysis
