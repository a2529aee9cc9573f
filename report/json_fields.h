#pragma once
// Reading a result file's fields where a missing or mistyped one counts as none: the pages and the
// campaign merge read results that older versions, other runs or a user's hands wrote.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace emutrace::report {

/// `j[key]` as a count: a non-negative number (a fraction cut to its whole part), else 0.
inline std::uint64_t count_at(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return 0;
    if (it->is_number_unsigned()) return it->get<std::uint64_t>();
    // Counts written as signed integers (a bound's `value(key, 0)`) or by a tool as doubles count too.
    if (it->is_number_integer()) return it->get<std::int64_t>() >= 0 ? it->get<std::uint64_t>() : 0;
    const double v = it->get<double>();
    return v >= 0 && v < 1.8e19 ? static_cast<std::uint64_t>(v) : 0;
}

/// `j[key]` as a number, else 0.
inline double number_at(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

/// `j[key]`, or a null value when `j` has no such member (an object's or array's kind is checked by the caller).
inline const nlohmann::json& member(const nlohmann::json& j, const char* key) {
    static const nlohmann::json none;
    if (!j.is_object()) return none;
    auto it = j.find(key);
    return it == j.end() ? none : *it;
}

/// `j[key]` as text, else "".
inline std::string text_at(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

}  // namespace emutrace::report
