#include "models/memory_system.h"

namespace emutrace::models {

MemorySystem::MemorySystem(std::vector<Region> regions) : regions_(std::move(regions)) {}

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
