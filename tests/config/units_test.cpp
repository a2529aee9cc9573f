#include <doctest/doctest.h>

#include "config/units.h"

using namespace emutrace::config;

TEST_CASE("units: integers in decimal, hex, binary, with separators") {
    CHECK(parse_integer("42") == 42u);
    CHECK(parse_integer("0x4000_0000") == 0x40000000u);
    CHECK(parse_integer("0b1010") == 10u);
    CHECK_FALSE(parse_integer("12abc"));
    CHECK_FALSE(parse_integer("-1"));
    CHECK_FALSE(parse_integer("0x"));
}

TEST_CASE("units: sizes use binary multiples") {
    CHECK(parse_size("4MiB") == 4u << 20);
    CHECK(parse_size("64 KiB") == 64u << 10);
    CHECK(parse_size("0x1000") == 0x1000u);
    CHECK_FALSE(parse_size("4 parsecs"));
}

TEST_CASE("units: frequencies and durations") {
    CHECK(parse_frequency("25MHz") == 25'000'000u);
    CHECK(parse_frequency("168 MHz") == 168'000'000u);
    CHECK(parse_frequency("32.768kHz") == 32'768u);
    CHECK_FALSE(parse_frequency("0Hz"));
    CHECK(parse_seconds("500ms") == doctest::Approx(0.5));
    CHECK(parse_seconds("10us") == doctest::Approx(1e-5));
    CHECK(parse_seconds("2") == doctest::Approx(2));
    CHECK_FALSE(parse_seconds("fast"));
}
