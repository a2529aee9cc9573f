#pragma once
// The cross-check's part of a --report page: whether the capture and the emulated run took the
// same path, where they first diverged, their cycles side by side, and per function the
// instructions and calls of each, the functions that differ first.

#include <string>

#include <nlohmann/json.hpp>

namespace emutrace::analysis {

/// A <section id="comparison"> from RunComparison::json.
std::string comparison_report_html(const nlohmann::json& comparison);

}  // namespace emutrace::analysis
