// On-target tracing (docs/ontarget.md): franking built with -finstrument-functions and the
// tracer of firmware/ontarget runs under emutrace as the "board"; its RAM at exit is the device's
// dump. The ring decoded from it must name the calls emutrace itself saw, in the same order, and
// damaged dumps must decode what they can.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "decode/elf_image.h"
#include "emutrace/registry.h"
#include "emutrace/session.h"
#include "support/cli.h"
#include "support/run_firmware.h"
#include "support/temp_dir.h"

using namespace emutrace;
using namespace emutrace::test;

namespace {

// The functions entered, in order, in threads and in handlers apart: an interrupt that comes
// between a call and its entry hook (a few instructions into the function) puts the handler's
// entries before the function's in the ring, after it in the branches.
struct Entries final : trace::TraceSink {
    std::vector<std::uint32_t> threads, handlers;
    int depth = 0;
    std::uint32_t wants() const override { return trace::WantBranches | trace::WantExceptions; }
    void on_batch(const trace::EventBatch& b) override {
        for (const auto& e : b.events) {
            if (e.kind == trace::EventKind::ExceptionEntry) ++depth;
            if (e.kind == trace::EventKind::ExceptionReturn && depth > 0) --depth;
            if (e.kind == trace::EventKind::Branch &&
                (e.value == static_cast<std::uint32_t>(trace::BranchKind::Call) || e.value == static_cast<std::uint32_t>(trace::BranchKind::Vector)))
                (depth ? handlers : threads).push_back(e.address & ~1u);
        }
    }
};

Entries entries(RunRequest request) {
    AnalysisRegistry registry = AnalysisRegistry::builtin();
    request.machine.echo_output = false;
    request.scenario_outputs = false;  // the events are all it needs, not the scenario's 160 MB Perfetto trace
    Session session(registry, request);
    Entries sink;
    session.add_sink(sink);
    RunReport report = session.run();
    REQUIRE(report.error.empty());
    return sink;
}

struct Board {
    explicit Board(const std::string& name) : elf(firmware(name)) {
        auto r = emutrace_cli("run " + elf + " -s " + scenario + " --dump-ram " + core + " -q");
        INFO(r.err);
        REQUIRE(r.status == 1);
    }
    TempDir dir;
    std::string elf, scenario = source("scenarios/franking/franking.yaml"), core = dir.file("board.core");
    // Every function traced, the print image misses its 11 ms (exit 1), as the paper's fully
    // instrumented build violated its timing constraints; the dump is written all the same.
};

// One board run (15 M instructions) for every case: they only read its dump. franking_traced_ra
// records exits by return-address manipulation instead of the compiler's exit hook.
const Board& the_board(const std::string& name = "franking_traced") {
    static std::map<std::string, std::unique_ptr<Board>> boards;
    auto& b = boards[name];
    if (!b) b = std::make_unique<Board>(name);
    return *b;
}

}  // namespace

TEST_CASE("on-target tracing: the ring from the board's dump names the calls emutrace saw, in order, with exits by hook or by return address") {
    for (const char* build : {"franking_traced", "franking_traced_ra"}) {
        INFO(build);
        const Board& board = the_board(build);
        RunRequest emulated;
        emulated.firmware = board.elf;
        emulated.scenario = board.scenario;
        const Entries seen = entries(emulated);
        RunRequest dumped;
        dumped.firmware = board.elf;
        dumped.scenario = board.scenario;
        dumped.source = "ring";
        dumped.source_input = board.core;
        const Entries ring = entries(dumped);
        REQUIRE(ring.threads.size() + ring.handlers.size() > 10000);  // a wrapped ring: the most recent events
        // The instrumented functions are those the ring names; emutrace also sees the tracer's own
        // calls and code built without hooks (libgcc), which the ring cannot.
        std::set<std::uint32_t> instrumented(ring.threads.begin(), ring.threads.end());
        instrumented.insert(ring.handlers.begin(), ring.handlers.end());
        const decode::ElfImage image = decode::ElfImage::load(board.elf);
        auto same_tail = [&](const std::vector<std::uint32_t>& in_ring, const std::vector<std::uint32_t>& in_emulator) {
            std::vector<std::uint32_t> filtered;
            for (std::uint32_t f : in_emulator)
                if (instrumented.count(f)) filtered.push_back(f);
            REQUIRE(filtered.size() >= in_ring.size());
            auto tail = filtered.end() - static_cast<std::ptrdiff_t>(in_ring.size());
            auto [r, f] = std::mismatch(in_ring.begin(), in_ring.end(), tail);
            if (r == in_ring.end()) return;
            std::string context;
            for (auto k = r; k < std::min(in_ring.end(), r + 5); ++k) context += image.symbols().describe(*k) + " ";
            context += "| emutrace: ";
            for (auto k = f; k < std::min(filtered.end(), f + 5); ++k) context += image.symbols().describe(*k) + " ";
            FAIL_CHECK("the ring differs at its entry " << (r - in_ring.begin()) << ": " << context);
        };
        // The ring holds the most recent events: each of its sequences is the end of emutrace's.
        same_tail(ring.threads, seen.threads);
        same_tail(ring.handlers, seen.handlers);
        for (const char* f : {"put_dot", "render_frame", "SysTick_Handler", "switch_context"}) {
            INFO(f);
            CHECK(instrumented.count(*image.symbols().address_of(f)));
        }
        for (const char* f : {"et_write", "__cyg_profile_func_enter"}) CHECK(!instrumented.count(*image.symbols().address_of(f)));
    }
}

TEST_CASE("on-target tracing: ringdump runs the call tracer and constraints on the board's trace, from ELF core, Intel HEX and raw dumps") {
    const Board& board = the_board();
    auto ringdump = [&](const std::string& dump, const std::string& extra) {
        return emutrace_cli("ringdump " + dump + " --elf " + board.elf + " -s " + board.scenario + " --calltrace --json " + board.dir.file("r.json") +
                            " " + extra);
    };
    Cli core = ringdump(board.core, "--report " + board.dir.file("r.html"));
    CHECK(core.status == 1);  // every function traced: the print image misses its deadline, as the paper's fully instrumented build did
    // The ring's calls make the same page as an emulated run's: the missed deadline with its stacks.
    const std::string page = read_file(board.dir.file("r.html"));
    CHECK(page.find("<tr class=\"constraint fail\">") != std::string::npos);
    CHECK(page.find("<div class=\"violation\">") != std::string::npos);
    CHECK(page.find("<section id=\"flamegraph\"") != std::string::npos);
    CHECK(core.out.find("on-target trace ring in") != std::string::npos);
    CHECK(core.out.find("put_dot") != std::string::npos);
    CHECK(core.out.find("print_image_in_time") != std::string::npos);
    const auto j = nlohmann::json::parse(read_file(board.dir.file("r.json")));
    CHECK(j["events"].get<std::uint64_t>() > 20000);
    CHECK(j["wraps"].get<std::uint32_t>() > 0);
    CHECK(j["timestamps"].get<bool>());
    // The same RAM as raw bytes and as Intel HEX (objcopy's).
    write_file(board.dir.file("ram.bin"), read_file(board.core).substr(52 + 32));
    REQUIRE(run_shell("arm-none-eabi-objcopy -I binary -O ihex --change-addresses 0x20000000 " + board.dir.file("ram.bin") + " " +
                      board.dir.file("ram.hex"))
                .status == 0);
    for (const std::string& dump : {board.dir.file("ram.hex"), board.dir.file("ram.bin") + " --base 0x20000000"}) {
        INFO(dump);
        Cli other = ringdump(dump, "");
        CHECK(other.status == 1);
        CHECK(nlohmann::json::parse(read_file(board.dir.file("r.json")))["events"] == j["events"]);
    }
    // The ring is a registered source: emutrace decode reads it with the same analyses and verdict.
    Cli decoded = emutrace_cli("decode ring " + board.dir.file("ram.bin") + " --dump-base 0x20000000 --elf " + board.elf + " -s " + board.scenario +
                               " --calltrace --json " + board.dir.file("d.json"));
    CHECK(decoded.status == 1);
    const auto d = nlohmann::json::parse(read_file(board.dir.file("d.json")));
    CHECK(d["events"] == j["events"]);
    CHECK(d["calltrace"]["functions"] == j["calltrace"]["functions"]);
}

TEST_CASE("on-target tracing: torn, corrupt and truncated rings decode what they can, no ring and another firmware are one-line errors") {
    const Board& board = the_board();
    std::string bytes = read_file(board.core);
    const std::size_t ring = bytes.find("EMUTRING");
    REQUIRE(ring != std::string::npos);
    auto le32 = [&](std::size_t at) {
        return static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[at]) | static_cast<std::uint8_t>(bytes[at + 1]) << 8 |
                                          static_cast<std::uint8_t>(bytes[at + 2]) << 16 | static_cast<std::uint8_t>(bytes[at + 3]) << 24);
    };
    const std::uint32_t write_index = le32(ring + 20);
    auto decode = [&](const std::string& name, const std::string& content) {
        write_file(board.dir.file(name), content);
        Cli r = emutrace_cli("ringdump " + board.dir.file(name) + " --elf " + board.elf + " --json " + board.dir.file("d.json"));
        return std::make_pair(r, r.status == 0 ? nlohmann::json::parse(read_file(board.dir.file("d.json"))) : nlohmann::json());
    };
    auto [clean, whole] = decode("clean.core", bytes);
    REQUIRE(clean.status == 0);
    // The slot being written when the dump was taken: its kind byte is still 0.
    std::string torn = bytes;
    torn[ring + 32 + 21 * write_index] = 0;
    auto [t, tj] = decode("torn.core", torn);
    CHECK(t.status == 0);
    CHECK(tj["torn"] == 1);
    CHECK(tj["events"].get<std::uint64_t>() + 1 >= whole["events"].get<std::uint64_t>());
    // Two records with a kind no tracer writes, and one naming no function.
    std::string corrupt = bytes;
    corrupt[ring + 32 + 21 * 10] = 9;
    corrupt[ring + 32 + 21 * 11] = 7;
    corrupt[ring + 32 + 21 * 12] = 1;
    corrupt[ring + 32 + 21 * 12 + 13] = 0x03;  // an entry into the middle of nowhere
    corrupt[ring + 32 + 21 * 12 + 16] = 0x7F;
    auto [c, cj] = decode("corrupt.core", corrupt);
    CHECK(c.status == 0);
    CHECK(cj["corrupt"] == 3);
    CHECK(c.out.find("skipped") != std::string::npos);
    // A dump that ends inside the ring keeps the events before the cut.
    auto [cut, cutj] = decode("cut.core", bytes.substr(0, ring + 32 + 21 * 1000 + 7));
    CHECK(cut.status == 2);  // the ELF core's segment runs past the file's end
    CHECK(cut.err.find("truncated") != std::string::npos);
    write_file(board.dir.file("ram.bin"), bytes.substr(52 + 32, ring - 84 + 32 + 21 * 1000 + 7));
    Cli raw = emutrace_cli("ringdump " + board.dir.file("ram.bin") + " --base 0x20000000 --elf " + board.elf + " --json " + board.dir.file("d.json"));
    CHECK(raw.status == 0);
    CHECK(nlohmann::json::parse(read_file(board.dir.file("d.json")))["events"].get<std::uint64_t>() > 900);
    // A firmware without the tracer, and a ring of another firmware.
    REQUIRE(emutrace_cli("run " + firmware("franking") + " -s " + board.scenario + " --dump-ram " + board.dir.file("plain.core") + " -q").status ==
            0);
    Cli none = emutrace_cli("ringdump " + board.dir.file("plain.core") + " --elf " + firmware("franking"));
    CHECK(none.status == 2);
    CHECK(none.err.find("no trace ring (EMUTRING header)") != std::string::npos);
    Cli wrong = emutrace_cli("ringdump " + board.core + " --elf " + firmware("rtos"));
    CHECK(wrong.status == 2);
    CHECK(wrong.err.find("wrong --elf?") != std::string::npos);
    CHECK(std::count(wrong.err.begin(), wrong.err.end(), '\n') == 1);
}

TEST_CASE("on-target tracing: exits by return address survive a full shadow stack, longjmp and interrupts") {
    TempDir dir;
    const std::string elf = firmware("ontarget_edges");
    // The firmware checks its own results: recursion past the shadow stack, a longjmp out of six
    // calls, a SysTick handler with calls of its own, all with redirected return addresses.
    Cli run = emutrace_cli("run " + elf + " --dump-ram " + dir.file("edges.core"));
    REQUIRE(run.status == 0);
    const std::string out = run.out;  // "deep 24 jumped 7 deep 3 ticks N"
    REQUIRE(out.find("deep 24 jumped 7 deep 3 ticks ") != std::string::npos);
    const unsigned ticks = static_cast<unsigned>(std::stoul(out.substr(out.find("ticks ") + 6)));
    Cli ring = emutrace_cli("ringdump " + dir.file("edges.core") + " --elf " + elf + " --calltrace --json " + dir.file("edges.json"));
    REQUIRE(ring.status == 0);
    const auto j = nlohmann::json::parse(read_file(dir.file("edges.json")));
    CHECK(j["exits_by_return_address"].get<bool>());
    CHECK(j["shadow_overflows"].get<unsigned>() >= 8);  // main and 25 calls of deep on 16 entries
    std::map<std::string, unsigned> calls;
    for (const auto& f : j["calltrace"]["functions"]) calls[f["function"]] = f["calls"];
    CHECK(calls["deep"] == 25 + 4);
    CHECK(calls["thrower"] == 6);  // their exits recorded when the stack they left was reused
    CHECK(calls["SysTick_Handler"] == ticks);
    CHECK(calls["count_tick"] == ticks);
    CHECK(j["calltrace"]["unmatched_returns"] == 0);
}

TEST_CASE("on-target tracing: exits by return address find the saved lr from the prologue, under every cycle model's interrupt timing") {
    // The per-block model's interrupt timing once made the franking firmware print a date whose
    // digits left a saved register equal to a return address: the first match above the stack
    // pointer redirected that register, not lr, and the firmware wrote past its print image into
    // the kernel (exit 2, a read of unmapped memory). Each model moves the interrupts elsewhere.
    const std::string elf = firmware("franking_traced_ra"), scenario = source("scenarios/franking/franking.yaml");
    for (const char* timing : {"trm", "none", "pipeline"}) {
        CAPTURE(timing);
        Cli run = emutrace_cli("run " + elf + " -s " + scenario + " --timing " + timing + " -q");
        INFO(run.err);
        CHECK(run.status == 1);  // the traced build misses its deadline, as designed, and runs to its end
        CHECK(run.out.find("franking: 8 letters") != std::string::npos);
    }
}

TEST_CASE("on-target tracing: patch turns hook calls into NOPs and back, per function, and the patched ELF runs") {
    TempDir dir;
    const std::string elf = firmware("franking_traced"), scenario = source("scenarios/franking/franking.yaml");
    Cli off = emutrace_cli("patch " + elf + " --disable-all -o " + dir.file("off.elf"));
    REQUIRE(off.status == 0);
    CHECK(off.out.find("0 of 51 instrumented functions traced") != std::string::npos);
    CHECK(off.out.find("put_dot") != std::string::npos);  // each function that changed, with its counts
    // Back: byte for byte the original.
    REQUIRE(emutrace_cli("patch " + dir.file("off.elf") + " --enable '*' -o " + dir.file("on.elf")).status == 0);
    CHECK(read_file(dir.file("on.elf")) == read_file(elf));
    // Selective: the print image's functions only; every other hook stays a NOP.
    Cli sel = emutrace_cli("patch " + dir.file("off.elf") + " --enable 'render_*' --enable build_print_image -o " + dir.file("sel.elf"));
    REQUIRE(sel.status == 0);
    CHECK(sel.out.find("render_indicia") != std::string::npos);
    CHECK(sel.out.find("3 of 51 instrumented functions traced") != std::string::npos);
    // The other side's tools read the patched ELF, and objdump shows the NOPs where the hooks were.
    CHECK(run_shell("arm-none-eabi-readelf -h -S -s " + dir.file("sel.elf")).status == 0);
    Cli dis = run_shell("arm-none-eabi-objdump -d " + dir.file("sel.elf"));
    CHECK(dis.status == 0);
    CHECK(dis.out.find("bl\t") != std::string::npos);
    CHECK(dis.out.find("nop.w") != std::string::npos);
    // Each build runs the franking job to the same result; only the selected functions are in its ring.
    for (const char* build : {"off.elf", "sel.elf"}) {
        INFO(build);
        Cli r = emutrace_cli("run " + dir.file(build) + " -s " + scenario + " --dump-ram " + dir.file("b.core") + " -q");
        CHECK(r.out.find("franking: 8 letters, last postage 0x000001a6, last signature 0x8f45bc18") != std::string::npos);
        Cli ring = emutrace_cli("ringdump " + dir.file("b.core") + " --elf " + dir.file(build) + " --calltrace --json " + dir.file("r.json"));
        REQUIRE(ring.status == 0);
        const auto result = nlohmann::json::parse(read_file(dir.file("r.json")));
        std::set<std::string> traced;
        for (const auto& f : result["calltrace"]["functions"]) traced.insert(f["function"]);
        if (std::string(build) == "off.elf") {
            CHECK(traced.empty());
            continue;
        }
        std::string names;
        for (const auto& n : traced) names += n + " ";
        INFO(names);
        // The traced functions, and the callers the call tracer starts each context in.
        CHECK(traced.count("build_print_image"));
        CHECK(traced.count("render_frame"));
        CHECK(traced.count("render_indicia"));
        CHECK(!traced.count("put_dot"));
        CHECK(!traced.count("update_date_element"));
    }
    // A hook site that no longer looks like one is refused with its address.
    std::string bytes = read_file(elf);
    Cli list = emutrace_cli("patch " + elf + " --list");
    REQUIRE(list.status == 0);
    const decode::ElfImage image = decode::ElfImage::load(elf);
    const std::uint32_t put_dot = *image.symbols().address_of("put_dot");
    const std::vector<std::uint8_t> prologue = image.bytes_at(put_dot, 16);
    std::size_t text = bytes.find(std::string(prologue.begin(), prologue.end()));
    REQUIRE(text != std::string::npos);
    // put_dot's entry hook call is the first BL in it: clobber put_dot's whole prologue.
    for (std::size_t i = 0; i < 16; ++i) bytes[text + i] = 0;
    write_file(dir.file("bad.elf"), bytes);
    Cli bad = emutrace_cli("patch " + dir.file("bad.elf") + " --disable-all -o " + dir.file("x.elf"));
    CHECK(bad.status == 2);
    CHECK(bad.err.find("put_dot") != std::string::npos);
    CHECK(bad.err.find("does not look like a hook call") != std::string::npos);
}

TEST_CASE("on-target tracing: ringdump --compare sets the board's calls beside the emulated run's and finds where they part") {
    const Board& board = the_board();
    TempDir dir;
    Cli same = emutrace_cli("ringdump " + board.core + " --elf " + board.elf + " -s " + board.scenario + " --compare --json " + dir.file("c.json"));
    CHECK(same.status == 1);  // the print image's constraint, as on the board
    CHECK(same.out.find("threads: the ring's") != std::string::npos);
    CHECK(same.out.find("are the emulated run's last ones, in order") != std::string::npos);
    const auto j = nlohmann::json::parse(read_file(dir.file("c.json")));
    CHECK(j["comparison"]["identical"].get<bool>());
    std::map<std::string, nlohmann::json> functions;
    for (const auto& f : j["comparison"]["functions"]) functions[f["function"]] = f;
    REQUIRE(functions.count("put_dot"));
    CHECK(functions["put_dot"]["calls_ring"] == functions["put_dot"]["calls_emulated"]);
    CHECK(!functions["put_dot"]["timing_model_error"].is_null());
    // A board whose calls went otherwise: two of the ring's entries swapped.
    std::string bytes = read_file(board.core);
    const std::size_t ring = bytes.find("EMUTRING");
    const decode::ElfImage image = decode::ElfImage::load(board.elf);
    const std::uint32_t put_dot = *image.symbols().address_of("put_dot"), render_frame = *image.symbols().address_of("render_frame");
    std::size_t changed = 0;
    for (std::size_t at = ring + 32; at + 21 <= bytes.size() && changed == 0; at += 21) {
        std::uint32_t f = 0;
        std::memcpy(&f, &bytes[at + 13], 4);
        if (bytes[at] == 1 && f == put_dot && at > ring + 32 + 21 * 20000) {
            std::memcpy(&bytes[at + 13], &render_frame, 4);
            ++changed;
        }
    }
    REQUIRE(changed == 1);
    write_file(dir.file("other.core"), bytes);
    Cli other = emutrace_cli("ringdump " + dir.file("other.core") + " --elf " + board.elf + " -s " + board.scenario + " --compare");
    CHECK(other.status == 1);
    CHECK(other.out.find("threads: FIRST DIVERGENCE at the ring's entry") != std::string::npos);
    CHECK(other.out.find("ring:     render_frame") != std::string::npos);
    CHECK(other.out.find("emulated: put_dot") != std::string::npos);
    CHECK(other.out.find("emulated stack: franker > build_print_image > render_indicia > put_dot") != std::string::npos);
    CHECK(other.out.find("ring stack:     franker > build_print_image > render_indicia > render_frame") != std::string::npos);
}

TEST_CASE("on-target tracing: ringdump --compare agrees on an -O2 build where GCC inlined traced functions with their hooks") {
    // franking_instrumented: no -fno-inline, as a product ships. put_dot and CMSIS's __set_BASEPRI,
    // __ISB and __DSB are inlined into their callers with their hooks: the board records entries
    // no branch makes; the emulated side sees them as calls of the entry hook for another function.
    const Board board("franking_instrumented");
    TempDir dir;
    Cli r = emutrace_cli("ringdump " + board.core + " --elf " + board.elf + " -s " + board.scenario + " --compare --json " + dir.file("c.json"));
    CHECK(r.status == 1);  // the print image's constraint, as on the board: not the comparison
    CHECK(r.out.find("FIRST DIVERGENCE") == std::string::npos);
    const auto j = nlohmann::json::parse(read_file(dir.file("c.json")));
    CHECK(j["comparison"]["identical"].get<bool>());
    std::map<std::string, nlohmann::json> functions;
    for (const auto& f : j["comparison"]["functions"]) functions[f["function"]] = f;
    REQUIRE(functions.count("put_dot"));
    CHECK(functions["put_dot"]["calls_ring"].get<std::uint64_t>() > 1000);
    CHECK(functions["put_dot"]["calls_ring"] == functions["put_dot"]["calls_emulated"]);
    CHECK(functions["put_dot"]["timing_model_error"].is_null());  // a copy's calls are counted, not timed
}

TEST_CASE("on-target tracing: overhead predicts a/b/c before deploying and de-selects to a budget, printing the patch command") {
    TempDir dir;
    const std::string elf = firmware("franking_instrumented"), scenario = source("scenarios/franking/franking.yaml");
    Cli r = emutrace_cli("overhead " + elf + " -s " + scenario + " --original " + firmware("franking") + " --budget 10%");
    CHECK(r.status == 0);
    CHECK(r.out.find("print_image_in_time") != std::string::npos);
    CHECK(r.out.find("budget 10.0% over b: met after disabling") != std::string::npos);
    // The most frequently called function goes first: the scheduler's, called on every tick.
    const std::size_t dropped = r.out.find("most frequently called first:\n");
    REQUIRE(dropped != std::string::npos);
    CHECK(r.out.substr(dropped, 200).find("switch_context") != std::string::npos);
    const std::size_t cmd = r.out.find("the build: emutrace patch ");
    REQUIRE(cmd != std::string::npos);
    std::string command = r.out.substr(cmd + 20, r.out.find('\n', cmd) - cmd - 20);
    command.replace(command.find(" -o selective.elf"), std::string(" -o selective.elf").size(), " -o " + dir.file("selective.elf"));
    REQUIRE(emutrace_cli(command).status == 0);
    CHECK(command.find("--enable switch_context") == std::string::npos);
    // An impossible budget is reported, exit 1.
    Cli tight = emutrace_cli("overhead " + elf + " -s " + scenario + " --enable 'render_*' --budget 0%");
    CHECK(tight.out.find("budget 0.0% over b:") != std::string::npos);
    Cli bad = emutrace_cli("overhead " + elf + " -s " + scenario + " --budget lots");
    CHECK(bad.status == 2);
    CHECK(bad.err.find("--budget: expected a growth such as 5%") != std::string::npos);
}
