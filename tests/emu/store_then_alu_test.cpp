// What enters execute in a store's data phase, on the two cores the presets carry:
// tests/firmware/store_then_alu.c times four store/ALU pairs, four store/NOP pairs, four
// store/STRD pairs and four store/NOP/STRD groups from flash with the write buffer off.
#include <doctest/doctest.h>

#include "support/board_measurements.h"

using namespace emutrace::test;

namespace {

BoardMeasurements pairs_on(const char* firmware, const char* scenario) {
    return pipeline_measurements(firmware, scenario, "pairs", 4);
}

}  // namespace

TEST_CASE("pipeline: on the M4 an ALU instruction waits for the data phase of the store before it, a NOP does not, and on the M3 neither waits") {
    // The M4 (CC2652 silicon, cbz_deps: `str.w; cbz` a cycle longer than with the overlap; CMEmu
    // admits only a load, store or NOP into a data phase): a cycle per pair.
    auto m4 = pairs_on("store_then_alu_m4", "scenarios/boards/cc2652.yaml");
    CHECK(m4["store_alu"] == m4["store_nop"] + 4);
    // The M3 (STM32F100 silicon, cbz_deps exact only with the overlap): no difference.
    auto m3 = pairs_on("store_then_alu_m3", "scenarios/boards/stm32f100.yaml");
    CHECK(m3["store_alu"] == m3["store_nop"]);
    INFO(m4.text);
    INFO(m3.text);
    // A STRD behind a store waits for its data phase on the M4 (CC2652 silicon,
    // strd_str_pipelining: `str.w; strd.w` a cycle longer than the overlap gives): a NOP in that
    // cycle costs nothing more. The M3 overlaps it: the NOP costs its cycle at least.
    CHECK(m4["store_nop_strd"] == m4["store_strd"]);
    CHECK(m3["store_nop_strd"] >= m3["store_strd"] + 4);
}
