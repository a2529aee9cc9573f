// emutrace crosscheck: a real (or emulated) PTM capture decoded with OpenCSD into the event model
// and fed to the registered analyses exactly as `run` feeds an emulated run; with the ELF,
// coverage and a per-function profile; with a scenario too, the step-by-step comparison with an
// emulated run of the same firmware.
#include <cstdio>
#include <map>
#include <optional>

#include "analysis/crosscheck/comparison_report.h"
#include "analysis/crosscheck/run_comparison.h"
#include "analysis/crosscheck/sample_profile.h"
#include "app/commands.h"
#include "config/json_text.h"
#include "config/text_file.h"
#include "decode/elf_image.h"
#include "emutrace/config_error.h"
#include "report/run_page.h"

namespace emutrace::app {
namespace {

// An output the command writes itself (with the comparison), taken from what the session writes.
std::string take_output(std::map<std::string, std::string>& options, const std::string& key) {
    auto it = options.find(key);
    if (it == options.end()) return {};
    std::string path = std::move(it->second);
    options.erase(it);
    return path;
}

// The emulated run a capture is held against: the same firmware on the scenario, quiet, its
// scenario's outputs left to the capture's side. `sinks` see it; says what ran.
RunReport run_emulation(const AnalysisRegistry& registry, const CrosscheckOptions& o, const std::vector<trace::TraceSink*>& sinks) {
    RunRequest emulate;
    emulate.firmware = o.elf;
    emulate.scenario = o.scenario;
    emulate.machine.echo_output = false;
    emulate.scenario_outputs = false;
    if (!o.cmdline.empty()) emulate.machine.cmdline = o.cmdline;
    Session emulation(registry, emulate);
    for (trace::TraceSink* sink : sinks) emulation.add_sink(*sink);
    RunReport run = emulation.run();
    std::printf("\nemulated %s: %s, %llu instructions, %llu cycles\n", o.elf.c_str(), run.stopped.c_str(),
                static_cast<unsigned long long>(run.totals.instructions), static_cast<unsigned long long>(run.totals.cycles));
    return run;
}

// An SWO capture against an emulated run: PC samples by function against the emulated cycles, and
// each exception's count and spacing.
int crosscheck_swo(const AnalysisRegistry& registry, const CrosscheckOptions& o) {
    if (o.elf.empty()) throw ConfigError("--swo: naming the sampled functions needs the firmware (--elf)");
    const decode::ElfImage image = decode::ElfImage::load(o.elf);
    RunRequest request;
    request.firmware = o.elf;
    request.scenario = o.scenario;
    request.source = "swo";
    request.source_input = o.swo;
    request.options = o.options;
    const std::string json_path = take_output(request.options, "json");
    Session session(registry, request);
    analysis::SampleProfile captured(image.symbols(), analysis::SampleProfile::Weight::Samples);
    session.add_sink(captured);
    RunReport report = session.run();
    std::fputs(report.summary.c_str(), stdout);
    for (const auto& f : report.failures) std::fprintf(stderr, report.status == 2 ? "emutrace: error: %s\n" : "emutrace: %s\n", f.c_str());
    nlohmann::json j = nlohmann::json::parse(report.json);
    int status = report.status;
    if (status == 2) return status;

    analysis::SampleProfile emulated(image.symbols(), analysis::SampleProfile::Weight::Cycles);
    if (!o.scenario.empty()) run_emulation(registry, o, {&emulated});
    const analysis::SampleComparison c = analysis::compare_samples(captured, emulated, static_cast<double>(o.timestamp_prescale));
    std::fputs(c.text.c_str(), stdout);
    j["comparison"] = c.json;
    if (!o.scenario.empty() && o.max_share_difference > 0 && c.largest_difference > o.max_share_difference) {
        std::fprintf(stderr,
                     "emutrace: a function's share of the time differs by %.2f points between the capture and the emulated run (limit %.2f)\n",
                     c.largest_difference, o.max_share_difference);
        status = std::max(status, 1);
    }
    if (!json_path.empty()) config::write_text_file(json_path, config::json_text(j, 2) + "\n", "JSON file");
    return status;
}

}  // namespace

int crosscheck_command(const AnalysisRegistry& registry, const CrosscheckOptions& o) {
    if (!o.swo.empty()) return crosscheck_swo(registry, o);
    std::optional<decode::ElfImage> image;
    if (!o.elf.empty()) image = decode::ElfImage::load(o.elf);
    if (!o.scenario.empty() && !image) throw ConfigError("--scenario: comparing with an emulated run needs the firmware (--elf)");
    const decode::ElfImage* elf = image ? &*image : nullptr;

    RunRequest request;
    request.firmware = o.elf;
    request.scenario = o.scenario;
    request.source = "ptm";
    request.source_input = o.snapshot;
    request.options = o.options;
    if (o.trace_id) request.options["trace-id"] = std::to_string(o.trace_id);
    // Written below, with the coverage and the comparison, not by the session.
    const std::string json_path = take_output(request.options, "json"), report_path = take_output(request.options, "report");
    Session session(registry, request);
    analysis::CrosscheckSide capture(elf);
    for (trace::TraceSink* sink : capture.sinks()) session.add_sink(*sink);
    RunReport report = session.run();
    std::fputs(report.summary.c_str(), stdout);
    nlohmann::json j = nlohmann::json::parse(report.json);
    if (elf) {
        std::fputs(capture.coverage(15).c_str(), stdout);
        j["functions"] = capture.profile_json();
    }

    int status = report.status;
    if (!o.scenario.empty()) {
        analysis::CrosscheckSide emulated(elf);
        RunReport run = run_emulation(registry, o, emulated.sinks());
        analysis::RunComparison c = analysis::compare_runs(capture, emulated, *elf, report.totals.cycles, run.totals.cycles);
        std::fputs(c.text.c_str(), stdout);
        j["comparison"] = c.json;
        if (!c.identical) status = 1;
    }
    // A capture that decodes to nothing is bad input, said as every bad input is.
    for (const auto& f : report.failures) std::fprintf(stderr, report.status == 2 ? "emutrace: error: %s\n" : "emutrace: %s\n", f.c_str());
    if (!report_path.empty()) {
        std::vector<report::Part> parts;
        for (auto& html : report.report_sections) parts.push_back({"", std::move(html)});
        if (j.contains("comparison")) parts.push_back({"comparison", analysis::comparison_report_html(j["comparison"])});
        std::vector<std::string> failures = report.failures, checks = report.checks;
        if (j.contains("comparison")) checks.push_back("the capture and the emulated run agree");
        if (j.contains("comparison") && !j["comparison"].value("identical", false)) failures.push_back("the capture and the emulated run differ");
        config::write_text_file(report_path, report::run_page(j, failures, checks, parts), "HTML report");
    }
    if (!json_path.empty()) {
        config::write_text_file(json_path, config::json_text(j, 2) + "\n", "JSON file");
    }
    return status;
}

}  // namespace emutrace::app
