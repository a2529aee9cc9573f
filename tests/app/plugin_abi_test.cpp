// The plug-in ABI changes by addition: the example plug-in built against emutrace 0.2.0's released
// headers (ABI 1) loads into today's emutrace and counts what the same source built against
// today's headers counts; a plug-in adds a trace source as it adds an analysis.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/cli.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace::test;

namespace {

std::string plugin(const std::string& name) {
    return (std::filesystem::path(emutrace_binary()).parent_path() / "plugins" / ("lib" + name + ".so")).string();
}

}  // namespace

TEST_CASE("plug-in ABI: the example built against 0.2.0's headers loads and counts what today's build counts") {
    TempDir dir;
    nlohmann::json counts[2];
    const char* builds[2] = {"mmio_histogram_released", "mmio_histogram_today"};
    for (int i = 0; i < 2; ++i) {
        INFO(builds[i]);
        Cli r = emutrace_cli("run " + firmware("stub_reader") + " -s " + source("scenarios/sensor-stub.yaml") + " --plugin " + plugin(builds[i]) +
                             " --mmio-histogram --json " + dir.file("r.json"));
        REQUIRE_MESSAGE(r.status == 0, r.err);
        CHECK(r.err.find("mmio histogram (accesses per device register)") != std::string::npos);
        counts[i] = nlohmann::json::parse(read_file(dir.file("r.json")))["mmio_histogram"]["registers"];
    }
    CHECK(counts[0] == counts[1]);
    // stub_reader reads the sensor's ID once and polls STATUS until DATA is ready.
    std::uint64_t sensor_reads = 0;
    for (const auto& r : counts[0])
        if (r["device"] == "sensor") sensor_reads += r["reads"].get<std::uint64_t>();
    CHECK(sensor_reads >= 3);
    // Its scenario section keeps the usual errors through the old ABI's setup.
    write_file(dir.file("typo.yaml"), read_file(source("scenarios/sensor-stub.yaml")) + "mmio_histogram: {tpo: 3}\n");
    Cli typo = emutrace_cli("run " + firmware("stub_reader") + " -s " + dir.file("typo.yaml") + " --plugin " + plugin("mmio_histogram_released"));
    CHECK(typo.status == 2);
    CHECK(typo.err.find("mmio_histogram.tpo: unknown key") != std::string::npos);
}

TEST_CASE("plug-in ABI: a plug-in adds a trace source that emutrace decode reads and the analyses consume") {
    TempDir dir;
    const std::string elf = firmware("compute");
    // A probe's PC samples at two functions' entries, as a probe's export would list them.
    Cli nm = run_shell("arm-none-eabi-nm " + elf);
    REQUIRE(nm.status == 0);
    std::string samples = "# probe export\n";
    std::istringstream symbols(nm.out);
    for (std::string address, kind, name; symbols >> address >> kind >> name;)
        if (name == "main" || name == "fmt_hex32") samples += address + "\n";
    write_file(dir.file("samples.txt"), samples);
    Cli list = emutrace_cli("analyses --plugin " + plugin("pc_samples"));
    CHECK(list.out.find("pc-samples\n  a probe's PC samples") != std::string::npos);
    Cli r = emutrace_cli("decode pc-samples " + dir.file("samples.txt") + " --elf " + elf + " --plugin " + plugin("pc_samples") +
                         " --coverage --json " + dir.file("c.json"));
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(r.out.find(": 2 PC samples") != std::string::npos);
    const auto j = nlohmann::json::parse(read_file(dir.file("c.json")));
    CHECK(j["pc_samples"] == 2);
    CHECK(j["coverage"]["functions_executed"] == nlohmann::json::array({"fmt_hex32", "main"}));
    // Its errors are one line naming the file and line, status 2.
    write_file(dir.file("bad.txt"), "0x100\nzz\n");
    Cli bad = emutrace_cli("decode pc-samples " + dir.file("bad.txt") + " --elf " + elf + " --plugin " + plugin("pc_samples"));
    CHECK(bad.status == 2);
    CHECK(bad.err.find("bad.txt:2: 'zz' is no code address") != std::string::npos);
}
