// The cost of an MMIO read no peripheral claims (unclaimed_mmio: log), and of one an SVD register
// answers (the STM32F100's AFIO, whose EXTICR1 sits where the sensor's STATUS is), against a
// declared stub register's, on the stub_reader firmware: it polls a sensor's STATUS register a
// million times when the status never turns ready, with the pipeline timing model. The runs in
// one process, interleaved, medians of --repeat runs (default 5) of CPU time. Targets: the
// unclaimed poll costs what the stub poll costs (issue 55); an SVD register's poll too, and the
// loop runs at 20 MIPS or more (issue 58).
#include <cstdio>
#include <exception>
#include <string>

#include <spdlog/spdlog.h>

#include "bench/bench_paths.h"
#include "bench_timing.h"
#include "decode/elf_image.h"
#include "emu/machine.h"
#include "emutrace/config.h"
#include "session/scenario.h"

using namespace emutrace;
using bench::Samples;

namespace {

constexpr const char* kBoard =
    "cpu: cortex-m3\n"
    "unclaimed_mmio: log\n"
    "memory:\n"
    "  - {name: flash, kind: flash, base: 0x00000000, size: 4MiB}\n"
    "  - {name: sram, kind: ram, base: 0x20000000, size: 4MiB}\n"
    "  - {name: apb, kind: mmio, base: 0x40000000, size: 1MiB}\n"
    "stop: {wall_clock: 0s}\n";

// The sensor as a stub whose STATUS never turns ready: the same million polls, each claimed.
constexpr const char* kStub =
    "peripherals:\n"
    "  - name: sensor\n"
    "    type: stub\n"
    "    base: 0x40010000\n"
    "    params:\n"
    "      size: 0x100\n"
    "      registers:\n"
    "        - {name: ID, offset: 0x00, access: ro, reset: 0x5E050001}\n"
    "        - {name: DATA, offset: 0x04, access: ro, reset: 17}\n"
    "        - {name: STATUS, offset: 0x08, access: ro, reset: 0}\n";

// The same address as a register of ST's STM32F100 SVD (AFIO.EXTICR1), as a board preset has it.
std::string svd_scenario() {
    return std::string(kBoard) + "svd: {file: " + bench::source_dir() + "/scenarios/boards/svd/STM32F100.svd, peripherals: [AFIO]}\n";
}

double run_once(const decode::ElfImage& image, const std::string& yaml, std::uint64_t& instructions) {
    session::Scenario sc = session::load_scenario(config::Node::load_string(yaml, "bench_mmio scenario"));
    sc.machine.echo_output = false;
    emu::Machine m(std::move(sc.machine), image);
    double t0 = bench::cpu_now();
    emu::RunResult r = m.run();
    instructions = r.instructions;
    return bench::cpu_now() - t0;
}

int run(int argc, char** argv) {
    int repeat = 5;
    std::string elf = bench::firmware_dir() + "/stub_reader.elf";
    if (!bench::parse_repeat_and_elf(argc, argv,
                                     "usage: bench_mmio [--repeat N] [firmware.elf]\n"
                                     "A million polls of an unclaimed MMIO register and of an SVD register against a stub register's,\nmedians of N "
                                     "interleaved runs (default 5).\n",
                                     repeat, elf))
        return 0;
    decode::ElfImage image = decode::ElfImage::load(elf);
    spdlog::set_level(spdlog::level::err);  // each unclaimed run reports its three addresses once
    Samples stub, unclaimed, svd;
    std::uint64_t stub_instructions = 0, unclaimed_instructions = 0, svd_instructions = 0;
    const std::string with_svd = svd_scenario();
    for (int i = 0; i < repeat; ++i) {
        stub.add(run_once(image, std::string(kBoard) + kStub, stub_instructions));
        unclaimed.add(run_once(image, kBoard, unclaimed_instructions));
        svd.add(run_once(image, with_svd, svd_instructions));
    }
    auto mips = [](std::uint64_t n, double s) { return s > 0 ? static_cast<double>(n) / s / 1e6 : 0.0; };
    std::printf("bench_mmio: stub_reader, 1,000,000 polls of STATUS, medians of %d interleaved runs\n", repeat);
    std::printf("  stub register       %8.3f s  %7.1f MIPS\n", static_cast<double>(stub), mips(stub_instructions, stub));
    std::printf("  unclaimed (log)     %8.3f s  %7.1f MIPS\n", static_cast<double>(unclaimed), mips(unclaimed_instructions, unclaimed));
    std::printf("  SVD register        %8.3f s  %7.1f MIPS\n", static_cast<double>(svd), mips(svd_instructions, svd));
    std::printf("  unclaimed / stub    %8.2fx the time\n", static_cast<double>(unclaimed) / static_cast<double>(stub));
    std::printf("  SVD / stub          %8.2fx the time\n", static_cast<double>(svd) / static_cast<double>(stub));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_mmio: %s\n", e.what());
        return 2;
    }
}
