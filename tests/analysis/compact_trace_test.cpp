#include <doctest/doctest.h>

#include "analysis/calltrace/compact_trace.h"
#include "emutrace/config_error.h"
#include "support/temp_dir.h"

using namespace emutrace;
using namespace emutrace::analysis;
using emutrace::test::TempDir;

namespace {
CallEvent entry(std::uint32_t fn, std::uint64_t cycle, std::uint32_t depth) {
    CallEvent e;
    e.kind = CallEvent::Kind::Entry;
    e.function = fn;
    e.cycle = cycle;
    e.depth = depth;
    e.thread = 2;
    return e;
}
}  // namespace

TEST_CASE("compact trace: the default buffer holds the paper's 24,966 records of 21 bytes") {
    CompactTraceWriter w(kDefaultCompactBytes, [](std::uint32_t) { return true; });
    CHECK(w.capacity() == 24'966);
}

TEST_CASE("compact trace: records round-trip through the file, oldest first, keeping the most recent") {
    TempDir dir;
    CompactTraceWriter w(21 * 3, [](std::uint32_t fn) { return fn != 0x999; });
    for (std::uint32_t i = 0; i < 5; ++i) w.on_call_event(entry(0x100 + i, 1000 * i, i));
    w.on_call_event(entry(0x999, 9000, 0));  // not selected
    CallEvent marker;
    marker.kind = CallEvent::Kind::Marker;
    marker.id = 7;
    marker.payload = 0xCAFE;
    marker.cycle = 9999;
    w.on_call_event(marker);
    w.write(dir.file("t.bin"), 48'000'000, {"main", "isr", "franker"});
    CompactTrace t = read_compact_trace(dir.file("t.bin"));
    CHECK(t.clock_hz == 48'000'000);
    CHECK(t.seen == 6);
    REQUIRE(t.records.size() == 3);
    CHECK(t.records[0].value == 0x103);  // 0x100..0x102 were overwritten
    CHECK(t.records[0].cycle == 3000);
    CHECK(t.records[0].payload == 3);  // depth
    CHECK(t.records[0].thread == 2);
    CHECK(t.records[1].value == 0x104);
    CHECK(t.records[2].kind == 2);
    CHECK(t.records[2].value == 7);
    CHECK(t.records[2].payload == 0xCAFE);
    CHECK(t.threads == std::vector<std::string>{"main", "isr", "franker"});
    CHECK(std::filesystem::file_size(dir.file("t.bin")) == 36 + 3 * 21 + 2 + (2 + 4) + (2 + 3) + (2 + 7));
}

TEST_CASE("compact trace: corrupt files are errors that name the byte") {
    TempDir dir;
    CHECK_THROWS_WITH_AS(read_compact_trace(dir.write("x.bin", "not a trace")), doctest::Contains("byte 0: not an emutrace compact trace"),
                         ConfigError);
    CompactTraceWriter w(21 * 4, [](std::uint32_t) { return true; });
    for (std::uint32_t i = 0; i < 4; ++i) w.on_call_event(entry(0x100, i, 0));
    w.write(dir.file("ok.bin"), 1'000'000, {});
    std::string bytes = test::read_file(dir.file("ok.bin"));
    CHECK_THROWS_WITH_AS(read_compact_trace(dir.write("cut.bin", bytes.substr(0, 60))), doctest::Contains("truncated"), ConfigError);
    std::string bad = bytes;
    bad[36] = 9;  // first record's kind
    CHECK_THROWS_WITH_AS(read_compact_trace(dir.write("kind.bin", bad)), doctest::Contains("byte 36: unknown record kind 9"), ConfigError);
}
