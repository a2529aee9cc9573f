#pragma once
// What an ELF's DWARF says of its types and compile units, for the RTOS presets (docs/replay.md):
// where a member lives in a structure (FreeRTOS's TCB keeps the task's name at an offset that
// depends on its configuration), and which functions a source file defines (the kernel's own).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace emutrace::decode {

struct MemberLayout {
    std::uint32_t offset = 0;        ///< bytes from the structure's start
    std::uint32_t array_length = 0;  ///< elements, when the member is an array; 0 otherwise
};

class DwarfTypes {
public:
    /// Opens the ELF's DWARF; an ELF without it answers nothing (available() is false).
    explicit DwarfTypes(const std::string& elf_path);
    ~DwarfTypes();
    DwarfTypes(const DwarfTypes&) = delete;
    DwarfTypes& operator=(const DwarfTypes&) = delete;

    bool available() const;
    /// Member `member` of the structure tagged or typedef'd `type`, in the first compile unit
    /// that defines it.
    std::optional<MemberLayout> member(std::string_view type, std::string_view member) const;
    /// The functions (with code) of the compile units whose source file is named `file` (its
    /// name without directories), for each of `files`.
    std::vector<std::string> functions_of(const std::vector<std::string>& files) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace emutrace::decode
