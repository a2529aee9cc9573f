#include "analysis/writers/junit_writer.h"

#include <cstdio>
#include <fstream>

#include "config/config_error.h"

namespace emutrace::analysis {
namespace {

std::string xml_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

}  // namespace

void write_junit(const std::string& path, const std::string& suite, const std::vector<ConstraintResult>& results,
                 std::uint64_t clock_hz) {
    std::ofstream out(path);
    if (!out) throw ConfigError(path + ": cannot write the JUnit report");
    std::size_t failures = 0;
    for (const auto& r : results) failures += r.passed() ? 0 : 1;
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out << "<testsuites><testsuite name=\"" << xml_escape(suite) << "\" tests=\"" << results.size() << "\" failures=\"" << failures
        << "\">\n";
    for (const auto& r : results) {
        double seconds = static_cast<double>(r.occurrences ? r.max : 0) / static_cast<double>(clock_hz);
        out << "  <testcase classname=\"emutrace.constraints\" name=\"" << xml_escape(r.spec->name) << "\" time=\"" << seconds << "\">\n";
        if (!r.passed()) {
            const Violation& v = r.violations.front();
            out << "    <failure message=\"" << r.violations.size() << " of " << r.occurrences << " occurrences violated: "
                << xml_escape(v.reason) << "\">";
            for (const auto& x : r.violations) {
                out << xml_escape(x.reason) << " at cycle " << x.end_cycle << "; stack:";
                for (const auto& f : x.stack) out << " " << xml_escape(f);
                out << "\n";
            }
            out << "</failure>\n";
        }
        out << "    <system-out>occurrences " << r.occurrences << ", max " << (r.occurrences ? r.max : 0) << " cycles, limit "
            << r.spec->limit_cycles << " cycles</system-out>\n";
        out << "  </testcase>\n";
    }
    out << "</testsuite></testsuites>\n";
}

}  // namespace emutrace::analysis
