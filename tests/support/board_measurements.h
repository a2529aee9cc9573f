#pragma once
// A measuring firmware (tests/firmware/measure.h) run on a board preset under the pipeline model:
// its "<kind> <name> <value>" lines, checked to be there.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "emutrace/config.h"
#include "support/measurements.h"
#include "support/run_firmware.h"

namespace emutrace::test {

struct BoardMeasurements {
    std::map<std::string, unsigned long> values;
    std::string text;  ///< what the firmware printed, for the test's log
    /// The measurement `name`; one the firmware did not print fails the test (std::out_of_range).
    unsigned long operator[](const std::string& name) const { return values.at(name); }
};

/// Runs `elf` on `board` (a scenario file relative to the source tree) under the pipeline model,
/// and requires exit 0 and `count` measurements of `kind`.
inline BoardMeasurements pipeline_measurements(const std::string& elf, const std::string& board, const std::string& kind, std::size_t count) {
    FirmwareRun r = run_firmware(elf, board, [](emu::MachineConfig& c) { c.timing = emu::TimingMode::Pipeline; });
    REQUIRE(r.result.exit_code == 0);
    BoardMeasurements m{timings(r.sink.text, kind), r.sink.text};
    INFO(m.text);
    REQUIRE(m.values.size() == count);
    return m;
}

}  // namespace emutrace::test
