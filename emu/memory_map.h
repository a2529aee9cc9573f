#pragma once
// Validates a scenario's memory map and devices against each other and against the firmware
// image, and works out the MMIO windows to map. Knows nothing of Unicorn.

#include <cstdint>
#include <string>
#include <vector>

#include "decode/elf_image.h"
#include "emu/machine_config.h"

namespace emutrace::emu {

/// A span of bus addresses whose accesses go to devices (or to the unclaimed-MMIO policy).
struct MmioWindow {
    std::uint32_t base = 0;
    std::uint32_t size = 0;
};

struct MemoryPlan {
    std::vector<MemoryRegion> memory;  ///< plain memory, sorted by base
    std::vector<MmioWindow> windows;   ///< declared MMIO regions plus page-rounded spans of devices outside them
};

/// Throws ConfigError on overlapping or misaligned regions, overlapping devices, or a device
/// that overlaps plain memory. `page_size` is the emulator's mapping granularity.
MemoryPlan plan_memory(const MachineConfig& config, std::uint32_t page_size);

/// Throws ConfigError naming the segment when the image does not fit plain memory.
void check_image_fits(const MemoryPlan& plan, const decode::ElfImage& image);

/// The plain-memory region holding `address`, or nullptr.
const MemoryRegion* region_at(const MemoryPlan& plan, std::uint32_t address);

/// "flash 0x00000000-0x003fffff (rx)" for messages and summaries.
std::string describe(const MemoryRegion& region);

}  // namespace emutrace::emu
