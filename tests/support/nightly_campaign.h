#pragma once
// The shipped nightly campaign (scenarios/campaigns/nightly.yaml, 200 cases) as a test runs it:
// the same runs and matrices, its relative paths made absolute, its outputs in `dir`. The default
// suite runs it with fewer seeds (26 cases: every run, clock, jitter and sensor sequence, one or
// two seeds each); the long tier runs all 200 (support/workload.h).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "support/paths.h"
#include "support/workload.h"

namespace emutrace::test {

struct NightlyCampaign {
    std::string text;
    int cases = 0;       // in the whole campaign
    int soak_cases = 0;  // in its soak-wcet run
};

inline NightlyCampaign nightly_campaign(const std::string& dir) {
    std::ifstream in(source("scenarios/campaigns/nightly.yaml"));
    std::stringstream text;
    text << in.rdbuf();
    std::string out, line;
    std::istringstream lines(text.str());
    auto replace = [](std::string s, const std::string& from, const std::string& to) {
        for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
        return s;
    };
    // The letters' ten seeds and the soak's five, as the shipped file has them.
    const std::string letter_seeds = "      seed: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]", soak_seeds = "      seed: [1, 2, 3, 4, 5]";
    int trimmed = 0;
    while (std::getline(lines, line)) {
        if (line.rfind("outputs:", 0) == 0) line = "outputs: {results: " + dir + "/results, json: " + dir + "/nightly.json}";
        line = replace(replace(line, "../../bench/", source("bench/")), "../franking/", source("scenarios/franking/"));
        if (!full_workload() && line == letter_seeds) line = "      seed: [1]", ++trimmed;
        if (!full_workload() && line == soak_seeds) line = "      seed: [1, 2]", ++trimmed;
        out += line + "\n";
    }
    // A changed nightly.yaml must change this helper too, not quietly run 200 cases by default.
    REQUIRE_MESSAGE((full_workload() || trimmed == 2), "scenarios/campaigns/nightly.yaml no longer has the seeds this helper trims");
    // 3 franking variants x seeds x 3 clocks x 2 jitters; soak: seeds x 4 sensor sequences.
    const int letters = sized(1, 10), soak = sized(2, 5);
    return {out, 3 * letters * 3 * 2 + soak * 4, soak * 4};
}

}  // namespace emutrace::test
