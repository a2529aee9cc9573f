#include "emu/memory_map.h"

#include <algorithm>
#include <cstdio>

#include "emu/bit_band.h"
#include "emutrace/config_error.h"

namespace emutrace::emu {
namespace {

struct Span {
    std::uint64_t begin, end;  // [begin, end)
    std::string what;
};

std::string hex(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%08llx", static_cast<unsigned long long>(v));
    return buf;
}

void check_disjoint(std::vector<Span> spans) {
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
    for (std::size_t i = 1; i < spans.size(); ++i)
        if (spans[i].begin < spans[i - 1].end) throw ConfigError(spans[i - 1].what + " overlaps " + spans[i].what);
}

std::string access_text(std::uint8_t a) {
    std::string s;
    s += (a & AccessRead) ? 'r' : '-';
    s += (a & AccessWrite) ? 'w' : '-';
    s += (a & AccessExecute) ? 'x' : '-';
    return s;
}

}  // namespace

std::string describe(const MemoryRegion& r) {
    return r.name + " " + hex(r.base) + "-" + hex(static_cast<std::uint64_t>(r.base) + r.size - 1) +
           (r.mmio ? " (mmio)" : " (" + access_text(r.access) + ")");
}

namespace {

// The declared regions, page-aligned, in the 4 GiB space, apart; memory or MMIO windows.
void plan_regions(const MachineConfig& config, std::uint32_t page_size, MemoryPlan& plan) {
    std::vector<Span> spans;
    for (const auto& r : config.memory) {
        std::uint64_t end = static_cast<std::uint64_t>(r.base) + r.size;
        if (r.size == 0) throw ConfigError("memory region " + r.name + " has size 0");
        if (end > 0x1'0000'0000ull) throw ConfigError("memory region " + r.name + " runs past the 4 GiB address space");
        if (r.base % page_size || r.size % page_size)
            throw ConfigError("memory region " + describe(r) + " must start and end on a " + std::to_string(page_size) + "-byte boundary");
        spans.push_back({r.base, end, "memory region " + describe(r)});
        if (r.mmio)
            plan.windows.push_back({r.base, r.size});
        else
            plan.memory.push_back(r);
    }
    check_disjoint(spans);
    for (const auto& r : config.memory) {
        if (r.mirrors.empty()) continue;
        auto of = std::find_if(config.memory.begin(), config.memory.end(), [&](const MemoryRegion& m) { return m.name == r.mirrors; });
        if (of == config.memory.end() || of->mmio || &*of == &r || !of->mirrors.empty())
            throw ConfigError("memory region " + r.name + " mirrors '" + r.mirrors + "', which is no other plain memory region that mirrors none");
        if (r.mmio || (r.access & AccessWrite))
            throw ConfigError("memory region " + describe(r) + " mirrors " + r.mirrors + ", so it must be read-only (a store would not reach " +
                              r.mirrors + ")");
    }
}

// Each device outside memory, in a window: a declared one, or its pages as a window of its own.
std::vector<Span> plan_devices(const MachineConfig& config, std::uint32_t page_size, MemoryPlan& plan) {
    std::vector<Span> devices;
    for (const auto& d : config.devices) {
        std::uint64_t end = static_cast<std::uint64_t>(d.base) + d.model->size();
        std::string what = "device " + d.name + " " + hex(d.base) + "-" + hex(end - 1);
        if (end > 0x1'0000'0000ull) throw ConfigError(what + " runs past the 4 GiB address space");
        devices.push_back({d.base, end, what});
        for (const auto& m : plan.memory)
            if (d.base < static_cast<std::uint64_t>(m.base) + m.size && m.base < end)
                throw ConfigError(what + " overlaps memory region " + describe(m));
        bool inside = std::any_of(plan.windows.begin(), plan.windows.end(),
                                  [&](const MmioWindow& w) { return d.base >= w.base && end <= static_cast<std::uint64_t>(w.base) + w.size; });
        if (inside) continue;
        std::uint64_t b = d.base / page_size * page_size;
        std::uint64_t e = (end + page_size - 1) / page_size * page_size;
        for (const auto& w : plan.windows)
            if (b < static_cast<std::uint64_t>(w.base) + w.size && w.base < e)
                throw ConfigError(what + " straddles the edge of MMIO region at " + hex(w.base));
        plan.windows.push_back({static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(e - b)});
    }
    check_disjoint(devices);
    return devices;
}

// The bit-band aliases are windows of their own where no declared region covers them.
void plan_bit_band(const std::vector<Span>& devices, MemoryPlan& plan) {
    for (const std::uint32_t alias : kBitBandAliases) {
        const std::uint64_t end = static_cast<std::uint64_t>(alias) + kBitBandAliasSize;
        const std::string what = "the bit-band alias " + hex(alias) + "-" + hex(end - 1);
        for (const auto& m : plan.memory)
            if (alias < static_cast<std::uint64_t>(m.base) + m.size && m.base < end)
                throw ConfigError("bit_band: " + what + " overlaps memory region " + describe(m));
        for (const auto& d : devices)
            if (alias < d.end && d.begin < end) throw ConfigError("bit_band: " + what + " overlaps " + d.what);
        bool covered = false;
        for (const auto& w : plan.windows) {
            const std::uint64_t w_end = static_cast<std::uint64_t>(w.base) + w.size;
            if (!(alias < w_end && w.base < end)) continue;
            if (w.base > alias || w_end < end) throw ConfigError("bit_band: " + what + " straddles the edge of the MMIO region at " + hex(w.base));
            covered = true;
        }
        if (!covered) plan.windows.push_back({alias, kBitBandAliasSize});
    }
}

// Implicit windows of neighbouring devices may share pages: merged, in address order.
std::vector<MmioWindow> merged_windows(std::vector<MmioWindow> windows) {
    std::sort(windows.begin(), windows.end(), [](auto& a, auto& b) { return a.base < b.base; });
    std::vector<MmioWindow> merged;
    for (const auto& w : windows) {
        if (!merged.empty() && static_cast<std::uint64_t>(merged.back().base) + merged.back().size >= w.base) {
            std::uint64_t end = std::max<std::uint64_t>(static_cast<std::uint64_t>(merged.back().base) + merged.back().size,
                                                        static_cast<std::uint64_t>(w.base) + w.size);
            merged.back().size = static_cast<std::uint32_t>(end - merged.back().base);
        } else {
            merged.push_back(w);
        }
    }
    return merged;
}

}  // namespace

MemoryPlan plan_memory(const MachineConfig& config, std::uint32_t page_size) {
    if (config.memory.empty()) throw ConfigError("the memory map is empty: declare at least one region");
    MemoryPlan plan;
    plan_regions(config, page_size, plan);
    const std::vector<Span> devices = plan_devices(config, page_size, plan);
    if (config.bit_band) plan_bit_band(devices, plan);
    plan.windows = merged_windows(std::move(plan.windows));
    std::sort(plan.memory.begin(), plan.memory.end(), [](auto& a, auto& b) { return a.base < b.base; });
    return plan;
}

const MemoryRegion* region_at(const MemoryPlan& plan, std::uint32_t address) {
    for (const auto& r : plan.memory)
        if (address >= r.base && address - r.base < r.size) return &r;
    return nullptr;
}

void check_image_fits(const MemoryPlan& plan, const decode::ElfImage& image) {
    std::string regions;
    for (const auto& r : plan.memory) regions += (regions.empty() ? "" : ", ") + describe(r);
    for (std::size_t i = 0; i < image.segments().size(); ++i) {
        const auto& s = image.segments()[i];
        std::uint64_t end = static_cast<std::uint64_t>(s.load_address) + std::max<std::size_t>(s.bytes.size(), 1);
        const MemoryRegion* r = region_at(plan, s.load_address);
        if (!r || end > static_cast<std::uint64_t>(r->base) + r->size)
            throw ConfigError(image.path() + ": segment " + std::to_string(i) + " " + hex(s.load_address) + "-" + hex(end - 1) +
                              " is outside the memory map (" + regions + ")");
        if (s.virtual_address != s.load_address) {
            const MemoryRegion* run = region_at(plan, s.virtual_address);
            std::uint64_t vend = static_cast<std::uint64_t>(s.virtual_address) + std::max<std::uint32_t>(s.memory_size, 1);
            if (!run || vend > static_cast<std::uint64_t>(run->base) + run->size)
                throw ConfigError(image.path() + ": segment " + std::to_string(i) + " runs at " + hex(s.virtual_address) + "-" + hex(vend - 1) +
                                  ", which is outside the memory map (" + regions + ")");
        }
    }
}

}  // namespace emutrace::emu
