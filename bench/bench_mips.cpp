// Emulation speed on the compute firmware (sort + CRC, 2000 iterations), in one run:
//   baseline   Unicorn alone: same memory, no hooks at all (stops at the firmware's first BKPT)
//   bare hook  Unicorn with an empty block hook: what any per-block hook costs before doing anything
//   machine    emutrace's Machine, no sinks (block hook for counting, limits, hang and ISA checks)
//   stream     Machine with a sink consuming every block event
//   tracing    the call tracer; the PFT encoder inline and, as `emutrace run` runs it, on its own thread;
//              the loop-context WCET aggregation
// Each is run --repeat times (default 5), interleaved, and the least CPU time is kept. Target: stream >= 80% of baseline.
// Then the branchy workload (bench_branchy.elf, CoreMark-like): bare Unicorn, the per-block model
// and the pipeline, the last two as pairs.

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/calltrace/call_tracer.h"
#include "analysis/calltrace/compact_trace.h"
#include "analysis/wcet/call_times.h"
#include "analysis/wcet/wcet_aggregator.h"
#include "analysis/wcet/wcet_bound.h"
#include "analysis/writers/pft_writer.h"
#include "decode/elf_image.h"
#include "emu/machine.h"
#include "session/scenario.h"
#include "trace/background_sink.h"

#include "bench/bare_unicorn.h"
#include "bench/bench_paths.h"
#include "bench_timing.h"

using namespace emutrace;
using bench::Samples;
// Process CPU time, not wall time: on a shared machine time stolen by other tenants would
// otherwise land on whichever configuration happened to be running.
using bench::clock_seconds;
using bench::cpu_now;

namespace {

void profile_main(analysis::wcet::WcetAggregator& aggregator, const decode::Program& program) {
    for (std::size_t f = 0; f < program.functions().size(); ++f)
        if (program.functions()[f].name == "main") aggregator.profile(static_cast<std::uint32_t>(f));
}

// Consumes every block event the way a light analysis would.
struct BlockCounter final : trace::TraceSink {
    std::uint64_t instructions = 0;
    std::uint64_t blocks = 0;
    std::uint32_t wants() const override { return trace::WantBlocks; }
    void on_batch(const trace::EventBatch& b) override {
        std::uint64_t n = 0, count = 0;  // locals: the compiler need not assume events alias them
        for (const auto& e : b.events) {
            if (e.kind != trace::EventKind::Block) continue;
            n += e.extra;
            ++count;
        }
        instructions += n;
        blocks += count;
    }
};

/// Times of one run() beyond the process's CPU time: a sink on its own thread shows in these.
struct ThreadTimes {
    double emulation_thread = 0;  ///< CPU time of the thread that runs the machine
    double wall = 0;
};

/// Runs the machine; `seconds` gets the CPU time of run() alone.
emu::RunResult run_machine(const decode::ElfImage& image, trace::TraceSink* sink, double& seconds, emu::TimingMode timing = emu::TimingMode::Trm,
                           ThreadTimes* times = nullptr, std::vector<std::uint32_t> trace_points = {}, bool times_unaligned = false,
                           trace::TraceSink* second = nullptr) {
    session::Scenario sc = session::load_scenario_file(emutrace::bench::bench_dir() + "/compute_bench.yaml");
    sc.machine.echo_output = false;
    for (auto& region : sc.machine.memory) region.times_unaligned = times_unaligned && !region.mmio;
    sc.machine.timing = timing;
    sc.machine.trace_points = std::move(trace_points);
    emu::Machine m(std::move(sc.machine), image);
    if (sink) m.add_sink(*sink);
    if (second) m.add_sink(*second);
    double t0 = cpu_now(), thread0 = clock_seconds(CLOCK_THREAD_CPUTIME_ID), wall0 = clock_seconds(CLOCK_MONOTONIC);
    emu::RunResult r = m.run();
    seconds = cpu_now() - t0;
    if (times) {
        times->emulation_thread = clock_seconds(CLOCK_THREAD_CPUTIME_ID) - thread0;
        times->wall = clock_seconds(CLOCK_MONOTONIC) - wall0;
    }
    return r;
}

// Instructions between successive DWT_CYCCNT reads: the kernels firmware reads it before and
// after each kernel.
struct KernelCounter final : trace::TraceSink {
    std::vector<std::uint64_t> instructions_between;
    std::uint64_t running = 0;
    std::uint32_t wants() const override { return trace::WantBlocks | trace::WantMmio; }
    void on_batch(const trace::EventBatch& b) override {
        for (const auto& e : b.events) {
            if (e.kind == trace::EventKind::Block) running += e.extra;
            if (e.kind == trace::EventKind::MmioRead && e.address == 0xE0001004u) {
                instructions_between.push_back(running);
                running = 0;
            }
        }
    }
};

void print_accuracy_table() {
    decode::ElfImage image = decode::ElfImage::load(emutrace::bench::firmware_dir() + "/kernels.elf");
    session::Scenario sc = session::load_scenario_file(emutrace::bench::bench_dir() + "/compute_bench.yaml");
    sc.machine.echo_output = false;
    emu::Machine m(std::move(sc.machine), image);
    KernelCounter counter;
    struct Output final : trace::TraceSink {
        std::string text;
        std::uint32_t wants() const override { return trace::WantOutput; }
        void on_batch(const trace::EventBatch& b) override {
            for (const auto& e : b.events)
                if (e.kind == trace::EventKind::Output) text += b.output_text(e);
        }
    } output;
    m.add_sink(counter);
    m.add_sink(output);
    m.run();
    std::printf("accuracy table: kernels.elf, cortex-m3 TRM model, zero wait states (cycles from the firmware's DWT_CYCCNT)\n");
    std::printf("  %-8s %10s %13s %6s\n", "kernel", "cycles", "instructions", "CPI");
    std::size_t k = 0, at = 0;
    while ((at = output.text.find("kernel ", at)) != std::string::npos) {
        char name[32] = {};
        unsigned long cycles = 0;
        if (std::sscanf(output.text.c_str() + at, "kernel %31s cycles=%lu", name, &cycles) == 2) {
            std::size_t read = 2 * k + 1;  // [0] runs up to the first read; then each kernel, then the gap after it
            std::uint64_t insns = read < counter.instructions_between.size() ? counter.instructions_between[read] : 0;
            std::printf("  %-8s %10lu %13llu %6.2f\n", name, cycles, static_cast<unsigned long long>(insns),
                        insns ? static_cast<double>(cycles) / static_cast<double>(insns) : 0.0);
            ++k;
        }
        at += 7;
    }
}

// The second workload: CoreMark-like code (a list, a state machine, a matrix, a CRC), short
// blocks and data-dependent branches, where the pipeline's hot path needs each block's run to
// follow on from the one before. The pipeline against the per-block model as pairs (target
// >= 0.9x), and both against bare Unicorn.
void print_branchy_workload(int repeat) {
    const std::string elf = emutrace::bench::firmware_dir() + "/bench_branchy.elf";
    decode::ElfImage image = decode::ElfImage::load(elf);
    Samples base, trm, pipelined, ratio;
    std::uint64_t instructions = 0;
    for (int i = 0; i < repeat; ++i) {
        base.add(bench::run_bare_unicorn(image, false));
        double t_trm = 0, t_pipeline = 0;
        emu::RunResult r = run_machine(image, nullptr, t_trm, emu::TimingMode::Trm);
        run_machine(image, nullptr, t_pipeline, emu::TimingMode::Pipeline);
        instructions = r.instructions;
        trm.add(t_trm);
        pipelined.add(t_pipeline);
        ratio.add(t_trm / t_pipeline);
    }
    auto mips = [&](double s) { return static_cast<double>(instructions) / s / 1e6; };
    std::printf("bench_mips: branchy workload %s, %llu instructions, medians of %d interleaved runs\n", elf.c_str(),
                static_cast<unsigned long long>(instructions), repeat);
    std::printf("  %-36s %8.1f MIPS  %6.1f%%\n", "unicorn, no hooks (baseline)", mips(base), 100.0);
    std::printf("  %-36s %8.1f MIPS  %6.1f%%\n", "machine, per-block timing (trm)", mips(trm), 100.0 * base / trm);
    std::printf("  %-36s %8.1f MIPS  %6.1f%%  (%.3fx the per-block model's speed: median of the pairs' ratios; target >= 0.9x)\n",
                "machine, pipeline timing", mips(pipelined), 100.0 * base / pipelined, static_cast<double>(ratio));
}

}  // namespace

int run(int argc, char** argv);

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_mips: %s\n", e.what());
        return 2;
    }
}

int run(int argc, char** argv) {
    int repeat = 5;
    std::string elf = emutrace::bench::firmware_dir() + "/bench_compute.elf";
    if (!bench::parse_repeat_and_elf(argc, argv,
                                     "usage: bench_mips [--repeat N] [firmware.elf]\n"
                                     "Emulation speed of the compute firmware (or the ELF given) with each layer of emutrace,\n"
                                     "medians of N interleaved runs (default 5), as MIPS and as a share of bare Unicorn.\n",
                                     repeat, elf))
        return 0;
    decode::ElfImage image = decode::ElfImage::load(elf);
    const std::string pft_file = (std::filesystem::temp_directory_path() / ("emutrace-bench-" + std::to_string(::getpid()) + ".pft")).string();

    Samples base, bare_hook, untimed, plain, stream, traced, pft, unaligned, pipelined, pipelined_ratio;
    decode::Program program = decode::Program::build(image);
    analysis::wcet::TracePoints points(program);
    Samples wcet, split_stream, wcet_thread, wcet_wall, handed_thread;
    Samples checked_thread, checked_wall;
    std::uint64_t split_blocks = 0;
    std::size_t wcet_blocks = 0;
    Samples plain_thread, plain_wall, pft_threaded_cpu, pft_threaded_thread, pft_threaded_wall;
    std::uint64_t pft_bytes = 0;
    std::uint64_t records = 0;
    std::uint64_t instructions = 0, blocks = 0;
    for (int i = 0; i < repeat; ++i) {
        base.add(bench::run_bare_unicorn(image, false));
        bare_hook.add(bench::run_bare_unicorn(image, true));
        double t = 0;
        run_machine(image, nullptr, t, emu::TimingMode::None);
        untimed.add(t);
        ThreadTimes plain_times;
        emu::RunResult r = run_machine(image, nullptr, t, emu::TimingMode::Trm, &plain_times);
        plain_thread.add(plain_times.emulation_thread);
        plain_wall.add(plain_times.wall);
        if (r.reason != emu::StopReason::Exited) {
            std::fprintf(stderr, "bench: firmware did not exit cleanly: %s\n", r.message.c_str());
            return 1;
        }
        instructions = r.instructions;
        plain.add(t);
        // The same machine with the pipeline components (timing: pipeline), right after it: the
        // pair's ratio, since a noisy host moves both runs of a pair together.
        double trm_seconds = t;
        run_machine(image, nullptr, t, emu::TimingMode::Pipeline);
        pipelined.add(t);
        pipelined_ratio.add(trm_seconds / t);
        // As on the STM32F100 preset: every data access hooked to find the unaligned ones.
        run_machine(image, nullptr, t, emu::TimingMode::Trm, nullptr, {}, true);
        unaligned.add(t);
        BlockCounter counter;
        emu::RunResult rs = run_machine(image, &counter, t);
        if (counter.instructions != rs.instructions) {
            std::fprintf(stderr, "bench: block stream lost instructions (%llu of %llu)\n", static_cast<unsigned long long>(counter.instructions),
                         static_cast<unsigned long long>(rs.instructions));
            return 1;
        }
        stream.add(t);
        blocks = counter.blocks;
        // The paper's use: function entry/exit into the 512 KiB compact ring buffer.
        analysis::CallTracer tracer(image);
        analysis::CompactTraceWriter compact(analysis::kDefaultCompactBytes, [](std::uint32_t) { return true; });
        tracer.add_listener(compact);
        run_machine(image, &tracer, t);
        traced.add(t);
        records = compact.seen();
        // The emulator as a PTM: cycle-accurate PFT bytes, written to a file.
        analysis::PftOutput out;
        out.file = pft_file;  // a real file on disk, as a user writes it
        analysis::PftWriter writer(out, image);
        run_machine(image, &writer, t);
        pft.add(t);
        pft_bytes = writer.stats().bytes;
        // Loop-context WCET aggregation over every function: block events split at the CFG's
        // leaders, each measured and filed by its loop context, its call context (the default
        // call-string length) and the edge it leaves by, with the profile of main's run (the
        // longest profiled run there can be) as `emutrace wcet -f main` keeps it.
        {
            BlockCounter split_counter;
            run_machine(image, &split_counter, t, emu::TimingMode::Trm, nullptr, points.addresses());
            split_stream.add(t);
            split_blocks = split_counter.blocks;
            analysis::wcet::WcetAggregator aggregator(program, points, analysis::wcet::kDefaultCallDepth);
            profile_main(aggregator, program);
            run_machine(image, &aggregator, t, emu::TimingMode::Trm, nullptr, points.addresses());
            wcet.add(t);
            wcet_blocks = aggregator.table().blocks.size();
            // As emutrace runs it: the aggregation on its own thread.
            analysis::wcet::WcetAggregator behind(program, points, analysis::wcet::kDefaultCallDepth);
            profile_main(behind, program);
            trace::BackgroundSink background(behind);
            ThreadTimes times;
            run_machine(image, &background, t, emu::TimingMode::Trm, &times, points.addresses());
            wcet_thread.add(times.emulation_thread);
            wcet_wall.add(times.wall);
            // As emutrace wcet runs it since the soundness cross-check: the call tracer, whose
            // function times check the aggregator's, on a thread of its own too.
            analysis::wcet::WcetAggregator checked(program, points, analysis::wcet::kDefaultCallDepth);
            profile_main(checked, program);
            trace::BackgroundSink checked_background(checked);
            analysis::CallTracer checker(image);
            analysis::wcet::CallTimes call_times;
            checker.add_listener(call_times);
            trace::BackgroundSink checker_background(checker);
            run_machine(image, &checked_background, t, emu::TimingMode::Trm, &times, points.addresses(), false, &checker_background);
            checked_thread.add(times.emulation_thread);
            checked_wall.add(times.wall);
            // The same split stream handed to a thread that only counts: what any analysis on its
            // own thread costs before it does anything.
            BlockCounter idle;
            trace::BackgroundSink idle_background(idle);
            run_machine(image, &idle_background, t, emu::TimingMode::Trm, &times, points.addresses());
            handed_thread.add(times.emulation_thread);
        }
        // As emutrace run does it: the encoder on its own thread, overlapping the emulation.
        analysis::PftWriter behind(out, image);
        trace::BackgroundSink background(behind);
        ThreadTimes threaded_times;
        run_machine(image, &background, t, emu::TimingMode::Trm, &threaded_times);
        if (behind.stats().bytes != pft_bytes) {
            std::fprintf(stderr, "bench: the threaded PFT writer wrote %llu bytes, inline %llu\n",
                         static_cast<unsigned long long>(behind.stats().bytes), static_cast<unsigned long long>(pft_bytes));
            return 1;
        }
        pft_threaded_cpu.add(t);
        pft_threaded_thread.add(threaded_times.emulation_thread);
        pft_threaded_wall.add(threaded_times.wall);
    }
    auto mips = [&](double s) { return static_cast<double>(instructions) / s / 1e6; };
    std::filesystem::remove(pft_file);
    std::printf("bench_mips: %s, %llu instructions in %llu blocks, medians of %d interleaved runs\n", elf.c_str(),
                static_cast<unsigned long long>(instructions), static_cast<unsigned long long>(blocks), repeat);
    std::printf("  %-36s %8.1f MIPS  %6.1f%%\n", "unicorn, no hooks (baseline)", mips(base), 100.0);
    std::printf("  %-36s %8.1f MIPS  %6.1f%%\n", "unicorn + empty block hook", mips(bare_hook), 100.0 * base / bare_hook);
    std::printf("  %-36s %8.1f MIPS  %6.1f%%\n", "machine, timing model off, no sinks", mips(untimed), 100.0 * base / untimed);
    std::printf("  %-36s %8.1f MIPS  %6.1f%%  (model costs %.1f%%; limit 20%%)\n", "machine, no sinks", mips(plain), 100.0 * base / plain,
                100.0 * (plain - untimed) / untimed);
    std::printf("  %-36s %8.1f MIPS  %6.1f%%  (%.3fx the machine's speed with per-block costs: median of the pairs' ratios; target >= 0.95x)\n",
                "machine, pipeline timing, no sinks", mips(pipelined), 100.0 * base / pipelined, static_cast<double>(pipelined_ratio));
    std::printf("  %-36s %8.1f MIPS  %6.1f%%  (%.2fx the machine's time; memory key times_unaligned)\n", "machine, unaligned accesses timed",
                mips(unaligned), 100.0 * base / unaligned, unaligned / plain);
    std::printf("  %-36s %8.1f MIPS  %6.1f%%  (target >= 80%%)\n", "machine + block event stream", mips(stream), 100.0 * base / stream);
    std::printf("  %-36s %8.1f MIPS  %6.1f%%  (tracing costs %.1f%% of the machine's speed; limit 15%%; %llu records)\n",
                "machine + call tracer + compact trace", mips(traced), 100.0 * base / traced, 100.0 * (traced - plain) / traced,
                static_cast<unsigned long long>(records));
    std::printf("  %-36s %8.1f MIPS  %6.1f%%  (PFT costs %.1f%% of the machine's speed; limit 15%%; %.1f MB/s of trace, %.2f bits/instr)\n",
                "machine + cycle-accurate PFT encoder", mips(pft), 100.0 * base / pft, 100.0 * (pft - plain) / pft,
                static_cast<double>(pft_bytes) / pft / 1e6, 8.0 * static_cast<double>(pft_bytes) / static_cast<double>(instructions));
    std::printf(
        "  %-36s %8.1f MIPS  %6.1f%%  (PFT costs %.1f%% of the emulation thread's speed, %.1f%% of wall-clock speed; limit 15%%;"
        " the process spends %.1f%% more CPU)\n",
        "machine + PFT encoder, own thread", mips(pft_threaded_thread), 100.0 * base / pft_threaded_thread,
        100.0 * (pft_threaded_thread - plain_thread) / pft_threaded_thread, 100.0 * (pft_threaded_wall - plain_wall) / pft_threaded_wall,
        100.0 * (pft_threaded_cpu - plain) / plain);
    std::printf("  %-36s %8.1f MIPS wall clock, machine alone %.1f MIPS wall clock\n", "", mips(pft_threaded_wall), mips(plain_wall));
    std::printf("  %-36s %8.1f MIPS  %6.1f%%  (%llu block events: %.1f%% more than translated blocks)\n", "machine + stream split at CFG leaders",
                mips(split_stream), 100.0 * base / split_stream, static_cast<unsigned long long>(split_blocks),
                100.0 * (static_cast<double>(split_blocks) / static_cast<double>(blocks) - 1.0));
    std::printf(
        "  %-36s %8.1f MIPS  %6.1f%%  (aggregation costs %.1f%% of the machine's speed, %.1f%% over the split stream;"
        " %zu blocks measured)\n",
        "machine + loop-context WCET stats", mips(wcet), 100.0 * base / wcet, 100.0 * (wcet - plain) / wcet, 100.0 * (wcet - split_stream) / wcet,
        wcet_blocks);
    std::printf("  %-36s %8.1f MIPS  %6.1f%%  (the split stream handed to a thread that only counts)\n", "machine + split stream, own thread",
                mips(handed_thread), 100.0 * base / handed_thread);
    std::printf(
        "  %-36s %8.1f MIPS  %6.1f%%  (aggregation costs %.1f%% over the plain block stream, target <= 10%%;"
        " %.1f%% over the stream handed to a thread; with the stream, %.1f%% of the machine's speed and %.1f%% of wall-clock speed)\n",
        "machine + WCET stats, own thread", mips(wcet_thread), 100.0 * base / wcet_thread, 100.0 * (wcet_thread - stream) / wcet_thread,
        100.0 * (wcet_thread - handed_thread) / wcet_thread, 100.0 * (wcet_thread - plain_thread) / wcet_thread,
        100.0 * (wcet_wall - plain_wall) / wcet_wall);
    std::printf(
        "  %-36s %8.1f MIPS  %6.1f%%  (as emutrace wcet runs: %.1f%% of the emulation thread's speed over the WCET stats alone,"
        " %.1f%% of wall-clock speed)\n",
        "machine + WCET stats + cross-check", mips(checked_thread), 100.0 * base / checked_thread,
        100.0 * (checked_thread - wcet_thread) / checked_thread, 100.0 * (checked_wall - wcet_wall) / checked_wall);
    print_accuracy_table();
    print_branchy_workload(repeat);
    std::printf("  per block: Unicorn hook dispatch %.2f ns, machine's own work %.2f ns, event stream %.2f ns\n", (bare_hook - base) / blocks * 1e9,
                (plain - bare_hook) / blocks * 1e9, (stream - plain) / blocks * 1e9);
    return 0;
}
