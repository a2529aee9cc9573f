#pragma once
// An ELF file open through libelf for the duration of a load: the firmware (elf_image.cpp) and
// memory dumps in ELF core format (memory_dump.cpp).

#include <fcntl.h>
#include <libelf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "config/input_file.h"
#include "emutrace/config_error.h"

namespace emutrace::decode {

// Owns the file descriptor and the libelf handle for the duration of a load.
class ElfFile {
public:
    explicit ElfFile(const std::string& path) : path_(path) {
        if (elf_version(EV_CURRENT) == EV_NONE) fail("libelf is out of date");
        fd_ = config::open_input(path, "ELF file");  // throws, naming the file
        if (!config::is_regular_file(fd_)) fail("not a regular file (a FIFO or a device): an ELF is read from a file");
        elf_ = elf_begin(fd_, ELF_C_READ_MMAP, nullptr);
        if (!elf_) fail(std::string("cannot read: ") + elf_errmsg(-1));
    }
    ~ElfFile() {
        if (elf_) elf_end(elf_);
        if (fd_ >= 0) ::close(fd_);
    }
    ElfFile(const ElfFile&) = delete;
    ElfFile& operator=(const ElfFile&) = delete;

    Elf* get() const { return elf_; }
    [[noreturn]] void fail(const std::string& message) const { throw ConfigError(path_ + ": " + message); }

private:
    std::string path_;
    int fd_ = -1;
    Elf* elf_ = nullptr;
};

}  // namespace emutrace::decode
