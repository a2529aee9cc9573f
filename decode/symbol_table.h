#pragma once
// The ELF's symbols, for turning addresses into names in reports and names into addresses in
// scenarios. Thumb function addresses are stored without their interworking bit.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace emutrace::decode {

struct Symbol {
    std::string name;
    std::uint32_t address = 0;  ///< without the Thumb bit
    std::uint32_t size = 0;     ///< 0 when the ELF does not say
    bool is_function = false;
    bool thumb = false;  ///< a function whose address had the Thumb bit set
};

class SymbolTable {
public:
    SymbolTable() = default;
    explicit SymbolTable(std::vector<Symbol> symbols);

    std::size_t size() const { return symbols_.size(); }
    std::span<const Symbol> all() const { return symbols_; }
    /// Functions sorted by address.
    std::span<const Symbol> functions() const { return functions_; }
    /// The address of a symbol by exact name (functions without the Thumb bit).
    std::optional<std::uint32_t> address_of(std::string_view name) const;
    /// The function whose [address, address+size) holds `address`; for size-less symbols the
    /// nearest one below it.
    const Symbol* function_at(std::uint32_t address) const;
    /// The data object (a sized non-function symbol: a variable) whose extent holds `address`.
    const Symbol* object_at(std::uint32_t address) const;
    /// "name+0x12" of the function, else of the variable, holding the address; else "0x00001234".
    std::string describe(std::uint32_t address) const;

private:
    std::vector<Symbol> symbols_;
    std::vector<Symbol> functions_;
    std::vector<Symbol> objects_;  ///< sized data symbols, by address
};

}  // namespace emutrace::decode
