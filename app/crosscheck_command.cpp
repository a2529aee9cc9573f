// emutrace crosscheck: a real (or emulated) PTM capture decoded with OpenCSD into the event model,
// with coverage and a per-function profile when the ELF is given, and compared step by step with
// an emulated run of the same firmware when a scenario is given too.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>

#include "analysis/calltrace/call_tracer.h"
#include "analysis/calltrace/profile.h"
#include "analysis/crosscheck/function_profile.h"
#include "analysis/crosscheck/program_flow.h"
#include "analysis/writers/event_log_writer.h"
#include "app/commands.h"
#include "app/scenario.h"
#include "config/config_error.h"
#include "decode/capture_decoder.h"
#include "decode/elf_image.h"
#include "emu/machine.h"

namespace emutrace::app {
namespace {

using nlohmann::json;

struct Side {
    std::unique_ptr<analysis::FlowRecorder> flow;
    std::unique_ptr<analysis::FunctionProfile> profile;
    std::unique_ptr<analysis::CallTracer> tracer;  ///< calls and returns, from BL and BX LR/POP pc
    analysis::Profile calls;

    std::vector<trace::TraceSink*> sinks() const {
        std::vector<trace::TraceSink*> out{flow.get()};
        if (profile) out.push_back(profile.get());
        if (tracer) out.push_back(tracer.get());
        return out;
    }
    std::uint64_t calls_of(std::uint32_t function) const {
        auto it = calls.overall().find(function);
        return it == calls.overall().end() ? 0 : it->second.calls;
    }
};

Side make_side(const decode::ElfImage* image) {
    Side s;
    s.flow = std::make_unique<analysis::FlowRecorder>(image);
    if (image) {
        s.profile = std::make_unique<analysis::FunctionProfile>(image->symbols());
        s.tracer = std::make_unique<analysis::CallTracer>(*image);
        s.tracer->add_listener(s.calls);
    }
    return s;
}

std::string where(const decode::ElfImage* image, const analysis::FlowStep& step) {
    if (!image || step.kind != analysis::FlowStep::Kind::Range) return "";
    const decode::Symbol* f = image->symbols().function_at(step.start);
    return f ? " in " + f->name : "";
}

void print_totals(const std::string& snapshot, const decode::CaptureSummary& s) {
    std::printf("%s: %llu trace bytes decoded with OpenCSD\n", snapshot.c_str(), static_cast<unsigned long long>(s.bytes));
    std::string ids;
    for (auto id : s.trace_ids) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
    std::printf("  trace sources   %s\n", ids.empty() ? "(none)" : ids.c_str());
    std::printf("  ranges          %llu\n  instructions    %llu\n  exceptions      %llu (returns %llu)\n  trace on        %llu\n"
                "  gaps            %llu\n  cycles          %llu\n",
                static_cast<unsigned long long>(s.ranges), static_cast<unsigned long long>(s.instructions),
                static_cast<unsigned long long>(s.exceptions), static_cast<unsigned long long>(s.exception_returns),
                static_cast<unsigned long long>(s.trace_on), static_cast<unsigned long long>(s.gaps),
                static_cast<unsigned long long>(s.cycles));
    if (s.lost_bytes)
        std::printf("  lost            %llu bytes while resynchronising, first at byte %lld\n",
                    static_cast<unsigned long long>(s.lost_bytes), static_cast<long long>(s.first_loss_at));
}

json profile_json(const Side& side) {
    json out = json::array();
    for (const auto& f : side.profile->functions())
        out.push_back({{"function", f.name}, {"address", f.address}, {"instructions", f.instructions}, {"ranges", f.ranges},
                       {"cycles", f.cycles}, {"size", f.size}, {"covered_bytes", f.covered_bytes}, {"calls", side.calls_of(f.address)}});
    return out;
}

void print_coverage(const decode::ElfImage& image, const Side& side, unsigned top) {
    const std::vector<analysis::FunctionCounts> functions = side.profile->functions();
    std::size_t defined = 0;
    for (const auto& s : image.symbols().all()) defined += s.is_function ? 1 : 0;
    std::size_t executed = std::count_if(functions.begin(), functions.end(), [](const auto& f) { return f.size > 0; });
    std::printf("\ncoverage: %zu of %zu functions executed\n", executed, defined);
    std::vector<analysis::FunctionCounts> sorted = functions;
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.instructions > b.instructions; });
    std::printf("  %-28s %12s %9s %7s %9s\n", "function", "instructions", "ranges", "calls", "covered");
    for (std::size_t i = 0; i < sorted.size() && i < top; ++i) {
        const auto& f = sorted[i];
        std::string covered = f.size ? std::to_string(100 * f.covered_bytes / f.size) + "%" : "-";
        std::printf("  %-28s %12llu %9llu %7llu %9s\n", f.name.c_str(), static_cast<unsigned long long>(f.instructions),
                    static_cast<unsigned long long>(f.ranges), static_cast<unsigned long long>(side.calls_of(f.address)),
                    covered.c_str());
    }
}

}  // namespace

int crosscheck_command(const CrosscheckOptions& o) {
    std::optional<decode::ElfImage> image;
    if (!o.elf.empty()) image = decode::ElfImage::load(o.elf);
    if (!o.scenario.empty() && !image) throw ConfigError("--scenario: comparing with an emulated run needs the firmware (--elf)");
    const decode::ElfImage* elf = image ? &*image : nullptr;

    Side capture = make_side(elf);
    std::unique_ptr<analysis::EventLogWriter> log;
    std::vector<trace::TraceSink*> sinks = capture.sinks();
    if (!o.events.empty()) {
        log = std::make_unique<analysis::EventLogWriter>(o.events);
        sinks.push_back(log.get());
    }
    decode::CaptureSummary s = decode::decode_snapshot(o.snapshot, static_cast<std::uint8_t>(o.trace_id), sinks);
    print_totals(o.snapshot, s);
    json j{{"snapshot", o.snapshot}, {"trace_ids", s.trace_ids}, {"ranges", s.ranges}, {"instructions", s.instructions},
           {"exceptions", s.exceptions}, {"exception_returns", s.exception_returns}, {"trace_on", s.trace_on},
           {"gaps", s.gaps}, {"cycles", s.cycles}, {"bytes", s.bytes},
           {"lost_bytes", s.lost_bytes}, {"first_loss_at", s.first_loss_at}};
    if (elf) {
        print_coverage(*elf, capture, 15);
        j["functions"] = profile_json(capture);
    }

    int status = 0;
    if (!o.scenario.empty()) {
        Scenario sc = load_scenario_file(o.scenario);
        sc.machine.echo_output = false;
        if (!o.cmdline.empty()) sc.machine.semihosting.cmdline = o.cmdline;
        emu::Machine machine(std::move(sc.machine), *elf);
        Side emulated = make_side(elf);
        for (auto* sink : emulated.sinks()) machine.add_sink(*sink);
        emu::RunResult result = machine.run();

        const auto& a = capture.flow->steps();
        const auto& b = emulated.flow->steps();
        analysis::FlowComparison c = analysis::compare_flows(a, b, /*compare_cycles=*/false);
        std::printf("\nemulated %s: %s, %llu instructions, %llu cycles\n", o.elf.c_str(), result.message.c_str(),
                    static_cast<unsigned long long>(result.instructions), static_cast<unsigned long long>(result.cycles));
        json cmp{{"identical", c.identical}, {"matching_steps", c.matching}, {"capture_steps", c.left_steps},
                 {"emulated_steps", c.right_steps}, {"capture_cycles", s.cycles}, {"emulated_cycles", result.cycles}};
        if (c.identical) {
            std::printf("paths: identical, %zu steps (ranges, exceptions, returns)\n", c.matching);
        } else {
            status = 1;
            std::size_t i = c.first_divergence;
            auto text = [&](const std::vector<analysis::FlowStep>& v, std::size_t k) {
                return k < v.size() ? analysis::describe(v[k]) + where(elf, v[k]) : std::string("(ended)");
            };
            std::printf("paths: differ; %zu of %zu/%zu steps match\nfirst divergence at step %zu:\n", c.matching, c.left_steps,
                        c.right_steps, i);
            if (i > 0) std::printf("  before:    %s\n", text(a, i - 1).c_str());
            std::printf("  capture:   %s\n  emulated:  %s\n", text(a, i).c_str(), text(b, i).c_str());
            std::uint32_t address = i < a.size() ? a[i].start : i < b.size() ? b[i].start : 0;
            cmp["first_divergence"] = {{"step", i}, {"address", address}, {"capture", text(a, i)}, {"emulated", text(b, i)},
                                       {"before", i > 0 ? text(a, i - 1) : ""}};
        }
        // Per-function counts side by side.
        struct Counts {
            std::uint64_t instructions[2] = {0, 0}, calls[2] = {0, 0};
        };
        std::map<std::string, Counts> side_by_side;
        for (const auto& f : capture.profile->functions()) {
            side_by_side[f.name].instructions[0] = f.instructions;
            side_by_side[f.name].calls[0] = capture.calls_of(f.address);
        }
        for (const auto& f : emulated.profile->functions()) {
            side_by_side[f.name].instructions[1] = f.instructions;
            side_by_side[f.name].calls[1] = emulated.calls_of(f.address);
        }
        std::printf("  %-28s %26s %26s\n", "function", "capture instr (calls)", "emulated instr (calls)");
        json per_function = json::array();
        for (const auto& [name, n] : side_by_side) {
            bool same = n.instructions[0] == n.instructions[1] && n.calls[0] == n.calls[1];
            std::printf("  %-28s %18llu (%5llu) %18llu (%5llu)%s\n", name.c_str(), static_cast<unsigned long long>(n.instructions[0]),
                        static_cast<unsigned long long>(n.calls[0]), static_cast<unsigned long long>(n.instructions[1]),
                        static_cast<unsigned long long>(n.calls[1]), same ? "" : "  <- differs");
            per_function.push_back({{"function", name}, {"capture", n.instructions[0]}, {"emulated", n.instructions[1]},
                                    {"capture_calls", n.calls[0]}, {"emulated_calls", n.calls[1]}});
        }
        cmp["functions"] = per_function;
        j["comparison"] = cmp;
    }
    if (!o.json.empty()) {
        std::ofstream out(o.json);
        if (!out) throw ConfigError(o.json + ": cannot write the JSON file");
        out << j.dump(2) << "\n";
    }
    return status;
}

}  // namespace emutrace::app
