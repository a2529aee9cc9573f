#include "report/run_page.h"

#include <cstdio>
#include <filesystem>

#include "config/json_text.h"
#include "report/html.h"
#include "report/json_fields.h"
#include "report/page.h"

namespace emutrace::report {
namespace {

std::string fixed(double v, const char* format) {
    char text[64];
    std::snprintf(text, sizeof text, format, v);
    return text;
}

}  // namespace

std::string run_summary_section(const nlohmann::json& r) {
    Table t;
    auto row = [&](std::string what, std::string value) { t.rows.push_back({escape(what), std::move(value)}); };
    std::uint64_t hz = count_at(r, "clock_hz"), cycles = count_at(r, "cycles"), instructions = count_at(r, "instructions");
    if (auto reason = text_at(r, "stop_reason"); !reason.empty()) {
        std::string message = text_at(r, "stop_message");
        row("stopped", "<span class=\"stop-reason\">" + escape(reason) + "</span>" + (message.empty() ? "" : ": " + escape(message)));
    }
    if (auto fault = r.find("fault"); fault != r.end() && !fault->is_null()) row("fault", "<span class=\"bad\">" + escape(fault->dump()) + "</span>");
    if (auto core = text_at(r, "cpu"); !core.empty()) {
        std::string timing = text_at(r, "timing");
        row("core", escape(core) + (hz ? " at " + fixed(static_cast<double>(hz) / 1e6, "%g") + " MHz" : "") +
                        (timing.empty() ? "" : ", " + escape(timing) + " timing"));
    }
    row("instructions", "<span class=\"instructions\">" + thousands(instructions) + "</span>");
    if (cycles) {
        // The run's own CPI leaves out the cycles asleep; a capture has none, so it is computed.
        double cpi_value = r.contains("cpi") && r["cpi"].is_number() ? r["cpi"].get<double>()
                           : instructions                            ? static_cast<double>(cycles) / static_cast<double>(instructions)
                                                                     : 0;
        std::string cpi = cpi_value > 0 ? " (CPI " + fixed(cpi_value, "%.2f") + ")" : "";
        row("cycles", thousands(cycles) + cpi);
    }
    if (hz && cycles) {
        std::string sleep;
        if (std::uint64_t asleep = count_at(r, "sleep_cycles"))
            sleep = ", " + percent(static_cast<double>(asleep) / static_cast<double>(cycles)) + " asleep in WFI/WFE";
        row("emulated time", escape(duration(static_cast<double>(cycles), hz)) + sleep);
    }
    if (r.contains("exceptions"))
        row("exceptions", thousands(count_at(r, "exceptions")) + " taken, " + thousands(count_at(r, "thread_switches")) + " thread switches");
    if (auto host = r.find("host_seconds"); host != r.end() && host->is_number()) {
        double s = host->get<double>();
        std::string mips = s > 0 && instructions ? " (" + fixed(static_cast<double>(instructions) / s / 1e6, "%.1f") + " MIPS)" : "";
        row("host time", fixed(s * 1e3, "%.3f ms") + mips);
    }
    if (r.contains("exit_code") && !r["exit_code"].is_null()) row("exit code", escape(config::json_text(r["exit_code"])));
    if (auto firmware = text_at(r, "firmware"); !firmware.empty()) row("firmware", escape(firmware));
    if (auto scenario = text_at(r, "scenario"); !scenario.empty()) row("scenario", escape(scenario));
    std::string body = "<table class=\"facts-table\"><tbody>\n";
    for (const auto& cells : t.rows) body += "<tr><td>" + cells[0] + "</td><td>" + cells[1] + "</td></tr>\n";
    body += "</tbody></table>\n";
    return section("summary", "Run", body);
}

std::string run_page(const nlohmann::json& result, const std::vector<std::string>& failures, const std::vector<std::string>& checks,
                     const std::vector<Part>& parts) {
    Page page;
    std::string firmware = text_at(result, "firmware");
    page.title = "emutrace report: " + (firmware.empty() ? std::string("run") : std::filesystem::path(firmware).filename().string());
    if (auto scenario = text_at(result, "scenario"); !scenario.empty()) page.facts.push_back("scenario " + scenario);
    if (auto core = text_at(result, "cpu"); !core.empty()) page.facts.push_back(core);
    page.failures = failures;
    if (checks.empty()) {
        page.nothing_checked =
            "the run was observed, not judged: it has no timing constraint (constraints:), WCET bound (wcet:) or sampler check "
            "(sampler:) to pass";
    } else {
        std::string names;
        for (std::size_t i = 0; i < checks.size() && i < 6; ++i) names += (i ? ", " : "") + checks[i];
        if (checks.size() > 6) names += ", ...";
        page.passed = std::to_string(checks.size()) + (checks.size() == 1 ? " check held (" : " checks held (") + names + ")";
    }
    page.sections.push_back(run_summary_section(result));
    for (const Part& p : parts) page.sections.push_back(p.html);
    return page.html();
}

}  // namespace emutrace::report
