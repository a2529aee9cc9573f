// Memory dumps as a device hands them over: Intel HEX that is damaged, cut short or hostile is a
// one-line error naming the file and line, read in time linear in its size.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "decode/memory_dump.h"
#include "emutrace/config_error.h"
#include "support/temp_dir.h"

using namespace emutrace;
using namespace emutrace::decode;

namespace {

std::string error_of(const test::TempDir& dir, const std::string& text) {
    const std::string path = dir.file("ram.hex");
    test::write_file(path, text);
    try {
        MemoryDump::load(path, std::nullopt);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("memory dump: Intel HEX reads back its records, and a damaged file is an error naming its line") {
    test::TempDir dir;
    const std::string eof = ":00000001FF\n";
    // 0x20000000: 04 record for the upper half, then four bytes at offset 0x0010.
    const std::string good = ":020000042000DA\n:0400100001020304E2\n" + eof;
    test::write_file(dir.file("good.hex"), good);
    MemoryDump dump = MemoryDump::load(dir.file("good.hex"), std::nullopt);
    REQUIRE(dump.segments().size() == 1);
    CHECK(dump.segments()[0].base == 0x20000010);
    CHECK(dump.segments()[0].bytes == std::vector<std::uint8_t>{1, 2, 3, 4});
    CHECK(dump.format() == "Intel HEX");

    CHECK(error_of(dir, ":0400100001020304E3\n" + eof).find("line 1: checksum mismatch") != std::string::npos);
    CHECK(error_of(dir, ":04001000010203G4E2\n" + eof).find("line 1: bad hex digits") != std::string::npos);
    // Cut before its end-of-file record: what is missing cannot be told from what was never there.
    CHECK(error_of(dir, ":0400100001020304E2\n").find("no end-of-file record") != std::string::npos);
    // Data at 0xFFFFFFFE running two bytes past the 4 GiB address space.
    CHECK(error_of(dir, ":02000004FFFFFC\n:04FFFE0001020304F5\n" + eof).find("line 2: data past the 4 GiB address space") != std::string::npos);
}

TEST_CASE("memory dump: a megabytes-long Intel HEX line is refused at once, not parsed a byte at a time") {
    // sscanf per byte was quadratic in the line: 1.6 MB took 6 s, 10 MB over a minute.
    test::TempDir dir;
    const std::string line = ":" + std::string(10'000'000, '0') + "\n";
    CHECK(error_of(dir, line).find("line 1: a line of 10000001 characters: longer than any Intel HEX record") != std::string::npos);
}

TEST_CASE("memory dump: an ELF core is written a piece at a time, reads back, and refuses what a 32-bit core cannot hold") {
    test::TempDir dir;
    // Two ranges, the second over two pieces: the reader sees each piece's address once.
    std::vector<std::uint32_t> asked;
    auto pattern = [&](std::uint32_t address, std::uint32_t size) {
        asked.push_back(address);
        std::vector<std::uint8_t> bytes(size);
        for (std::uint32_t i = 0; i < size; ++i) bytes[i] = static_cast<std::uint8_t>((address + i) * 7u);
        return bytes;
    };
    const std::uint32_t big = (1u << 20) + 100;
    MemoryDump::save_elf_core(dir.file("ram.core"), {{0x20000000, 64}, {0x30000000, big}}, pattern);
    CHECK(asked == std::vector<std::uint32_t>{0x20000000, 0x30000000, 0x30100000});
    MemoryDump dump = MemoryDump::load(dir.file("ram.core"), std::nullopt);
    CHECK(dump.format() == "ELF");
    REQUIRE(dump.segments().size() == 2);
    CHECK(dump.segments()[1].base == 0x30000000);
    REQUIRE(dump.segments()[1].bytes.size() == big);
    CHECK(dump.segments()[1].bytes[big - 1] == static_cast<std::uint8_t>((0x30000000u + big - 1) * 7u));

    // Ranges past 4 GiB in all: an error naming the file before anything is read.
    asked.clear();
    CHECK_THROWS_WITH_AS(MemoryDump::save_elf_core(dir.file("huge.core"), {{0x00000000, 0xC0000000u}, {0xC0000000u, 0x40000000u}}, pattern),
                         doctest::Contains("huge.core: the RAM regions add up to"), ConfigError);
    CHECK(asked.empty());
    // A reader that cannot read: an error naming the file and the address.
    auto failing = [](std::uint32_t, std::uint32_t) { return std::vector<std::uint8_t>{}; };
    CHECK_THROWS_WITH_AS(MemoryDump::save_elf_core(dir.file("bad.core"), {{0x20000000, 16}}, failing),
                         doctest::Contains("bad.core: cannot read memory at 0x20000000"), ConfigError);
}
