// Input files that are not what they say, from scripts/hostile-sweep's findings: a FIFO nobody
// writes, a device that never ends, a folder, a link loop, a hard link out of a snapshot, bytes
// that are not UTF-8, a newline in a value. Each is one error line and exit status 2, at once.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace::test;
namespace fs = std::filesystem;

namespace {

// One line on stderr, an error, status 2.
void check_refused(const Cli& r, const std::string& says) {
    CHECK(r.status == 2);
    CHECK(r.err.find("emutrace: error: ") == 0);
    CHECK(r.err.find(says) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

}  // namespace

TEST_CASE("hostile input: a FIFO nobody writes, where any input file goes, reads as empty or is refused, never waits") {
    TempDir dir;
    const std::string fifo = dir.file("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const std::string app = firmware("replay_app"), scenario = source("tests/scenarios/replay_app.yaml");
    for (const std::string& args :
         {"run " + app + " -s " + fifo, "info " + fifo, "cfg " + fifo, "run " + fifo, "wcet " + fifo + " -f main", "dump " + fifo,
          "replay " + fifo + " " + app + " -s " + scenario,
          "ringdump " + fifo + " --elf " + firmware("franking_traced") + " -s " + source("scenarios/franking/franking.yaml"),
          "wcet " + firmware("wcet") + " -f wcet_scan --no-run --stats-in " + fifo, "campaign " + fifo,
          "run " + firmware("franking") + " -s " + source("scenarios/franking/franking.yaml") + " --baseline " + fifo}) {
        CAPTURE(args);
        // `timeout` ends what would otherwise wait for ever: status 124, a failure here.
        check_refused(run_shell("timeout 20 " + emutrace_binary() + " " + args), fifo);
    }
}

TEST_CASE("hostile input: a device that never ends, a folder, a link loop are one error line, not bad_alloc or an internal error") {
    TempDir dir;
    // /dev/zero as a trace, a log, a dump: read to 2 GB then bad_alloc before.
    for (const std::string& args :
         {std::string("dump /dev/zero"), "replay /dev/zero " + firmware("replay_app") + " -s " + source("tests/scenarios/replay_app.yaml"),
          "ringdump /dev/zero --elf " + firmware("franking_traced") + " -s " + source("scenarios/franking/franking.yaml")}) {
        CAPTURE(args);
        check_refused(emutrace_cli(args), "/dev/zero");
    }
    // A folder where a JSON result goes.
    fs::create_directories(dir.file("folder"));
    check_refused(
        emutrace_cli("run " + firmware("franking") + " -s " + source("scenarios/franking/franking.yaml") + " --baseline " + dir.file("folder")),
        "Is a directory");
    // A results folder that is a link to itself.
    std::ofstream(dir.file("c.yaml")) << "runs:\n  - firmware: kernels\n";
    fs::create_symlink("c.results", dir.file("c.results"));
    check_refused(emutrace_cli("campaign merge " + dir.file("c.yaml")), "Too many levels of symbolic links");
    // A newline in a value the error quotes does not make the error two lines.
    check_refused(emutrace_cli("run " + firmware("kernels") + " --cpu 'cortex-m3\nsecond line'"), "unknown core 'cortex-m3\\nsecond line'");
}

TEST_CASE("hostile input: a symbol name that is not UTF-8 is written into a JSON result, not an exception ending the command") {
    // nlohmann's dump throws on such bytes: `internal error: invalid UTF-8 byte` before.
    TempDir dir;
    const std::string elf = dir.file("odd.elf");
    REQUIRE(run_shell("arm-none-eabi-objcopy --redefine-sym kernel_matmul=$(printf 'kernel_mat\\377\\376mul') " + firmware("kernels") + " " + elf)
                .status == 0);
    Cli r = emutrace_cli("cfg " + elf + " --json " + dir.file("c.json"));
    CHECK(r.status == 0);
    const nlohmann::json j = nlohmann::json::parse(read_file(dir.file("c.json")));
    bool found = false;
    for (const auto& f : j["functions"]) found = found || f["name"].get<std::string>() == "kernel_mat\xEF\xBF\xBD\xEF\xBF\xBDmul";
    CHECK(found);  // U+FFFD for each byte that was not UTF-8
}

TEST_CASE("hostile input: a snapshot's trace buffer that is a hard link to a file outside it is refused, and nothing decoded is an error") {
    TempDir dir;
    const fs::path snap = dir.path() / "snap";
    fs::copy(source("tests/data/captures/TC2"), snap, fs::copy_options::recursive);
    fs::copy_file(snap / "cstrace.bin", dir.path() / "outside.bin");
    fs::remove(snap / "cstrace.bin");
    fs::create_hard_link(dir.path() / "outside.bin", snap / "cstrace.bin");
    check_refused(emutrace_cli("crosscheck --snapshot " + snap.string()), "has other names (a hard link)");
    fs::remove(snap / "cstrace.bin");
    std::ofstream(snap / "cstrace.bin") << "";
    check_refused(emutrace_cli("crosscheck --snapshot " + snap.string()), "no instruction decoded");
}
