#include "models/memory_system.h"

#include <bit>

namespace emutrace::models {

MemorySystem::MemorySystem(std::vector<Region> regions) : regions_(std::move(regions)) {
    std::vector<int> holders(page_.size(), 0);  // regions overlapping each page
    for (std::size_t i = 0; i < regions_.size(); ++i) {
        const Region& r = regions_[i];
        const MemoryPort& p = r.port;
        Keyed k;
        k.id = (i + 4) * kSpread;
        unsigned line = p.line_bytes;
        if (p.cache_line_bytes && (!line || p.cache_line_bytes < line)) line = p.cache_line_bytes;
        k.line = line;
        if (line && std::has_single_bit(line)) k.line_shift = static_cast<std::uint8_t>(std::countr_zero(line));
        keyed_.push_back(k);
        if (!r.size) continue;
        const std::uint64_t last = static_cast<std::uint64_t>(r.base) + r.size - 1;
        for (std::uint64_t page = r.base >> kPageShift; page <= (last >> kPageShift) && page < page_.size(); ++page) {
            // At most 255 regions are paged; the rest are found by the search.
            page_[page] = holders[page]++ == 0 && i + 1 < 256 ? static_cast<std::uint8_t>(i + 1) : kNoPage;
        }
    }
}

int MemorySystem::region_index_slow(std::uint32_t address) const {
    for (std::size_t i = 0; i < regions_.size(); ++i)
        if (address - regions_[i].base < regions_[i].size) return static_cast<int>(i);
    return -1;
}

const MemorySystem::Keyed& MemorySystem::default_keyed(std::uint32_t address) const {
    switch (port_of(address)) {
        case BusPort::Code: return code_keyed_;
        case BusPort::Private: return private_keyed_;
        case BusPort::System: break;
    }
    return system_keyed_;
}

BusPort MemorySystem::port_of(std::uint32_t address) {
    if (address < 0x20000000u) return BusPort::Code;
    if (address >= 0xE0000000u && address < 0xE0100000u) return BusPort::Private;
    return BusPort::System;
}

const MemoryPort& MemorySystem::default_at(std::uint32_t address) const {
    switch (port_of(address)) {
        case BusPort::Code: return code_;
        case BusPort::Private: return private_;
        case BusPort::System: break;
    }
    return system_;
}

}  // namespace emutrace::models
