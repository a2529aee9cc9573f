// SWO (docs/swo.md): firmware that programs the ITM, DWT and TPIU itself gets the byte stream a
// probe would receive; emutrace decode swo and sigrok's decoders read it back to what the run did.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sources/itm/itm_packets.h"
#include "support/cli.h"
#include "support/paths.h"
#include "support/temp_dir.h"
#include "support/uart_waveform.h"

using namespace emutrace::test;
using nlohmann::json;

namespace {

// The exception entries of an event log, in order: (cycle, number).
std::vector<std::pair<std::uint64_t, int>> entries(const std::string& jsonl) {
    std::vector<std::pair<std::uint64_t, int>> out;
    std::istringstream in(jsonl);
    for (std::string line; std::getline(in, line);) {
        const json e = json::parse(line);
        if (e["kind"] == "exception_entry") out.emplace_back(e["cycle"].get<std::uint64_t>(), e["exception"].get<int>());
    }
    return out;
}

// The stream's waveform with a pause before each packet.
std::string uart_samples(const std::string& stream) {
    std::vector<emutrace::decode::itm::Packet> packets;
    emutrace::decode::itm::Decoder decoder;
    decoder.feed(std::span(reinterpret_cast<const std::uint8_t*>(stream.data()), stream.size()), packets);
    std::set<std::size_t> starts;
    for (const auto& p : packets) starts.insert(p.offset);
    return uart_waveform(stream, starts);
}

}  // namespace

TEST_CASE("swo: firmware that sets up SWO prints over ITM port 0, and decode swo reads back its text, words and exceptions") {
    TempDir dir;
    Cli run = emutrace_cli("run " + firmware("itm_swo") + " --swo " + dir.file("t.swo") + " --events " + dir.file("run.jsonl") + " --json " +
                           dir.file("run.json"));
    REQUIRE_MESSAGE(run.status == 0, run.err);
    CHECK(run.out == "hello from ITM port 0\nticks=3\n");  // the console, as a probe's SWO viewer shows it
    CHECK(run.err.find("SWO trace: ") != std::string::npos);
    const json written = json::parse(read_file(dir.file("run.json")))["swo"];
    CHECK(written["lost_packets"] == 0);
    CHECK(written["exception_packets"] == 9);  // three SysTicks: entered, exited, returned to thread

    Cli decoded = emutrace_cli("decode swo " + dir.file("t.swo") + " --events " + dir.file("swo.jsonl") + " --json " + dir.file("swo.json"));
    REQUIRE_MESSAGE(decoded.status == 0, decoded.err);
    const json d = json::parse(read_file(dir.file("swo.json")));
    CHECK(d["port0_text"] == "hello from ITM port 0\nticks=3\n");
    CHECK(d["port_bytes"]["1"] == 4);
    CHECK(d["overflows"] == 0);
    CHECK(d["bytes"] == written["bytes"]);
    // The same exceptions, spaced as in the run: the timestamps count the core's cycles.
    const auto ran = entries(read_file(dir.file("run.jsonl"))), read = entries(read_file(dir.file("swo.jsonl")));
    REQUIRE(ran.size() == 3);
    REQUIRE(read.size() == ran.size());
    for (std::size_t i = 0; i < ran.size(); ++i) {
        CHECK(read[i].second == 15);
        CHECK(ran[i].second == 15);
        if (i) CHECK(read[i].first - read[i - 1].first == ran[i].first - ran[i - 1].first);
    }
}

TEST_CASE("swo: sigrok's uart and arm_itm decoders read the stream emutrace writes as the run's text, word and exceptions") {
    TempDir dir;
    REQUIRE(emutrace_cli("run " + firmware("itm_swo") + " -q --swo " + dir.file("t.swo")).status == 0);
    write_file(dir.file("pin.bin"), uart_samples(read_file(dir.file("t.swo"))));
    Cli sigrok = run_shell(sigrok_uart(dir.file("pin.bin"), "arm_itm", "arm_itm"));
    REQUIRE_MESSAGE(sigrok.status == 0, sigrok.err);
    std::string text, words;
    std::vector<std::string> exceptions;
    std::istringstream lines(sigrok.out);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("arm_itm-1: 0: \"", 0) == 0) {
            std::string rest = line.substr(15);
            if (rest.empty()) {  // a newline splits the annotation's line: the quote closes on the next
                std::getline(lines, line);
                text += "\n";
            } else {
                text += rest.substr(0, rest.size() - 1);
            }
        } else if (line.rfind("arm_itm-1: 1: ", 0) == 0) {
            words += line.substr(14);
        } else if (line.find("Enter: ") != std::string::npos || line.find("Exit: ") != std::string::npos ||
                   line.find("Resume: ") != std::string::npos) {
            exceptions.push_back(line.substr(11));
        }
    }
    // arm_itm joins a port's printable bytes and says them when the port's next packet comes after a
    // pause: the very last one, with nothing after it, it never says.
    CHECK(text == "hello from ITM port 0\nticks=3");
    CHECK(words == "0xc0ffee42");
    const std::vector<std::string> one = {"Enter: SysTick", "Exit: SysTick", "Resume: Thread"};
    REQUIRE(exceptions.size() == 9);
    for (std::size_t i = 0; i < exceptions.size(); ++i) CHECK(exceptions[i] == one[i % 3]);
    // Nothing it could not place (it names sync packets "Unhandled sync", which is no error).
    for (const char* bad : {"Unhandled software", "Unhandled hardware", "Unhandled reserved", "Unhandled sw_extension", "Unhandled hw_extension"})
        CHECK(sigrok.out.find(bad) == std::string::npos);
}

TEST_CASE("swo: writing faster than the port carries loses packets with overflow packets in their place, and PC samples come at the DWT rate") {
    TempDir dir;
    Cli flood = emutrace_cli("run " + firmware("itm_swo_flood") + " -q --swo " + dir.file("f.swo") + " --json " + dir.file("f.json"));
    REQUIRE_MESSAGE(flood.status == 0, flood.err);
    const json f = json::parse(read_file(dir.file("f.json")))["swo"];
    CHECK(f["lost_packets"].get<int>() > 150);  // 200 bytes at 640 cycles a byte while the core writes one every few cycles
    CHECK(f["overflows"].get<int>() >= 1);
    CHECK(f["stimulus_packets"].get<int>() + f["lost_packets"].get<int>() >= 200);
    Cli decoded = emutrace_cli("decode swo " + dir.file("f.swo") + " --json " + dir.file("d.json"));
    CHECK(decoded.status == 0);
    CHECK(decoded.out.find("overflows") != std::string::npos);
    CHECK(json::parse(read_file(dir.file("d.json")))["overflows"] == f["overflows"]);

    // PC sampling every 16 x 64 cycles: a sample per period of the run after it was enabled, each in
    // the event log and, where the port had room, in the stream; decode swo reads the same pcs.
    Cli sampled = emutrace_cli("run " + firmware("itm_swo_sampled") + " -q --swo " + dir.file("s.swo") + " --json " + dir.file("s.json") +
                               " --events " + dir.file("s.jsonl"));
    REQUIRE(sampled.status == 0);
    const json s = json::parse(read_file(dir.file("s.json")));
    const std::uint64_t periods = (s["cycles"].get<std::uint64_t>() - 60) / (16 * 64);
    std::vector<std::string> logged;
    std::istringstream events(read_file(dir.file("s.jsonl")));
    for (std::string line; std::getline(events, line);)
        if (line.find("\"pc_sample\"") != std::string::npos) logged.push_back(json::parse(line)["pc"]);
    CHECK(logged.size() >= periods - 1);
    CHECK(logged.size() <= periods + 1);
    const std::uint64_t samples = s["swo"]["pc_samples"];
    CHECK(samples + s["swo"]["lost_packets"].get<std::uint64_t>() >= logged.size());
    CHECK(samples >= logged.size() / 2);
    Cli read = emutrace_cli("decode swo " + dir.file("s.swo") + " --events " + dir.file("d.jsonl"));
    REQUIRE(read.status == 0);
    std::set<std::string> decoded_pcs;
    std::istringstream blocks(read_file(dir.file("d.jsonl")));
    for (std::string line; std::getline(blocks, line);)
        if (line.find("\"block\"") != std::string::npos) decoded_pcs.insert(json::parse(line)["address"].get<std::string>());
    for (const auto& pc : decoded_pcs) CHECK(std::find(logged.begin(), logged.end(), pc) != logged.end());
    CHECK(!decoded_pcs.empty());
}

TEST_CASE("swo: a file that holds no ITM stream, or --swo on a core without an ITM, is a one-line error with status 2") {
    TempDir dir;
    write_file(dir.file("junk.swo"), std::string(64, '\x04'));
    Cli junk = emutrace_cli("decode swo " + dir.file("junk.swo"));
    CHECK(junk.status == 2);
    CHECK(junk.err.find("junk.swo: no ITM/DWT packet in 64 bytes") != std::string::npos);
    Cli missing = emutrace_cli("decode swo " + dir.file("none.swo"));
    CHECK(missing.status == 2);
    CHECK(missing.err.find("none.swo") != std::string::npos);
    Cli m0 = emutrace_cli("run " + firmware("compute_m0") + " --swo " + dir.file("m0.swo"));
    CHECK(m0.status == 2);
    CHECK(m0.err.find("--swo: the Cortex-M0 has no ITM") != std::string::npos);
}

TEST_CASE("swo: crosscheck holds a capture's PC samples and exception spacing against the emulated run, and gates on the difference") {
    TempDir dir;
    const std::string elf = firmware("itm_swo_profile"), board = source("scenarios/boards/mps2-an385.yaml");
    REQUIRE(emutrace_cli("run " + elf + " -s " + board + " -q --swo " + dir.file("p.swo")).status == 0);
    Cli same = emutrace_cli("crosscheck --swo " + dir.file("p.swo") + " --elf " + elf + " -s " + board + " --json " + dir.file("c.json"));
    REQUIRE_MESSAGE(same.status == 0, same.err);
    CHECK(same.out.find("where the time went: ") != std::string::npos);
    const json c = json::parse(read_file(dir.file("c.json")))["comparison"];
    CHECK(c["samples"].get<std::uint64_t>() > 10000);  // 1.8e7 instructions, a sample every 1,024 cycles
    // Samples and cycles agree on each function's share within a few standard errors.
    CHECK(c["largest_difference_points"].get<double>() < 1.0);
    REQUIRE(c["exceptions"].size() == 1);
    const json& systick = c["exceptions"][0];
    CHECK(systick["name"] == "SysTick");
    CHECK(systick["emulated_mean_interval_cycles"].get<double>() == doctest::Approx(5001).epsilon(0.001));
    CHECK(systick["captured_mean_interval_cycles"].get<double>() == doctest::Approx(5001).epsilon(0.03));
    CHECK(systick["captured"].get<std::uint64_t>() <= systick["emulated"].get<std::uint64_t>());  // some lost to a full port, none made up
    CHECK(systick["captured"].get<std::uint64_t>() * 10 >= systick["emulated"].get<std::uint64_t>() * 9);
    // A gate tighter than the difference fails the run.
    Cli gated = emutrace_cli("crosscheck --swo " + dir.file("p.swo") + " --elf " + elf + " -s " + board + " --max-share-difference 0.0001");
    CHECK(gated.status == 1);
    CHECK(gated.err.find("share of the time differs by") != std::string::npos);
    Cli both = emutrace_cli("crosscheck --swo " + dir.file("p.swo") + " --snapshot " + dir.path().string());
    CHECK(both.status == 2);
    CHECK(both.err.find("--snapshot DIR or --swo FILE") != std::string::npos);
}

TEST_CASE(
    "swo: with the TPIU's formatter on, the stream is 16-byte frames under the ITM's trace ID, read back with --tpiu-id and by sigrok's arm_tpiu") {
    TempDir dir;
    Cli run = emutrace_cli("run " + firmware("itm_swo_formatted") + " --swo " + dir.file("f.swo") + " --json " + dir.file("r.json"));
    REQUIRE_MESSAGE(run.status == 0, run.err);
    CHECK(run.err.find("in TPIU formatter frames, trace ID 1") != std::string::npos);
    const std::string stream = read_file(dir.file("f.swo"));
    CHECK(stream.substr(0, 4) == "\xFF\xFF\xFF\x7F");
    CHECK((stream.size() - 4) % 16 == 0);
    Cli decoded = emutrace_cli("decode swo " + dir.file("f.swo") + " --tpiu-id 1 --json " + dir.file("d.json"));
    REQUIRE_MESSAGE(decoded.status == 0, decoded.err);
    const json d = json::parse(read_file(dir.file("d.json")));
    CHECK(d["port0_text"] == "hello from ITM port 0\nticks=3\n");
    CHECK(d["exceptions"] == 9);
    // Read as a bare stream it is mostly nonsense, and the error says what to do.
    Cli bare = emutrace_cli("decode swo " + dir.file("f.swo"));
    CHECK(bare.status != 0);
    CHECK(bare.err.find("give the ITM's trace ID with --tpiu-id") != std::string::npos);
    // sigrok: the pin's waveform without pauses (a frame's bytes are back to back), deframed by
    // arm_tpiu (stream 1) and read by arm_itm.
    write_file(dir.file("pin.bin"), uart_waveform(stream));
    Cli sigrok = run_shell(sigrok_uart(dir.file("pin.bin"), "arm_tpiu:stream=1,arm_itm", "arm_itm"));
    REQUIRE_MESSAGE(sigrok.status == 0, sigrok.err);
    std::size_t entered = 0, at = 0;
    while ((at = sigrok.out.find("Enter: SysTick", at)) != std::string::npos) ++entered, ++at;
    CHECK(entered == 3);
    CHECK(sigrok.out.find("1: 0xc0ffee42") != std::string::npos);
}

TEST_CASE("swo: DWT comparators trace a variable's loads and stores and a buffer's stores, which sigrok's arm_itm and decode swo read back") {
    TempDir dir;
    Cli run = emutrace_cli("run " + firmware("itm_swo_data") + " --swo " + dir.file("d.swo") + " --events " + dir.file("run.jsonl") + " --json " +
                           dir.file("run.json"));
    REQUIRE(run.status == 0);
    CHECK(run.out.find("dwt: matched once") != std::string::npos);  // MATCHED set by the watchpoint's store, cleared on read
    CHECK(json::parse(read_file(dir.file("run.json")))["swo"]["lost_packets"] == 0);
    // What the comparators matched, as the event log says it: the variable's store, load and
    // store with their pcs, the buffer's two halfword stores by address; nothing once disabled.
    std::vector<json> traced;
    std::istringstream events(read_file(dir.file("run.jsonl")));
    for (std::string line; std::getline(events, line);)
        if (line.find("\"data_trace\"") != std::string::npos) traced.push_back(json::parse(line));
    REQUIRE(traced.size() == 5);
    CHECK(traced[0]["access"] == "write");
    CHECK(traced[0]["value"] == "0x00000011");
    CHECK(traced[1]["access"] == "read");
    CHECK(traced[2]["value"] == "0x00000033");
    CHECK(traced[3]["value"] == "0xbeef");
    CHECK(traced[4]["value"] == "0x1234");
    for (int i = 0; i < 3; ++i) CHECK(traced[i].contains("pc"));
    CHECK(traced[3]["address"].get<std::string>().substr(6) == "000a");  // buffer[1], 8-byte aligned

    // sigrok's decoders read the same five accesses from the pin.
    write_file(dir.file("pin.bin"), uart_samples(read_file(dir.file("d.swo"))));
    Cli sigrok = run_shell(sigrok_uart(dir.file("pin.bin"), "arm_itm", "arm_itm"));
    REQUIRE_MESSAGE(sigrok.status == 0, sigrok.err);
    std::vector<std::string> watchpoints;
    std::istringstream lines(sigrok.out);
    for (std::string line; std::getline(lines, line);)
        if (line.find("Watchpoint ") != std::string::npos) watchpoints.push_back(line.substr(line.find("Watchpoint ")));
    const std::vector<std::string> expected = {"Watchpoint 0: PC 0x" + traced[0]["pc"].get<std::string>().substr(2),
                                               "Watchpoint 0: Write data 0x00000011",
                                               "Watchpoint 0: PC 0x" + traced[1]["pc"].get<std::string>().substr(2),
                                               "Watchpoint 0: Read data 0x00000011",
                                               "Watchpoint 0: PC 0x" + traced[2]["pc"].get<std::string>().substr(2),
                                               "Watchpoint 0: Write data 0x00000033",
                                               "Watchpoint 1: address 0x????000a",
                                               "Watchpoint 1: Write data 0xbeef",
                                               "Watchpoint 1: address 0x????000e",
                                               "Watchpoint 1: Write data 0x1234"};
    CHECK(watchpoints == expected);
    for (const char* bad : {"Unhandled software", "Unhandled hardware", "Unhandled reserved"}) CHECK(sigrok.out.find(bad) == std::string::npos);

    // And decode swo, into the same events (a capture knows an address's low 16 bits only).
    Cli decoded = emutrace_cli("decode swo " + dir.file("d.swo") + " --events " + dir.file("swo.jsonl"));
    CHECK(decoded.status == 0);
    CHECK(decoded.out.find("data trace    10 packets") != std::string::npos);
    std::vector<json> back;
    std::istringstream swo_events(read_file(dir.file("swo.jsonl")));
    for (std::string line; std::getline(swo_events, line);)
        if (line.find("\"data_trace\"") != std::string::npos) back.push_back(json::parse(line));
    REQUIRE(back.size() == traced.size());
    for (std::size_t i = 0; i < back.size(); ++i) {
        CAPTURE(i);
        CHECK(back[i]["access"] == traced[i]["access"]);
        CHECK(back[i]["value"] == traced[i]["value"]);
        CHECK(back[i]["comparator"] == traced[i]["comparator"]);
        if (traced[i].contains("pc")) CHECK(back[i]["pc"] == traced[i]["pc"]);
    }
}

TEST_CASE("swo: global timestamps every 8192 cycles and a sync every 2^24 cycles of CYCCNT, as GTSFREQ and SYNCTAP set them") {
    TempDir dir;
    REQUIRE(emutrace_cli("run " + firmware("itm_swo_periodic") + " -q --swo " + dir.file("p.swo") + " --json " + dir.file("p.json")).status == 0);
    const json run = json::parse(read_file(dir.file("p.json")));
    const auto cycles = run["cycles"].get<std::uint64_t>();
    const std::string stream = read_file(dir.file("p.swo"));
    std::vector<emutrace::decode::itm::Packet> packets;
    emutrace::decode::itm::Decoder decoder;
    decoder.feed(std::span(reinterpret_cast<const std::uint8_t*>(stream.data()), stream.size()), packets);
    std::vector<std::uint64_t> stamps;
    std::uint64_t high = 0;
    std::size_t syncs = 0;
    for (const auto& p : packets) {
        if (p.kind == emutrace::decode::itm::Packet::Kind::Sync) ++syncs;
        if (p.kind != emutrace::decode::itm::Packet::Kind::GlobalTimestamp) continue;
        if (p.id == 2) high = p.value & 0x3FFFFF;
        if (p.id == 1) stamps.push_back(high << 26 | (p.value & 0x3FFFFFF));
    }
    // On the core clock's multiples of 8192, in order; a few lost where the port was full.
    REQUIRE(!stamps.empty());
    CHECK(stamps.size() <= cycles / 8192);
    CHECK(stamps.size() >= cycles / 8192 * 9 / 10);
    for (std::size_t i = 0; i < stamps.size(); ++i) {
        CHECK(stamps[i] % 8192 == 0);
        if (i) CHECK(stamps[i] > stamps[i - 1]);
    }
    CHECK(stamps.back() <= cycles);
    // The sync when the ITM came on, then one per 2^24 cycles (53 M cycles: three, less any the full port lost).
    CHECK(cycles > 3 * (std::uint64_t{1} << 24));
    CHECK(syncs >= 3);
    CHECK(syncs <= 4);
    Cli decoded = emutrace_cli("decode swo " + dir.file("p.swo"));
    CHECK(decoded.out.find("global time   " + std::to_string(stamps.size()) + " stamps, last " + std::to_string(stamps.back())) != std::string::npos);
}
