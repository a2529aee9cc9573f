// The record/replay event log: what is written reads back, and a damaged log is a one-line error
// naming the byte.
#include <doctest/doctest.h>

#include <functional>
#include <stdexcept>
#include <string>

#include "analysis/replay/event_linker.h"
#include "analysis/replay/event_log.h"
#include "analysis/replay/event_log_writer.h"
#include "emutrace/config_error.h"
#include "support/temp_dir.h"

using namespace emutrace::analysis::replay;
using emutrace::test::read_file;
using emutrace::test::TempDir;

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
    // The last record's seq jumping forward: replay finds an event by its number, and crashed.
    CHECK(damaged(32 + 4 * 32 + 3, 0xFF) == "run.log: byte 160: record 4 has seq 4278190085, not 5: a linked log numbers its events without gaps");
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

TEST_CASE("replay log: a recording written as it goes is the log kept in memory, byte for byte") {
    // The same calls through two linkers: one keeps its events, one hands each to the writer as the
    // recorder does, keeping none.
    auto feed = [](EventLinker& l, const std::function<void(const LogEvent&)>& made) {
        made(*l.call({.op = Operation::Create}, 0x1001, 0, 0x20000100, 5));
        CHECK(l.call({.op = Operation::Lock}, 0x20000400, 0, 0x20000200, 10) == nullptr);  // an acquisition happens at its return
        made(*l.call({.op = Operation::Lock, .at_return = true}, 0, 0, 0x20000200, 12));
        made(*l.call({.op = Operation::Send}, 0x20000500, 7, 0x20000200, 15));
        made(*l.call({.op = Operation::Unlock}, 0x20000400, 0, 0x20000200, 20));
        made(l.interrupt(16, 0x1234, true, kHandlerThread | 16, 0x1'0000'0000ull));
        made(l.input(0x40004000, 0x41, 0x20000100, 0x1'0000'0001ull));
        CHECK(l.call({Operation::Receive, false, ""}, 0x20000500, 0, 0x20000100, 30) == nullptr);
        made(*l.call({Operation::Receive, true, ""}, 7, 0, 0x20000100, 31));
    };
    EventLinker kept;
    feed(kept, [](const LogEvent&) {});
    kept.log().flags = kEmulatedCycles | kComplete;
    kept.log().timing = 77;

    TempDir dir;
    EventLinker streamed;
    streamed.keep_events(false);
    EventLogWriter writer(dir.file("run.log"));
    feed(streamed, [&](const LogEvent& e) { writer.append(e); });
    writer.finish(kEmulatedCycles | kComplete, 77);

    CHECK(streamed.log().events.empty());
    CHECK(streamed.events() == kept.log().events.size());
    CHECK(streamed.operations() == kept.operations());
    CHECK(kept.log().events.size() == 7);
    const std::string file = read_file(dir.file("run.log"));
    const std::vector<std::uint8_t> expected = kept.log().encode();
    CHECK(std::vector<std::uint8_t>(file.begin(), file.end()) == expected);
    CHECK(EventLog::load(dir.file("run.log")).events == kept.log().events);
}
