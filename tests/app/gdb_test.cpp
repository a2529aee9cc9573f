// Debugging with GDB (run --gdb, docs/gdb.md), tested with Debian's gdb-multiarch in batch mode on
// real firmware: libopencm3's TIM2 interrupt program on the STM32F100 preset. A breakpoint in the
// interrupt handler, the backtrace through the exception, a variable read and written, steps, a
// watchpoint's old and new values, device registers read through their models, monitor commands;
// the run's cycles the same attached and not; hostile packets answered, never a crash. And a
// FreeRTOS application's tasks as GDB's threads.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <regex>
#include <string>
#include <thread>

#include "support/cli.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace::test;

namespace {

// emutrace run ... --gdb 0 in the background: the port it chose, then its exit status.
class Attached {
public:
    explicit Attached(const std::string& args) {
        const std::string cmd = "(" + emutrace_binary() + " " + args + " --gdb 0 >" + dir_.file("out") + " 2>" + dir_.file("err") +
                                " </dev/null & echo $! >" + dir_.file("pid") + "; wait $!; echo $? >" + dir_.file("status") + ") &";
        REQUIRE(std::system(cmd.c_str()) == 0);
        const std::regex waiting("waiting for GDB on (127\\.0\\.0\\.1:[0-9]+)");
        for (int i = 0; i < 400 && address_.empty(); ++i) {
            std::smatch m;
            const std::string err = read_file(dir_.file("err"));
            if (std::regex_search(err, m, waiting)) address_ = m[1];
            if (address_.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
        REQUIRE_MESSAGE(!address_.empty(), "emutrace did not wait for GDB: " << read_file(dir_.file("err")));
    }
    // A run still waiting (a failed check left GDB out): it must not outlive the test.
    ~Attached() {
        if (read_file(dir_.file("status")).empty() && !read_file(dir_.file("pid")).empty()) run_shell("kill -9 " + read_file(dir_.file("pid")));
    }
    const std::string& address() const { return address_; }
    /// The run's exit status, once it has ended (-1 after 60 s).
    int status() {
        for (int i = 0; i < 2400; ++i) {
            const std::string s = read_file(dir_.file("status"));
            if (!s.empty()) return std::stoi(s);
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
        return -1;
    }
    std::string out() const { return read_file(dir_.file("out")); }
    std::string err() const { return read_file(dir_.file("err")); }
    std::string file(const std::string& name) const { return dir_.file(name); }

private:
    TempDir dir_;
    std::string address_;
};

// gdb-multiarch in batch mode on `elf`, connected to `address`, running `commands` in order.
Cli gdb(const std::string& elf, const std::string& address, const std::vector<std::string>& commands) {
    std::string cmd = "timeout 60 gdb-multiarch -q -batch -nx " + elf + " -ex 'target remote " + address + "'";
    for (const auto& c : commands) cmd += " -ex '" + c + "'";
    return run_shell(cmd);
}

std::string board() {
    return source("scenarios/boards/stm32f100.yaml");
}

}  // namespace

TEST_CASE("gdb: a breakpoint in an interrupt handler, its backtrace, a variable read and written, steps, a watchpoint") {
    const std::string elf = firmware("ocm3_timer_irq");
    Attached run("run " + elf + " -s " + board() + " --stop-at done");
    Cli g = gdb(elf, run.address(),
                {"info registers pc", "break tim2_isr", "continue", "bt", "print ticks", "stepi", "stepi", "info registers pc", "set var ticks = 40",
                 "print ticks", "delete", "watch ticks", "continue", "monitor cycles", "delete", "continue"});
    CAPTURE(g.out);
    CAPTURE(g.err);
    // Before the reset handler's first instruction.
    CHECK(g.out.find("reset_handler") != std::string::npos);
    CHECK(g.out.find("Breakpoint 1, tim2_isr ()") != std::string::npos);
    // The backtrace crosses the exception frame into the interrupted main().
    CHECK(g.out.find("<signal handler called>") != std::string::npos);
    CHECK(std::regex_search(g.out, std::regex("#2 +0x[0-9a-f]+ in main \\(\\)")));
    CHECK(g.out.find("$1 = 0") != std::string::npos);
    CHECK(g.out.find("0x8000154 <tim2_isr+4>") != std::string::npos);  // two instructions on: push, movs
    CHECK(g.out.find("$2 = 40") != std::string::npos);
    CHECK(g.out.find("Old value = 40") != std::string::npos);
    CHECK(g.out.find("New value = 41") != std::string::npos);
    // What the stub writes on GDB's console (monitor replies, why the run ended) GDB prints on stderr.
    CHECK(std::regex_search(g.err, std::regex("cycles [0-9]+, instructions [0-9]+, emulated time [0-9.]+ s \\(cortex-m3 at 24 MHz, pipeline")));
    // The run went on to its end: the firmware counted on from 41 to 50 and printed.
    CHECK(g.err.find("emutrace: reached done") != std::string::npos);
    CHECK(run.status() == 0);
    CHECK(run.out().find("ticks=50\r\n") == 0);
}

TEST_CASE("gdb: attached, stopped, stepped and watched, the run's cycles and instructions are those of the run without GDB") {
    const std::string elf = firmware("ocm3_timer_irq");
    TempDir dir;
    Cli alone = emutrace_cli("run " + elf + " -s " + board() + " --stop-at done --calltrace --json " + dir.file("alone.json"));
    REQUIRE(alone.status == 0);
    Attached run("run " + elf + " -s " + board() + " --stop-at done --calltrace --json " + dir.file("attached.json"));
    // Stops at a block's start, in a block's middle (0x0800016e: the store of ticks++), steps
    // across the exception return, a watchpoint, and on to the end.
    gdb(elf, run.address(),
        {"break tim2_isr", "continue", "delete", "break *0x0800016e", "continue", "delete", "stepi", "stepi", "stepi", "watch ticks", "continue",
         "continue", "delete", "break main", "continue", "delete", "continue"});
    REQUIRE(run.status() == 0);
    const auto a = nlohmann::json::parse(read_file(dir.file("alone.json")));
    const auto b = nlohmann::json::parse(read_file(dir.file("attached.json")));
    CHECK(a["cycles"] == b["cycles"]);
    CHECK(a["instructions"] == b["instructions"]);
    CHECK(a["calltrace"] == b["calltrace"]);  // the call tracer saw the same calls, returns and exceptions
}

TEST_CASE("gdb: the target description's registers, and device registers read through their models") {
    const std::string elf = firmware("ocm3_timer_irq");
    Attached run("run " + elf + " -s " + board() + " --stop-at done");
    Cli g = gdb(elf, run.address(), {"info registers xpsr msp psp primask basepri faultmask control", "x/wx 0x40021000", "kill"});
    CAPTURE(g.out);
    CHECK(std::regex_search(g.out, std::regex("xpsr +0x[0-9a-f]?1000000 ")));  // Thumb state, thread mode at reset
    CHECK(std::regex_search(g.out, std::regex("msp +0x20002000")));            // the vector table's initial SP
    CHECK(g.out.find("control") != std::string::npos);
    CHECK(g.out.find("0x40021000:\t0x00000083") != std::string::npos);  // RCC.CR at reset: HSION, HSIRDY
    CHECK(run.status() == 137);                                         // killed by the debugger, as by SIGKILL
}

TEST_CASE("gdb: a Cortex-M4F's FPU registers") {
    const std::string elf = firmware("fp_context");
    Attached run("run " + elf + " --cpu cortex-m4f");
    Cli g = gdb(elf, run.address(), {"info registers fpscr", "set $d1 = 2.5", "print $d1", "kill"});
    CAPTURE(g.out);
    CHECK(g.out.find("fpscr") != std::string::npos);
    CHECK(g.out.find("= 2.5") != std::string::npos);
    CHECK(run.status() == 137);
}

TEST_CASE("gdb: bad and hostile packets get error replies, and the run goes on when the connection goes") {
    const std::string elf = firmware("ocm3_timer_irq");
    Attached run("run " + elf + " -s " + board() + " --stop-at done");
    const std::string at = run.address();
    const std::string port = at.substr(at.find(':') + 1);
    // A wrong checksum, an unknown command, bad hex, an overlong read, a bad breakpoint type,
    // garbage, an interrupt byte, and a 200 KB packet; then the connection closes.
    TempDir dir;
    const std::string script = dir.write("hostile.py",
                                         "import socket, sys, time\n"
                                         "def packet(p):\n"
                                         "    return b'$' + p + b'#' + ('%02x' % (sum(p) & 255)).encode()\n"
                                         "s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))\n"
                                         "s.sendall(b'$g#00')\n"  // a wrong checksum
                                         "for p in [b'qNoSuchThing', b'mzz,4', b'm20000000,100000', b'Z9,0,0', b'G12', b'P99=00', b'X0,4:ab']:\n"
                                         "    s.sendall(packet(p))\n"
                                         "s.sendall(b'junk\\x03' + packet(b'a' * 200000))\n"
                                         "time.sleep(0.5)\n"
                                         "s.settimeout(1)\n"
                                         "got = b''\n"
                                         "try:\n"
                                         "    while True:\n"
                                         "        chunk = s.recv(65536)\n"
                                         "        if not chunk: break\n"
                                         "        got += chunk\n"
                                         "except socket.timeout:\n"
                                         "    pass\n"
                                         "sys.stdout.write(got.decode('latin-1'))\n");
    Cli raw = run_shell("python3 " + script + " " + port);
    CAPTURE(raw.out);
    CHECK(raw.out.find('-') != std::string::npos);        // the wrong checksum is refused
    CHECK(raw.out.find("$#00") != std::string::npos);     // an unknown command: the empty reply
    CHECK(raw.out.find("$E01#a6") != std::string::npos);  // bad hex, too long a read
    // GDB went away: the firmware runs to its end, as a board's would.
    CHECK(run.status() == 0);
    CHECK(run.out().find("ticks=50") == 0);
}

// FreeRTOS's CM3 port saves r4-r11 above the hardware frame; its CM4F port also EXC_RETURN and,
// for a task that used the FPU, s16-s31: a switched-out task's backtrace needs both right.
TEST_CASE("gdb: FreeRTOS tasks as GDB threads, their names, a switched-out task's registers and backtrace from its saved context") {
    for (const char* port : {"cm3", "cm4f"}) {
        CAPTURE(port);
        const std::string elf = firmware(std::string("freertos_app_") + port);
        Attached run("run " + elf + " -s " + source("tests/scenarios/freertos.yaml"));
        // consumer runs last of the four: reporter waits for done, the producers delay after their first item.
        Cli g = gdb(elf, run.address(), {"break consumer", "continue", "info threads", "thread apply all bt", "delete", "continue"});
        CAPTURE(g.out);
        CAPTURE(run.err());
        for (const char* name : {"reporter", "prod-a", "prod-b"})
            CHECK(std::regex_search(g.out, std::regex(std::string(" +Thread [0-9]+ \\(") + name + " \\(switched out\\)\\) ")));
        CHECK(std::regex_search(g.out, std::regex("\\* [0-9]+ +Thread [0-9]+ \\(consumer \\(running\\)\\) +consumer ")));
        // Each switched-out task's stack, unwound from its saved pc, lr and sp: where it waits, and
        // (for the producers, whose caller's line GDB can name) the task's own function.
        CHECK(std::regex_search(g.out, std::regex("\\(reporter \\(switched out\\)\\)\\):\\n#0 +xQueueSemaphoreTake ")));
        CHECK(std::regex_search(
            g.out,
            std::regex(
                "\\(prod-a \\(switched out\\)\\)\\):\\n#0 +vTaskDelay [^\\n]*\\n#1 +0x[0-9a-f]+ in producer \\(arg=0x[0-9a-f]+ <producer_a>\\)")));
        CHECK(std::regex_search(
            g.out,
            std::regex(
                "\\(prod-b \\(switched out\\)\\)\\):\\n#0 +vTaskDelay [^\\n]*\\n#1 +0x[0-9a-f]+ in producer \\(arg=0x[0-9a-f]+ <producer_b>\\)")));
        CHECK(run.status() == 0);
        CHECK(run.out().find("freertos: consumed 24 items, sum 300, produced 24") != std::string::npos);
    }
}

// replay --gdb: reverse execution over a FreeRTOS application's recorded run. produced is
// written 24 times, under a mutex, by two producer tasks; reporter is first entered by the
// exception return that starts the scheduler.
TEST_CASE("gdb: replay --gdb goes back: reverse-continue to a variable's last writes, reverse-stepi across an exception return, then forwards") {
    const std::string elf = firmware("freertos_app_cm3");
    const std::string scenario = source("tests/scenarios/freertos.yaml");
    TempDir dir;
    REQUIRE(emutrace_cli("run " + elf + " -s " + scenario + " --record " + dir.file("r.log") + " -q").status == 0);
    Cli alone = emutrace_cli("replay " + dir.file("r.log") + " " + elf + " -s " + scenario + " --json " + dir.file("alone.json"));
    REQUIRE(alone.status == 0);
    Attached run("replay " + dir.file("r.log") + " " + elf + " -s " + scenario + " --json " + dir.file("attached.json"));
    Cli g = gdb(elf, run.address(),
                {"break reporter",
                 "continue",
                 "reverse-stepi",
                 "info registers pc",
                 "stepi",
                 "info registers pc",
                 "delete",
                 "break app.c:80",
                 "continue",
                 "print produced",
                 "watch produced",
                 "reverse-continue",
                 "print produced",
                 "bt",
                 "reverse-continue",
                 "print produced",
                 "continue",
                 "print produced",
                 "delete",
                 "continue"});
    CAPTURE(g.out);
    CAPTURE(run.err());
    // Back across the exception return into the handler that made it, and forwards again.
    CHECK(std::regex_search(g.out, std::regex("pc +0x[0-9a-f]+ +0x[0-9a-f]+ <SVC_Handler\\+[0-9]+>\\n(.*\\n)*pc +0x80 +0x80 <reporter>")));
    // The watchpoint going back: each write undone shows as new value the one before it.
    CHECK(std::regex_search(g.out, std::regex("\\$1 = 24\\n")));
    CHECK(std::regex_search(
        g.out, std::regex("Old value = 24\\nNew value = 23\\n[^\\n]* in producer [^\\n]*\\n38\\t +produced = produced \\+ 1;\\n\\$2 = 23")));
    CHECK(g.out.find("#0  0x") != std::string::npos);
    CHECK(std::regex_search(g.out, std::regex("Old value = 23\\nNew value = 22\\n(.*\\n)*\\$3 = 22\\n")));
    // Forwards from there, the same write again.
    CHECK(std::regex_search(g.out, std::regex("Old value = 22\\nNew value = 23\\n(.*\\n)*\\$4 = 23\\n")));
    REQUIRE(run.status() == 0);
    CHECK(run.err().find("131 of 131 events reproduced") != std::string::npos);
    // The run that went back and forth ends as the replay without GDB: cycles, instructions.
    const auto a = nlohmann::json::parse(read_file(dir.file("alone.json")));
    const auto b = nlohmann::json::parse(read_file(dir.file("attached.json")));
    CHECK(a["cycles"] == b["cycles"]);
    CHECK(a["instructions"] == b["instructions"]);
    // Source-level stepping back: a line back, into the call the line before made (from its
    // end), out of it to the caller, and on; then back to the start.
    Attached lines("replay " + dir.file("r.log") + " " + elf + " -s " + scenario);
    Cli l = gdb(elf, lines.address(),
                {"break app.c:43", "continue", "continue", "delete", "reverse-next", "reverse-next", "reverse-step", "bt 2", "reverse-finish", "next",
                 "monitor reset", "maintenance flush register-cache", "info registers pc", "monitor cycles", "continue"});
    CAPTURE(l.out);
    CHECK(std::regex_search(l.out, std::regex("\\n39\\t +xSemaphoreGive\\(lock\\);\\n")));
    CHECK(std::regex_search(l.out, std::regex("#0 +0x[0-9a-f]+ in xQueueSemaphoreTake [^\\n]*\\n#1 +0x[0-9a-f]+ in producer ")));
    CHECK(std::regex_search(l.out, std::regex("\\nproducer \\([^\\n]*app\\.c:37\\n37\\t +xSemaphoreTake\\(lock, portMAX_DELAY\\);\\n38\\t")));
    // monitor reset: the first instruction again, and the replay from there to its end.
    CHECK(l.err.find("emutrace: back at reset") != std::string::npos);  // the console's text: on GDB's stderr
    CHECK(std::regex_search(l.out, std::regex("\\n38\\t[^\\n]*\\npc +0x[0-9a-f]+ +0x[0-9a-f]+ <Reset_Handler>\\n")));
    CHECK(l.err.find("cycles 0, instructions 0,") != std::string::npos);
    CHECK(lines.status() == 0);
    CHECK(lines.err().find("131 of 131 events reproduced") != std::string::npos);
    // A run (not a replay) offers no reverse execution; GDB says so.
    Attached plain("run " + elf + " -s " + scenario);
    Cli p = gdb(elf, plain.address(), {"reverse-stepi", "kill"});
    CHECK((p.out + p.err).find("Target remote does not support this command.") != std::string::npos);
    CHECK(plain.status() == 137);
    // Nor a replay writing a file as it goes: going back would write part of it twice. Forwards
    // it is the replay: stopped at a call the replay watches (whose hook ran before the stop's),
    // the breakpoint deleted and the run continued, the call is seen once and the log reproduced.
    Attached streamed("replay " + dir.file("r.log") + " " + elf + " -s " + scenario + " --events " + dir.file("e.jsonl"));
    Cli e = gdb(elf, streamed.address(), {"break *xQueueSemaphoreTake", "continue", "reverse-stepi", "delete", "continue"});
    CAPTURE(e.out);
    CHECK(e.err.find("reverse execution is not available: --events writes its file as the run goes") != std::string::npos);
    CHECK(streamed.status() == 0);
    CHECK(streamed.err().find("131 of 131 events reproduced") != std::string::npos);
}

// The replay test's race changes what a thread sends under other timing: replayed with --timing
// none it leaves its log, and GDB gets a last look where it did.
TEST_CASE("gdb: a replay that diverges stops there for GDB, says why, then ends") {
    TempDir dir;
    const std::string elf = firmware("replay_diverge"), scenario = source("tests/scenarios/replay_app.yaml"), log = dir.file("d.log");
    REQUIRE(emutrace_cli("run " + elf + " -s " + scenario + " --record " + log + " -q").status == 0);
    Attached run("replay " + log + " " + elf + " -s " + scenario + " --timing none");
    Cli g = gdb(elf, run.address(), {"continue", "bt", "continue"});
    CAPTURE(g.out);
    CAPTURE(g.err);
    CHECK(std::regex_search(g.err, std::regex("emutrace: the replay diverged from the log at event #[0-9]+ \\(")));
    CHECK(g.out.find("received signal SIGTRAP") != std::string::npos);
    CHECK(std::regex_search(g.out, std::regex("#[0-9]+ +[^\\n]*queue_send ")));  // where: the send that differs
    CHECK(g.out.find("terminated with signal SIGTRAP") != std::string::npos);
    CHECK(run.status() == 1);
    CHECK(run.err().find("DIVERGED at event #") != std::string::npos);
}

TEST_CASE("gdb: a bad --gdb address is one line naming it, status 2") {
    Cli r = emutrace_cli("run " + firmware("compute") + " --gdb 127.0.0.1:notaport");
    CHECK(r.status == 2);
    CHECK(r.err.find("--gdb 127.0.0.1:notaport: expected [HOST:]PORT") != std::string::npos);
}
