// Compiled C on the STM32F100 preset (flash at 0x08000000, 8 KiB SRAM, the fetch port shared
// with flash loads), as the compiled benchmarks of its silicon corpus are built: the same sources
// at -O0, -Os and -O3, with newlib-nano and libgcc. Both cycle models must run each build to the
// right output, and agree on its whole-run cycles to within 5%: the per-block model is the TRM
// tables only and the pipeline follows silicon, so they differ where silicon departs from the
// tables (docs/timing.md, "Compiled code").
#include <doctest/doctest.h>

#include <cstdio>

#include "support/run_firmware.h"
#include "tests/firmware/compute_reference.h"

using namespace emutrace;
using namespace emutrace::test;

namespace {

constexpr const char* kBoard = "scenarios/boards/stm32f100.yaml";

// Runs `elf` in both models; checks what they share and returns the pipeline's run.
FirmwareRun run_both(const std::string& elf) {
    CAPTURE(elf);
    // Within 5%: the per-block model is the TRM tables only, the pipeline follows silicon (a B from
    // flash takes P there, 1 + P in the TRM); on this code they differ by up to 3.3%.
    ModelRuns r = run_both_models(elf, kBoard, 0.05);
    CHECK(r.pipeline.result.instructions == r.trm.result.instructions);
    CHECK(r.pipeline.sink.text == r.trm.sink.text);
    CHECK(r.pipeline.result.cycles > r.pipeline.result.instructions);
    return std::move(r.pipeline);
}

}  // namespace

TEST_CASE("compiled C at three optimisation levels runs on the STM32F100 preset, both cycle models within 5%") {
    char crc[16];
    std::snprintf(crc, sizeof crc, "0x%08x", static_cast<unsigned>(compute_reference_crc(3)));
    // The library corpus's result on the default board, built at -O2: every level must print it.
    FirmwareRun reference = run_firmware("libcalls");
    REQUIRE(reference.result.exit_code == 0);
    const std::size_t hash_at = reference.sink.text.find("libcalls: ");
    REQUIRE(hash_at != std::string::npos);
    const std::string hash_line = reference.sink.text.substr(hash_at, reference.sink.text.find('\n', hash_at) - hash_at);

    std::uint64_t o0_instructions = 0, o3_instructions = 0;
    for (const char* level : {"O0", "Os", "O3"}) {
        CAPTURE(level);
        FirmwareRun compute = run_both(std::string("compute_stm32f100_") + level);
        CHECK(compute.sink.text.find(std::string("compute: crc=") + crc + " iterations=3") != std::string::npos);
        FirmwareRun libcalls = run_both(std::string("libcalls_stm32f100_") + level);
        CHECK(libcalls.sink.text.find(hash_line) != std::string::npos);
        if (std::string(level) == "O0") o0_instructions = compute.result.instructions;
        if (std::string(level) == "O3") o3_instructions = compute.result.instructions;
    }
    // The levels are different programs, not one build three times.
    CHECK(o0_instructions > 2 * o3_instructions);
}
