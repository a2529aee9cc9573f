#include <doctest/doctest.h>

#include "config/node.h"
#include "emu/memory_map.h"
#include "emu/peripherals/registry.h"

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

TEST_CASE("memory map: devices may not overlap memory or each other") {
    auto c = with_regions({{"ram", 0x20000000, 0x10000}});
    add_stub(c, "in_ram", 0x20000100, 0x10);
    CHECK_THROWS_WITH_AS(emu::plan_memory(c, 1024), doctest::Contains("device in_ram"), ConfigError);
    auto d = with_regions({{"ram", 0x20000000, 0x10000}});
    add_stub(d, "a", 0x40000000, 0x100);
    add_stub(d, "b", 0x40000080, 0x100);
    CHECK_THROWS_WITH_AS(emu::plan_memory(d, 1024), doctest::Contains("overlaps device b"), ConfigError);
}
