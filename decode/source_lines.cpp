#include "decode/source_lines.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

namespace emutrace::decode {

struct SourceLines::Impl {
    int fd = -1;
    Dwarf* dwarf = nullptr;
};

SourceLines::SourceLines(const std::string& elf_path) : impl_(std::make_unique<Impl>()) {
    impl_->fd = ::open(elf_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (impl_->fd >= 0) impl_->dwarf = dwarf_begin(impl_->fd, DWARF_C_READ);
}

SourceLines::~SourceLines() {
    if (impl_->dwarf) dwarf_end(impl_->dwarf);
    if (impl_->fd >= 0) ::close(impl_->fd);
}

bool SourceLines::available() const { return impl_->dwarf != nullptr; }

std::optional<std::string> SourceLines::at(std::uint32_t address) const {
    if (!impl_->dwarf) return std::nullopt;
    Dwarf_Die cu;
    if (!dwarf_addrdie(impl_->dwarf, address, &cu)) return std::nullopt;
    // A function's own declaration (the subprogram starting here), not the line of whatever was
    // inlined at its first instruction.
    Dwarf_Die child;
    if (dwarf_child(&cu, &child) == 0) {
        do {
            Dwarf_Addr low = 0;
            if (dwarf_tag(&child) != DW_TAG_subprogram || dwarf_lowpc(&child, &low) != 0 || low != address) continue;
            const char* file = dwarf_decl_file(&child);
            int number = 0;
            if (file && dwarf_decl_line(&child, &number) == 0)
                return std::filesystem::path(file).filename().string() + ":" + std::to_string(number);
        } while (dwarf_siblingof(&child, &child) == 0);
    }
    Dwarf_Line* line = dwarf_getsrc_die(&cu, address);
    if (!line) return std::nullopt;
    const char* file = dwarf_linesrc(line, nullptr, nullptr);
    int number = 0;
    if (!file || dwarf_lineno(line, &number) != 0) return std::nullopt;
    return std::filesystem::path(file).filename().string() + ":" + std::to_string(number);
}

}  // namespace emutrace::decode
