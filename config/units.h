#pragma once
// Parsers for the numbers people write in scenario files: 0x4000_0000, 4MiB, 25MHz, 500ms.
// Each returns nullopt when the text is not of that form, so the caller can name the key.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace emutrace::config {

/// Decimal, 0x hex or 0b binary, with optional '_' separators.
std::optional<std::uint64_t> parse_integer(std::string_view text);
/// An integer with an optional K/KiB/M/MiB/G/GiB suffix (binary multiples).
std::optional<std::uint64_t> parse_size(std::string_view text);
/// An integer or decimal with an optional Hz/kHz/MHz/GHz suffix.
std::optional<std::uint64_t> parse_frequency(std::string_view text);
/// A number with an s/ms/us/ns suffix (plain numbers are seconds).
std::optional<double> parse_seconds(std::string_view text);
/// An address as messages write it: "0x0000abcd".
/// 1234567 -> "1,234,567"
std::string grouped(std::uint64_t value);
std::string hex32(std::uint32_t value);

}  // namespace emutrace::config
