#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "emu/bit_band.h"
#include "emu/memory_map.h"
#include "emu/peripherals/registry.h"
#include "emutrace/config.h"

using namespace emutrace;

namespace {

emu::MachineConfig with_regions(std::initializer_list<emu::MemoryRegion> regions) {
    emu::MachineConfig c;
    c.memory = regions;
    return c;
}

void add_stub(emu::MachineConfig& c, const std::string& name, std::uint32_t base, std::uint32_t size) {
    auto root = config::Node::load_string("type: stub\nparams: {size: " + std::to_string(size) + "}\n", "t.yaml");
    emu::DeviceConfig d;
    d.name = name;
    d.base = base;
    d.model = emu::make_peripheral(root["type"], root["params"]);
    c.devices.push_back(std::move(d));
}

}  // namespace

TEST_CASE("memory map: overlapping and misaligned regions are rejected by name") {
    auto c = with_regions({{"flash", 0, 0x10000, emu::AccessRead | emu::AccessExecute, false}, {"ram", 0x8000, 0x10000}});
    CHECK_THROWS_WITH_AS(emu::plan_memory(c, 1024), doctest::Contains("flash 0x00000000-0x0000ffff (r-x) overlaps memory region ram"), ConfigError);
    auto odd = with_regions({{"ram", 0x20000100, 0x1000}});
    CHECK_THROWS_WITH_AS(emu::plan_memory(odd, 1024), doctest::Contains("1024-byte boundary"), ConfigError);
}

TEST_CASE("memory map: devices get page-rounded windows, merged when they share a page") {
    auto c = with_regions({{"ram", 0x20000000, 0x10000}});
    add_stub(c, "a", 0x40000000, 0x100);
    add_stub(c, "b", 0x40000100, 0x100);
    add_stub(c, "c", 0x50000000, 0x10);
    auto plan = emu::plan_memory(c, 1024);
    REQUIRE(plan.windows.size() == 2);
    CHECK(plan.windows[0].base == 0x40000000u);
    CHECK(plan.windows[0].size == 1024u);
    CHECK(plan.windows[1].base == 0x50000000u);
}

TEST_CASE("memory map: bit-banding maps the two aliases, and refuses memory or a device in their way") {
    // The alias arithmetic of the ARM ARM's example: bit 2 of byte 0x20000300 is alias word 0x22006008.
    auto t = emu::bit_band_target(0x22006008u, 4);
    REQUIRE(t);
    CHECK(t->address == 0x20000300u);
    CHECK(t->bit == 2);
    // A word access targets the word holding the bit; a byte access the byte.
    t = emu::bit_band_target(0x42000000u + 0x1001u * 32 + 7 * 4, 4);
    CHECK((t->address == 0x40001000u && t->bit == 15));
    t = emu::bit_band_target(0x42000000u + 0x1001u * 32 + 7 * 4, 1);
    CHECK((t->address == 0x40001001u && t->bit == 7));
    CHECK(!emu::bit_band_target(0x24000000u, 4));
    CHECK(!emu::bit_band_target(0x21FFFFFFu, 4));

    auto c = with_regions({{"ram", 0x20000000, 0x10000}, {"apb", 0x40000000, 0x10000, 0, true}});
    c.bit_band = true;
    auto plan = emu::plan_memory(c, 1024);
    std::vector<std::uint32_t> bases;
    for (const auto& w : plan.windows) bases.push_back(w.base);
    CHECK(std::count(bases.begin(), bases.end(), 0x22000000u) == 1);
    CHECK(std::count(bases.begin(), bases.end(), 0x42000000u) == 1);
    // A region declared over the whole peripheral space holds the alias already: no second window.
    auto wide = with_regions({{"ram", 0x20000000, 0x10000}, {"periph", 0x40000000, 0x20000000, 0, true}});
    wide.bit_band = true;
    CHECK(emu::plan_memory(wide, 1024).windows.size() == 2);
    auto in_way = with_regions({{"ram", 0x20000000, 0x10000}, {"sram2", 0x22000000, 0x1000}});
    in_way.bit_band = true;
    CHECK_THROWS_WITH_AS(emu::plan_memory(in_way, 1024),
                         doctest::Contains("bit_band: the bit-band alias 0x22000000-0x23ffffff overlaps memory region sram2"), ConfigError);
    auto device = with_regions({{"ram", 0x20000000, 0x10000}});
    device.bit_band = true;
    add_stub(device, "d", 0x42000100, 0x100);
    CHECK_THROWS_WITH_AS(emu::plan_memory(device, 1024), doctest::Contains("overlaps device d"), ConfigError);
}

TEST_CASE("memory map: devices may not overlap memory or each other") {
    auto c = with_regions({{"ram", 0x20000000, 0x10000}});
    add_stub(c, "in_ram", 0x20000100, 0x10);
    CHECK_THROWS_WITH_AS(emu::plan_memory(c, 1024), doctest::Contains("device in_ram"), ConfigError);
    auto d = with_regions({{"ram", 0x20000000, 0x10000}});
    add_stub(d, "a", 0x40000000, 0x100);
    add_stub(d, "b", 0x40000080, 0x100);
    CHECK_THROWS_WITH_AS(emu::plan_memory(d, 1024), doctest::Contains("overlaps device b"), ConfigError);
}
