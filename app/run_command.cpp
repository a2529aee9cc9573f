#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>

#include "analysis/writers/event_log_writer.h"
#include "analysis/writers/pft_writer.h"
#include "app/commands.h"
#include "app/run_report.h"
#include "app/trace_analysis.h"
#include "app/wcet_report.h"
#include "config/units.h"
#include "decode/elf_image.h"
#include "emu/machine.h"
#include "trace/background_sink.h"

namespace emutrace::app {
namespace {

// Command-line flags override the scenario file.
void apply_flags(const RunOptions& o, Scenario& sc) {
    emu::MachineConfig& m = sc.machine;
    if (o.cpu) {
        auto core = models::find_core(*o.cpu);
        if (!core) throw ConfigError("--cpu: unknown core '" + *o.cpu + "' (known: " + models::core_names() + ")");
        m.core = *core;
    }
    if (o.clock) {
        auto hz = config::parse_frequency(*o.clock);
        if (!hz) throw ConfigError("--clock: expected a frequency such as 168MHz, got '" + *o.clock + "'");
        m.clock_hz = *hz;
    }
    if (o.timing) {
        if (*o.timing != "trm" && *o.timing != "none") throw ConfigError("--timing: expected trm or none, got '" + *o.timing + "'");
        m.timing = *o.timing == "none" ? emu::TimingMode::None : emu::TimingMode::Trm;
    }
    if (o.max_instructions) m.stop.max_instructions = *o.max_instructions;
    if (o.wall_clock_seconds) m.stop.wall_clock_seconds = *o.wall_clock_seconds;
    if (o.stop_at) m.stop.at_symbol = *o.stop_at;
    if (o.cmdline) m.semihosting.cmdline = *o.cmdline;
    if (o.json) sc.outputs.json = *o.json;
    if (o.events) sc.outputs.events = *o.events;
    if (o.junit) sc.outputs.junit = *o.junit;
    if (o.perfetto) sc.outputs.perfetto = *o.perfetto;
    if (o.trace) sc.outputs.trace = *o.trace;
    if (o.pft) sc.outputs.pft = *o.pft;
    if (o.snapshot) sc.outputs.snapshot = *o.snapshot;
    if (o.calltrace || !sc.outputs.perfetto.empty() || !sc.outputs.trace.empty()) sc.calltrace.enabled = true;
}

void write_json(const std::string& path, const nlohmann::json& j) {
    std::ofstream out(path);
    if (!out) throw ConfigError(path + ": cannot write the JSON result");
    out << j.dump(2) << "\n";
}

// The ELF to run: the command line's, else the one the scenario names (a path, or the name of
// an ELF the build put next to the emutrace binary, in firmware/).
std::string firmware_path(const RunOptions& o, const Scenario& sc) {
    if (!o.elf.empty()) return o.elf;
    if (sc.firmware.empty())
        throw ConfigError("no firmware: give an ELF on the command line, or a scenario with a 'firmware:' key");
    if (sc.firmware.find('/') != std::string::npos) return sc.firmware;
    std::error_code ec;
    std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    std::filesystem::path elf = exe.parent_path() / "firmware" / (sc.firmware + ".elf");
    if (!std::filesystem::exists(elf))
        throw ConfigError(sc.file + ": firmware '" + sc.firmware + "' is not built (looked for " + elf.string() +
                          "); build it with cmake --build, or give the ELF on the command line");
    return elf.string();
}

}  // namespace

int run_command(const RunOptions& o) {
    Scenario sc = o.scenario.empty() ? default_scenario() : load_scenario_file(o.scenario);
    apply_flags(o, sc);
    std::string elf = firmware_path(o, sc);
    decode::ElfImage image = decode::ElfImage::load(elf);

    std::unique_ptr<WcetSession> wcet;
    if (sc.wcet.enabled) {
        wcet = std::make_unique<WcetSession>(image);
        wcet->configure(sc.machine);
    }
    std::unique_ptr<emu::Machine> machine;
    try {
        machine = std::make_unique<emu::Machine>(std::move(sc.machine), image);
    } catch (const ConfigError& e) {
        throw ConfigError(sc.file + ": " + e.what());
    }
    std::unique_ptr<TraceAnalysis> analysis;
    if (sc.calltrace.enabled) {
        analysis = std::make_unique<TraceAnalysis>(sc, image, machine->config().clock_hz);
        analysis->attach(*machine);
    }
    std::unique_ptr<analysis::EventLogWriter> event_log;
    if (!sc.outputs.events.empty()) {
        event_log = std::make_unique<analysis::EventLogWriter>(sc.outputs.events);
        machine->add_sink(*event_log);
    }
    std::unique_ptr<analysis::PftWriter> pft;
    std::unique_ptr<trace::BackgroundSink> pft_thread;  // the encoder overlaps the emulation
    if (!sc.outputs.pft.empty() || !sc.outputs.snapshot.empty()) {
        pft = std::make_unique<analysis::PftWriter>(analysis::PftOutput{sc.outputs.pft, sc.outputs.snapshot, false, sc.pft}, image);
        pft_thread = std::make_unique<trace::BackgroundSink>(*pft);
        machine->add_sink(*pft_thread);
    }
    if (wcet) wcet->attach(*machine);
    emu::RunResult result = machine->run();
    sc.machine.core = machine->config().core;
    sc.machine.clock_hz = machine->config().clock_hz;
    sc.machine.timing = machine->config().timing;

    if (analysis) analysis->apply_event_budget(result.emulated_seconds);
    nlohmann::json j = to_json(sc, elf, result);
    nlohmann::json regressions = nlohmann::json::array();
    if (analysis) {
        j["calltrace"] = analysis->to_json();
        if (o.baseline) {
            std::ifstream in(*o.baseline);
            nlohmann::json base = nlohmann::json::parse(in, nullptr, false);
            if (!in || base.is_discarded()) throw ConfigError(*o.baseline + ": not a JSON result of emutrace run --json");
            regressions = analysis->regressions(base, o.regression_threshold);
            j["regressions"] = regressions;
        }
        if (!sc.outputs.junit.empty()) analysis->write_junit(sc.outputs.junit, sc.file);
        if (!sc.outputs.perfetto.empty()) analysis->write_perfetto(sc.outputs.perfetto);
        if (!sc.outputs.trace.empty()) analysis->write_compact_trace(sc.outputs.trace);
    }
    if (pft) {
        const decode::PftStats& p = pft->stats();
        j["pft"] = {{"bytes", p.bytes},       {"atoms", p.atoms}, {"branch_addresses", p.branch_addresses}, {"exceptions", p.exceptions},
                    {"exception_returns", p.exception_returns}, {"waypoint_updates", p.waypoint_updates}, {"syncs", p.syncs},
                    {"cycle_accurate", sc.pft.cycle_accurate}, {"trace_id", sc.pft.trace_id}};
    }
    std::optional<analysis::wcet::WcetResult> bound;
    if (wcet) {
        bound = wcet->bound(wcet->statistics({}, true), {sc.wcet.function, sc.wcet.flow_facts, {}});
        j["wcet"] = wcet_json(*bound, sc.machine.clock_hz);
        if (sc.wcet.max_cycles) j["wcet"]["max_cycles"] = sc.wcet.max_cycles;
    }
    if (!sc.outputs.json.empty()) write_json(sc.outputs.json, j);
    if (o.verbosity != Verbosity::Quiet) {
        std::fputs(format_summary(sc, elf, result).c_str(), stderr);
        if (analysis) std::fputs(analysis->summary(result.cycles).c_str(), stderr);
        if (bound) std::fputs(format_wcet(*bound, sc.machine.clock_hz).c_str(), stderr);
        if (pft) {
            const decode::PftStats& p = pft->stats();
            std::fprintf(stderr, "PFT trace: %llu bytes (%.2f bits/instruction), %llu atoms, %llu branch addresses, %llu exceptions%s%s%s%s\n",
                         static_cast<unsigned long long>(p.bytes),
                         result.instructions ? 8.0 * static_cast<double>(p.bytes) / static_cast<double>(result.instructions) : 0.0,
                         static_cast<unsigned long long>(p.atoms), static_cast<unsigned long long>(p.branch_addresses),
                         static_cast<unsigned long long>(p.exceptions), sc.outputs.pft.empty() ? "" : " -> ", sc.outputs.pft.c_str(),
                         sc.outputs.snapshot.empty() ? "" : ", snapshot ", sc.outputs.snapshot.c_str());
        }
    }
    if (result.reason != emu::StopReason::Exited && result.reason != emu::StopReason::SymbolReached)
        std::fprintf(stderr, "emutrace: error: %s: %s\n", elf.c_str(), result.message.c_str());
    for (const auto& r : regressions)
        std::fprintf(stderr, "emutrace: regression: %s %s %.0f cycles, %+.1f%% against the baseline's %.0f (threshold %+.1f%%)\n",
                     r["name"].get<std::string>().c_str(), r["measure"].get<std::string>().c_str(), r["now"].get<double>(),
                     100 * r["change"].get<double>(), r["baseline"].get<double>(), 100 * o.regression_threshold);
    int status = emu::exit_status(result);
    if (status == 0 && !regressions.empty()) return 1;
    if (status == 0 && bound && (wcet_untrusted(*bound) || wcet_limit_exceeded(*bound, sc.wcet.max_cycles))) return 1;
    // A violated timing constraint fails the run (status 1) when nothing worse happened.
    if (status == 0 && analysis && !analysis->constraints_passed()) {
        std::fprintf(stderr, "emutrace: timing constraints violated\n");
        return 1;
    }
    return status;
}

}  // namespace emutrace::app
