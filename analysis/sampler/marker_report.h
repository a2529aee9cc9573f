#pragma once
// `emutrace markers --report`: how the longest safe sampling period (Δt) grows as markers are
// added step by step, what the markers cost, and where they go. Built from the command's JSON.

#include <string>

#include <nlohmann/json.hpp>

namespace emutrace::analysis::sampler {

/// A <section id="markers">.
std::string marker_report_html(const nlohmann::json& result);

}  // namespace emutrace::analysis::sampler
