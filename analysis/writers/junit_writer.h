#pragma once
// JUnit XML with one test case per timing constraint, so CI systems show constraints natively.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/constraints/constraint_checker.h"

namespace emutrace::analysis {

/// Writes `path`; throws ConfigError when it cannot.
void write_junit(const std::string& path, const std::string& suite, const std::vector<ConstraintResult>& results,
                 std::uint64_t clock_hz);

}  // namespace emutrace::analysis
