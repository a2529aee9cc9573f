// emutrace markers: where to put markers so that a sampling monitor can sample a function less
// often and still reconstruct every path (docs/sampler.md).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "analysis/sampler/code_graph.h"
#include "analysis/sampler/marker_header.h"
#include "analysis/sampler/marker_planner.h"
#include "analysis/sampler/marker_report.h"
#include "app/commands.h"
#include "config/json_text.h"
#include "config/text_file.h"
#include "decode/elf_image.h"
#include "decode/program.h"
#include "decode/source_lines.h"
#include "emutrace/config_error.h"
#include "report/page.h"

namespace emutrace::app {
namespace {

using namespace analysis::sampler;

std::string path_text(const SamplingGraph& g, std::uint32_t start, const std::vector<std::uint32_t>& path) {
    std::string s = g.vertices[start].name;
    for (auto v : path) s += " > " + g.vertices[v].name;
    return s;
}

// The cycles the plan's markers cost if every instrumented block runs once.
std::uint32_t overhead_cycles(const SamplingGraph& g, const MarkerPlanResult& r) {
    std::uint32_t overhead = 0;
    for (std::uint32_t v = 0; v < g.vertices.size(); ++v) overhead += r.plan.cost(v);
    return overhead;
}

void print_plan(const MarkersOptions& o, const SamplingGraph& g, const MarkerPlanResult& r, std::string_view core) {
    std::printf("markers for %s (%zu blocks, %zu edges, %s best-case cycles%s), scheme %s\n", o.function.c_str(), g.vertices.size(), g.edges(),
                std::string(core).c_str(), o.exact_durations ? ", taken exactly" : ", or longer", r.scheme.c_str());
    std::printf("  Δt without markers  %llu cycles\n", static_cast<unsigned long long>(r.delta_t.front()));
    for (std::size_t i = 0; i < r.steps.size(); ++i) {
        const PlanStep& s = r.steps[i];
        std::string ops;
        for (const auto& a : s.added) ops += (ops.empty() ? "" : ", ") + g.vertices[a.vertex].name + ": " + a.op.text();
        std::printf("  step %2zu  Δt %6llu -> %-6llu %s\n", i + 1, static_cast<unsigned long long>(s.delta_t),
                    static_cast<unsigned long long>(r.delta_t[i + 1]), ops.c_str());
        if (o.verbose)
            std::printf("           %s\n           %s\n", path_text(g, s.pair.start, s.pair.first).c_str(),
                        path_text(g, s.pair.start, s.pair.second).c_str());
    }
    if (r.unlimited)
        std::printf("  achieved Δt         more than %llu cycles: no two paths give the same samples within the search limit\n",
                    static_cast<unsigned long long>(o.max_delta_t));
    else
        std::printf("  achieved Δt         %llu cycles: sample every %llu cycles or faster\n", static_cast<unsigned long long>(r.achieved()),
                    static_cast<unsigned long long>(r.achieved() > 1 ? r.achieved() - 1 : 1));
    std::printf(
        "  markers             %zu blocks instrumented, %zu bytes (%u bits, %u counter words%s), %u cycles if every instrumented block runs once\n",
        r.plan.instrumented_vertices(), r.plan.bytes(), r.plan.bits, r.plan.counters, r.plan.assignment ? ", an assignment marker" : "",
        overhead_cycles(g, r));
    std::printf("  metrics             max Δt %llu, interference %llu, M %s, μ %.2f cycles/byte\n", static_cast<unsigned long long>(r.best()),
                static_cast<unsigned long long>(r.interference()), r.monotonicity() < 0 ? "inf" : std::to_string(r.monotonicity()).c_str(),
                r.memory_efficiency());
    std::printf("  stopped             %s\n", r.stopped.c_str());
}

nlohmann::json plan_json(const MarkersOptions& o, const SamplingGraph& g, const MarkerPlanResult& r, std::string_view core) {
    nlohmann::json steps = nlohmann::json::array(), plan = nlohmann::json::array();
    for (std::size_t i = 0; i < r.steps.size(); ++i) {
        nlohmann::json added = nlohmann::json::array();
        for (const auto& a : r.steps[i].added) added.push_back({{"block", g.vertices[a.vertex].address}, {"op", a.op.text()}});
        steps.push_back(
            {{"delta_t_before", r.steps[i].delta_t},
             {"delta_t_after", r.delta_t[i + 1]},
             {"added", added},
             {"pair", {path_text(g, r.steps[i].pair.start, r.steps[i].pair.first), path_text(g, r.steps[i].pair.start, r.steps[i].pair.second)}}});
    }
    for (std::uint32_t v = 0; v < g.vertices.size(); ++v) {
        if (r.plan.ops[v].empty()) continue;
        nlohmann::json ops = nlohmann::json::array();
        for (const auto& op : r.plan.ops[v]) ops.push_back(op.text());
        plan.push_back({{"block", g.vertices[v].address}, {"name", g.vertices[v].name}, {"ops", ops}, {"cycles", r.plan.cost(v)}});
    }
    return {{"function", o.function},
            {"scheme", r.scheme},
            {"cpu", core},
            {"blocks", g.vertices.size()},
            {"edges", g.edges()},
            {"delta_t", r.delta_t},
            {"achieved_delta_t", r.achieved()},
            {"unlimited", r.unlimited},
            {"max_delta_t", r.best()},
            {"interference", r.interference()},
            {"monotonicity", r.monotonicity() < 0 ? nlohmann::json("inf") : nlohmann::json(r.monotonicity())},
            {"memory_efficiency", r.memory_efficiency()},
            {"marker_bytes", r.plan.bytes()},
            {"bits", r.plan.bits},
            {"counters", r.plan.counters},
            {"overhead_cycles", overhead_cycles(g, r)},
            {"steps", steps},
            {"plan", plan},
            {"stopped", r.stopped}};
}

void write_outputs(const MarkersOptions& o, const SamplingGraph& g, const MarkerPlanResult& r, std::string_view core) {
    if (!o.header.empty()) {
        decode::SourceLines lines(o.elf);
        config::write_text_file(o.header, marker_header(g, r.plan, o.function, r.scheme, r.achieved(), [&](std::uint32_t a) { return lines.at(a); }),
                                "C header");
    }
    if (o.json.empty() && o.report.empty()) return;
    const nlohmann::json j = plan_json(o, g, r, core);
    if (!o.json.empty()) config::write_text_file(o.json, config::json_text(j, 2) + "\n", "JSON result");
    if (o.report.empty()) return;
    report::Page page;
    page.title = "emutrace markers: " + o.function;
    page.facts = {o.elf};
    page.has_verdict = false;
    page.sections.push_back(marker_report_html(j));
    config::write_text_file(o.report, page.html(), "HTML report");
}

}  // namespace

int markers_command(const MarkersOptions& o) {
    auto scheme = make_scheme(o.scheme);
    if (!scheme) throw ConfigError("--scheme: unknown scheme '" + o.scheme + "' (known: " + scheme_names() + ")");
    decode::ElfImage image = decode::ElfImage::load(o.elf);
    const decode::BuildAttributes& built = image.build();
    auto core = o.cpu.empty() ? models::core_built_for(built) : models::find_core(o.cpu);
    if (!core && !o.cpu.empty()) throw ConfigError("--cpu: unknown core '" + o.cpu + "' (known: " + models::core_names() + ")");
    if (!core) core = models::find_core("cortex-m3");
    decode::Program program = decode::Program::build(image);
    SamplingGraph g = code_graph(image, program, o.function, core->kind);
    MarkerPlanResult r = plan_markers(g, *scheme, o.steps, {o.max_delta_t, o.max_states, !o.exact_durations});
    print_plan(o, g, r, core->name);
    write_outputs(o, g, r, core->name);
    return 0;
}

}  // namespace emutrace::app
