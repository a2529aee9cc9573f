// Record/replay recording on the RTOS test firmware: the log's happens-before links follow the
// kernel's real synchronisation, and the same run records the same log.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "analysis/replay/event_log.h"
#include "support/cli.h"
#include "support/run_firmware.h"
#include "support/temp_dir.h"

using namespace emutrace;
using namespace emutrace::test;
using emutrace::analysis::replay::EventLog;
using emutrace::analysis::replay::LogEvent;
using emutrace::analysis::replay::Operation;

namespace {

EventLog record_rtos(const TempDir& dir, const std::string& name) {
    Cli r = emutrace_cli("run " + firmware("rtos") + " -s " + source("tests/scenarios/rtos_replay.yaml") + " --record " + dir.file(name) + " -q");
    REQUIRE(r.status == 0);
    return EventLog::load(dir.file(name));
}

}  // namespace

TEST_CASE("replay: recording the RTOS firmware links each event to what happened before it in the kernel") {
    TempDir dir;
    EventLog log = record_rtos(dir, "a.log");
    REQUIRE(log.events.size() > 40);
    std::map<Operation, std::size_t> count;
    for (const LogEvent& e : log.events) ++count[e.op];
    CHECK(count[Operation::Create] == 5);
    CHECK(count[Operation::Lock] > 5);
    CHECK(count[Operation::Unlock] > 5);
    CHECK(count[Operation::Send] > 5);
    CHECK(count[Operation::Receive] > 5);
    CHECK(count[Operation::Delay] > 5);
    CHECK(count[Operation::Interrupt] == 0);  // SysTick is the machine's own, not the outside world's
    auto by_seq = [&](std::uint32_t seq) -> const LogEvent& { return log.events.at(seq - 1); };
    std::map<std::uint32_t, Operation> last_on_mutex;
    std::map<std::uint32_t, std::uint32_t> holder;
    std::set<std::uint32_t> threads_seen;
    for (const LogEvent& e : log.events) {
        INFO("seq " << e.seq);
        const bool first_of_thread = threads_seen.insert(e.thread).second;
        if (e.op == Operation::Lock) {
            // Mutual exclusion as the log shows it: locks and unlocks of one mutex alternate, and
            // the unlock is by the thread that locked.
            CHECK(last_on_mutex[e.object] != Operation::Lock);
            holder[e.object] = e.thread;
            // After the previous unlock of the same mutex, when there was one.
            if (e.before && by_seq(e.before).thread != e.thread && !first_of_thread) {
                CHECK(by_seq(e.before).op == Operation::Unlock);
                CHECK(by_seq(e.before).object == e.object);
            }
        }
        if (e.op == Operation::Unlock) {
            CHECK(last_on_mutex[e.object] == Operation::Lock);
            CHECK(holder[e.object] == e.thread);
        }
        if (e.op == Operation::Lock || e.op == Operation::Unlock) last_on_mutex[e.object] = e.op;
        if (e.op == Operation::Receive && !(first_of_thread && by_seq(e.before).op == Operation::Create)) {
            // The send it takes: the same queue and the same item (the queue is FIFO).
            REQUIRE(e.before != 0);
            CHECK(by_seq(e.before).op == Operation::Send);
            CHECK(by_seq(e.before).object == e.object);
            CHECK(by_seq(e.before).value == e.value);
        }
        // A task's first event follows the create that made it, or its own partner when that is
        // later still (a receive's send).
        if (first_of_thread && e.thread < 0xFFFFFF00u && e.thread != 0) {
            REQUIRE(e.before != 0);
            const Operation partner = by_seq(e.before).op;
            CHECK((partner == Operation::Create || (e.op == Operation::Receive && partner == Operation::Send) ||
                   (e.op == Operation::Lock && partner == Operation::Unlock)));
        }
    }
    // The same run records the same log, byte for byte.
    EventLog again = record_rtos(dir, "b.log");
    CHECK(again.events == log.events);
}

TEST_CASE("replay: recording asks for a replay: section, and names a missing function with its line") {
    TempDir dir;
    Cli bare = emutrace_cli("run " + firmware("rtos") + " -s " + source("tests/scenarios/rtos.yaml") + " --record " + dir.file("x.log"));
    CHECK(bare.status == 2);
    CHECK(bare.err.find("--record: the scenario has no replay: section") != std::string::npos);
    write_file(dir.file("s.yaml"), "memory:\n  - {name: flash, kind: flash, base: 0, size: 4MiB}\nreplay:\n  lock: [mutex_lock, no_such_lock]\n");
    Cli missing = emutrace_cli("run " + firmware("rtos") + " -s " + dir.file("s.yaml"));
    CHECK(missing.status == 2);
    CHECK(missing.err.find("s.yaml:4:") != std::string::npos);
    CHECK(missing.err.find("no function 'no_such_lock'") != std::string::npos);
}
