#include "decode/symbol_table.h"

#include <algorithm>
#include <cstdio>

namespace emutrace::decode {

SymbolTable::SymbolTable(std::vector<Symbol> symbols) : symbols_(std::move(symbols)) {
    for (const auto& s : symbols_)
        if (s.is_function) functions_.push_back(s);
    std::sort(functions_.begin(), functions_.end(), [](const Symbol& a, const Symbol& b) { return a.address < b.address; });
}

std::optional<std::uint32_t> SymbolTable::address_of(std::string_view name) const {
    for (const auto& s : symbols_)
        if (s.name == name) return s.address;
    return std::nullopt;
}

const Symbol* SymbolTable::function_at(std::uint32_t address) const {
    auto it = std::upper_bound(functions_.begin(), functions_.end(), address, [](std::uint32_t a, const Symbol& s) { return a < s.address; });
    while (it != functions_.begin()) {
        --it;
        if (it->size == 0 || address < it->address + it->size) return &*it;
        if (it->address + it->size <= address) return nullptr;
    }
    return nullptr;
}

std::string SymbolTable::describe(std::uint32_t address) const {
    char buf[32];
    if (const Symbol* f = function_at(address)) {
        if (address == f->address) return f->name;
        std::snprintf(buf, sizeof buf, "+0x%x", address - f->address);
        return f->name + buf;
    }
    std::snprintf(buf, sizeof buf, "0x%08x", address);
    return buf;
}

}  // namespace emutrace::decode
