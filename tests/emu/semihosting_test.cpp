#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "support/run_firmware.h"
#include "support/temp_dir.h"

using namespace emutrace;
using namespace emutrace::test;

namespace {

std::pair<emu::RunResult, std::string> run_faults(const std::string& mode, const std::function<void(emu::MachineConfig&)>& tweak) {
    FirmwareRun r = run_firmware("faults", "tests/scenarios/faults.yaml", [&](emu::MachineConfig& c) {
        c.semihosting.cmdline = mode;
        tweak(c);
    });
    return {r.result, r.sink.text};
}

}  // namespace

TEST_CASE("semihosting: host files are refused unless the scenario grants a directory") {
    auto [refused, text] = run_faults("host-file", [](emu::MachineConfig&) {});
    CHECK(refused.reason == emu::StopReason::Exited);
    CHECK(text.find("faults: open=-1 errno=13") != std::string::npos);  // EACCES

    TempDir dir;
    auto [granted, text2] = run_faults("host-file", [&](emu::MachineConfig& c) { c.semihosting.host_dir = dir.path(); });
    CHECK(granted.reason == emu::StopReason::Exited);
    CHECK(text2.find("faults: open=3 errno=0") != std::string::npos);
    CHECK(read_file(dir.file("out.txt")) == "hello host\n");
}

TEST_CASE("semihosting: no path, link, hard link, dangling link or FIFO leads a firmware outside its granted directory or blocks it") {
    namespace fs = std::filesystem;
    TempDir root;
    const fs::path io = fs::path(root.path()) / "io", outside = fs::path(root.path()) / "outside";
    fs::create_directories(io / "sub");
    fs::create_directories(outside);
    { std::ofstream(outside / "secret.txt") << "secret\n"; }
    fs::create_symlink(outside / "created.txt", io / "dangling");  // to a file that does not exist yet
    fs::create_symlink(outside / "secret.txt", io / "to_file");
    fs::create_symlink(outside, io / "to_dir");
    fs::create_symlink(outside / "secret.txt", io / "sub" / "deep_link");
    auto open = [&](const std::string& mode, const std::string& name) {
        auto [r, text] = run_faults(mode + " " + name, [&](emu::MachineConfig& c) { c.semihosting.host_dir = io; });
        CHECK(r.reason == emu::StopReason::Exited);
        return text;
    };
    const std::string refused = "faults: open=-1 errno=13";  // EACCES
    for (const char* name :
         {"dangling", "to_file", "to_dir/new.txt", "to_dir/secret.txt", "sub/deep_link", "../outside/secret.txt", "sub/../../x.txt"}) {
        CAPTURE(name);
        CHECK(open("host-open", name).find(refused) != std::string::npos);
        CHECK(open("host-read", name).find(refused) != std::string::npos);
    }
    CHECK(open("host-open", (outside / "abs.txt").string()).find(refused) != std::string::npos);
    CHECK(!fs::exists(outside / "created.txt"));
    CHECK(!fs::exists(outside / "new.txt"));
    CHECK(!fs::exists(outside / "abs.txt"));
    CHECK(read_file((outside / "secret.txt").string()) == "secret\n");
    // A hard link to a file outside is that file under a name inside: refused, the file untouched
    // (a write would have truncated it before any check of the opened file).
    fs::create_hard_link(outside / "secret.txt", io / "hard_link");
    CHECK(open("host-open", "hard_link").find(refused) != std::string::npos);
    CHECK(open("host-read", "hard_link").find(refused) != std::string::npos);
    CHECK(read_file((outside / "secret.txt").string()) == "secret\n");
    // A FIFO would block the run until a reader or writer came: refused at once, either way.
    REQUIRE(::mkfifo((io / "fifo").c_str(), 0600) == 0);
    CHECK(open("host-open", "fifo").find(refused) != std::string::npos);
    CHECK(open("host-read", "fifo").find(refused) != std::string::npos);
    // Inside, files and directories work as before.
    CHECK(open("host-open", "sub/inner.txt").find("faults: open=3 errno=0") != std::string::npos);
    CHECK(read_file((io / "sub" / "inner.txt").string()) == "firmware\n");
    CHECK(open("host-read", "./sub/inner.txt").find("faults: open=3 errno=0") != std::string::npos);
    CHECK(open("host-read", "missing.txt").find("faults: open=-1 errno=2") != std::string::npos);  // ENOENT
}

TEST_CASE("semihosting: SYS_CLOCK counts emulated, not host, time") {
    // At 1 kHz one centisecond is 10 cycles, so the clock read near the end is about cycles / 10.
    auto [r, text] = run_faults("clock", [](emu::MachineConfig& c) { c.clock_hz = 1000; });
    REQUIRE(r.reason == emu::StopReason::Exited);
    auto at = text.find("faults: clock=");
    REQUIRE(at != std::string::npos);
    unsigned long clock = std::strtoul(text.c_str() + at + 14, nullptr, 10);
    CHECK(clock <= r.cycles / 10);
    CHECK(clock + 200 >= r.cycles / 10);
    CHECK(clock > 10'000);
}
