#include "config/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

namespace emutrace::config {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// Splits "25MHz" into {"25", "MHz"}.
std::pair<std::string_view, std::string_view> split_suffix(std::string_view s) {
    s = trim(s);
    std::size_t i = s.size();
    while (i > 0 && std::isalpha(static_cast<unsigned char>(s[i - 1]))) --i;
    return {trim(s.substr(0, i)), s.substr(i)};
}

std::optional<double> parse_real(std::string_view text) {
    std::string s(trim(text));
    if (s.empty()) return std::nullopt;
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::optional<std::uint64_t> scaled(std::string_view number, std::uint64_t factor) {
    auto v = parse_integer(number);
    if (!v) return std::nullopt;
    if (factor != 0 && *v > UINT64_MAX / factor) return std::nullopt;
    return *v * factor;
}

}  // namespace

std::optional<std::uint64_t> parse_integer(std::string_view text) {
    std::string s;
    for (char c : trim(text))
        if (c != '_') s.push_back(c);
    int base = 10;
    std::string_view digits = s;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
        base = 16;
        digits.remove_prefix(2);
    } else if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'b' || digits[1] == 'B')) {
        base = 2;
        digits.remove_prefix(2);
    }
    if (digits.empty()) return std::nullopt;
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
    if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return v;
}

std::optional<std::uint64_t> parse_size(std::string_view text) {
    auto [number, suffix] = split_suffix(text);
    if (suffix.empty() || suffix == "B") return parse_integer(number);
    if (suffix == "K" || suffix == "KiB" || suffix == "KB") return scaled(number, 1ull << 10);
    if (suffix == "M" || suffix == "MiB" || suffix == "MB") return scaled(number, 1ull << 20);
    if (suffix == "G" || suffix == "GiB" || suffix == "GB") return scaled(number, 1ull << 30);
    return std::nullopt;
}

std::optional<std::uint64_t> parse_frequency(std::string_view text) {
    auto [number, suffix] = split_suffix(text);
    double factor = 0;
    if (suffix.empty() || suffix == "Hz")
        factor = 1;
    else if (suffix == "kHz" || suffix == "KHz")
        factor = 1e3;
    else if (suffix == "MHz")
        factor = 1e6;
    else if (suffix == "GHz")
        factor = 1e9;
    else
        return std::nullopt;
    auto v = parse_real(number);
    if (!v || *v <= 0 || *v * factor > 1e12) return std::nullopt;
    return static_cast<std::uint64_t>(std::llround(*v * factor));
}

std::optional<double> parse_seconds(std::string_view text) {
    auto [number, suffix] = split_suffix(text);
    double factor = 0;
    if (suffix.empty() || suffix == "s")
        factor = 1;
    else if (suffix == "ms")
        factor = 1e-3;
    else if (suffix == "us")
        factor = 1e-6;
    else if (suffix == "ns")
        factor = 1e-9;
    else if (suffix == "min")
        factor = 60;
    else if (suffix == "h")
        factor = 3600;
    else
        return std::nullopt;
    auto v = parse_real(number);
    if (!v || *v < 0) return std::nullopt;
    return *v * factor;
}

std::string grouped(std::uint64_t value) {
    std::string digits = std::to_string(value), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string hex32(std::uint32_t value) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", value);
    return buf;
}

}  // namespace emutrace::config
