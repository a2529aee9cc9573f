#pragma once
// The --report page of a run (`run`, `replay`, `crosscheck`, `ringdump`): the run's summary
// from its JSON result, then each analysis's sections (Analysis::report_html) in registry order.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace emutrace::report {

/// An analysis's sections, as it returned them.
struct Part {
    std::string analysis;
    std::string html;
};

/// The "Run" section: stop reason, instructions, cycles, CPI, emulated time, sleep share,
/// exceptions, host time; from the keys of the run's JSON result that are present.
std::string run_summary_section(const nlohmann::json& result);

/// The whole document. `checks`: what was judged (RunReport::checks); with none and no failure
/// the banner says nothing was checked, not that the run passed.
std::string run_page(const nlohmann::json& result, const std::vector<std::string>& failures, const std::vector<std::string>& checks,
                     const std::vector<Part>& parts);

}  // namespace emutrace::report
