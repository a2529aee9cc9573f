#include "decode/symbol_table.h"

#include <algorithm>
#include <cstdio>

namespace emutrace::decode {

SymbolTable::SymbolTable(std::vector<Symbol> symbols) : symbols_(std::move(symbols)) {
    for (const auto& s : symbols_)
        if (s.is_function)
            functions_.push_back(s);
        else if (s.size)
            objects_.push_back(s);
    auto by_address = [](const Symbol& a, const Symbol& b) { return a.address < b.address; };
    std::sort(functions_.begin(), functions_.end(), by_address);
    std::sort(objects_.begin(), objects_.end(), by_address);
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

const Symbol* SymbolTable::object_at(std::uint32_t address) const {
    auto it = std::upper_bound(objects_.begin(), objects_.end(), address, [](std::uint32_t a, const Symbol& s) { return a < s.address; });
    if (it == objects_.begin()) return nullptr;
    --it;
    return address < it->address + it->size ? &*it : nullptr;
}

std::string SymbolTable::describe(std::uint32_t address) const {
    char buf[32];
    const Symbol* f = function_at(address);
    if (!f) f = object_at(address);
    if (f) {
        if (address == f->address) return f->name;
        std::snprintf(buf, sizeof buf, "+0x%x", address - f->address);
        return f->name + buf;
    }
    std::snprintf(buf, sizeof buf, "0x%08x", address);
    return buf;
}

}  // namespace emutrace::decode
