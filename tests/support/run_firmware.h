#pragma once
// Runs test firmware on a scenario through emu::Machine, quietly, collecting every event.
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

/// A tweak that sets the semihosting command line (the test firmware's mode).
inline std::function<void(emu::MachineConfig&)> cmdline(const std::string& text) {
    return [text](emu::MachineConfig& c) { c.semihosting.cmdline = text; };
}

}  // namespace emutrace::test
