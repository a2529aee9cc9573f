// What an attached debugger costs a run (run --gdb, issue 59), on the compute firmware (sort +
// CRC, 2000 iterations), machine-side: a debugger that only continues stands in for GDB, so the
// figures are the emulator's, not the socket's. Interleaved runs, medians of --repeat (default 5)
// of CPU time, against the unattached run in the same process:
//   attached      no breakpoint: the machine as it runs unattached (target >= 0.9x its speed)
//   breakpoint    one breakpoint (at main, hit once): a code hook on its address only (target >= 0.5x)
//   watchpoint    one write watchpoint on a word the firmware never writes: a hook on every
//                 instruction and one on the word's stores (target >= 0.5x)
// Each run's cycle count is checked equal to the unattached run's.
#include <cstdio>
#include <exception>
#include <functional>
#include <string>

#include "bench/bench_paths.h"
#include "bench_timing.h"
#include "decode/elf_image.h"
#include "emu/debug.h"
#include "emu/machine.h"
#include "session/scenario.h"

using namespace emutrace;
using bench::Samples;

namespace {

// Sets its breakpoints and watchpoints when attached, then continues from every stop.
class ContinuingDebugger final : public emu::Debugger {
public:
    explicit ContinuingDebugger(std::function<void(emu::DebugTarget&)> setup) : setup_(std::move(setup)) {}
    emu::DebugResume stopped(emu::DebugTarget& target, const emu::DebugEvent& event) override {
        if (event.why == emu::DebugEvent::Why::Attached) setup_(target);
        ++stops;
        return emu::DebugResume::Continue;
    }
    bool interrupt_requested() override { return false; }
    unsigned stops = 0;

private:
    std::function<void(emu::DebugTarget&)> setup_;
};

struct Result {
    double seconds = 0;
    std::uint64_t cycles = 0, instructions = 0;
};

Result run_once(const decode::ElfImage& image, emu::Debugger* debugger) {
    session::Scenario sc = session::default_scenario();
    sc.machine.echo_output = false;
    sc.machine.stop.wall_clock_seconds = 0;
    sc.machine.debugger = debugger;
    emu::Machine m(std::move(sc.machine), image);
    const double t0 = bench::cpu_now();
    const emu::RunResult r = m.run();
    return {bench::cpu_now() - t0, r.cycles, r.instructions};
}

int run(int argc, char** argv) {
    int repeat = 5;
    std::string elf = bench::firmware_dir() + "/bench_compute.elf";
    if (!bench::parse_repeat_and_elf(argc, argv,
                                     "usage: bench_gdb [--repeat N] [firmware.elf]\n"
                                     "An attached debugger's cost: none, one breakpoint, one watchpoint, against the unattached\n"
                                     "run; medians of N interleaved runs (default 5).\n",
                                     repeat, elf))
        return 0;
    const decode::ElfImage image = decode::ElfImage::load(elf);
    const auto main_at = image.symbols().address_of("main");
    if (!main_at) throw std::runtime_error(elf + ": no main");
    Samples alone, attached, breakpoint, watchpoint;
    Result base{}, r{};
    bool same = true;
    for (int i = 0; i < repeat; ++i) {
        base = run_once(image, nullptr);
        alone.add(base.seconds);
        ContinuingDebugger plain([](emu::DebugTarget&) {});
        attached.add((r = run_once(image, &plain)).seconds);
        same = same && r.cycles == base.cycles && r.instructions == base.instructions;
        ContinuingDebugger bp([&](emu::DebugTarget& t) { t.set_breakpoint(*main_at, true); });
        breakpoint.add((r = run_once(image, &bp)).seconds);
        same = same && r.cycles == base.cycles && r.instructions == base.instructions && bp.stops == 3;  // attached, main, the end
        ContinuingDebugger watch([](emu::DebugTarget& t) { t.set_watchpoint(0x20200000u, 4, emu::WatchKind::Write, true); });
        watchpoint.add((r = run_once(image, &watch)).seconds);
        same = same && r.cycles == base.cycles && r.instructions == base.instructions;
    }
    auto speed = [&](const Samples& s) { return static_cast<double>(alone) / static_cast<double>(s); };
    std::printf("bench_gdb: %s, %llu instructions, medians of %d interleaved runs (speed: unattached time / this time)\n", elf.c_str(),
                static_cast<unsigned long long>(base.instructions), repeat);
    std::printf("  unattached   %8.3f s\n", static_cast<double>(alone));
    std::printf("  attached     %8.3f s  %5.2fx the speed (target >= 0.9x)\n", static_cast<double>(attached), speed(attached));
    std::printf("  breakpoint   %8.3f s  %5.2fx (target >= 0.5x)\n", static_cast<double>(breakpoint), speed(breakpoint));
    std::printf("  watchpoint   %8.3f s  %5.2fx (target >= 0.5x)\n", static_cast<double>(watchpoint), speed(watchpoint));
    std::printf("  cycles and instructions the same in every run (last: %llu, %llu): %s\n", static_cast<unsigned long long>(r.cycles),
                static_cast<unsigned long long>(r.instructions), same ? "yes" : "NO");
    return same ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_gdb: %s\n", e.what());
        return 2;
    }
}
