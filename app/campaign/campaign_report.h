#pragma once
// A campaign's --report page: its cases by exit status and by run entry, each campaign-aware
// analysis's sections (CampaignMerge::report_html: constraints over every case, the profile, WCET,
// coverage, ...), and the cases that did not pass. Built from the merged JSON, so `campaign merge
// --report` draws the same from the results alone.

#include <string>

#include <nlohmann/json.hpp>

#include "emutrace/registry.h"

namespace emutrace::app {

std::string campaign_report_html(const AnalysisRegistry& registry, const nlohmann::json& merged);

}  // namespace emutrace::app
