// The README shows what the main demo prints: each line of its output block is a line the demo
// prints now, so that a change of the cycle model or of the summary cannot leave it stale.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "support/cli.h"
#include "support/paths.h"

using namespace emutrace::test;

TEST_CASE("readme: the main demo's output block is what emutrace run prints for it") {
    const std::string readme = read_file(source("README.md"));
    const std::string command = "build/emutrace run --scenario scenarios/franking/franking.yaml";
    const auto shown = readme.find(command);
    REQUIRE(shown != std::string::npos);
    // The block after the command's: ``` ... ```.
    const auto open = readme.find("```\n", readme.find("```\n", shown) + 4);
    const auto close = readme.find("```\n", open + 4);
    REQUIRE(open != std::string::npos);
    REQUIRE(close != std::string::npos);
    const std::string block = readme.substr(open + 4, close - open - 4);

    Cli run = emutrace_cli("run --scenario " + source("scenarios/franking/franking.yaml"));
    REQUIRE(run.status == 0);
    std::istringstream lines(block);
    int checked = 0;
    for (std::string line; std::getline(lines, line);) {
        // Host-dependent lines and elisions are shown as "..." in the README.
        if (line.find("...") != std::string::npos || line.empty()) continue;
        INFO(line);
        CHECK(("\n" + run.err).find("\n" + line + "\n") != std::string::npos);  // the summary goes to stderr
        ++checked;
    }
    CHECK(checked >= 10);
}
