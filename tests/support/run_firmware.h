#pragma once
// Runs test firmware on a scenario through emu::Machine, quietly, collecting every event.
#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "decode/elf_image.h"
#include "emu/machine.h"
#include "session/scenario.h"
#include "support/collecting_sink.h"
#include "support/paths.h"

namespace emutrace::test {

struct FirmwareRun {
    emu::RunResult result;
    CollectingSink sink;
};

/// `scenario` is relative to the source tree; empty means the built-in board. `wants`: the events
/// the sink asks for (trace::Want*), every kind unless told.
inline FirmwareRun run_firmware(const std::string& elf, const std::string& scenario = "", const std::function<void(emu::MachineConfig&)>& tweak = {},
                                std::uint32_t wants = CollectingSink{}.mask) {
    session::Scenario sc = scenario.empty() ? session::default_scenario() : session::load_scenario_file(source(scenario));
    sc.machine.echo_output = false;
    if (tweak) tweak(sc.machine);
    decode::ElfImage image = decode::ElfImage::load(firmware(elf));
    emu::Machine m(std::move(sc.machine), image);
    FirmwareRun r;
    r.sink.mask = wants;
    m.add_sink(r.sink);
    r.result = m.run();
    return r;
}

/// One firmware run under each cycle model: the per-block costs (trm) and the pipeline components.
struct ModelRuns {
    FirmwareRun trm, pipeline;
};

/// Runs `elf` on `scenario` under both cycle models and checks what they must share: both exit 0,
/// and whole-run cycles within `tolerance` of each other (0.01 is 1%). Not the same instructions:
/// where a timer's interrupts decide what runs (an RTOS's idle loop), the cycles decide it too.
inline ModelRuns run_both_models(const std::string& elf, const std::string& scenario, double tolerance) {
    CAPTURE(elf);
    auto with = [&](emu::TimingMode model) { return run_firmware(elf, scenario, [model](emu::MachineConfig& c) { c.timing = model; }); };
    ModelRuns r{with(emu::TimingMode::Trm), with(emu::TimingMode::Pipeline)};
    REQUIRE(r.trm.result.exit_code == 0);
    REQUIRE(r.pipeline.result.exit_code == 0);
    const double ratio = static_cast<double>(r.pipeline.result.cycles) / static_cast<double>(r.trm.result.cycles);
    CAPTURE(ratio);
    CHECK(ratio > 1 - tolerance);
    CHECK(ratio < 1 + tolerance);
    return r;
}

/// A tweak that sets the semihosting command line (the test firmware's mode).
inline std::function<void(emu::MachineConfig&)> cmdline(const std::string& text) {
    return [text](emu::MachineConfig& c) { c.semihosting.cmdline = text; };
}

}  // namespace emutrace::test
