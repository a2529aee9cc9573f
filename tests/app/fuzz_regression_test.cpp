// Every input the fuzzers found (tests/data/fuzz/README.md) ends as the parsers must: one line, exit
// status 2, and no more memory than the input justifies.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "support/cli.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using namespace emutrace::test;

TEST_CASE("fuzz regressions: a YAML error whose message held a control character is one line") {
    Cli r = emutrace_cli("run " + firmware("kernels") + " -s " + source("tests/data/fuzz/scenario-escape-newline.yaml"));
    CHECK(r.status == 2);
    CHECK(r.err.find("YAML syntax error") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("fuzz regressions: a scenario that is a lone comma ends at once with one line") {
    Cli r = emutrace_cli("run " + firmware("kernels") + " -s " + source("tests/data/fuzz/scenario-lone-comma.yaml"));
    CHECK(r.status == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("fuzz regressions: a MessagePack dump declaring more elements than it holds is refused before it is allocated") {
    TempDir dir;
    std::filesystem::create_directories(dir.file("suite/memory"));
    std::filesystem::copy_file(source("tests/data/fuzz/silicon-msgpack-huge-array.tzst"), dir.file("suite/memory/t.tzst"));
    Cli r = emutrace_cli("silicon " + dir.file("suite"));  // before the fix: an 8 GiB allocation
    CHECK(r.status == 2);
    CHECK(r.err.find("declaring more elements than it holds") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("fuzz regressions: a MessagePack map keyed by maps keyed by maps is refused, not written out level by level") {
    TempDir dir;
    std::filesystem::create_directories(dir.file("suite/memory"));
    std::filesystem::copy_file(source("tests/data/fuzz/silicon-msgpack-nested-keys.tzst"), dir.file("suite/memory/t.tzst"));
    Cli r = emutrace_cli("silicon " + dir.file("suite"));  // before the fix: past 2 GiB and still growing
    CHECK(r.status == 2);
    CHECK(r.err.find("0.dump: a MessagePack map key is a map, not a string or a number") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("fuzz regressions: an alias used inside its own anchor is one line, not a walk until the stack ends") {
    // campaign_file_fuzz found it (`matrix: &letters {clx: *letters}`); scenarios share the loader.
    for (const std::string& command : {"campaign " + source("tests/data/fuzz/campaign-alias-in-itself.yaml"),
                                       "run " + firmware("kernels") + " -s " + source("tests/data/fuzz/scenario-alias-in-itself.yaml")}) {
        CAPTURE(command);
        Cli r = emutrace_cli(command);
        CHECK(r.status == 2);
        CHECK(r.err.find("an alias used inside its own anchor") != std::string::npos);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
}
