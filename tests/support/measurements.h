#pragma once
// The "<kind> <name> <value>" lines a measuring firmware prints (tests/firmware/measure.h).
#include <map>
#include <sstream>
#include <string>

namespace emutrace::test {

inline std::map<std::string, unsigned long> timings(const std::string& text, const std::string& kind = "timing") {
    std::map<std::string, unsigned long> out;
    std::istringstream in(text);
    std::string word, name;
    unsigned long value = 0;
    while (in >> word)
        if (word == kind && in >> name >> value) out[name] = value;
    return out;
}

}  // namespace emutrace::test
