#include "session/junit_report.h"

#include <sstream>

#include "report/html.h"

namespace emutrace::session {
namespace {

// Text from the firmware (function names, reasons) in XML: the same escaping as the HTML report,
// which also replaces the control characters XML 1.0 does not allow.
std::string xml_escape(const std::string& s) {
    return report::escape(s);
}

}  // namespace

std::string junit_xml(const std::string& suite, const std::vector<TestCase>& cases) {
    std::ostringstream out;
    std::size_t failures = 0;
    for (const auto& c : cases) failures += c.failure.empty() ? 0 : 1;
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out << "<testsuites><testsuite name=\"" << xml_escape(suite) << "\" tests=\"" << cases.size() << "\" failures=\"" << failures << "\">\n";
    for (const auto& c : cases) {
        out << "  <testcase classname=\"" << xml_escape(c.classname) << "\" name=\"" << xml_escape(c.name) << "\" time=\"" << c.seconds << "\">\n";
        if (!c.failure.empty()) out << "    <failure message=\"" << xml_escape(c.failure) << "\">" << xml_escape(c.details) << "</failure>\n";
        if (!c.output.empty()) out << "    <system-out>" << xml_escape(c.output) << "</system-out>\n";
        out << "  </testcase>\n";
    }
    out << "</testsuite></testsuites>\n";
    return out.str();
}

}  // namespace emutrace::session
