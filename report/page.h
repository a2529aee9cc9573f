#pragma once
// The --report document: one HTML file with its styles inline, a verdict banner, a table of
// contents built from the sections' <h2> headings, and the sections. Nothing is fetched when it
// is viewed; it prints on A4 with one section per page break where needed.

#include <string>
#include <string_view>
#include <vector>

namespace emutrace::report {

struct Page {
    std::string title;                                    ///< e.g. "emutrace run: franking.elf"
    std::vector<std::string> facts;                       ///< short lines under the title (scenario, core, version)
    std::vector<std::string> failures;                    ///< why the run fails; none: the banner says it passed
    bool has_verdict = true;                              ///< false: no pass/fail banner (a silicon suite, say)
    std::string passed = "every timing constraint held";  ///< the banner's words when nothing failed
    std::string nothing_checked;                          ///< set: nothing was judged; a neutral banner with these words
    std::vector<std::string> sections;                    ///< HTML <section> elements (report::section)
    std::string html() const;
};

}  // namespace emutrace::report
