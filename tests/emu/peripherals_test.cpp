#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "emu/peripherals/registry.h"
#include "emutrace/config.h"

using namespace emutrace;

namespace {

// Records what a device asks of the machine.
struct FakeHost final : emu::DeviceHost {
    std::uint64_t time = 0;
    std::uint64_t stalled = 0;
    bool irq = false;
    std::string out;
    std::map<std::uint32_t, std::string> warnings;
    std::uint64_t now() const override { return time; }
    void stall(std::uint32_t c) override { stalled += c; }
    void set_irq(bool level) override { irq = level; }
    void output(std::string_view t) override { out += t; }
    std::vector<std::pair<std::uint32_t, std::uint32_t>> events;
    void user_event(std::uint32_t id, std::uint32_t payload) override { events.emplace_back(id, payload); }
    void warn_once(std::uint32_t off, std::string_view what) override { warnings[off] = what; }
    std::vector<models::MemoryMode> modes;
    void set_memory_mode(const models::MemoryMode& m) override { modes.push_back(m); }
};

std::unique_ptr<emu::Peripheral> make(const std::string& type, const std::string& params, FakeHost& host) {
    auto root = config::Node::load_string("type: " + type + "\nparams: " + params + "\n", "p.yaml");
    auto dev = emu::make_peripheral(root["type"], root["params"]);
    dev->attach(host);
    dev->reset();
    return dev;
}

constexpr const char* kStub = R"({size: 0x20, read_latency: 2, registers: [
    {name: ID, offset: 0x0, reset: 0xCAFE0001, access: ro},
    {name: DATA, offset: 0x4, sequence: [1, 2, 3], then: wrap, access: ro},
    {name: STATUS, offset: 0x8, schedule: [{at: 100, value: 1}, {at: 200, value: 3}]},
    {name: CMD, offset: 0xC, access: wo, on_write: {ECHO: written, STATUS: {value: 0, after: 50}}},
    {name: ECHO, offset: 0x10}]})";

}  // namespace

TEST_CASE("stub: reset values, read-only registers and byte lanes") {
    FakeHost host;
    auto stub = make("stub", kStub, host);
    CHECK(stub->size() == 0x20);
    CHECK(stub->read(0x0, 4) == 0xCAFE0001u);
    CHECK(stub->read(0x2, 2) == 0xCAFEu);
    CHECK(host.stalled == 4);  // read latency 2 cycles per read
    stub->write(0x0, 4, 0);
    CHECK(stub->read(0x0, 4) == 0xCAFE0001u);
    CHECK(host.warnings.count(0x0));
}

TEST_CASE("stub: read sequences wrap when asked to") {
    FakeHost host;
    auto stub = make("stub", kStub, host);
    std::vector<std::uint32_t> got;
    for (int i = 0; i < 5; ++i) got.push_back(stub->read(0x4, 4));
    CHECK(got == std::vector<std::uint32_t>{1, 2, 3, 1, 2});
}

TEST_CASE("stub: scheduled values follow emulated time") {
    FakeHost host;
    auto stub = make("stub", kStub, host);
    CHECK(stub->read(0x8, 4) == 0);
    host.time = 99;
    CHECK(stub->read(0x8, 4) == 0);
    host.time = 100;
    CHECK(stub->read(0x8, 4) == 1);
    host.time = 250;
    CHECK(stub->read(0x8, 4) == 3);
}

TEST_CASE("stub: writes trigger immediate and delayed effects, write-only reads 0") {
    FakeHost host;
    auto stub = make("stub", kStub, host);
    host.time = 300;
    CHECK(stub->read(0x8, 4) == 3);
    stub->write(0xC, 4, 0xA5);
    CHECK(stub->read(0x10, 4) == 0xA5u);
    CHECK(stub->read(0xC, 4) == 0);
    CHECK(host.warnings.count(0xC));
    host.time = 349;
    CHECK(stub->read(0x8, 4) == 3);
    host.time = 350;
    CHECK(stub->read(0x8, 4) == 0);
}

TEST_CASE("stub: bad descriptions name the line") {
    FakeHost host;
    CHECK_THROWS_WITH_AS(make("stub", "{size: 0x10, registers: [{name: A, offset: 0x10}]}", host), doctest::Contains("p.yaml:2:"), ConfigError);
    CHECK_THROWS_WITH_AS(make("stub", "{size: 0x10, registers: [{name: A, offset: 0, acess: ro}]}", host), doctest::Contains("acess: unknown key"),
                         ConfigError);
    CHECK_THROWS_WITH_AS(make("stub", "{size: 0x10, registers: [{name: A, offset: 0, on_write: {B: 1}}]}", host),
                         doctest::Contains("no register named 'B'"), ConfigError);
    CHECK_THROWS_WITH_AS(make("nonsense", "{}", host), doctest::Contains("known types: cmsdk.uart, stub"), ConfigError);
}

TEST_CASE("cmsdk uart: transmits only when enabled and raises its TX interrupt") {
    FakeHost host;
    auto uart = make("cmsdk.uart", "{output: none}", host);
    uart->write(0x00, 4, 'x');
    CHECK(host.out.empty());
    CHECK(host.warnings.count(0x00));
    uart->write(0x10, 4, 16);
    uart->write(0x08, 4, 0x1 | 0x4);  // TX enable, TX interrupt enable
    CHECK(uart->read(0x10, 4) == 16);
    CHECK((uart->read(0x04, 4) & 1) == 0);  // TX never full
    uart->write(0x00, 4, 'o');
    uart->write(0x00, 4, 'k');
    CHECK(host.out == "ok");
    CHECK(uart->read(0x0C, 4) == 1);
    CHECK(host.irq);
    uart->write(0x0C, 4, 1);  // INTCLEAR
    CHECK(uart->read(0x0C, 4) == 0);
    CHECK_FALSE(host.irq);
}

TEST_CASE("marker: a write to ID emits the event with the last payload") {
    FakeHost host;
    auto marker = make("marker", "{}", host);
    marker->write(0x0, 4, 1234);
    marker->write(0x4, 4, 7);
    marker->write(0x4, 4, 8);
    CHECK(host.events == std::vector<std::pair<std::uint32_t, std::uint32_t>>{{7, 1234}, {8, 1234}});
    CHECK(marker->read(0x8, 4) == 2);
}

TEST_CASE("ti.vims: CTL's mode and line-buffer bits read back in STAT and set the memory system's mode") {
    FakeHost host;
    auto vims = make("ti.vims", "{}", host);
    REQUIRE(!host.modes.empty());
    CHECK(host.modes.back() == models::MemoryMode{true, true});  // reset: cache mode, line buffers on
    CHECK(vims->read(0x0, 4) == 0x1);
    vims->write(0x4, 4, vims->read(0x4, 4) | 0x30);  // SYSBUS_LB_DIS | IDCODE_LB_DIS
    CHECK(host.modes.back() == models::MemoryMode{true, false});
    vims->write(0x4, 4, (vims->read(0x4, 4) & ~0x3u) | 0x3);  // mode off (driverlib VIMSModeSet)
    CHECK(host.modes.back() == models::MemoryMode{false, false});
    CHECK(vims->read(0x0, 4) == 0x33);  // MODE_CHANGING (bit 3) never set: the change is at once
    vims->write(0x4, 4, 0x0);           // GPRAM: no cache, line buffers on
    CHECK(host.modes.back() == models::MemoryMode{false, true});
    auto gpram = make("ti.vims", "{ctl: 0x3}", host);
    CHECK(host.modes.back() == models::MemoryMode{false, true});
}
