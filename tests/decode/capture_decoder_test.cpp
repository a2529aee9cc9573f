// Real CoreSight PTM/PFT captures from tests/data/captures, decoded with OpenCSD; the expected
// totals are the ones the captures' README gives from the reference decoder and Arm DS-5.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "emutrace/config_error.h"
#include "sources/ptm/capture_decoder.h"
#include "support/collecting_sink.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace;
using namespace emutrace::decode;
namespace fs = std::filesystem;

namespace {
std::string capture(const std::string& name) {
    return test::source("tests/data/captures/" + name);
}

// A copy of a snapshot whose trace buffer `file` is replaced by `bytes`.
std::string with_buffer(const test::TempDir& dir, const std::string& name, const std::string& file, const std::string& bytes) {
    fs::path to = dir.path() / name;
    fs::copy(capture(name), to, fs::copy_options::recursive);
    std::ofstream(to / file, std::ios::binary | std::ios::trunc) << bytes;
    return to.string();
}
}  // namespace

TEST_CASE("capture: the small Cortex-A15 PFT capture decodes to its 57 instructions") {
    CaptureSummary s = decode_snapshot(capture("trace_cov_a15"));
    CHECK(s.trace_ids == std::vector<std::uint8_t>{2});
    CHECK(s.instructions == 57);
    CHECK(s.ranges == 20);
    CHECK(s.bytes == 36);
}

TEST_CASE("capture: TC2's PTM trace ID 0x13, in a formatted ETB buffer, gives 1,554 ranges and 9,548 instructions") {
    CaptureSummary s = decode_snapshot(capture("TC2"), 0x13);
    CHECK(s.trace_ids == std::vector<std::uint8_t>{0x13});
    CHECK(s.ranges == 1554);
    CHECK(s.instructions == 9548);
    CHECK(s.cycles > 0);  // captured cycle-accurate
    CaptureSummary other = decode_snapshot(capture("TC2"), 0x14);
    CHECK(other.instructions == 0);  // the second A15's PTM traced nothing
}

TEST_CASE("capture: a decoded capture is the same event model as an emulated run") {
    test::CollectingSink sink;
    CaptureSummary s = decode_snapshot(capture("TC2"), 0x13, {&sink});
    CHECK(sink.blocks == 1554);
    CHECK(sink.block_instructions == 9548);
    CHECK(sink.gaps + 1 == s.trace_on + s.gaps);  // the first trace-on starts the trace: not a gap
    CHECK(sink.exceptions.size() == s.exceptions + s.exception_returns);
    CHECK(sink.cycles_monotonic);  // stamped from the capture's cycle counts
    REQUIRE(sink.stops.size() == 1);
    CHECK(sink.ended);
}

TEST_CASE("capture: the bare-metal sort program decodes to about 192,000 instructions") {
    CaptureSummary s = decode_snapshot(capture("tc2-ptm-rstk-t32"));
    CHECK(s.instructions > 190'000);
    CHECK(s.instructions < 194'000);
}

TEST_CASE("capture: corrupt and truncated buffers decode what they can without crashing") {
    test::TempDir dir;
    std::string bytes = test::read_file(capture("tc2-ptm-rstk-t32") + "/PTM_0_2.bin");
    std::string cut = with_buffer(dir, "tc2-ptm-rstk-t32", "PTM_0_2.bin", bytes.substr(0, bytes.size() / 2));
    CaptureSummary half = decode_snapshot(cut);
    CHECK(half.instructions > 50'000);
    CHECK(half.instructions < 192'073);

    std::string flipped = bytes;
    for (std::size_t i = 1000; i < flipped.size(); i += 997) flipped[i] = static_cast<char>(flipped[i] ^ 0x5A);
    test::TempDir dir2;
    CaptureSummary damaged = decode_snapshot(with_buffer(dir2, "tc2-ptm-rstk-t32", "PTM_0_2.bin", flipped));
    CHECK(damaged.instructions > 0);
    CHECK(damaged.gaps >= 1);
}

TEST_CASE("capture: a broken snapshot directory is an error naming the file") {
    test::TempDir dir;
    CHECK_THROWS_WITH_AS(decode_snapshot(dir.path().string()), doctest::Contains("snapshot file 'snapshot.ini' does not exist"), ConfigError);
}

TEST_CASE("capture: a snapshot's files stay inside it and are regular files: no FIFO, device, absolute path or way out") {
    // Each of these blocked the decoder forever (a FIFO), read until memory ran out (/dev/zero),
    // or read a file outside the snapshot the user never named.
    test::TempDir dir;
    auto with_trace_file = [&](const std::string& name, const std::string& file) {
        fs::path to = dir.path() / name;
        fs::copy(capture("TC2"), to, fs::copy_options::recursive);
        std::string ini = test::read_file((to / "trace.ini").string());
        ini.replace(ini.find("file=cstrace.bin"), 16, "file=" + file);
        std::ofstream(to / "trace.ini", std::ios::trunc) << ini;
        return to;
    };
    fs::path fifo = with_trace_file("fifo", "buffer.fifo");
    REQUIRE(::mkfifo((fifo / "buffer.fifo").c_str(), 0600) == 0);
    CHECK_THROWS_WITH_AS(decode_snapshot(fifo.string(), 0x13), doctest::Contains("trace buffer 'buffer.fifo' is not a regular file"), ConfigError);
    fs::path zero = with_trace_file("zero", "zero.bin");
    fs::create_symlink("/dev/zero", zero / "zero.bin");
    CHECK_THROWS_WITH_AS(decode_snapshot(zero.string(), 0x13), doctest::Contains("trace buffer 'zero.bin' is not a regular file"), ConfigError);
    CHECK_THROWS_WITH_AS(decode_snapshot(with_trace_file("up", "../../etc/passwd").string(), 0x13), doctest::Contains("leads out of"), ConfigError);
    CHECK_THROWS_WITH_AS(decode_snapshot(with_trace_file("abs", "/etc/shadow").string(), 0x13), doctest::Contains("is an absolute path"),
                         ConfigError);
    fs::path out = with_trace_file("link", "out.bin");
    fs::create_symlink("/etc/passwd", out / "out.bin");
    CHECK_THROWS_WITH_AS(decode_snapshot(out.string(), 0x13), doctest::Contains("is a link leading out of"), ConfigError);
    // A device list entry pointing at a device is refused the same way.
    fs::path dev = dir.path() / "dev";
    fs::copy(capture("TC2"), dev, fs::copy_options::recursive);
    fs::remove(dev / "cpu_0.ini");
    fs::create_symlink("/dev/zero", dev / "cpu_0.ini");
    CHECK_THROWS_WITH_AS(decode_snapshot(dev.string(), 0x13), doctest::Contains("snapshot file 'cpu_0.ini' is not a regular file"), ConfigError);
}

TEST_CASE("capture: what OpenCSD cannot decode is counted, with each error's offset and reason") {
    std::string tc2 = test::read_file(capture("TC2") + "/cstrace.bin");
    REQUIRE(tc2.size() % 16 == 0);
    test::TempDir a, b, c;
    // Cut by one byte: the whole frames decode; the cut one is an error at its offset.
    CaptureSummary cut = decode_snapshot(with_buffer(a, "TC2", "cstrace.bin", tc2.substr(0, tc2.size() - 1)), 0x13);
    CHECK(cut.instructions > 9'000);
    CHECK(cut.error_count == 1);
    REQUIRE(cut.errors.size() == 1);
    CHECK(cut.errors[0].offset == tc2.size() - 16);
    CHECK(cut.errors[0].reason.find("16-byte formatter frames") != std::string::npos);
    CHECK(cut.damaged());
    // Random bytes: errors with OpenCSD's reason, nothing decoded.
    std::string noise(tc2.size(), '\0');
    std::uint32_t x = 12345;
    for (auto& ch : noise) ch = static_cast<char>((x = x * 1664525u + 1013904223u) >> 24);
    CaptureSummary garbage = decode_snapshot(with_buffer(b, "TC2", "cstrace.bin", noise));
    CHECK(garbage.instructions == 0);
    CHECK(garbage.error_count > 0);
    REQUIRE(!garbage.errors.empty());
    CHECK(garbage.errors[0].reason.find("OpenCSD") != std::string::npos);
    // The capture as it is: nothing lost.
    CHECK(!decode_snapshot(capture("TC2"), 0x13).damaged());
    (void)c;
}

TEST_CASE("capture: a snapshot with no devices, an --id it does not hold, or a dump outside the address space is an error") {
    test::TempDir dir;
    fs::path empty = dir.path() / "empty";
    fs::copy(capture("TC2"), empty, fs::copy_options::recursive);
    std::ofstream(empty / "snapshot.ini", std::ios::trunc) << "";
    CHECK_THROWS_WITH_AS(decode_snapshot(empty.string()), doctest::Contains("no [device_list]"), ConfigError);
    CHECK_THROWS_WITH_AS(decode_snapshot(capture("TC2"), 99), doctest::Contains("--id 99 is not in the capture; its trace IDs are 19, 20"),
                         ConfigError);
    fs::path high = dir.path() / "high";
    fs::copy(capture("trace_cov_a15"), high, fs::copy_options::recursive);
    // Every dump moved to 0xFFFFFFF0, where its bytes would run past the 4 GiB space.
    for (const auto& entry : fs::directory_iterator(high)) {
        if (entry.path().extension() != ".ini") continue;
        std::string text = test::read_file(entry.path().string());
        for (std::size_t at = 0; (at = text.find("address=", at)) != std::string::npos; at += 8) {
            std::size_t end = text.find('\n', at);
            text.replace(at + 8, end - at - 8, "0xFFFFFFF0");
        }
        std::ofstream(entry.path(), std::ios::trunc) << text;
    }
    CHECK_THROWS_WITH_AS(decode_snapshot(high.string()), doctest::Contains("rejected by OpenCSD"), ConfigError);
}

namespace {
// Branch events of a decode: calls, and calls to the calling range's own end (its return address).
struct CallCounter final : trace::TraceSink {
    std::size_t calls = 0, to_own_return = 0;
    std::uint32_t wants() const override { return trace::WantBranches | trace::WantBlocks; }
    void on_batch(const trace::EventBatch& b) override {
        for (const auto& e : b.events) {
            if (e.kind != trace::EventKind::Branch || e.value != static_cast<std::uint32_t>(trace::BranchKind::Call)) continue;
            ++calls;
            if (e.address == e.extra) ++to_own_return;
        }
    }
};
}  // namespace

TEST_CASE("capture: a call whose callee the trace filtered out is no call to its own return address") {
    // TC2's trace is switched off and on (137 trace-on elements): a call into code outside the
    // trace resumes at the instruction after the call.
    CallCounter sink;
    CaptureSummary s = decode_snapshot(capture("TC2"), 0, {&sink});
    REQUIRE(s.trace_on > 1);
    CHECK(sink.calls > 0);
    CHECK(sink.to_own_return == 0);
}
