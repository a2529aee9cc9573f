#include "session/run_report.h"

#include "config/units.h"

#include <cstdio>

namespace emutrace::session {
namespace {

using config::grouped;

std::string duration(double seconds) {
    char buf[32];
    if (seconds >= 1)
        std::snprintf(buf, sizeof buf, "%.3f s", seconds);
    else if (seconds >= 1e-3)
        std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.3f us", seconds * 1e6);
    return buf;
}

double mips(const emu::RunResult& r) {
    return r.host_seconds > 0 ? r.instructions / r.host_seconds / 1e6 : 0;
}

}  // namespace

std::string format_summary(const Scenario& sc, const std::string& elf, const emu::RunResult& r) {
    char line[256];
    std::string out;
    const std::string core = std::string(sc.machine.core.name) + (sc.core_from_elf ? " (as the ELF was built for)" : "");
    std::snprintf(line, sizeof line, "emutrace: %s on %s at %.6g MHz (%s)\n", elf.c_str(), core.c_str(),
                  static_cast<double>(sc.machine.clock_hz) / 1e6, sc.file.c_str());
    out += line;
    std::string stopped = std::string(emu::to_string(r.reason));
    if (r.reason == emu::StopReason::Exited) stopped += " (code " + std::to_string(r.exit_code) + ")";
    out += "  stopped       " + stopped + ": " + r.message + "\n";
    out += "  instructions  " + grouped(r.instructions) + "\n";
    double cpi = r.instructions ? static_cast<double>(r.cycles - r.sleep_cycles) / static_cast<double>(r.instructions) : 0;
    std::snprintf(line, sizeof line, "%.2f", cpi);
    out += "  cycles        " + grouped(r.cycles) + " (CPI " + line + ", " +
           (sc.machine.timing == emu::TimingMode::Trm        ? std::string(sc.machine.core.name) + " TRM timing"
            : sc.machine.timing == emu::TimingMode::Pipeline ? std::string(sc.machine.core.name) + " pipeline timing"
                                                             : "timing model off") +
           ")\n";
    if (const auto& c = r.timing_cache; c.lookups) {
        std::snprintf(line, sizeof line,
                      "  timing cache  %.2f%% of %s runs of instructions from a pipeline state seen before (%s states; %.1f%% followed on from the "
                      "run before)\n",
                      100.0 * static_cast<double>(c.hits) / static_cast<double>(c.lookups), grouped(c.lookups).c_str(), grouped(c.states).c_str(),
                      100.0 * static_cast<double>(c.followed) / static_cast<double>(c.lookups));
        out += line;
    }
    if (const auto& c = r.flash_cache; c.lookups) {
        std::snprintf(line, sizeof line, "  flash cache   %.2f%% of %s lookups missed, %s stall cycles\n",
                      100.0 * static_cast<double>(c.misses) / static_cast<double>(c.lookups), grouped(c.lookups).c_str(),
                      grouped(c.stall_cycles).c_str());
        out += line;
    }
    out += "  emulated time " + duration(r.emulated_seconds);
    if (r.core_clock_hz && r.core_clock_hz != sc.machine.clock_hz) {  // a clock model followed what the firmware set
        std::snprintf(line, sizeof line, " (the firmware set the core's clock to %.6g MHz)", static_cast<double>(r.core_clock_hz) / 1e6);
        out += line;
    }
    if (r.sleep_cycles) {
        std::snprintf(line, sizeof line, " (%.1f%% asleep in WFI/WFE)", 100.0 * static_cast<double>(r.sleep_cycles) / static_cast<double>(r.cycles));
        out += line;
    }
    out += "\n";
    if (r.exceptions || r.thread_switches)
        out += "  exceptions    " + grouped(r.exceptions) + " taken, " + grouped(r.thread_switches) + " thread switches\n";
    if (r.unclaimed_mmio_accesses)
        out += "  unclaimed     " + grouped(r.unclaimed_mmio_accesses) + " MMIO accesses no peripheral claimed (read 0, writes ignored)\n";
    std::snprintf(line, sizeof line, "  host time     %s (%.1f MIPS)\n", duration(r.host_seconds).c_str(), mips(r));
    out += line;
    return out;
}

nlohmann::json to_json(const Scenario& sc, const std::string& elf, const emu::RunResult& r) {
    nlohmann::json j;
    j["firmware"] = elf;
    j["scenario"] = sc.file;
    j["cpu"] = sc.machine.core.name;
    j["clock_hz"] = sc.machine.clock_hz;
    j["instructions"] = r.instructions;
    j["cycles"] = r.cycles;
    j["cpi"] = r.instructions ? static_cast<double>(r.cycles - r.sleep_cycles) / static_cast<double>(r.instructions) : 0.0;
    j["timing"] = emu::to_string(sc.machine.timing);
    j["stall_cycles"] = r.stall_cycles;
    j["exception_cycles"] = r.exception_cycles;
    j["emulated_seconds"] = r.emulated_seconds;
    if (r.core_clock_hz) j["core_clock_hz"] = r.core_clock_hz;
    j["host_seconds"] = r.host_seconds;
    j["mips"] = mips(r);
    j["stop_reason"] = emu::to_string(r.reason);
    j["stop_message"] = r.message;
    j["exit_code"] = r.reason == emu::StopReason::Exited ? nlohmann::json(r.exit_code) : nlohmann::json(nullptr);
    j["status"] = emu::exit_status(r);
    j["pc"] = config::hex32(r.pc);
    j["exceptions"] = r.exceptions;
    j["thread_switches"] = r.thread_switches;
    j["unclaimed_mmio_accesses"] = r.unclaimed_mmio_accesses;
    j["sleep_cycles"] = r.sleep_cycles;
    if (r.flash_cache.lookups)
        j["flash_cache"] = {{"lookups", r.flash_cache.lookups}, {"misses", r.flash_cache.misses}, {"stall_cycles", r.flash_cache.stall_cycles}};
    if (r.timing_cache.lookups)
        j["timing_cache"] = {{"lookups", r.timing_cache.lookups},
                             {"hits", r.timing_cache.hits},
                             {"states", r.timing_cache.states},
                             {"clears", r.timing_cache.clears},
                             {"followed", r.timing_cache.followed}};
    if (r.fault) {
        const emu::Fault& f = *r.fault;
        j["fault"] = {{"kind", emu::to_string(f.kind)}, {"address", config::hex32(f.address)},
                      {"pc", config::hex32(f.pc)},      {"pc_is_block_start", f.pc_is_block_start},
                      {"function", f.function},         {"detail", f.detail}};
    } else {
        j["fault"] = nullptr;
    }
    return j;
}

}  // namespace emutrace::session
