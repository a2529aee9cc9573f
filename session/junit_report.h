#pragma once
// JUnit XML with the test cases of every analysis (one per timing constraint, say), so CI
// systems show them natively.

#include <string>
#include <vector>

#include "emutrace/analysis.h"

namespace emutrace::session {

/// The report of a run of `suite` (the scenario file).
std::string junit_xml(const std::string& suite, const std::vector<TestCase>& cases);

}  // namespace emutrace::session
