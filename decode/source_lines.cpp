#include "decode/source_lines.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <algorithm>
#include <filesystem>

#include "decode/dwarf_handle.h"

namespace emutrace::decode {

struct SourceLines::Impl : DwarfHandle {
    using DwarfHandle::DwarfHandle;
};

SourceLines::SourceLines(const std::string& elf_path) : impl_(std::make_unique<Impl>(elf_path)) {}

SourceLines::~SourceLines() = default;

bool SourceLines::available() const {
    return impl_->dwarf != nullptr;
}

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
            if (file && dwarf_decl_line(&child, &number) == 0) return std::filesystem::path(file).filename().string() + ":" + std::to_string(number);
        } while (dwarf_siblingof(&child, &child) == 0);
    }
    Dwarf_Line* line = dwarf_getsrc_die(&cu, address);
    if (!line) return std::nullopt;
    const char* file = dwarf_linesrc(line, nullptr, nullptr);
    int number = 0;
    if (!file || dwarf_lineno(line, &number) != 0) return std::nullopt;
    return std::filesystem::path(file).filename().string() + ":" + std::to_string(number);
}

namespace {

// The inlined copies of `name` below `die`, inside the function `caller`.
void find_inlined(Dwarf_Die* die, const std::string& name, const char* caller, Dwarf_Files* files, std::vector<std::string>& out, int depth) {
    if (depth > 64) return;  // hostile DWARF: nesting deeper than any compiler writes
    Dwarf_Die child;
    if (dwarf_child(die, &child) != 0) return;
    do {
        int tag = dwarf_tag(&child);
        const char* inside = caller;
        if (tag == DW_TAG_subprogram) {
            inside = dwarf_diename(&child);
        } else if (tag == DW_TAG_inlined_subroutine) {
            const char* callee = dwarf_diename(&child);  // through DW_AT_abstract_origin
            if (callee && name == callee) {
                std::string site = caller ? caller : "?";
                Dwarf_Attribute a;
                Dwarf_Word file = 0, line = 0;
                bool has_line = dwarf_formudata(dwarf_attr(&child, DW_AT_call_line, &a), &line) == 0;
                bool has_file = dwarf_formudata(dwarf_attr(&child, DW_AT_call_file, &a), &file) == 0;
                const char* path = has_file && files ? dwarf_filesrc(files, file, nullptr, nullptr) : nullptr;
                if (has_line)
                    site += " (" + (path ? std::filesystem::path(path).filename().string() + ":" : std::string("line ")) + std::to_string(line) + ")";
                if (std::find(out.begin(), out.end(), site) == out.end()) out.push_back(site);
            }
        }
        find_inlined(&child, name, inside, files, out, depth + 1);
    } while (dwarf_siblingof(&child, &child) == 0);
}

}  // namespace

std::vector<std::string> SourceLines::inlined_copies(const std::string& name) const {
    std::vector<std::string> out;
    if (!impl_->dwarf) return out;
    Dwarf_Off offset = 0, next = 0;
    std::size_t header = 0;
    while (dwarf_nextcu(impl_->dwarf, offset, &next, &header, nullptr, nullptr, nullptr) == 0) {
        Dwarf_Die cu;
        if (dwarf_offdie(impl_->dwarf, offset + header, &cu)) {
            Dwarf_Files* files = nullptr;
            std::size_t n = 0;
            if (dwarf_getsrcfiles(&cu, &files, &n) != 0) files = nullptr;
            find_inlined(&cu, name, nullptr, files, out, 0);
        }
        offset = next;
    }
    return out;
}

}  // namespace emutrace::decode
