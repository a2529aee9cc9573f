#include "analysis/crosscheck/run_comparison.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "decode/elf_image.h"

namespace emutrace::analysis {
namespace {

std::string line(const char* fmt, auto... args) {
    char buf[512];
    std::snprintf(buf, sizeof buf, fmt, args...);
    return buf;
}

std::string where(const decode::ElfImage& image, const FlowStep& step) {
    if (step.kind != FlowStep::Kind::Range) return "";
    const decode::Symbol* f = image.symbols().function_at(step.start);
    return f ? " in " + f->name : "";
}

}  // namespace

CrosscheckSide::CrosscheckSide(const decode::ElfImage* image) : image_(image), flow_(image) {
    if (!image) return;
    profile_ = std::make_unique<FunctionProfile>(image->symbols());
    tracer_ = std::make_unique<CallTracer>(*image);
    tracer_->add_listener(calls_);
}

std::vector<trace::TraceSink*> CrosscheckSide::sinks() {
    std::vector<trace::TraceSink*> out{&flow_};
    if (profile_) out.push_back(profile_.get());
    if (tracer_) out.push_back(tracer_.get());
    return out;
}

std::uint64_t CrosscheckSide::calls_of(std::uint32_t function) const {
    auto it = calls_.overall().find(function);
    return it == calls_.overall().end() ? 0 : it->second.calls;
}

std::string CrosscheckSide::coverage(std::size_t top) const {
    if (!profile_) return "";
    std::vector<FunctionCounts> functions = profile_->functions();
    std::size_t defined = 0;
    for (const auto& s : image_->symbols().all()) defined += s.is_function ? 1 : 0;
    std::size_t executed = std::count_if(functions.begin(), functions.end(), [](const auto& f) { return f.size > 0; });
    std::string out = line("\ncoverage: %zu of %zu functions executed\n", executed, defined);
    std::sort(functions.begin(), functions.end(), [](const auto& a, const auto& b) { return a.instructions > b.instructions; });
    out += line("  %-28s %12s %9s %7s %9s\n", "function", "instructions", "ranges", "calls", "covered");
    for (std::size_t i = 0; i < functions.size() && i < top; ++i) {
        const auto& f = functions[i];
        std::string covered = f.size ? std::to_string(100 * f.covered_bytes / f.size) + "%" : "-";
        out += line("  %-28s %12llu %9llu %7llu %9s\n", f.name.c_str(), static_cast<unsigned long long>(f.instructions),
                    static_cast<unsigned long long>(f.ranges), static_cast<unsigned long long>(calls_of(f.address)), covered.c_str());
    }
    return out;
}

nlohmann::json CrosscheckSide::profile_json() const {
    nlohmann::json out = nlohmann::json::array();
    if (!profile_) return out;
    for (const auto& f : profile_->functions())
        out.push_back({{"function", f.name},
                       {"address", f.address},
                       {"instructions", f.instructions},
                       {"ranges", f.ranges},
                       {"cycles", f.cycles},
                       {"size", f.size},
                       {"covered_bytes", f.covered_bytes},
                       {"calls", calls_of(f.address)}});
    return out;
}

RunComparison compare_runs(const CrosscheckSide& capture, const CrosscheckSide& emulated, const decode::ElfImage& image, std::uint64_t capture_cycles,
                           std::uint64_t emulated_cycles) {
    RunComparison out;
    const auto& a = capture.steps();
    const auto& b = emulated.steps();
    FlowComparison c = compare_flows(a, b, /*compare_cycles=*/false);
    out.identical = c.identical;
    nlohmann::json& cmp = out.json;
    cmp = {{"identical", c.identical},        {"matching_steps", c.matching},     {"capture_steps", c.left_steps},
           {"emulated_steps", c.right_steps}, {"capture_cycles", capture_cycles}, {"emulated_cycles", emulated_cycles}};
    if (c.identical) {
        out.text += line("paths: identical, %zu steps (ranges, exceptions, returns)\n", c.matching);
    } else {
        std::size_t i = c.first_divergence;
        auto text = [&](const std::vector<FlowStep>& v, std::size_t k) {
            return k < v.size() ? describe(v[k]) + where(image, v[k]) : std::string("(ended)");
        };
        out.text += line("paths: differ; %zu of %zu/%zu steps match\nfirst divergence at step %zu:\n", c.matching, c.left_steps, c.right_steps, i);
        if (i > 0) out.text += "  before:    " + text(a, i - 1) + "\n";
        out.text += "  capture:   " + text(a, i) + "\n  emulated:  " + text(b, i) + "\n";
        std::uint32_t address = i < a.size() ? a[i].start : i < b.size() ? b[i].start : 0;
        cmp["first_divergence"] = {
            {"step", i}, {"address", address}, {"capture", text(a, i)}, {"emulated", text(b, i)}, {"before", i > 0 ? text(a, i - 1) : ""}};
    }
    // Per-function counts side by side.
    struct Counts {
        std::uint64_t instructions[2] = {0, 0}, calls[2] = {0, 0};
    };
    std::map<std::string, Counts> side_by_side;
    for (const auto& f : capture.profile()->functions()) {
        side_by_side[f.name].instructions[0] = f.instructions;
        side_by_side[f.name].calls[0] = capture.calls_of(f.address);
    }
    for (const auto& f : emulated.profile()->functions()) {
        side_by_side[f.name].instructions[1] = f.instructions;
        side_by_side[f.name].calls[1] = emulated.calls_of(f.address);
    }
    out.text += line("  %-28s %26s %26s\n", "function", "capture instr (calls)", "emulated instr (calls)");
    nlohmann::json per_function = nlohmann::json::array();
    for (const auto& [name, n] : side_by_side) {
        bool same = n.instructions[0] == n.instructions[1] && n.calls[0] == n.calls[1];
        out.text += line("  %-28s %18llu (%5llu) %18llu (%5llu)%s\n", name.c_str(), static_cast<unsigned long long>(n.instructions[0]),
                         static_cast<unsigned long long>(n.calls[0]), static_cast<unsigned long long>(n.instructions[1]),
                         static_cast<unsigned long long>(n.calls[1]), same ? "" : "  <- differs");
        per_function.push_back({{"function", name},
                                {"capture", n.instructions[0]},
                                {"emulated", n.instructions[1]},
                                {"capture_calls", n.calls[0]},
                                {"emulated_calls", n.calls[1]}});
    }
    cmp["functions"] = per_function;
    return out;
}

}  // namespace emutrace::analysis
