// The main demo end to end: scenarios/franking, run through the emutrace command as a user would.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <tuple>

#include "support/cli.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace::test;
using nlohmann::json;

namespace {

struct Run {
    int status = -1;
    std::string err;
    json result;
    std::string dir_path;
};

// Runs a franking variant with its ELF found through the scenario's firmware: key.
Run franking(const std::string& variant, const TempDir& dir, const std::string& extra = "") {
    std::string cmd = "cd " + dir.path().string() + " && " + emutrace_binary() + " run --scenario " +
                      source("scenarios/franking/" + variant + ".yaml") + " --json r.json --junit r.xml " + extra + " >out 2>err </dev/null";
    int raw = std::system(cmd.c_str());
    Run r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.err = read_file(dir.file("err"));
    r.result = json::parse(read_file(dir.file("r.json")));
    return r;
}

const json& constraint(const Run& r) {
    return r.result["calltrace"]["constraints"].at(0);
}

std::map<std::string, json> functions(const Run& r) {
    std::map<std::string, json> out;
    for (const auto& f : r.result["calltrace"]["functions"]) out[f["function"].get<std::string>()] = f;
    return out;
}

}  // namespace

TEST_CASE("franking: every letter's print image is ready in time, with the phases traced") {
    TempDir dir;
    Run r = franking("franking", dir);
    CHECK(r.status == 0);
    const json& c = constraint(r);
    CHECK(c["name"] == "print_image_in_time");
    CHECK(c["occurrences"] == 8);
    CHECK(c["passed"] == true);
    CHECK(c["worst_slack_cycles"].get<std::int64_t>() > 0);
    auto f = functions(r);
    // One call per letter to each phase; the date element is the costly one, as in the paper.
    for (const char* phase : {"compute_postage", "security_exchange", "build_print_image", "update_date_element", "render_indicia"})
        CHECK(f.at(phase)["calls"] == 8);
    CHECK(f.at("build_print_image")["inclusive_cycles"].get<std::uint64_t>() >
          f.at("update_date_element")["inclusive_cycles"].get<std::uint64_t>() + f.at("render_indicia")["inclusive_cycles"].get<std::uint64_t>());
    CHECK(f.at("update_date_element")["exclusive_cycles"].get<std::uint64_t>() > f.at("render_indicia")["exclusive_cycles"].get<std::uint64_t>());
    // Source positions come from the firmware's DWARF line tables.
    CHECK(f.at("update_date_element")["source"].get<std::string>().rfind("franking.c:", 0) == 0);
    // The security exchange waits 2.5 ms (120,000 cycles at 48 MHz) per letter on the device.
    CHECK(f.at("security_exchange")["inclusive_min"].get<std::uint64_t>() >= 120'000);
    // Exclusive time sums to the run, since every cycle belongs to exactly one function.
    std::uint64_t exclusive = 0;
    for (const auto& [name, fn] : f) exclusive += fn["exclusive_cycles"].get<std::uint64_t>();
    CHECK(exclusive <= r.result["cycles"].get<std::uint64_t>());
    CHECK(exclusive > r.result["cycles"].get<std::uint64_t>() * 99 / 100);
    CHECK(r.err.find("phases (share of all cycles, inclusive)") != std::string::npos);
    // User events from the marker device (ids 1-4) and the trace_event hook (id 5), 8 letters each.
    std::map<int, int> ids;
    for (const auto& e : r.result["calltrace"]["user_events"]) ++ids[e["id"].get<int>()];
    CHECK(ids == std::map<int, int>{{1, 8}, {2, 8}, {3, 8}, {4, 8}, {5, 8}});
    CHECK(r.err.find("user events   id 1: 8x id 2: 8x id 3: 8x id 4: 8x id 5: 8x") != std::string::npos);
    CHECK(r.err.find("print_image_in_time             8") != std::string::npos);
    CHECK(read_file(dir.file("r.xml")).find("failures=\"0\"") != std::string::npos);
}

TEST_CASE("franking: caching the date element shows as more slack") {
    TempDir a, b;
    Run plain = franking("franking", a), cached = franking("franking-cached", b);
    CHECK(cached.status == 0);
    CHECK(constraint(cached)["worst_slack_cycles"].get<std::int64_t>() >= constraint(plain)["worst_slack_cycles"].get<std::int64_t>());
    CHECK(constraint(cached)["mean_cycles"].get<double>() < constraint(plain)["mean_cycles"].get<double>() * 0.8);
    CHECK(functions(cached).at("update_date_element")["inclusive_cycles"].get<std::uint64_t>() <
          functions(plain).at("update_date_element")["inclusive_cycles"].get<std::uint64_t>() / 4);
}

TEST_CASE("franking: an extra delay misses the deadline and fails the run for CI") {
    TempDir dir;
    Run r = franking("franking-slow", dir);
    CHECK(r.status == 1);
    const json& c = constraint(r);
    CHECK(c["passed"] == false);
    REQUIRE(c["violations"].size() == 3);  // the three heavy letters
    std::vector<int> keys;
    for (const auto& v : c["violations"]) {
        keys.push_back(v["key"].get<int>());
        // The stack at the deadline: the franker thread inside render_indicia, interrupted by the
        // envelope sensor's handler.
        CHECK(v["stack"].back() == "IRQ5_Handler");
        CHECK(std::find(v["stack"].begin(), v["stack"].end(), "render_indicia") != v["stack"].end());
    }
    CHECK(keys == std::vector<int>{3, 6, 8});
    std::string junit = read_file(dir.file("r.xml"));
    CHECK(junit.find("failures=\"1\"") != std::string::npos);
    CHECK(junit.find("<failure message=\"3 of 8 occurrences violated") != std::string::npos);
    CHECK(r.err.find("VIOLATED 3x") != std::string::npos);
}

TEST_CASE("franking: the Perfetto trace is valid and its slices nest per track") {
    TempDir dir;
    Run r = franking("franking", dir);
    json trace = json::parse(read_file(dir.file("franking.perfetto.json")));
    std::map<std::uint64_t, std::vector<std::string>> open;  // tid -> open slices
    std::size_t slices = 0, instants = 0, windows = 0, counters = 0;
    double last_ts = 0;
    for (const auto& e : trace["traceEvents"]) {
        std::string ph = e["ph"];
        if (ph == "M") continue;
        double ts = e["ts"].get<double>();
        if (ph == "B" || ph == "E") {
            CHECK(ts >= last_ts);  // call events are in time order
            last_ts = ts;
        }
        if (ph == "B") open[e["tid"]].push_back(e["name"]);
        if (ph == "E") {
            auto& stack = open[e["tid"]];
            REQUIRE(!stack.empty());
            CHECK(stack.back() == e["name"].get<std::string>());  // E closes the innermost B
            stack.pop_back();
            ++slices;
        }
        instants += ph == "i";
        windows += ph == "b";
        counters += ph == "C";
    }
    for (const auto& [tid, stack] : open) CHECK(stack.empty());
    CHECK(slices > 100);
    CHECK(instants >= 8 * 5);  // five user events per letter
    CHECK(windows == 8);
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "b") CHECK_FALSE(e.contains("cname"));  // none violated in this variant
    CHECK(counters > 0);
}

TEST_CASE("franking: the compact trace is written and dumped with names") {
    TempDir dir;
    Run r = franking("franking", dir, "--trace t.bin");
    REQUIRE(r.status == 0);
    std::string cmd = emutrace_binary() + " dump " + dir.file("t.bin") + " --elf " + firmware("franking") + " >" + dir.file("dump") + " 2>&1";
    CHECK(std::system(cmd.c_str()) == 0);
    std::string dump = read_file(dir.file("dump"));
    CHECK(dump.find("> update_date_element") != std::string::npos);
    CHECK(dump.find("< build_print_image") != std::string::npos);
    CHECK(dump.find("franker") != std::string::npos);
    CHECK(dump.find("* user event 2 payload 8") != std::string::npos);  // the last letter's image ready
    std::string bad = emutrace_binary() + " dump " + source("README.md") + " >" + dir.file("bad") + " 2>&1";
    int raw = std::system(bad.c_str());
    CHECK(WEXITSTATUS(raw) == 2);
    CHECK(read_file(dir.file("bad")).find("not an emutrace compact trace") != std::string::npos);
}

TEST_CASE("franking: --baseline catches losing the date cache even though the limit still holds") {
    TempDir dir;
    Run cached = franking("franking-cached", dir);
    REQUIRE(cached.status == 0);
    std::string base = dir.file("base.json");
    std::filesystem::rename(dir.file("r.json"), base);
    Run same = franking("franking-cached", dir, "--baseline " + base);
    CHECK(same.status == 0);  // the same firmware is no regression
    CHECK(same.result["calltrace"]["regressions"].empty());
    Run plain = franking("franking", dir, "--baseline " + base);
    CHECK(plain.status == 1);
    REQUIRE(plain.result["calltrace"]["regressions"].size() == 1);
    CHECK(plain.result["calltrace"]["regressions"][0]["measure"] == "mean_cycles");
    CHECK(plain.result["calltrace"]["regressions"][0]["change"].get<double>() > 0.3);
    CHECK(plain.err.find("emutrace: regression: print_image_in_time mean_cycles") != std::string::npos);
}

TEST_CASE("franking: a --baseline whose values are mistyped is one error line naming the file and the value, before the run") {
    // It was nlohmann's type error after the run, naming no file.
    TempDir dir;
    Run cached = franking("franking-cached", dir);
    REQUIRE(cached.status == 0);
    for (const auto& [path, value, said] :
         {std::tuple{"/calltrace/constraints/0/mean_cycles", json("fast"), "calltrace.constraints[0].mean_cycles is not a number"},
          std::tuple{"/calltrace/constraints/0/name", json(7), "calltrace.constraints[0].name is not a string"},
          std::tuple{"/calltrace/constraints", json(3), "calltrace.constraints is not a list"}}) {
        CAPTURE(path);
        json base = cached.result;
        base[json::json_pointer(path)] = value;
        write_file(dir.file("base.json"), base.dump());
        Cli r = emutrace_cli("run --scenario " + source("scenarios/franking/franking.yaml") + " --baseline " + dir.file("base.json"));
        CHECK(r.status == 2);
        CHECK(r.err.find("--baseline " + dir.file("base.json") + ": " + said) != std::string::npos);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK(r.out.empty());  // refused before the run
    }
}
