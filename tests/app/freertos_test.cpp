// FreeRTOS out of the box (docs/replay.md, "An RTOS by name"): with only `rtos: freertos` in the
// scenario, on applications built from the FreeRTOS V11.1 kernel unchanged (tests/data,
// tests/firmware/freertos) on each of its three GCC Cortex-M ports: thread switches carry the
// task names, every synchronisation call gets its role per object (a mutex's and a semaphore's give
// and take are an unlock and a lock, a queue's a send and a receive), record and replay
// reproduce, --races reports no race in a race-free application and finds the planted one with
// both sites.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sstream>
#include <string>

#include "support/cli.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace::test;
using nlohmann::json;

namespace {

const char* const kPorts[] = {"cm0", "cm3", "cm4f"};

std::string elf(const std::string& variant, const std::string& port) {
    return firmware("freertos_" + variant + "_" + port);
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// The threads the event log's thread switches name.
std::set<std::string> switched_to(const std::string& events) {
    std::set<std::string> names;
    std::istringstream lines(read_file(events));
    for (std::string line; std::getline(lines, line);) {
        json e = json::parse(line);
        if (e.value("kind", "") == "thread_switch") names.insert(e.value("name", ""));
    }
    return names;
}

}  // namespace

TEST_CASE("freertos: with only rtos: freertos, thread switches carry the task names, on each port") {
    TempDir dir;
    for (const std::string port : kPorts) {
        CAPTURE(port);
        Cli r = emutrace_cli("run " + elf("app", port) + " --set rtos=freertos --events " + dir.file("e.jsonl"));
        REQUIRE(r.status == 0);
        CHECK(r.out.find("freertos: consumed 24 items, sum 300, produced 24") != std::string::npos);
        const std::set<std::string> names = switched_to(dir.file("e.jsonl"));
        // The application's four tasks and the kernel's idle task, named as xTaskCreate named them.
        CHECK(names == std::set<std::string>{"IDLE", "consumer", "prod-a", "prod-b", "reporter"});
    }
}

TEST_CASE(
    "freertos: each synchronisation call has its role by its object: a mutex and a semaphore are locked and unlocked, a queue sent and received") {
    // app.c: two producers each take and give the mutex 12 times and send 12 items; the consumer
    // receives the 24 items, takes and gives the mutex once, gives the binary semaphore the
    // reporter takes; xSemaphoreCreateMutex gives its new mutex once; 4 tasks and the idle task
    // are created; each producer delays after each item. The run ends when the reporter has the
    // semaphore, by then one producer has deleted itself.
    TempDir dir;
    for (const std::string port : kPorts) {
        CAPTURE(port);
        Cli r =
            emutrace_cli("run " + elf("app", port) + " --set rtos=freertos --record " + dir.file("r.log") + " --json " + dir.file("r.json") + " -q");
        REQUIRE(r.status == 0);
        const json ops = json::parse(read_file(dir.file("r.json")))["replay"]["operations"];
        CHECK(ops["lock"] == 2 * 12 + 1 + 1);
        CHECK(ops["unlock"] == 2 * 12 + 1 + 1 + 1);
        CHECK(ops["send"] == 2 * 12);
        CHECK(ops["receive"] == 2 * 12);
        CHECK(ops["create"] == 4 + 1);
        CHECK(ops["delay"] == 2 * 12);
        CHECK(ops["delete"] == 1);
    }
}

TEST_CASE("freertos: record and replay reproduce on each port, on another cycle model too, with no false race") {
    TempDir dir;
    for (const std::string port : kPorts) {
        CAPTURE(port);
        REQUIRE(emutrace_cli("run " + elf("app", port) + " --set rtos=freertos --record " + dir.file("r.log") + " -q").status == 0);
        Cli same = emutrace_cli("replay " + dir.file("r.log") + " " + elf("app", port) + " --set rtos=freertos --races");
        CHECK(same.status == 0);
        CHECK(same.err.find("131 of 131 events reproduced; the same global order") != std::string::npos);
        CHECK(same.err.find("races: 0 racing pairs") != std::string::npos);
        Cli other = emutrace_cli("replay " + dir.file("r.log") + " " + elf("app", port) + " --set rtos=freertos --timing trm --races");
        CHECK(other.status == 0);
        CHECK(other.err.find("131 of 131 events reproduced") != std::string::npos);
        CHECK(other.err.find("races: 0 racing pairs") != std::string::npos);
    }
}

TEST_CASE("freertos: the planted race on an unguarded counter is found with both of its sites and threads") {
    TempDir dir;
    for (const std::string port : kPorts) {
        CAPTURE(port);
        REQUIRE(emutrace_cli("run " + elf("racy", port) + " --set rtos=freertos --record " + dir.file("r.log") + " -q").status == 0);
        Cli r = emutrace_cli("replay " + dir.file("r.log") + " " + elf("racy", port) + " --set rtos=freertos --races");
        CHECK(r.status == 0);
        const auto races = r.err.find("\nraces: ");  // the summary, on stderr
        REQUIRE(races != std::string::npos);
        const std::string report = r.err.substr(races);
        // Only the counter: the kernel's own state and the mutex-guarded count are not races.
        CHECK(report.find("unguarded (0x") != std::string::npos);
        CHECK(report.find("produced") == std::string::npos);
        // Every racing pair is on it: a pair's heading is "  <symbol> (0x...), Nx:".
        CHECK(count(report, "  unguarded (") >= 1);
        CHECK(count(report, "  unguarded (") == count(report, "x:\n"));
        CHECK(report.find("by prod-a") != std::string::npos);
        CHECK(report.find("by prod-b") != std::string::npos);
        CHECK(count(report, "at producer+0x") >= 2);
        CHECK(report.find("(app.c:") != std::string::npos);
    }
}

TEST_CASE("freertos: rtos: names a known RTOS, and a firmware that is not one is a one-line error naming the ELF") {
    Cli other = emutrace_cli("run " + firmware("compute") + " --set rtos=freertos");
    CHECK(other.status == 2);
    CHECK(other.err.find("compute.elf: rtos: freertos: no symbol pxCurrentTCB") != std::string::npos);
    CHECK(count(other.err, "\n") == 1);
    Cli unknown = emutrace_cli("run " + firmware("compute") + " --set rtos=zephyr");
    CHECK(unknown.status == 2);
    CHECK(unknown.err.find("unknown RTOS 'zephyr' (known: freertos, emutrace-kernel)") != std::string::npos);
    // The project's own kernel by the same mechanism: its threads named without offsets.
    Cli own = emutrace_cli("run " + firmware("rtos") + " -s " + source("tests/scenarios/rtos.yaml") + " --set rtos=emutrace-kernel");
    CHECK(own.status == 0);
    CHECK(own.err.find(" thread switches") != std::string::npos);
    CHECK(own.err.find(" 0 thread switches") == std::string::npos);
}

TEST_CASE("freertos: a constraint's events can name a task, as rtos: freertos names it") {
    // Each producer sends 12 items and gives the mutex 12 times through xQueueGenericSend; with
    // the consumer's give, the semaphore's and the mutex's creation, 51 calls in all.
    const std::string constraints =
        "constraints=[{name: prod_a_sends, start: {enter: xQueueGenericSend, thread: prod-a}, end: {exit: xQueueGenericSend, thread: prod-a}, "
        "limit: 1ms}, {name: all_sends, start: {enter: xQueueGenericSend}, end: {exit: xQueueGenericSend}, limit: 1ms}]";
    TempDir dir;
    Cli r = emutrace_cli("run " + elf("app", "cm3") + " --set rtos=freertos --set '" + constraints + "' --json " + dir.file("r.json"));
    REQUIRE(r.status == 0);
    std::map<std::string, json> by_name;
    const json result = json::parse(read_file(dir.file("r.json")));
    for (const auto& c : result["calltrace"]["constraints"]) by_name[c["name"].get<std::string>()] = c;
    CHECK(by_name.at("prod_a_sends")["occurrences"] == 24);
    CHECK(by_name.at("all_sends")["occurrences"] == 51);
    // A thread key beside one event kind only.
    Cli bad = emutrace_cli("run " + elf("app", "cm3") +
                           " --set rtos=freertos --set 'constraints=[{name: x, start: {thread: prod-a}, end: {marker: 1}, limit: 1ms}]'");
    CHECK(bad.status == 2);
    CHECK(bad.err.find("name exactly one of: enter, exit, marker, exception (and optionally thread)") != std::string::npos);
}

TEST_CASE("freertos validation: another application's objects get their roles, its interrupts replay, no false race") {
    // validation.c, written after the preset: a counting semaphore given from an interrupt the
    // outside world raises (a jittered stimulus), a recursive mutex taken nested, a queue sent to
    // at its front, receives with a timeout, xTaskDelayUntil.
    TempDir dir;
    const std::string scenario = source("tests/scenarios/freertos.yaml");
    for (const std::string port : kPorts) {
        CAPTURE(port);
        Cli r = emutrace_cli("run " + elf("validation", port) + " -s " + scenario + " --record " + dir.file("v.log") + " --json " +
                             dir.file("v.json") + " -q");
        REQUIRE(r.status == 0);
        CHECK(r.out.find(" readings, logged ") != std::string::npos);
        const json ops = json::parse(read_file(dir.file("v.json")))["replay"]["operations"];
        // Each outermost take of the recursive mutex is one lock and its last give one unlock (the
        // nested ones do not reach the queue); the mutex's creation gives it once.
        CHECK(ops["unlock"].get<int>() == ops["lock"].get<int>() + 1);
        CHECK(ops["create"] == 3 + 1);
        CHECK(ops["interrupt"].get<int>() >= 20);  // the sensor's, each a logged external event
        // The interrupts that tail-chained on a kernel handler's return when recorded do again.
        Cli replay = emutrace_cli("replay " + dir.file("v.log") + " " + elf("validation", port) + " -s " + scenario + " --races");
        CHECK(replay.status == 0);
        const auto at = replay.err.find(" events reproduced");
        REQUIRE(at != std::string::npos);
        const auto of = replay.err.rfind(" of ", at);
        const auto from = replay.err.rfind(": ", of);
        const int reproduced = std::stoi(replay.err.substr(from + 2, of - from - 2)), logged = std::stoi(replay.err.substr(of + 4, at - of - 4));
        // Also at the end, where the sampler is left blocked in its semaphore take as recorded.
        CHECK(reproduced == logged);
        CHECK(replay.err.find("the same global order") != std::string::npos);
        CHECK(replay.err.find("races: 0 racing pairs") != std::string::npos);
    }
}

TEST_CASE("freertos objects: event groups, notifications, stream and message buffers, timers and failing gives: roles, exact replay, no false race") {
    // objects.c: five pairs of tasks, each handing a value over one kind of object ten times, and
    // a finisher waiting on an event group bit from each pair. Without these objects' roles the
    // race detector reports every handed value as a race; with a semaphore's gives paired to its
    // takes one to one, the failed second give of each round would leave the takes a round behind.
    TempDir dir;
    const std::string scenario = source("tests/scenarios/freertos.yaml");
    for (const std::string port : kPorts) {
        CAPTURE(port);
        Cli r = emutrace_cli("run " + elf("objects", port) + " -s " + scenario + " --record " + dir.file("o.log") + " --json " + dir.file("o.json") +
                             " --events " + dir.file("e.jsonl") + " -q");
        REQUIRE(r.status == 0);
        CHECK(r.out.find("objects: semaphore 55, event group 55, notification 55, stream 55, timer 110") != std::string::npos);
        const json ops = json::parse(read_file(dir.file("o.json")))["replay"]["operations"];
        // Releases: 2 semaphore gives a round (one fails) and the drainer's, 2 sets, 2 notifies, a
        // stream send (its notification of the reader is part of it), a message send (received:
        // it is a stream buffer too), the timer's notification; the 5 done bits and the first
        // give of `empty`. Acquisitions: one per release of each round but the failed give's, and
        // the stream's four, one per byte; the finisher's wait.
        CHECK(ops["unlock"] == 10 * (3 + 2 + 2 + 2 + 1) + 5 + 1);
        CHECK(ops["lock"] == 10 * (2 + 2 + 2 + (4 + 1) + 1) + 1);
        // The timer's commands are queue items the timer task receives (start and its processing).
        CHECK(ops["send"] == 10);
        CHECK(ops["receive"].get<int>() >= 10);
        const std::set<std::string> names = switched_to(dir.file("e.jsonl"));
        CHECK(names.count("Tmr Svc") == 1);  // the kernel's timer task runs the callback
        Cli replay = emutrace_cli("replay " + dir.file("o.log") + " " + elf("objects", port) + " -s " + scenario + " --races");
        CHECK(replay.status == 0);
        CHECK(replay.err.find("the same global order") != std::string::npos);
        CHECK(replay.err.find("races: 0 racing pairs") != std::string::npos);
    }
}
