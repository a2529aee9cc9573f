// Data reads from the cc2652 board's flash on firmware: tests/firmware/flash_data_reads.c turns the
// VIMS cache off (as the CMEmu silicon tests run) and times unaligned loads through the flash's
// 16-byte line buffer, then one load and two in a row with the line buffers off.
#include <doctest/doctest.h>

#include "support/board_measurements.h"

using namespace emutrace::test;

TEST_CASE("aligner: an unaligned load's pieces are the aligned ones its bytes fall in, a flash line read once for those in it") {
    auto t = pipeline_measurements("flash_data_reads", "scenarios/boards/cc2652.yaml", "unaligned", 4);
    INFO(t.text);
    // byte, halfword, byte: two more transfers, served by the line the first read.
    CHECK(t["plus_1"] >= t["aligned"] + 2);
    // At 16n+9 the pieces (9, 10, 12) are in the line as those at 16n+1 are, not a word further.
    CHECK(t["plus_9"] == t["plus_1"]);
    // At 16n+13 the last piece (16) is in the next line: it waits the flash's wait states.
    CHECK(t["plus_13"] >= t["plus_9"] + 2);
}

TEST_CASE("bus matrix: a load that entered in the data phase before it holds its address on the bus, ahead of a fetch that asks later") {
    // Code and data share the flash port without line buffers: a fetch between the two loads
    // would cost the second a flash access more. The second load presents its address as it
    // enters, in the first load's wait states, and the port takes it next (silicon: cc2652
    // ldr_str_unaligned, code and data in flash without line buffers, two loads in a row cost
    // one flash access more than one).
    auto t = pipeline_measurements("flash_data_reads", "scenarios/boards/cc2652.yaml", "unbuffered", 2);
    INFO(t.text);
    const unsigned long flash_access = 1 + 2;  // an address cycle and the preset's 2 wait states
    CHECK(t["two_loads"] == t["one_load"] + flash_access);
}
