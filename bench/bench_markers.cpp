// The paper's experiment (Thomas, Fischmeister, Kumar, LCTES 2011, section 7) on seeded
// structured CFGs, then on every sized function of the project's firmware: each marker scheme
// for up to 50 steps, and the paper's tables beside ours.
//   build/bench/bench_markers [--graphs N] [--steps S] [--seed X] [--sparse] [--firmware F.elf ...]
// --sparse: plain structured code (about 1.3 edges per block) instead of the paper's density
// (conditions of several terms and frequent break/continue, about 1.9).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "analysis/sampler/cfg_generator.h"
#include "analysis/sampler/code_graph.h"
#include "analysis/sampler/marker_planner.h"
#include "decode/elf_image.h"
#include "decode/program.h"

using namespace emutrace;
using namespace emutrace::analysis::sampler;

namespace {

const std::vector<std::string> kSchemes = {"bitvec", "bitvec+", "multi:25", "multi:10", "single", "assign"};

struct Tally {
    double p = 0;                    // Σ max(T_i)
    std::uint64_t interference = 0;  // Σ drops of Δt
    double monotonicity_sum = 0;     // finite M values
    std::size_t monotonic = 0;       // runs whose Δt never dropped
    std::size_t runs = 0, theorem_stops = 0, unlimited = 0;
    double seconds = 0, worst_seconds = 0;
};

struct Totals {
    std::map<std::string, Tally> by_scheme;
    std::size_t bitvec_wins = 0, increment_wins = 0, ties = 0;
    std::size_t graphs = 0, blocks = 0, edges = 0;
    std::size_t without_pairs = 0;  // no two paths give the same samples even without markers
};

void run(const SamplingGraph& g, unsigned steps, Totals& t) {
    // A graph without cycles has no two paths between samples that end in one block: it needs no
    // markers at all, and would only add the search limit to every scheme's P.
    if (!find_intersecting_pair(g, MarkerPlan(g.vertices.size()), {100'000, 4'000'000}).pair) {
        ++t.without_pairs;
        return;
    }
    ++t.graphs;
    t.blocks += g.vertices.size();
    t.edges += g.edges();
    std::map<std::string, std::uint64_t> best;
    for (const auto& name : kSchemes) {
        auto scheme = make_scheme(name);
        auto start = std::chrono::steady_clock::now();
        MarkerPlanResult r = plan_markers(g, *scheme, steps, {100'000, 4'000'000});
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        Tally& tally = t.by_scheme[name];
        ++tally.runs;
        tally.p += static_cast<double>(r.best());
        tally.interference += r.interference();
        if (r.monotonicity() < 0)
            ++tally.monotonic;
        else
            tally.monotonicity_sum += r.monotonicity();
        tally.theorem_stops += r.stopped.find("Theorem") != std::string::npos || r.stopped.find("permutation") != std::string::npos;
        tally.unlimited += r.unlimited;
        tally.seconds += s;
        tally.worst_seconds = std::max(tally.worst_seconds, s);
        best[name] = r.best();
    }
    if (best["bitvec"] > best["single"])
        ++t.bitvec_wins;
    else if (best["bitvec"] < best["single"])
        ++t.increment_wins;
    else
        ++t.ties;
}

void print(const char* title, const Totals& t) {
    std::printf("\n%s: %zu graphs (and %zu that need no markers), %.1f blocks and %.1f edges on average\n", title, t.graphs, t.without_pairs,
                t.graphs ? static_cast<double>(t.blocks) / static_cast<double>(t.graphs) : 0.0,
                t.graphs ? static_cast<double>(t.edges) / static_cast<double>(t.graphs) : 0.0);
    if (!t.graphs) return;
    const Tally& bv = t.by_scheme.at("bitvec");
    std::printf("  %-10s %12s %9s %12s %12s %11s %10s %10s %9s %9s\n", "scheme", "P=Σmax(Ti)", "P/bitvec", "interference", "/bitvec(+1)", "monotonic",
                "mean M", "theorem", "ms/plan", "worst ms");
    for (const auto& name : kSchemes) {
        const Tally& s = t.by_scheme.at(name);
        std::size_t finite = s.runs - s.monotonic;
        std::printf("  %-10s %12.0f %9.3f %12llu %12.1f %10.1f%% %10s %10zu %9.1f %9.0f\n", name.c_str(), s.p, bv.p ? s.p / bv.p : 0.0,
                    static_cast<unsigned long long>(s.interference),
                    static_cast<double>(s.interference + 1) / static_cast<double>(bv.interference + 1),
                    100.0 * static_cast<double>(s.monotonic) / static_cast<double>(s.runs),
                    finite ? std::to_string(s.monotonicity_sum / static_cast<double>(finite)).substr(0, 6).c_str() : "inf", s.theorem_stops,
                    1e3 * s.seconds / static_cast<double>(s.runs), 1e3 * s.worst_seconds);
    }
    std::size_t decided = t.bitvec_wins + t.increment_wins;
    std::printf(
        "  BITVEC above single increment in %zu graphs, below in %zu, equal in %zu: %.1f%% vs %.1f%% of the decided "
        "(paper: 83.4%% vs 16.6%%)\n",
        t.bitvec_wins, t.increment_wins, t.ties, decided ? 100.0 * static_cast<double>(t.bitvec_wins) / static_cast<double>(decided) : 0.0,
        decided ? 100.0 * static_cast<double>(t.increment_wins) / static_cast<double>(decided) : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
    unsigned graphs = 200, steps = 50;
    std::uint64_t seed = 1;
    std::vector<std::string> firmware;
    GeneratorOptions shape = paper_density_options();
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--graphs" && i + 1 < argc)
            graphs = static_cast<unsigned>(std::atoi(argv[++i]));
        else if (a == "--steps" && i + 1 < argc)
            steps = static_cast<unsigned>(std::atoi(argv[++i]));
        else if (a == "--seed" && i + 1 < argc)
            seed = std::strtoull(argv[++i], nullptr, 0);
        else if (a == "--sparse")
            shape = GeneratorOptions{};
        else if (a == "--firmware" && i + 1 < argc)
            firmware.push_back(argv[++i]);
        else {
            std::fprintf(stderr, "usage: bench_markers [--graphs N] [--steps S] [--seed X] [--sparse] [--firmware F.elf ...]\n");
            return 2;
        }
    }
    std::printf("bench_markers: %u structured CFGs (seed %llu), schemes for up to %u steps each\n", graphs, static_cast<unsigned long long>(seed),
                steps);
    std::printf("paper, Table 2 (interference normalised to BITVEC): bitvec 1, bitvec+ 2, multi:25 2, multi:10 9, single 109\n");
    Totals generated;
    for (unsigned i = 0; i < graphs; ++i) {
        run(generate_structured_cfg(seed + i, shape), steps, generated);
        if ((i + 1) % 50 == 0) std::fprintf(stderr, "bench_markers: %u of %u graphs\n", i + 1, graphs);
    }
    print("generated", generated);
    std::fflush(stdout);

    if (!firmware.empty()) {
        Totals code;
        for (const auto& path : firmware) {
            decode::ElfImage image = decode::ElfImage::load(path);
            decode::Program program = decode::Program::build(image);
            for (const auto& f : program.functions())
                if (f.blocks.size() >= 3) run(code_graph(image, f, models::CoreKind::CortexM3), steps, code);
            std::fprintf(stderr, "bench_markers: %s done\n", path.c_str());
        }
        print("firmware functions (cortex-m3 best-case block costs)", code);
        std::fflush(stdout);
    }

    // Speed: a 50-step plan for a function of about 300 blocks.
    GeneratorOptions big = shape;
    big.target_blocks = 300;
    SamplingGraph g = generate_structured_cfg(seed, big);
    for (const char* name : {"bitvec", "bitvec+", "multi:10"}) {
        auto scheme = make_scheme(name);
        auto start = std::chrono::steady_clock::now();
        MarkerPlanResult r = plan_markers(g, *scheme, 50, {100'000, 20'000'000});
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("speed: %-8s %zu blocks, %zu steps in %.2f s (target < 10 s), Δt %llu -> %llu, %llu product states\n", name, g.vertices.size(),
                    r.steps.size(), s, static_cast<unsigned long long>(r.delta_t.front()), static_cast<unsigned long long>(r.achieved()),
                    static_cast<unsigned long long>(r.states));
    }
    return 0;
}
