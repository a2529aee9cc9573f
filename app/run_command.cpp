#include <spdlog/spdlog.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "analysis/writers/event_log_writer.h"
#include "app/commands.h"
#include "app/run_report.h"
#include "config/units.h"
#include "decode/elf_image.h"
#include "emu/machine.h"

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
}

void write_json(const std::string& path, const nlohmann::json& j) {
    std::ofstream out(path);
    if (!out) throw ConfigError(path + ": cannot write the JSON result");
    out << j.dump(2) << "\n";
}

}  // namespace

int run_command(const RunOptions& o) {
    Scenario sc = o.scenario.empty() ? default_scenario() : load_scenario_file(o.scenario);
    apply_flags(o, sc);
    decode::ElfImage image = decode::ElfImage::load(o.elf);

    std::unique_ptr<emu::Machine> machine;
    try {
        machine = std::make_unique<emu::Machine>(std::move(sc.machine), image);
    } catch (const ConfigError& e) {
        throw ConfigError(sc.file + ": " + e.what());
    }
    std::unique_ptr<analysis::EventLogWriter> event_log;
    if (!sc.outputs.events.empty()) {
        event_log = std::make_unique<analysis::EventLogWriter>(sc.outputs.events);
        machine->add_sink(*event_log);
    }
    emu::RunResult result = machine->run();
    sc.machine.core = machine->config().core;
    sc.machine.clock_hz = machine->config().clock_hz;
    sc.machine.timing = machine->config().timing;

    if (!sc.outputs.json.empty()) write_json(sc.outputs.json, to_json(sc, o.elf, result));
    if (o.verbosity != Verbosity::Quiet) std::fputs(format_summary(sc, o.elf, result).c_str(), stderr);
    if (result.reason != emu::StopReason::Exited && result.reason != emu::StopReason::SymbolReached)
        std::fprintf(stderr, "emutrace: error: %s: %s\n", o.elf.c_str(), result.message.c_str());
    return emu::exit_status(result);
}

}  // namespace emutrace::app
