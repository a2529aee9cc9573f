// Record/replay on the RTOS test firmware and franking: the log's happens-before links follow
// the kernel's real synchronisation; replays reproduce jittered runs with analyses attached, hold
// threads on other timing, find races and stop at a divergence; bad logs are one-line errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "analysis/replay/event_log.h"
#include "support/cli.h"
#include "support/run_firmware.h"
#include "support/temp_dir.h"
#include "support/workload.h"

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

namespace {

// What the firmware printed, without its "[t=N] " tick stamps, which another cycle model moves.
std::string without_ticks(const std::string& out) {
    std::string s;
    for (std::size_t at = 0; at < out.size();) {
        std::size_t end = out.find('\n', at);
        if (end == std::string::npos) end = out.size();
        std::string line = out.substr(at, end - at);
        if (line.starts_with("[t=") && line.find("] ") != std::string::npos) line = line.substr(line.find("] ") + 2);
        s += line + "\n";
        at = end + 1;
    }
    return s;
}

std::string jittered_franking(const TempDir& dir) {
    std::string yaml = read_file(source("scenarios/franking/franking.yaml"));
    const std::string stimulus = "count: 8, irq: 5}";
    REQUIRE(yaml.find(stimulus) != std::string::npos);
    yaml.replace(yaml.find(stimulus), stimulus.size(), "count: 8, jitter: 3ms, irq: 5}");
    yaml.erase(yaml.find("outputs:"));  // no Perfetto file beside the test
    write_file(dir.file("franking_jitter.yaml"), yaml);
    return dir.file("franking_jitter.yaml");
}

struct Subject {
    std::string elf, scenario;
};

// Records `seeds` runs with different stimulus jitter and replays each, plain and with the race
// detector and the call tracer attached: the same events, the same output.
void record_and_replay(const TempDir& dir, const Subject& s, int seeds) {
    std::set<std::string> distinct_logs;
    for (int seed = 1; seed <= seeds; ++seed) {
        INFO(s.elf << " seed " << seed);
        const std::string log = dir.file("rec" + std::to_string(seed) + ".log"), again = dir.file("rep" + std::to_string(seed) + ".log");
        Cli rec = emutrace_cli("run " + s.elf + " -s " + s.scenario + " --seed " + std::to_string(seed) + " --record " + log);
        REQUIRE(rec.status == 0);
        distinct_logs.insert(read_file(log));
        // Another seed for the replay: the log, not the scenario's jitter, is the outside world.
        Cli rep = emutrace_cli("replay " + log + " " + s.elf + " -s " + s.scenario + " --seed 999 --record " + again);
        CHECK(rep.status == 0);
        CHECK(rep.err.find("events reproduced; the same global order") != std::string::npos);
        CHECK(read_file(again) == read_file(log));
        CHECK(rep.out == rec.out);  // stdout is the firmware's output
        Cli heavy = emutrace_cli("replay " + log + " " + s.elf + " -s " + s.scenario + " --races --calltrace --record " + again);
        CHECK(heavy.status == 0);
        CHECK(heavy.err.find("races: ") != std::string::npos);
        CHECK(read_file(again) == read_file(log));
        CHECK(heavy.out == rec.out);
    }
    CHECK(distinct_logs.size() > static_cast<std::size_t>(seeds) / 2);  // the jitter does change the runs
}

}  // namespace

TEST_CASE("replay: jittered runs of the replay application replay exactly, also with the race detector and call tracer attached") {
    TempDir dir;
    record_and_replay(dir, {firmware("replay_app"), source("tests/scenarios/replay_app.yaml")}, sized(4, 20));
}

TEST_CASE("replay: runs of franking with a jittered envelope sensor replay exactly, also with the race detector and call tracer attached") {
    TempDir dir;
    record_and_replay(dir, {firmware("franking"), jittered_franking(dir)}, sized(4, 20));
}

TEST_CASE("replay: on another cycle model the interrupts arrive in order and threads are held to keep the recorded order") {
    TempDir dir;
    const std::string elf = firmware("replay_app"), scenario = source("tests/scenarios/replay_app.yaml");
    std::size_t held = 0;
    for (int seed = 1; seed <= 4; ++seed) {
        INFO("seed " << seed);
        const std::string log = dir.file("r.log"), again = dir.file("p.log");
        Cli rec = emutrace_cli("run " + elf + " -s " + scenario + " --seed " + std::to_string(seed) + " --record " + log);
        REQUIRE(rec.status == 0);
        Cli rep =
            emutrace_cli("replay " + log + " " + elf + " -s " + scenario + " --timing none --json " + dir.file("r.json") + " --record " + again);
        CHECK(rep.status == 0);
        CHECK(rep.err.find("interrupts delivered in order") != std::string::npos);
        CHECK(without_ticks(rep.out) == without_ticks(rec.out));
        // The same events per thread, in the same order.
        EventLog a = EventLog::load(log), b = EventLog::load(again);
        std::map<std::uint32_t, std::vector<std::pair<Operation, std::uint32_t>>> per_thread_a, per_thread_b;
        for (const LogEvent& e : a.events) per_thread_a[e.thread].push_back({e.op, e.object});
        for (const LogEvent& e : b.events) per_thread_b[e.thread].push_back({e.op, e.object});
        CHECK(per_thread_a == per_thread_b);
        held += nlohmann::json::parse(read_file(dir.file("r.json")))["replay"]["holds"].get<std::size_t>();
    }
    CHECK(held > 0);
}

TEST_CASE("replay: the race detector reports the counter race with both sites, and nothing on the race-free build") {
    TempDir dir;
    const std::string scenario = source("tests/scenarios/replay_app.yaml");
    auto races = [&](const std::string& name) {
        const std::string log = dir.file(name + ".log");
        REQUIRE(emutrace_cli("run " + firmware(name) + " -s " + scenario + " --seed 3 --record " + log).status == 0);
        Cli r = emutrace_cli("replay " + log + " " + firmware(name) + " -s " + scenario + " --races --json " + dir.file(name + ".json"));
        CHECK(r.status == 0);
        return std::make_pair(r.err, nlohmann::json::parse(read_file(dir.file(name + ".json")))["races"]);
    };
    auto [clean_out, clean] = races("replay_app");
    CHECK(clean["races"].empty());
    CHECK(clean["checked_accesses"].get<std::size_t>() > 1000);
    auto [racy_out, racy] = races("replay_racy");
    REQUIRE(!racy["races"].empty());
    bool sampler_worker = false;
    for (const auto& r : racy["races"]) {
        CHECK(r["symbol"] == "hits");
        const std::string a = r["earlier"]["function"], b = r["later"]["function"];
        sampler_worker =
            sampler_worker || (a.starts_with("worker") && b.starts_with("sampler")) || (a.starts_with("sampler") && b.starts_with("worker"));
        CHECK(r["earlier"]["line"].get<std::string>().starts_with("replay_app.c:"));
        CHECK(r["later"]["line"].get<std::string>().starts_with("replay_app.c:"));
        CHECK((r["earlier"]["write"].get<bool>() || r["later"]["write"].get<bool>()));
    }
    CHECK(sampler_worker);
    CHECK(racy_out.find("hits (0x") != std::string::npos);
}

TEST_CASE("replay: a race that changes what a thread sends stops the replay on other timing with the event, thread, stack and cycle") {
    TempDir dir;
    const std::string elf = firmware("replay_diverge"), scenario = source("tests/scenarios/replay_app.yaml"), log = dir.file("d.log");
    REQUIRE(emutrace_cli("run " + elf + " -s " + scenario + " --record " + log).status == 0);
    CHECK(emutrace_cli("replay " + log + " " + elf + " -s " + scenario).status == 0);  // same timing: the same lost updates
    Cli r = emutrace_cli("replay " + log + " " + elf + " -s " + scenario + " --timing none --json " + dir.file("d.json"));
    CHECK(r.status == 1);
    CHECK(r.err.find("DIVERGED at event #") != std::string::npos);
    CHECK(r.err.find("emutrace: replay of ") != std::string::npos);
    const auto d = nlohmann::json::parse(read_file(dir.file("d.json")))["replay"]["divergence"];
    CHECK(d["expected"].get<std::string>().starts_with("send(done, "));
    CHECK(d["seen"].get<std::string>().starts_with("send(done, "));
    CHECK(d["expected"] != d["seen"]);
    CHECK(d["thread"].get<std::string>().starts_with("racer-"));
    CHECK(d["call_stack"].back() == "queue_send");
    CHECK(d["cycle"].get<std::uint64_t>() > 0);
}

TEST_CASE("replay: a corrupt or truncated log is a one-line error naming the byte") {
    TempDir dir;
    const std::string elf = firmware("replay_app"), scenario = source("tests/scenarios/replay_app.yaml"), log = dir.file("c.log");
    REQUIRE(emutrace_cli("run " + elf + " -s " + scenario + " --record " + log).status == 0);
    std::string bytes = read_file(log);
    write_file(dir.file("cut.log"), bytes.substr(0, bytes.size() - 7));
    Cli cut = emutrace_cli("replay " + dir.file("cut.log") + " " + elf + " -s " + scenario);
    CHECK(cut.status == 2);
    CHECK(cut.err.find("cut.log: byte ") != std::string::npos);
    CHECK(cut.err.find("truncated") != std::string::npos);
    CHECK(std::count(cut.err.begin(), cut.err.end(), '\n') == 1);
    std::string bad = bytes;
    bad[32 + 32 * 5] = 1;  // record 5's seq goes backwards
    bad[32 + 32 * 5 + 1] = 0;
    write_file(dir.file("bad.log"), bad);
    Cli b = emutrace_cli("replay " + dir.file("bad.log") + " " + elf + " -s " + scenario);
    CHECK(b.status == 2);
    CHECK(b.err.find("bad.log: byte 192: record 5") != std::string::npos);
    // The last record's seq jumping far forward: replay segfaulted finding the event by number.
    std::string jump = bytes;
    jump[jump.size() - 32 + 3] = '\xff';
    write_file(dir.file("jump.log"), jump);
    Cli j = emutrace_cli("replay " + dir.file("jump.log") + " " + elf + " -s " + scenario);
    CHECK(j.status == 2);
    CHECK(j.err.find("a linked log numbers its events without gaps") != std::string::npos);
    // An external interrupt logged as internal: the divergence's two lines never read alike
    // (where their text would, they carry every field).
    std::string flipped = bytes;
    std::size_t at = 32;
    while (at + 32 <= flipped.size() && flipped[at + 12] != static_cast<char>(Operation::Interrupt)) at += 32;
    REQUIRE(at + 32 <= flipped.size());
    flipped[at + 13] = static_cast<char>(flipped[at + 13] ^ emutrace::analysis::replay::kExternal);
    write_file(dir.file("flipped.log"), flipped);
    Cli f = emutrace_cli("replay " + dir.file("flipped.log") + " " + elf + " -s " + scenario);
    CHECK(f.status == 1);
    const auto expected = f.err.find("  expected: "), seen = f.err.find("  seen:     ");
    REQUIRE(expected != std::string::npos);
    REQUIRE(seen != std::string::npos);
    CHECK(f.err.substr(expected + 12, f.err.find('\n', expected) - expected - 12) != f.err.substr(seen + 12, f.err.find('\n', seen) - seen - 12));
    write_file(dir.file("text.log"), "hello, I am not a log at all, but long enough\n");
    Cli t = emutrace_cli("replay " + dir.file("text.log") + " " + elf + " -s " + scenario);
    CHECK(t.status == 2);
    CHECK(t.err.find("no EMUTRLOG magic") != std::string::npos);
}

namespace {

// Each thread's events in its order: what replay must keep whatever the global interleaving. A
// board does not know where its interrupts landed, so an interrupt's value (the pc) is left out.
std::map<std::uint32_t, std::vector<std::tuple<Operation, std::uint32_t, std::uint32_t>>> per_thread(const EventLog& log) {
    std::map<std::uint32_t, std::vector<std::tuple<Operation, std::uint32_t, std::uint32_t>>> out;
    for (const LogEvent& e : log.events) out[e.thread].emplace_back(e.op, e.object, e.op == Operation::Interrupt ? 0 : e.value);
    return out;
}

}  // namespace

TEST_CASE("replay: the board path: the firmware's own recorder, its memory dump as ELF core, Intel HEX and raw, replayed to the same events") {
    TempDir dir;
    const std::string elf = firmware("replay_board"), scenario = source("tests/scenarios/replay_app.yaml");
    const std::string emulated = dir.file("emu.log"), core = dir.file("board.core");
    // The "board": the wrapped firmware under emutrace, its RAM at exit as a device dump; the
    // emulator's own recording of the same run is the reference.
    Cli board = emutrace_cli("run " + elf + " -s " + scenario + " --seed 7 --record " + emulated + " --dump-ram " + core);
    REQUIRE(board.status == 0);
    const EventLog reference = EventLog::load(emulated);
    REQUIRE(reference.events.size() > 500);
    // The other side's tools read the dump: readelf sees one RAM segment; objcopy makes Intel HEX of its bytes.
    Cli readelf = run_shell("readelf -l " + core);
    CHECK(readelf.out.find("CORE (Core file)") != std::string::npos);
    CHECK(readelf.out.find("0x20000000 0x20000000 0x400000 0x400000 RW") != std::string::npos);
    write_file(dir.file("board.bin"), read_file(core).substr(52 + 32));  // the segment's bytes: a raw dump of RAM
    REQUIRE(run_shell("arm-none-eabi-objcopy -I binary -O ihex --change-addresses 0x20000000 " + dir.file("board.bin") + " " + dir.file("board.hex"))
                .status == 0);
    const std::string total = std::to_string(reference.events.size());
    for (const std::string& dump : {core, dir.file("board.hex"), dir.file("board.bin") + " --base 0x20000000"}) {
        INFO(dump);
        Cli r = emutrace_cli("replay --from-dump " + dump + " " + elf + " -s " + scenario + " --record " + dir.file("rep.log"));
        CHECK(r.status == 0);
        CHECK(r.err.find(total + " of " + total + " events reproduced") != std::string::npos);
        CHECK(r.err.find("interrupts delivered in order") != std::string::npos);
        CHECK(without_ticks(r.out) == without_ticks(board.out));  // the same readings, sum, envelopes and racers
        CHECK(per_thread(EventLog::load(dir.file("rep.log"))) == per_thread(reference));
    }
}

TEST_CASE("replay: a dump without a ring, a damaged ring and bad Intel HEX are one-line errors") {
    TempDir dir;
    const std::string elf = firmware("replay_board"), scenario = source("tests/scenarios/replay_app.yaml"), core = dir.file("board.core");
    REQUIRE(emutrace_cli("run " + elf + " -s " + scenario + " --dump-ram " + core).status == 0);
    auto replay_dump = [&](const std::string& dump) { return emutrace_cli("replay --from-dump " + dump + " " + elf + " -s " + scenario); };
    // A firmware without the recorder: no ring.
    REQUIRE(emutrace_cli("run " + firmware("replay_app") + " -s " + scenario + " --dump-ram " + dir.file("plain.core")).status == 0);
    Cli none = replay_dump(dir.file("plain.core"));
    CHECK(none.status == 2);
    CHECK(none.err.find("no replay ring (EMUTRLOG header)") != std::string::npos);
    // A ring whose count is beyond its capacity.
    std::string bytes = read_file(core);
    const std::size_t ring = bytes.find("EMUTRLOG");
    REQUIRE(ring != std::string::npos);
    std::string bad = bytes;
    bad[ring + 19] = 0x7F;  // records: huge
    write_file(dir.file("bad.core"), bad);
    Cli b = replay_dump(dir.file("bad.core"));
    CHECK(b.status == 2);
    CHECK(b.err.find("in a ring of 1024") != std::string::npos);
    CHECK(b.err.find("bad.core at 0x2") != std::string::npos);
    CHECK(std::count(b.err.begin(), b.err.end(), '\n') == 1);
    write_file(dir.file("bad.hex"), ":020000042000DA\n:10000000180000006E0100002C0100001D00000020\n");
    Cli h = replay_dump(dir.file("bad.hex"));
    CHECK(h.status == 2);
    CHECK(h.err.find("bad.hex: line 2: checksum mismatch") != std::string::npos);
    Cli raw = replay_dump(core + ".missing");
    CHECK(raw.status == 2);
    write_file(dir.file("raw.bin"), "some bytes that are not a dump format");
    Cli nobase = replay_dump(dir.file("raw.bin"));
    CHECK(nobase.status == 2);
    CHECK(nobase.err.find("give its address with --base") != std::string::npos);
}

namespace {

// Σ over the contexts the log drives (those with events) of `field` in a times JSON's threads,
// matched by name against `names` when given.
double driven(const nlohmann::json& times, const char* field, const std::set<std::string>* names = nullptr) {
    double sum = 0;
    for (const auto& t : times["threads"])
        if ((names ? names->count(t["thread"]) > 0 : t["events"].get<std::size_t>() > 0)) sum += t[field].get<double>();
    return sum;
}

}  // namespace

TEST_CASE("replay: the execution-time estimate removes the replay's holds and the recorder, close to the true figures") {
    TempDir dir;
    const std::string scenario = source("tests/scenarios/replay_app.yaml"), board = firmware("replay_board"), plain = firmware("replay_app");
    // The board's own run, and its dump replayed in order: holds happen, the estimate takes them out.
    REQUIRE(emutrace_cli("run " + board + " -s " + scenario + " --seed 4 --record " + dir.file("b.log") + " --times --json " +
                         dir.file("board.json") + " --dump-ram " + dir.file("b.core"))
                .status == 0);
    Cli r = emutrace_cli("replay --from-dump " + dir.file("b.core") + " " + board + " -s " + scenario + " --json " + dir.file("replay.json"));
    REQUIRE(r.status == 0);
    CHECK(r.err.find("execution time: work ") != std::string::npos);
    const auto times = nlohmann::json::parse(read_file(dir.file("replay.json")))["replay"]["times"];
    const auto truth = nlohmann::json::parse(read_file(dir.file("board.json")))["replay"]["times"];
    std::set<std::string> names;
    for (const auto& t : times["threads"])
        if (t["events"].get<std::size_t>() > 0) names.insert(t["thread"]);
    REQUIRE(names.count("worker"));
    const double true_work = driven(truth, "estimate", &names), replayed = driven(times, "cycles") - driven(times, "instrumentation"),
                 estimate = driven(times, "estimate");
    CHECK(driven(times, "hold") > 0);
    CHECK(std::fabs(replayed - true_work) / true_work > 0.005);  // the holds did cost the replay
    CHECK(std::fabs(estimate - true_work) / true_work < 0.01);
    CHECK(driven(times, "recorder_calls") > 500);

    // The build without the recorder, recorded from outside, replayed on the recorder's build
    // (objects matched by symbol): the recorder's cycles come out too, with the call-site cost
    // each cycle model has (default_site_cycles).
    for (const char* timing : {"trm", "pipeline"}) {
        CAPTURE(timing);
        const std::string timed = dir.file(std::string("replay_") + timing + ".yaml");
        write_file(timed, read_file(scenario) + "timing: " + timing + "\n");
        REQUIRE(
            emutrace_cli("run " + plain + " -s " + timed + " --seed 4 --record " + dir.file("p.log") + " --times --json " + dir.file("plain.json"))
                .status == 0);
        Cli cross = emutrace_cli("replay " + dir.file("p.log") + " " + board + " --log-elf " + plain + " -s " + timed + " --in-order --json " +
                                 dir.file("cross.json"));
        REQUIRE(cross.status == 0);
        const auto cross_times = nlohmann::json::parse(read_file(dir.file("cross.json")))["replay"]["times"];
        const auto plain_times = nlohmann::json::parse(read_file(dir.file("plain.json")))["replay"]["times"];
        const double plain_work = driven(plain_times, "cycles", &names);
        CHECK(driven(cross_times, "cycles") / plain_work > 1.5);  // the recorder roughly doubles these threads' cycles
        CHECK(std::fabs(driven(cross_times, "estimate") - plain_work) / plain_work < 0.01);
    }
    // Without --log-elf the other build's objects are not the replayed one's.
    Cli unmapped = emutrace_cli("replay " + dir.file("p.log") + " " + board + " -s " + scenario + " --in-order");
    CHECK(unmapped.status == 1);
}

TEST_CASE("replay: live UART input from a host FIFO is recorded (bytes and arrival) and replays without the FIFO") {
    TempDir dir;
    const std::string elf = firmware("uart_echo");
    std::string yaml = read_file(source("tests/scenarios/uart_rx.yaml"));
    const std::string scripted = "  - {at: 2ms, uart_rx: {device: uart0, data: \"hello emutrace\\n\"}}";
    REQUIRE(yaml.find(scripted) != std::string::npos);
    // Live input from a FIFO beside the scenario (paths are the scenario file's), polled every 50 us.
    yaml.replace(yaml.find(scripted), scripted.size(), "  - {every: 50us, uart_rx: {device: uart0, from: rx.fifo}}\nreplay:\n  inputs: [uart0]");
    write_file(dir.file("live.yaml"), yaml);
    REQUIRE(run_shell("mkfifo " + dir.file("rx.fifo")).status == 0);
    // Another program writes the line while the firmware runs.
    Cli rec = run_shell("(sleep 0.3; printf 'typed by a host\\n' > " + dir.file("rx.fifo") + ") & " + emutrace_binary() + " run " + elf + " -s " +
                        dir.file("live.yaml") + " --record " + dir.file("live.log"));
    REQUIRE(rec.status == 0);
    CHECK(rec.out.find("uart got 'typed by a host'") != std::string::npos);
    const EventLog log = EventLog::load(dir.file("live.log"));
    std::size_t inputs = 0, interrupts = 0;
    for (const LogEvent& e : log.events) inputs += e.op == Operation::Input, interrupts += e.op == Operation::Interrupt;
    CHECK(inputs >= 16);  // every byte read from DATA, and STATE
    CHECK(interrupts >= 1);
    // The FIFO is gone: the replay's outside world is the log.
    std::remove(dir.file("rx.fifo").c_str());
    Cli rep = emutrace_cli("replay " + dir.file("live.log") + " " + elf + " -s " + dir.file("live.yaml"));
    CHECK(rep.status == 0);
    CHECK(rep.out == rec.out);  // the same line, received at the same cycle
    CHECK(rep.err.find("events reproduced; the same global order") != std::string::npos);
    // A source the scenario names that is not there is a one-line error.
    Cli missing = emutrace_cli("run " + elf + " -s " + dir.file("live.yaml"));
    CHECK(missing.status == 2);
    CHECK(missing.err.find("rx.fifo: cannot open the live input") != std::string::npos);
}
