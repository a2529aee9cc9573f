#pragma once
// Source positions from an ELF's DWARF line tables (libdw): "compute.c:42" for an address.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace emutrace::decode {

class SourceLines {
public:
    /// Opens the ELF's DWARF; an ELF without debug information simply has no lines.
    explicit SourceLines(const std::string& elf_path);
    ~SourceLines();
    SourceLines(const SourceLines&) = delete;
    SourceLines& operator=(const SourceLines&) = delete;

    bool available() const;
    /// "file:line" of the instruction at `address` (file without its directory), if known.
    std::optional<std::string> at(std::uint32_t address) const;
    /// Where the compiler inlined the function `name`: "caller (file:line)" per inlined copy, the
    /// line being the call's.
    std::vector<std::string> inlined_copies(const std::string& name) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace emutrace::decode
