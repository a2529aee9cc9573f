// The core's aligner on firmware: tests/firmware/unaligned_flash.c times unaligned word loads from
// the cc2652 board's flash, whose 16-byte line buffer reads a line once for all the pieces in it.
#include <doctest/doctest.h>

#include "emutrace/config.h"
#include "support/measurements.h"
#include "support/run_firmware.h"

using namespace emutrace;
using namespace emutrace::test;

TEST_CASE("aligner: an unaligned load's pieces are the aligned ones its bytes fall in, a flash line read once for those in it") {
    // The firmware turns the VIMS cache off: the flash's data reads go through its line buffer.
    FirmwareRun r =
        run_firmware("unaligned_flash", "scenarios/boards/cc2652.yaml", [](emu::MachineConfig& c) { c.timing = emu::TimingMode::Pipeline; });
    REQUIRE(r.result.exit_code == 0);
    auto t = timings(r.sink.text, "unaligned");
    REQUIRE(t.size() == 4);
    INFO(r.sink.text);
    // byte, halfword, byte: two more transfers, served by the line the first read.
    CHECK(t["plus_1"] >= t["aligned"] + 2);
    // At 16n+9 the pieces (9, 10, 12) are in the line as those at 16n+1 are, not a word further.
    CHECK(t["plus_9"] == t["plus_1"]);
    // At 16n+13 the last piece (16) is in the next line: it waits the flash's wait states.
    CHECK(t["plus_13"] >= t["plus_9"] + 2);
}
