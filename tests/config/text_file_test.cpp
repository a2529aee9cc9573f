#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "config/text_file.h"
#include "emutrace/config_error.h"
#include "support/temp_dir.h"

using namespace emutrace;
using emutrace::test::TempDir;

TEST_CASE("text file: an input is read whole, across read blocks, from a file or a pipe; one it cannot read names it") {
    TempDir dir;
    std::string bytes;
    for (std::size_t i = 0; i < 200'000; ++i) bytes += static_cast<char>((i * 7 + i / 251) & 0xFF);  // not a multiple of a block
    const std::string path = dir.write("dump.bin", bytes);
    const std::vector<std::uint8_t> read = config::read_binary_file(path, "memory dump");
    CHECK(std::string(read.begin(), read.end()) == bytes);
    CHECK(config::read_binary_file(dir.write("empty.bin", ""), "memory dump").empty());

    // A named pipe has no size to read up front: what its writer sends, to the end.
    const std::string fifo = dir.file("live.fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const pid_t writer = ::fork();
    REQUIRE(writer >= 0);
    if (writer == 0) {
        std::FILE* out = std::fopen(fifo.c_str(), "wb");
        if (out) std::fwrite(bytes.data(), 1, bytes.size(), out), std::fclose(out);
        ::_exit(0);
    }
    const std::vector<std::uint8_t> piped = config::read_binary_file(fifo, "event log");
    CHECK(std::string(piped.begin(), piped.end()) == bytes);
    ::waitpid(writer, nullptr, 0);

    CHECK_THROWS_WITH_AS(config::read_binary_file(dir.file("missing.bin"), "event log"),
                         doctest::Contains("missing.bin: cannot open the event log: No such file or directory"), ConfigError);
    CHECK_THROWS_WITH_AS(config::read_binary_file(dir.path().string(), "compact trace"),
                         doctest::Contains(": cannot read the compact trace: Is a directory"), ConfigError);
}
