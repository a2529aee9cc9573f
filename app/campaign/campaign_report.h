#pragma once
// A campaign's --report page: its cases by exit status and by run entry, each constraint over
// every case (how close the worst one came, in which case), the busiest functions summed over
// all runs, the WCET figures, and the cases that did not pass. Built from the merged JSON, so
// `campaign merge --report` draws the same from the results alone.

#include <string>

#include <nlohmann/json.hpp>

namespace emutrace::app {

std::string campaign_report_html(const nlohmann::json& merged);

}  // namespace emutrace::app
