#pragma once
// The shipped nightly campaign (scenarios/campaigns/nightly.yaml, 200 cases) as a test runs it:
// the same runs and matrices, its relative paths made absolute, its outputs in `dir`.
#include <fstream>
#include <sstream>
#include <string>

#include "support/paths.h"

namespace emutrace::test {

inline std::string nightly_campaign(const std::string& dir) {
    std::ifstream in(source("scenarios/campaigns/nightly.yaml"));
    std::stringstream text;
    text << in.rdbuf();
    std::string out, line;
    std::istringstream lines(text.str());
    auto replace = [](std::string s, const std::string& from, const std::string& to) {
        for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
        return s;
    };
    while (std::getline(lines, line)) {
        if (line.rfind("outputs:", 0) == 0) line = "outputs: {results: " + dir + "/results, json: " + dir + "/nightly.json}";
        line = replace(replace(line, "../../bench/", source("bench/")), "../franking/", source("scenarios/franking/"));
        out += line + "\n";
    }
    return out;
}

}  // namespace emutrace::test
