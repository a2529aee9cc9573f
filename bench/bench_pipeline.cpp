// The two cycle models side by side on compiled code: the pipeline components stepped cycle by
// cycle (timing: pipeline) against the per-block costs (timing: trm), in speed (medians of
// interleaved runs) and in the cycles each gives every kernel of tests/firmware/kernels.c.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench/bench_paths.h"
#include "bench_timing.h"
#include "decode/elf_image.h"
#include "emu/machine.h"
#include "emutrace/sink.h"
#include "session/scenario.h"

using namespace emutrace;

namespace {

struct Output final : trace::TraceSink {
    std::string text;
    std::uint32_t wants() const override { return trace::WantOutput; }
    void on_batch(const trace::EventBatch& b) override {
        for (const auto& e : b.events)
            if (e.kind == trace::EventKind::Output) text += b.output_text(e);
    }
};

struct Run {
    double seconds = 0;
    emu::RunResult result;
    std::map<std::string, unsigned long> kernels;  ///< the firmware's own DWT_CYCCNT figure per kernel
};

Run run(const decode::ElfImage& image, emu::TimingMode timing, bool cache = true,
        emu::MachineConfig::PipelineFacts facts = emu::MachineConfig::PipelineFacts::Block) {
    emu::MachineConfig c = session::load_scenario_file(emutrace::bench::bench_dir() + "/compute_bench.yaml").machine;
    c.timing = timing;
    c.timing_cache = cache;
    c.pipeline_facts = facts;
    c.echo_output = false;
    emu::Machine m(std::move(c), image);
    Output out;
    m.add_sink(out);
    Run r;
    double t0 = bench::cpu_now();
    r.result = m.run();
    r.seconds = bench::cpu_now() - t0;
    for (std::size_t at = 0; (at = out.text.find("kernel ", at)) != std::string::npos; at += 7) {
        char name[32] = {};
        unsigned long cycles = 0;
        if (std::sscanf(out.text.c_str() + at, "kernel %31s cycles=%lu", name, &cycles) == 2) r.kernels[name] = cycles;
    }
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    int repeat = 5;
    std::string elf = emutrace::bench::firmware_dir() + "/kernels.elf";
    // --speed-only: the two models' speed alone, without the stepped runs (30 times slower) that
    // check the cache's cycles: more pairs in the same time on a noisy machine.
    bool speed_only = false;
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i)
        if (i && !std::strcmp(argv[i], "--speed-only"))
            speed_only = true;
        else
            args.push_back(argv[i]);
    if (!bench::parse_repeat_and_elf(static_cast<int>(args.size()), args.data(),
                                     "usage: bench_pipeline [--repeat N] [--speed-only] [firmware.elf]\n"
                                     "The pipeline cycle model against the per-block one on the kernels firmware (or the ELF given):\n"
                                     "MIPS as medians of N interleaved runs (default 5), the ratio as the median of each pair's,\n"
                                     "and the cycles each gives every kernel. --speed-only: the per-block and the cached pipeline\n"
                                     "runs only (no stepped runs, so no check of the cache's cycles).\n",
                                     repeat, elf))
        return 0;
    try {
        decode::ElfImage image = decode::ElfImage::load(elf);
        using Facts = emu::MachineConfig::PipelineFacts;
        std::vector<double> block_mips, pipeline_mips, stepped_mips, reference_mips, pair_ratios;
        Run block, pipeline, stepped, reference;
        auto mips = [](const Run& r) { return static_cast<double>(r.result.instructions) / r.seconds / 1e6; };
        for (int i = 0; i < repeat; ++i) {
            block = run(image, emu::TimingMode::Trm);
            pipeline = run(image, emu::TimingMode::Pipeline);
            block_mips.push_back(mips(block));
            pipeline_mips.push_back(mips(pipeline));
            pair_ratios.push_back(mips(pipeline) / mips(block));
            if (speed_only) continue;
            stepped = run(image, emu::TimingMode::Pipeline, false);
            reference = run(image, emu::TimingMode::Pipeline, false, Facts::Instruction);
            stepped_mips.push_back(mips(stepped));
            reference_mips.push_back(mips(reference));
        }
        double b = bench::median(block_mips), p = bench::median(pipeline_mips);
        const auto& cache = pipeline.result.timing_cache;
        std::printf("bench_pipeline: %s, %llu instructions, medians of %d interleaved runs\n", elf.c_str(),
                    static_cast<unsigned long long>(block.result.instructions), repeat);
        std::printf("  %-44s %8.1f MIPS\n", "per-block costs (timing: trm)", b);
        if (!speed_only) {
            double s = bench::median(stepped_mips), r = bench::median(reference_mips);
            std::printf("  %-44s %8.1f MIPS  (%.3fx the per-block costs)\n", "pipeline, facts per instruction, stepped", r, r / b);
            std::printf("  %-44s %8.1f MIPS  (%.3fx)\n", "pipeline, facts per block, stepped", s, s / b);
            std::printf("  %-44s %8.1f MIPS  (%.2fx the stepped)\n", "pipeline, facts per block, block-cost cache", p, p / s);
        } else {
            std::printf("  %-44s %8.1f MIPS\n", "pipeline, facts per block, block-cost cache", p);
        }
        std::printf("  %-44s %8.3fx  (median of the %d pairs' ratios; lowest %.3fx, highest %.3fx)\n", "pipeline against per-block costs",
                    bench::median(pair_ratios), repeat, *std::min_element(pair_ratios.begin(), pair_ratios.end()),
                    *std::max_element(pair_ratios.begin(), pair_ratios.end()));
        std::printf("  %-44s %.2f%% of %llu runs of instructions found (%.1f%% by following the run before), %llu states saved, %llu times emptied\n",
                    "block-cost cache", cache.lookups ? 100.0 * static_cast<double>(cache.hits) / static_cast<double>(cache.lookups) : 0.0,
                    static_cast<unsigned long long>(cache.lookups),
                    cache.lookups ? 100.0 * static_cast<double>(cache.followed) / static_cast<double>(cache.lookups) : 0.0,
                    static_cast<unsigned long long>(cache.states), static_cast<unsigned long long>(cache.clears));
        if (speed_only) return 0;
        std::printf(
            "  %-44s %s\n", "cached cycles = stepped cycles",
            pipeline.result.cycles == stepped.result.cycles && pipeline.kernels == stepped.kernels ? "yes" : "NO: the cache changed the result");
        std::printf("  %-44s %+.3f%%  (data addresses predicted where the board hooks no memory)\n", "facts per block against per instruction",
                    100.0 * (static_cast<double>(pipeline.result.cycles) / static_cast<double>(reference.result.cycles) - 1));
        std::printf("  %-40s %12llu %12llu  %+.2f%%\n", "cycles, whole run (trm, pipeline)    ", static_cast<unsigned long long>(block.result.cycles),
                    static_cast<unsigned long long>(pipeline.result.cycles),
                    100.0 * (static_cast<double>(pipeline.result.cycles) / static_cast<double>(block.result.cycles) - 1));
        for (const auto& [name, cycles] : block.kernels) {
            auto it = pipeline.kernels.find(name);
            if (it == pipeline.kernels.end()) continue;
            std::printf("    kernel %-31s %12lu %12lu  %+.2f%%\n", name.c_str(), cycles, it->second,
                        100.0 * (static_cast<double>(it->second) / static_cast<double>(cycles) - 1));
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_pipeline: %s\n", e.what());
        return 2;
    }
}
