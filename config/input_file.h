#pragma once
// Reading an input file the user named (a scenario, an ELF, a log, a dump, statistics, a result):
// one way for every reader, so that none waits for ever on a FIFO nobody writes, reads a device
// that never ends, or fails on a folder with a library's message instead of the file's.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace emutrace::config {

/// A descriptor open for reading, the caller's to close. The open does not wait for a FIFO's
/// writer: a FIFO nobody writes then reads as empty, a pipe with one (`-s <(envsubst < s.yaml)`)
/// as what it sends. A folder is refused. Throws ConfigError "<path>: cannot open the <what>: <why>".
int open_input(const std::string& path, std::string_view what);

/// Whether `fd` is a regular file (an ELF must be: libelf maps it).
bool is_regular_file(int fd);

/// The whole of an input, refused past `limit` bytes ("<path>: the <what> is larger than N MiB"):
/// a regular file by its size before any byte is read, a pipe or device as it arrives (and at
/// most 256 MiB of one).
std::string read_input(const std::string& path, std::string_view what, std::size_t limit);
/// The same as bytes.
std::vector<std::uint8_t> read_input_bytes(const std::string& path, std::string_view what, std::size_t limit);

}  // namespace emutrace::config
