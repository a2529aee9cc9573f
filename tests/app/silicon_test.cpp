// The real-silicon conformance runner on tests/data/silicon/stm32f100: every configuration must run
// to its exit address, and the exact-match rate must not drop below what the cycle model reached.
#include <archive.h>
#include <archive_entry.h>
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace::test;

namespace {

// The exact matches the board preset's model (the pipeline components) reached: 701 of 704
// configurations, 519 of the 522 given (99.4%; issue 25's floor is 95%), 182 of the 182 held aside.
// Raise them with the model.
constexpr std::size_t kReachedExact = 701, kReachedGiven = 519;
// The per-block model (--timing trm): the TRM tables only, fitted to none of these tests (silicon's
// behaviour beyond the tables is the pipeline model's). What it reaches: 295 of 704.
constexpr std::size_t kPerBlockExact = 295;

int emutrace_status(const std::string& args, const TempDir& dir) {
    std::string cmd = emutrace_binary() + " " + args + " >" + dir.file("out") + " 2>" + dir.file("err");
    int raw = std::system(cmd.c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

// Runs `emutrace silicon ARGS --json DIR/NAME`: its exit status and the JSON it wrote.
std::pair<int, nlohmann::json> silicon_run(const std::string& args, const TempDir& dir, const std::string& name) {
    int status = emutrace_status("silicon " + args + " --json " + dir.file(name), dir);
    return {status, nlohmann::json::parse(read_file(dir.file(name)))};
}

// `emutrace silicon` on the folder `folder` of tests/data/silicon, which must run on `board`.
nlohmann::json silicon_on(const std::string& folder, const std::string& board, const TempDir& dir) {
    auto [status, j] = silicon_run(source("tests/data/silicon/" + folder), dir, folder + ".json");
    CHECK(status == 0);
    CHECK(j["board"] == board);
    return j;
}

// The held-aside validation tests, by the fixed rule: every 5th archive of a category in path order.
std::set<std::string> validation_tests(const std::string& suite) {
    std::map<std::string, std::vector<std::string>> by_category;
    for (const auto& e : std::filesystem::recursive_directory_iterator(suite))
        if (e.path().extension() == ".tzst") by_category[e.path().parent_path().string()].push_back(e.path().string());
    std::set<std::string> out;
    for (auto& [folder, archives] : by_category) {
        std::sort(archives.begin(), archives.end());
        for (std::size_t i = 4; i < archives.size(); i += 5) {
            std::filesystem::path p = archives[i];
            out.insert(p.parent_path().filename().string() + "/" + p.stem().string());
        }
    }
    return out;
}

}  // namespace

TEST_CASE("silicon: every STM32F100 configuration runs to its exit on the board preset, and the exact-match rate holds") {
    TempDir dir;
    int status = emutrace_status("silicon " + source("tests/data/silicon/stm32f100") + " --board stm32f100 --json " + dir.file("s.json") +
                                     " --min-rate 0.99 --report " + dir.file("s.html"),
                                 dir);
    CHECK(status == 0);
    auto j = nlohmann::json::parse(read_file(dir.file("s.json")));
    // The report draws what the JSON says: a bar per category, a row per set and per differing configuration.
    const std::string page = read_file(dir.file("s.html"));
    auto count = [&](const std::string& what) {
        std::size_t n = 0;
        for (auto at = page.find(what); at != std::string::npos; at = page.find(what, at + 1)) ++n;
        return n;
    };
    CHECK(page.find("<section id=\"silicon\"") != std::string::npos);
    CHECK(count("<tr class=\"set\">") == j["sets"].size());
    std::size_t differing = j["configurations"].get<std::size_t>() - j["exact"].get<std::size_t>();
    CHECK(count("<tr class=\"differs\">") == std::min<std::size_t>(differing, 30));
    CHECK(count("<rect class=\"bar") == j["categories"].size() + (differing ? 10 : 0));  // + the error bins but "0"
    CHECK(page.find("verdict pass") != std::string::npos);
    CHECK(j["board"] == "stm32f100");
    CHECK(j["split"] == "all");
    CHECK(j["configurations"] == 704);
    CHECK(j["exact"].get<std::size_t>() >= kReachedExact);
    for (const char* category : {"control_flow", "data_processing", "memory"}) CHECK(j["categories"].contains(category));
    std::size_t errors = 0;
    for (const auto& t : j["tests"])
        for (const auto& c : t["results"]) errors += !c["error"].get<std::string>().empty();
    CHECK(errors == 0);
    // Both sets, apart, add up to the whole.
    const auto& sets = j["sets"];
    CHECK(sets["given"]["configurations"].get<std::size_t>() + sets["validation"]["configurations"].get<std::size_t>() == 704);
    CHECK(sets["given"]["exact"].get<std::size_t>() + sets["validation"]["exact"].get<std::size_t>() == j["exact"].get<std::size_t>());
    CHECK(sets["given"]["exact"].get<std::size_t>() >= kReachedGiven);
    CHECK(j["timing"] == "pipeline");
    std::string out = read_file(dir.file("out"));
    CHECK(out.find("exact: given ") != std::string::npos);
    CHECK(out.find(" validation ") != std::string::npos);
    // The error histograms: every compared word in one bin, the mismatches out of 0.
    std::size_t mismatching_times = 0;
    for (const auto& t : j["tests"])
        for (const auto& c : t["results"])
            for (const auto& m : c["mismatches"]) mismatching_times += m["region"] == "times";
    const auto& times = j["errors"]["times"];
    std::size_t binned = 0;
    for (const auto& [bin, n] : times["histogram"].items()) binned += n.get<std::size_t>();
    CHECK(binned == times["words"].get<std::size_t>());
    CHECK(times["words"].get<std::size_t>() - times["histogram"]["0"].get<std::size_t>() == mismatching_times);
    CHECK(mismatching_times > 0);
    CHECK(times["mae_percent"].get<double>() > 0);
    CHECK(j["categories"]["memory"]["errors"].contains("lsucnts"));
    CHECK(out.find("total/times") != std::string::npos);
    // A mismatch names the values and shows the code under test.
    for (const auto& t : j["tests"])
        for (const auto& c : t["results"])
            if (!c["exact"].get<bool>()) {
                CHECK(!c["mismatches"].empty());
                CHECK(!c["code"].empty());
                return;
            }
}

TEST_CASE("silicon: the CC2652 tests the Cortex-M4's rules were read from stay exact on its preset") {
    // tests/data/silicon/cc2652: thirteen archives of the CC2652's given half. Each count below is what
    // a rule of the M4 (models/core.cpp, TimingModel::divide, the fetch unit) brought; without the
    // rule it is lower (sdiv_powers_of_two 22, bl_blx_bx_mov_pc_lr 2, cbz 1 without the redirect
    // behind the registration buffer's word and 2 when a held word that is the target's own is
    // fetched twice, it_and_blx_bx_mov_pc_lr 6, and 9 when decode fetches a failing IT member's
    // target while its IT executes, add_pc 1, ldr_dwt_str 2,
    // ldrb_ldrh_ldrsb_ldrsh_imm_index 3, piq_narrow_b_to_unaligned 0 when a held branch withdraws
    // the address the bus holds, 5 when it gives up its decode slots as it enters execute and 7
    // when a target already queued is fetched again; tbb_tbh_seq 4 and ldr_pc 5 when stopping the
    // fetch does; ldm_ldmdb 0 when a load pipelines into a later cycle of a wait-stated data phase
    // than its first, and 1 when no writeback load forwards its new base to the load behind it;
    // add_ldr_deps 0, cbz 4 and ldr_pc 6 when the fetch counts on the decoded instruction's slots
    // while execute holds a load, CBZ or divide that ends late; the rings 0 when a load that writes
    // its base back does not pipeline, 1 when one that did not wait in decode forwards its base).
    TempDir dir;
    const nlohmann::json j = silicon_on("cc2652", "cc2652", dir);
    std::map<std::string, std::size_t> exact;
    for (const auto& t : j["tests"])
        for (const auto& c : t["results"]) exact[t["test"].get<std::string>()] += c["exact"].get<bool>();
    CHECK(exact["sdiv_powers_of_two"] == 34);
    CHECK(exact["bl_blx_bx_mov_pc_lr"] == 3);
    CHECK(exact["cbz"] == 5);
    CHECK(exact["it_and_blx_bx_mov_pc_lr"] == 12);
    CHECK(exact["add_pc"] == 3);
    CHECK(exact["ldr_dwt_str"] == 4);
    CHECK(exact["ldrb_ldrh_ldrsb_ldrsh_imm_index"] == 4);
    CHECK(exact["piq_narrow_b_to_unaligned"] == 8);
    CHECK(exact["tbb_tbh_seq"] == 7);
    CHECK(exact["ldr_pc"] == 7);
    CHECK(exact["ldm_ldmdb"] == 2);
    CHECK(exact["add_ldr_deps"] == 2);
    CHECK(exact["ldr_ldm_ldmdb_ldrd_same_args_and_rings"] == 2);
}

TEST_CASE("silicon: compiled benchmarks measured on the STM32F100 keep what the compiled-set rules brought") {
    // tests/data/silicon/stm32f100-bench: configurations of embench's ud (-Os and -O3), st and
    // aha-mont64 (-Os), the whole program on the board's DWT. ud -Os matches on every counter:
    // without the failed POP pc's second cycle it is 425,670 cycles short (one a soft-float call).
    // st's FOLDCNT matches: folding an IT onto a member of another IT block gave it more folds than
    // measured. aha-mont64 matches on every counter: with a load from SRAM holding the fetch only
    // over the registration buffer, it is 548,235 cycles short (one a run of its inner block). ud
    // -O3 is within 0.2%: with its stores holding the fetch neither behind a decoded load or store
    // nor in a load's data phase, it is 0.42% short. TI's floating_point_math -Os (one call each of
    // libgcc's __addsf3, __mulsf3 and __divsf3) matches on every counter and st is within 0.1%:
    // without the fetch's gap behind a not-taken B<cc> that follows an IT block, they are 2
    // cycles and 0.17% short.
    TempDir dir;
    const nlohmann::json j = silicon_on("stm32f100-bench", "stm32f100", dir);
    std::map<std::string, nlohmann::json> result;
    for (const auto& t : j["tests"])
        for (const auto& r : t["results"]) result[t["test"].get<std::string>() + "#" + std::to_string(r["number"].get<int>())] = r;
    for (const char* key : {"ud#0", "ud#4", "st#0", "aha-mont64#0", "floating_point_math#0"}) REQUIRE(result.count(key) == 1);
    CHECK(result["ud#0"]["exact"] == true);
    CHECK(result["ud#0"]["whole_program"]["error_cycles"] == 0);
    CHECK(result["aha-mont64#0"]["exact"] == true);
    CHECK(result["aha-mont64#0"]["whole_program"]["error_cycles"] == 0);
    for (const auto& m : result["st#0"]["mismatches"]) CHECK(m["region"] != "foldcnt");
    const double st_error = result["st#0"]["whole_program"]["error_percent"];
    CHECK(std::abs(st_error) < 0.1);
    CHECK(result["floating_point_math#0"]["exact"] == true);
    CHECK(result["floating_point_math#0"]["whole_program"]["error_cycles"] == 0);
    const double ud_o3_error = result["ud#4"]["whole_program"]["error_percent"];
    CHECK(std::abs(ud_o3_error) < 0.2);
}

TEST_CASE("silicon: --timing trm runs the per-block model on the same preset, at the rate it reached") {
    TempDir dir;
    auto [status, j] = silicon_run(source("tests/data/silicon/stm32f100") + " --timing trm", dir, "t.json");
    CHECK(status == 0);
    CHECK(j["timing"] == "trm");
    CHECK(j["board"] == "stm32f100");  // no --board: the folder's name says which
    CHECK(j["exact"].get<std::size_t>() >= kPerBlockExact);
    CHECK(read_file(dir.file("out")).find("trm timing") != std::string::npos);
}

TEST_CASE("silicon: without --board, the innermost folder whose name starts with a preset's picks the board") {
    TempDir dir;
    const std::string suite = dir.file("corpus/MPS2-AN385-rev-c/instructions");
    std::filesystem::create_directories(suite + "/control_flow");
    std::filesystem::copy_file(source("tests/data/silicon/stm32f100/control_flow/b_after_ldr.tzst"), suite + "/control_flow/b_after_ldr.tzst");
    emutrace_status("silicon " + suite + " --json " + dir.file("m.json"), dir);
    CHECK(nlohmann::json::parse(read_file(dir.file("m.json")))["board"] == "mps2-an385");
    CHECK(read_file(dir.file("out")).find("on board mps2-an385") != std::string::npos);
    CHECK(read_file(dir.file("out")).find("   validation none\n") != std::string::npos);  // one test: no 5th to hold aside
}

TEST_CASE("silicon: --split validation runs only every 5th test of each category, and a scenario file is a board") {
    TempDir dir;
    const std::string suite = source("tests/data/silicon/stm32f100");
    int status = emutrace_status(
        "silicon " + suite + " --split validation --board " + source("scenarios/boards/stm32f100.yaml") + " --json " + dir.file("v.json"), dir);
    CHECK(status == 0);
    auto j = nlohmann::json::parse(read_file(dir.file("v.json")));
    CHECK(j["split"] == "validation");
    std::set<std::string> ran;
    for (const auto& t : j["tests"]) {
        ran.insert(t["category"].get<std::string>() + "/" + t["test"].get<std::string>());
        CHECK(t["set"] == "validation");
    }
    std::set<std::string> expected = validation_tests(suite);
    CHECK(expected.size() == 10);  // 16, 15 and 24 archives: 3 + 3 + 4
    CHECK(ran == expected);
    CHECK(!j["sets"].contains("given"));
    CHECK(j["sets"]["validation"]["configurations"] == j["configurations"]);
    CHECK(read_file(dir.file("out")).find("tests: validation") != std::string::npos);
}

TEST_CASE("silicon: a run that does not reach its exit within --max-instructions fails with the reason") {
    TempDir dir;
    int status = emutrace_status("silicon " + source("tests/data/silicon/stm32f100") + " --split validation --max-instructions 100 --show 1 --json " +
                                     dir.file("m.json") + " --min-rate 0.5",
                                 dir);
    CHECK(status == 1);  // nothing is exact
    auto j = nlohmann::json::parse(read_file(dir.file("m.json")));
    CHECK(j["max_instructions"] == 100);
    CHECK(j["exact"] == 0);
    for (const auto& t : j["tests"])
        for (const auto& c : t["results"]) {
            CHECK(c["error"].get<std::string>().find("stopped at the instruction limit, 100 instructions, before the exit at 0x") == 0);
            CHECK(c["instructions"].get<std::uint64_t>() < 200);  // the limit is checked between blocks
        }
    std::string out = read_file(dir.file("out"));
    CHECK(out.find("did not finish: stopped at the instruction limit") != std::string::npos);
    CHECK(out.find("configurations did not finish") != std::string::npos);
}

TEST_CASE("silicon: an unknown board is one error line listing the presets") {
    TempDir dir;
    int status = emutrace_status("silicon " + source("tests/data/silicon/stm32f100") + " --board stm32f999", dir);
    CHECK(status == 2);
    std::string err = read_file(dir.file("err"));
    CHECK(err.find("unknown board 'stm32f999' (presets: cc2652, mps2-an385, stm32f100") != std::string::npos);
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    CHECK(read_file(dir.file("out")).empty());
}

TEST_CASE("silicon: a corrupt archive is one error line naming it") {
    TempDir dir;
    std::filesystem::create_directories(dir.file("suite/memory"));
    write_file(dir.file("suite/memory/broken.tzst"), std::string("\x28\xb5\x2f\xfd garbage", 13));
    int status = emutrace_status("silicon " + dir.file("suite"), dir);
    CHECK(status == 2);
    CHECK(read_file(dir.file("err")).find("broken.tzst") != std::string::npos);
}

namespace {

// A zstd-compressed tar of `members` (name, content; or a size in bytes of zeros), written with libarchive.
struct Member {
    std::string name;
    std::size_t zeros = 0;
    std::string content;
};

void write_archive(const std::string& path, const std::vector<Member>& members) {
    archive* a = archive_write_new();
    archive_write_add_filter_zstd(a);
    archive_write_set_format_pax_restricted(a);
    REQUIRE(archive_write_open_filename(a, path.c_str()) == ARCHIVE_OK);
    const std::vector<char> zeros(1 << 20, 0);
    for (const auto& m : members) {
        archive_entry* e = archive_entry_new();
        archive_entry_set_pathname(e, m.name.c_str());
        archive_entry_set_size(e, static_cast<la_int64_t>(m.zeros + m.content.size()));
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_write_header(a, e);
        archive_write_data(a, m.content.data(), m.content.size());
        for (std::size_t left = m.zeros; left;) {
            std::size_t n = std::min(left, zeros.size());
            archive_write_data(a, zeros.data(), n);
            left -= n;
        }
        archive_entry_free(e);
    }
    archive_write_close(a);
    archive_write_free(a);
}

}  // namespace

TEST_CASE("silicon: an archive of members that claim too much, or never pair, is refused before it takes the host's memory") {
    TempDir dir;
    std::filesystem::create_directories(dir.file("suite/memory"));
    // One member beyond the 32 MiB a flash image or a dump may have.
    write_archive(dir.file("suite/memory/huge.tzst"), {{"0.flash", std::size_t{40} << 20, {}}});
    CHECK(emutrace_status("silicon " + dir.file("suite"), dir) == 2);
    CHECK(read_file(dir.file("err")).find("0.flash claims 41943040 bytes (at most 32 MiB)") != std::string::npos);
    // Many flash images whose dumps never come: more than 64 MiB held is refused.
    std::filesystem::remove(dir.file("suite/memory/huge.tzst"));
    std::vector<Member> unpaired;
    for (int i = 0; i < 6; ++i) unpaired.push_back({std::to_string(i) + ".flash", std::size_t{12} << 20, {}});
    write_archive(dir.file("suite/memory/unpaired.tzst"), unpaired);
    CHECK(emutrace_status("silicon " + dir.file("suite"), dir) == 2);
    CHECK(read_file(dir.file("err")).find("without their other half") != std::string::npos);
}

TEST_CASE("silicon: a member not numbered as a configuration, or an archive of none, is one error line, not an internal error") {
    TempDir dir;
    std::filesystem::create_directories(dir.file("suite/memory"));
    for (const std::string name : {"99999999999999999999", "-1"}) {
        CAPTURE(name);
        write_archive(dir.file("suite/memory/odd.tzst"), {{name + ".flash", 0, std::string(64, '\x70')}, {name + ".dump", 0, "x"}});
        CHECK(emutrace_status("silicon " + dir.file("suite") + " --json " + dir.file("s.json"), dir) == 2);
        const std::string err = read_file(dir.file("err"));
        CHECK(err.find("odd.tzst: member '" + name + ".flash': expected N.flash, N a configuration number of at most 6 digits") != std::string::npos);
        CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    }
    write_archive(dir.file("suite/memory/odd.tzst"), {{"README", 0, "nothing measured"}});
    CHECK(emutrace_status("silicon " + dir.file("suite"), dir) == 2);
    CHECK(read_file(dir.file("err")).find("odd.tzst: no N.flash and N.dump members") != std::string::npos);
}

TEST_CASE("silicon: a dump whose words all differ keeps the first 1000 of them, and counts the rest") {
    // 184 KB compressed held millions of differing words: 1.5 GB of memory and 146 MB of --json.
    // Here 1024 words, all of the board's first 4 KB of SRAM.
    TempDir dir;
    std::filesystem::create_directories(dir.file("suite/memory"));
    const nlohmann::json measured = {
        {"emulator_main_addr", 0x08000100},
        {"emulator_exit_addr", 0x08000104},
        {"mem_dump", {{{"symbol_name", "times"}, {"addr", 0x20000000}, {"content", nlohmann::json::binary(std::vector<std::uint8_t>(4096, 0x5A))}}}}};
    const std::vector<std::uint8_t> dump = nlohmann::json::to_msgpack(measured);
    // A stack at 0x20001000, a branch from main to the exit (0xE000) and b . there (0xE7FE): the
    // run ends at once, memory as it was (zeros).
    std::string flash(0x108, '\0');
    flash[1] = '\x10', flash[3] = '\x20';
    flash[0x101] = '\xE0', flash[0x104] = '\xFE', flash[0x105] = '\xE7';
    write_archive(dir.file("suite/memory/wide.tzst"), {{"0.flash", 0, flash}, {"0.dump", 0, std::string(dump.begin(), dump.end())}});
    CHECK(emutrace_status("silicon " + dir.file("suite") + " --json " + dir.file("s.json"), dir) == 0);  // measured, not failed
    const nlohmann::json j = nlohmann::json::parse(read_file(dir.file("s.json")));
    const auto& c = j["tests"][0]["results"][0];
    CHECK(c["mismatched_words"] == 1024);
    CHECK(c["mismatches"].size() == 1000);
}

TEST_CASE("silicon: a dump whose fields are not what the runner reads is refused before anything runs, naming the member") {
    TempDir dir;
    std::filesystem::create_directories(dir.file("suite/memory"));
    auto dump = [](const nlohmann::json& j) {
        std::vector<std::uint8_t> bytes = nlohmann::json::to_msgpack(j);
        return std::string(bytes.begin(), bytes.end());
    };
    const nlohmann::json addresses = {{"emulator_main_addr", 0x08000100}, {"emulator_exit_addr", 0x08000104}};
    struct Case {
        nlohmann::json dump;
        const char* error;
    };
    nlohmann::json not_a_list = addresses, no_content = addresses, wide_address = addresses, float_byte = addresses, wide_byte = addresses;
    not_a_list["mem_dump"] = 7;
    no_content["mem_dump"] = {{{"symbol_name", "times"}, {"addr", 0x20000000}}};
    wide_address["emulator_exit_addr"] = 0x100000000ull;
    // Found by silicon_archive_fuzz: a float where a byte belongs was cast to a byte (undefined
    // behaviour out of range); a number above 255 was cut to its low byte.
    float_byte["mem_dump"] = {{{"symbol_name", "times"}, {"addr", 0x20000000}, {"content", {1, -6.645e6}}}};
    wide_byte["mem_dump"] = {{{"symbol_name", "times"}, {"addr", 0x20000000}, {"content", {1, 2, 300}}}};
    for (const Case& c :
         {Case{not_a_list, "3.dump: 'mem_dump' is not a list"}, Case{no_content, "3 mem_dump times: 'content' is missing or not bytes"},
          Case{wide_address, "3: 'emulator_exit_addr' is missing or not an address"},
          Case{nlohmann::json::array({1, 2}), "3.dump: not a MessagePack map"},
          Case{float_byte, "3 mem_dump times: 'content' item 1 is -6645000.0, not a byte"},
          Case{wide_byte, "3 mem_dump times: 'content' item 2 is 300, not a byte"}}) {
        CAPTURE(c.error);
        write_archive(dir.file("suite/memory/bad.tzst"), {{"3.flash", 0, std::string(64, '\x70')}, {"3.dump", 0, dump(c.dump)}});
        CHECK(emutrace_status("silicon " + dir.file("suite"), dir) == 2);
        std::string err = read_file(dir.file("err"));
        CHECK(err.find("bad.tzst:" + std::string(c.error)) != std::string::npos);
        CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    }
}

TEST_CASE("silicon: a compiled set is judged on its whole-program cycles, the cyccnt region's first word, per benchmark and given apart") {
    // main reads DWT_CYCCNT into the first word of a `cyccnt` region and ends: the board's count is
    // the measurement, the emulated one what the model gave.
    TempDir dir;
    std::filesystem::create_directories(dir.file("suite/bench"));
    std::string flash(0x120, '\0');
    flash[1] = '\x10', flash[3] = '\x20';                                           // SP 0x20001000
    const unsigned char code[] = {0x05, 0x48, 0x01, 0x21, 0x01, 0x60,               // ldr r0,=DWT_CTRL; movs r1,#1; str r1,[r0] (CYCCNTENA)
                                  0x80, 0x23, 0x1B, 0x02, 0x01, 0x3B, 0xFD, 0xD1,   // movs r3,#128; lsls r3,#8; 1: subs r3,#1; bne 1b
                                  0x41, 0x68, 0x02, 0x4A, 0x11, 0x60,               // ldr r1,[r0,#4] (CYCCNT); ldr r2,=0x20000000; str r1,[r2]
                                  0xFF, 0xE7, 0xFE, 0xE7,                           // b 1f; 1: b . (the exit, a block of its own)
                                  0x00, 0x10, 0x00, 0xE0, 0x00, 0x00, 0x00, 0x20};  // the literals
    std::copy(std::begin(code), std::end(code), flash.begin() + 0x100);
    auto archive = [&](std::initializer_list<std::uint32_t> measured) {
        std::vector<Member> members;
        std::uint32_t n = 0;
        for (std::uint32_t cycles : measured) {
            std::vector<std::uint8_t> counters(16, 0);
            for (unsigned b = 0; b < 4; ++b) counters[b] = static_cast<std::uint8_t>(cycles >> (8 * b));
            const nlohmann::json j = {
                {"emulator_main_addr", 0x08000100},
                {"emulator_exit_addr", 0x08000116},
                {"configuration_name", "{'opt': " + std::to_string(n) + "}"},
                {"mem_dump", {{{"symbol_name", "cyccnt"}, {"addr", 0x20000000}, {"content", nlohmann::json::binary(counters)}}}}};
            const std::vector<std::uint8_t> dump = nlohmann::json::to_msgpack(j);
            members.push_back({std::to_string(n) + ".flash", 0, flash});
            members.push_back({std::to_string(n) + ".dump", 0, std::string(dump.begin(), dump.end())});
            ++n;
        }
        write_archive(dir.file("suite/bench/prog.tzst"), members);
    };
    archive({1000});
    REQUIRE(emutrace_status("silicon " + dir.file("suite") + " --json " + dir.file("s.json"), dir) == 0);
    const std::uint32_t emulated = nlohmann::json::parse(read_file(dir.file("s.json")))["tests"][0]["results"][0]["whole_program"]["emulated"];
    REQUIRE(emulated > 3 * 32768);  // the DWT ran: the loop alone takes 3 cycles a round
    // Measured 0.4% above the model's count, and 2% below it.
    archive({emulated * 1004 / 1000, emulated * 98 / 100});
    REQUIRE(emutrace_status("silicon " + dir.file("suite") + " --json " + dir.file("s.json"), dir) == 0);
    const nlohmann::json j = nlohmann::json::parse(read_file(dir.file("s.json")));
    const auto& given = j["whole_program"]["given"];
    CHECK(given["configurations"] == 2);
    CHECK(given["within_half_percent"] == 1);
    CHECK(given["within_one_percent"] == 1);
    CHECK(given["worst"] == "bench/prog #1");
    CHECK(given["worst_cycles"] == static_cast<std::int64_t>(emulated) - emulated * 98 / 100);
    CHECK(j["tests"][0]["results"][0]["whole_program"]["error_cycles"] == static_cast<std::int64_t>(emulated) - emulated * 1004 / 1000);
    const std::string out = read_file(dir.file("out"));
    CHECK(out.find("    whole program: 1 of 2 within 0.5%, 1 within 1%, worst +") != std::string::npos);
    CHECK(out.find("  whole-program cycles, given: 1 of 2 within 0.5%, 1 within 1%") != std::string::npos);
    CHECK(out.find(", bench/prog #1)") != std::string::npos);
}

TEST_CASE("silicon: --jobs runs configurations side by side with the same results, and prints the tests in archive order") {
    TempDir dir;
    const std::string suite = source("tests/data/silicon/stm32f100") + " --split validation";
    auto rows = [&] {  // the tests' rows, in the order printed
        std::vector<std::string> names;
        const std::string out = read_file(dir.file("out"));
        for (std::size_t at = out.find("\n  control_flow/"); at != std::string::npos;) {
            names.push_back(out.substr(at + 3, out.find(' ', at + 3) - at - 3));
            std::size_t next = out.find("\n  ", at + 1);
            at = next != std::string::npos && out.compare(next + 3, 8, "by categ") != 0 && out[next + 3] != ' ' ? next : std::string::npos;
        }
        return names;
    };
    auto [one_status, one] = silicon_run(suite + " -j 1", dir, "one.json");
    CHECK(read_file(dir.file("out")).find("; 1 at a time") != std::string::npos);
    const std::vector<std::string> one_rows = rows();
    auto [three_status, three] = silicon_run(suite + " --jobs 3", dir, "three.json");
    CHECK(read_file(dir.file("out")).find("; 3 at a time") != std::string::npos);
    CHECK(one_status == 0);
    CHECK(three_status == 0);
    CHECK(one.dump() == three.dump());
    CHECK(one_rows.size() == 10);  // every validation test, as the JSON lists them
    CHECK(rows() == one_rows);
    for (std::size_t i = 0; i < one_rows.size() && i < one["tests"].size(); ++i)
        CHECK(one_rows[i] == one["tests"][i]["category"].get<std::string>() + "/" + one["tests"][i]["test"].get<std::string>());
}

namespace {

// suite/bench/runaway.tzst under `dir`: main is `b .` and the exit is never reached, so each
// configuration runs out its host time; configuration N's dump measured `cycles[N]`.
void write_runaway_archive(const TempDir& dir, std::initializer_list<std::uint32_t> cycles) {
    std::filesystem::create_directories(dir.file("suite/bench"));
    std::string flash(0x108, '\0');
    flash[1] = '\x10', flash[3] = '\x20';
    flash[0x100] = '\xFE', flash[0x101] = '\xE7';  // b .
    std::vector<Member> members;
    std::uint32_t n = 0;
    for (std::uint32_t measured : cycles) {
        std::vector<std::uint8_t> counters(4);
        for (unsigned b = 0; b < 4; ++b) counters[b] = static_cast<std::uint8_t>(measured >> (8 * b));
        const std::vector<std::uint8_t> dump = nlohmann::json::to_msgpack(
            {{"emulator_main_addr", 0x08000100},
             {"emulator_exit_addr", 0x08000104},
             {"mem_dump", {{{"symbol_name", "cyccnt"}, {"addr", 0x20000000}, {"content", nlohmann::json::binary(counters)}}}}});
        members.push_back({std::to_string(n) + ".flash", 0, flash});
        members.push_back({std::to_string(n) + ".dump", 0, std::string(dump.begin(), dump.end())});
        ++n;
    }
    write_archive(dir.file("suite/bench/runaway.tzst"), members);
}

}  // namespace

TEST_CASE("silicon: a compiled program the board measured as long gets 1 s of host time per 2 M cycles, above --timeout") {
    TempDir dir;
    write_runaway_archive(dir, {1000, 6'000'000});
    REQUIRE(emutrace_status("silicon " + dir.file("suite") + " --timeout 1 -j 2 --json " + dir.file("s.json"), dir) == 0);
    const nlohmann::json j = nlohmann::json::parse(read_file(dir.file("s.json")));
    const auto& results = j["tests"][0]["results"];
    REQUIRE(results.size() == 2);
    CHECK(results[0]["error"].get<std::string>().find("stopped at the time limit, 1 s of host time, before the exit at 0x08000104") == 0);
    CHECK(results[1]["error"].get<std::string>().find("stopped at the time limit, 3 s of host time, before the exit at 0x08000104") == 0);
    // With an instruction limit the limit decides, and --timeout alone bounds the host time.
    REQUIRE(emutrace_status("silicon " + dir.file("suite") + " --timeout 1 --max-instructions 1000000000000 --json " + dir.file("m.json"), dir) == 0);
    const nlohmann::json m = nlohmann::json::parse(read_file(dir.file("m.json")));
    CHECK(m["tests"][0]["results"][1]["error"].get<std::string>().find("stopped at the time limit, 1 s of host time") == 0);
}

TEST_CASE("silicon: --progress draws the tests done and the configurations running on stderr, in place, and erases it before the rows") {
    // Two configurations that each run out a 2 s bound, one at a time: the line is drawn each second.
    TempDir dir;
    write_runaway_archive(dir, {1000, 1000});
    const std::string suite = dir.file("suite") + " --timeout 2 -j 1";
    REQUIRE(emutrace_status("silicon " + suite + " --progress never", dir) == 0);
    const std::string quiet = read_file(dir.file("out"));
    CHECK(read_file(dir.file("err")).empty());
    REQUIRE(emutrace_status("silicon " + suite + " --progress always", dir) == 0);
    CHECK(read_file(dir.file("out")) == quiet);  // stdout as without the line
    const std::string err = read_file(dir.file("err"));
    CHECK(err.find("\rsilicon: 0/1 tests, 0 configurations done; bench/runaway #0 ") != std::string::npos);
    CHECK(err.find("\rsilicon: 0/1 tests, 1 configuration done; bench/runaway #1 ") != std::string::npos);
    CHECK(err.ends_with("\r\x1b[K"));            // erased at the end
    CHECK(err.find('\n') == std::string::npos);  // one line, redrawn in place
}

TEST_CASE("silicon: SIGINT mid-run ends the configurations running, writes what ran, and exits 130") {
    // Two configurations that would each run for a minute, side by side; the signal comes a second in.
    TempDir dir;
    write_runaway_archive(dir, {1000, 1000});
    const int raw = std::system(("sh -c '" + emutrace_binary() + " silicon " + dir.file("suite") + " --timeout 60 -j 2 --json " + dir.file("s.json") +
                                 " >" + dir.file("out") + " 2>" + dir.file("err") + " & pid=$!; sleep 1; kill -INT $pid; wait $pid'")
                                    .c_str());
    CHECK((WIFEXITED(raw) ? WEXITSTATUS(raw) : -1) == 130);
    CHECK(read_file(dir.file("err")).find("stopping: the outputs are being written") != std::string::npos);
    const nlohmann::json j = nlohmann::json::parse(read_file(dir.file("s.json")));
    REQUIRE(j["tests"].size() == 1);
    for (const auto& c : j["tests"][0]["results"]) CHECK(c["error"].get<std::string>().find("stopped by SIGINT") == 0);
    CHECK(read_file(dir.file("out")).find("2 configurations did not finish") != std::string::npos);
}
