#pragma once
// A file that one input names inside itself (a snapshot's device and trace .ini files, its trace
// buffers and memory dumps): the input is untrusted, so the name must stay inside the input's own
// folder and be a regular file. A FIFO would block the reader, a device (/dev/zero) never ends, a
// path out of the folder (/etc/shadow, ../../x) reads what the input's author could not.

#include <filesystem>
#include <string>

namespace emutrace::config {

/// `dir / name` when `name` is relative, has no "..", leads (through any links) to a place inside
/// `dir`, and is a regular file with no other name (a hard link); else throws ConfigError "<named_in>: <what> '<name>' ...".
std::filesystem::path input_member(const std::filesystem::path& dir, const std::string& name, const std::string& named_in, const std::string& what);

}  // namespace emutrace::config
