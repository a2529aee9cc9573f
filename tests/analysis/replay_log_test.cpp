// The record/replay event log: what is written reads back, and a damaged log is a one-line error
// naming the byte.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "analysis/replay/event_log.h"
#include "config/config_error.h"

using namespace emutrace::analysis::replay;

namespace {

EventLog sample_log() {
    EventLog log;
    log.lost = 3;
    log.flags = kEmulatedCycles | kComplete;
    log.events.push_back({1, 0, 0x20000100, Operation::Create, 0, 0x1001, 2, 10});
    log.events.push_back({2, 1, 0x20000100, Operation::Lock, 0, 0x20000400, 0, 200});
    log.events.push_back({3, 0, 0x20000200, Operation::Input, 1, 0x40004000, 0x41, 0x1'0000'0003ull});
    log.events.push_back({4, 2, 0x20000100, Operation::Unlock, 0, 0x20000400, 0, 0x1'0000'0004ull});
    log.events.push_back({5, 4, 0x20000200, Operation::Lock, 0, 0x20000400, 0xFFFFFFFF, ~0ull});
    return log;
}

std::string error_of(const std::vector<std::uint8_t>& bytes) {
    try {
        EventLog::decode(bytes, "run.log");
    } catch (const emutrace::ConfigError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("replay log: what is written reads back, header and every field") {
    EventLog log = sample_log();
    std::vector<std::uint8_t> bytes = log.encode();
    CHECK(bytes.size() == kLogHeaderBytes + 5 * kLogRecordBytes);
    EventLog back = EventLog::decode(bytes, "run.log");
    CHECK(back.lost == 3);
    CHECK(back.flags == (kEmulatedCycles | kComplete));
    CHECK(back.events == log.events);
    CHECK(std::string(operation_name(back.events[2].op)) == "input");
}

TEST_CASE("replay log: a damaged log is a one-line error that names the byte") {
    std::vector<std::uint8_t> good = sample_log().encode();
    auto damaged = [&](std::size_t at, std::uint8_t value) {
        std::vector<std::uint8_t> b = good;
        b[at] = value;
        return error_of(b);
    };
    CHECK(error_of(std::vector<std::uint8_t>(good.begin(), good.begin() + 10)) ==
          "run.log: byte 10: truncated header (10 of 32 bytes): not an event log");
    CHECK(damaged(0, 'X') == "run.log: byte 0: not an emutrace event log (no EMUTRLOG magic)");
    CHECK(damaged(8, 7) == "run.log: byte 8: log version 7, this emutrace reads version 2");
    // A record cut short: the header still counts five.
    CHECK(error_of(std::vector<std::uint8_t>(good.begin(), good.end() - 5)) ==
          "run.log: byte " + std::to_string(good.size() - 5) + ": truncated: the header announces 5 records, the file holds 4");
    // The third record's seq (byte 32 + 2 * 32) going back to 1.
    CHECK(damaged(32 + 64, 1) == "run.log: byte 96: record 2 has seq 1 after 2");
    // The second record happening after itself.
    CHECK(damaged(32 + 32 + 4, 9) == "run.log: byte 68: record 1 (seq 2) happens after 9");
    CHECK(damaged(32 + 12, 200) == "run.log: byte 44: record 0 has unknown operation 200");
    // Every single-byte corruption is an error or a log, never a crash.
    for (std::size_t at = 0; at < good.size(); ++at)
        for (std::uint8_t v : {0x00, 0x01, 0x7F, 0xFF}) {
            std::vector<std::uint8_t> b = good;
            b[at] = v;
            try {
                EventLog::decode(b, "run.log");
            } catch (const emutrace::ConfigError&) {}
        }
}
