#pragma once
// A part's peripherals as its CMSIS-SVD file describes them: every peripheral's base, interrupts
// and registers, every register's reset value and access, every field's bits and write and read
// side effects. Derived peripherals and dim arrays are expanded; nothing here runs.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace emutrace::decode::svd {

/// SVD <access>.
enum class Access : std::uint8_t { ReadWrite, ReadOnly, WriteOnly, WriteOnce, ReadWriteOnce };

/// SVD <modifiedWriteValues>: what writing a bit does to it.
enum class WriteAction : std::uint8_t {
    Modify,  ///< the written value is stored (the default)
    OneToClear,
    OneToSet,
    OneToToggle,
    ZeroToClear,
    ZeroToSet,
    ZeroToToggle,
    Clear,  ///< any write clears the field
    Set,    ///< any write sets the field
};

/// SVD <readAction>: what reading a field does to it.
enum class ReadAction : std::uint8_t { None, Clear, Set, Modify };

struct Field {
    std::string name;
    std::uint8_t lsb = 0;
    std::uint8_t width = 1;
    Access access = Access::ReadWrite;
    WriteAction write = WriteAction::Modify;
    ReadAction read = ReadAction::None;

    std::uint32_t mask() const { return (width >= 32 ? 0xffffffffu : ((1u << width) - 1)) << lsb; }
};

struct Register {
    std::string name;
    std::uint32_t offset = 0;  ///< from the peripheral's base
    std::uint8_t bytes = 4;
    std::uint32_t reset = 0;
    Access access = Access::ReadWrite;
    std::vector<Field> fields;

    const Field* field(std::string_view name) const;
};

struct Interrupt {
    std::string name;
    unsigned number = 0;  ///< external interrupt line (IRQn)
};

struct Peripheral {
    std::string name;
    std::string description;
    std::uint32_t base = 0;
    std::uint32_t size = 0;  ///< bytes the address blocks and registers span, a multiple of 4
    std::vector<Interrupt> interrupts;
    std::vector<Register> registers;  ///< by offset

    const Register* reg(std::string_view name) const;
};

struct Device {
    std::string name;
    std::string file;
    std::vector<Peripheral> peripherals;  ///< in the file's order

    const Peripheral* peripheral(std::string_view name) const;
};

/// Reads an SVD file; throws ConfigError naming the file (and the element) when it cannot.
Device read_device(const std::filesystem::path& path);
/// The same from text, `file` naming it in errors.
Device parse_device(std::string_view xml, const std::string& file);

}  // namespace emutrace::decode::svd
