#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "config/text_file.h"
#include "emutrace/config_error.h"
#include "support/temp_dir.h"

using namespace emutrace;
using emutrace::test::TempDir;

TEST_CASE("text file: an input is read whole, across read blocks, from a file or a pipe, one it cannot read names it") {
    TempDir dir;
    std::string bytes;
    for (std::size_t i = 0; i < 200'000; ++i) bytes += static_cast<char>((i * 7 + i / 251) & 0xFF);  // not a multiple of a block
    const std::string path = dir.write("dump.bin", bytes);
    const std::vector<std::uint8_t> read = config::read_binary_file(path, "memory dump");
    CHECK(std::string(read.begin(), read.end()) == bytes);
    CHECK(config::read_binary_file(dir.write("empty.bin", ""), "memory dump").empty());

    // A named pipe has no size to read up front: what its writer sends, to the end. The writer is
    // there first (O_RDWR opens a FIFO without waiting for a reader); one that is not yet there
    // is not waited for: the pipe reads as empty at once, so a FIFO nobody writes hangs nothing.
    const std::string fifo = dir.file("live.fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(config::read_binary_file(fifo, "event log").empty());
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    const pid_t writer = ::fork();
    REQUIRE(writer >= 0);
    if (writer == 0) {
        const int fd = ::open(fifo.c_str(), O_RDWR);
        char connected = 1;
        if (fd < 0 || ::write(ready[1], &connected, 1) != 1) ::_exit(1);
        for (std::size_t at = 0; at < bytes.size();) {
            const ssize_t put = ::write(fd, bytes.data() + at, bytes.size() - at);
            if (put <= 0) ::_exit(1);
            at += static_cast<std::size_t>(put);
        }
        ::close(fd);
        ::_exit(0);
    }
    char connected = 0;
    REQUIRE(::read(ready[0], &connected, 1) == 1);
    const std::vector<std::uint8_t> piped = config::read_binary_file(fifo, "event log");
    CHECK(std::string(piped.begin(), piped.end()) == bytes);
    int status = -1;
    ::waitpid(writer, &status, 0);
    CHECK(status == 0);
    ::close(ready[0]), ::close(ready[1]);

    CHECK_THROWS_WITH_AS(config::read_binary_file(dir.file("missing.bin"), "event log"),
                         doctest::Contains("missing.bin: cannot open the event log: No such file or directory"), ConfigError);
    CHECK_THROWS_WITH_AS(config::read_binary_file(dir.path().string(), "compact trace"),
                         doctest::Contains(": cannot open the compact trace: Is a directory"), ConfigError);
}
