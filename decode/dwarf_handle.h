#pragma once
// An ELF file opened for libdw, closed with it: what SourceLines and DwarfTypes read. Internal
// to decode/ (it names libdw's types).
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace emutrace::decode {

struct DwarfHandle {
    /// `dwarf` is null when the file cannot be opened or has no DWARF.
    explicit DwarfHandle(const std::string& elf_path) : fd(::open(elf_path.c_str(), O_RDONLY | O_CLOEXEC)) {
        if (fd >= 0) dwarf = dwarf_begin(fd, DWARF_C_READ);
    }
    ~DwarfHandle() {
        if (dwarf) dwarf_end(dwarf);
        if (fd >= 0) ::close(fd);
    }
    DwarfHandle(const DwarfHandle&) = delete;
    DwarfHandle& operator=(const DwarfHandle&) = delete;

    int fd = -1;
    Dwarf* dwarf = nullptr;
};

}  // namespace emutrace::decode
