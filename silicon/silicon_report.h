#pragma once
// The silicon suite's --report page section: exact-match rates per set (given, validation) and
// per category, the distribution of emulated - measured cycles per compared word, and the
// configurations that differ. Built from the suite's JSON result, so a saved result draws the same.

#include <string>

#include <nlohmann/json.hpp>

namespace emutrace::silicon {

/// A <section id="silicon">.
std::string silicon_report_html(const nlohmann::json& result);

}  // namespace emutrace::silicon
