// Devices from an SVD description: the register file's bit-level access (write-1-to-clear,
// clear-on-read, read-only, write-only, byte lanes), the scenario's rules over named fields, and
// the STM32F1 models on ST's own SVD: RCC's clock tree, the USART's shift register at the baud
// rate, a timer's update interrupt at its cycle and its trigger wires, GPIO's BSRR, EXTI's software
// interrupt, DMA channels run at once or paced by requests, the ADC's conversions at ADCCLK.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "decode/svd/svd_device.h"
#include "emu/peripherals/register_peripheral.h"
#include "emu/peripherals/registry.h"
#include "emutrace/config.h"
#include "emutrace/config_error.h"
#include "support/paths.h"

using namespace emutrace;

namespace {

// What a device asks of the machine, with a clock tree and wake-ups a test drives by hand.
struct FakeHost final : emu::DeviceHost {
    std::uint64_t time = 0;
    std::map<unsigned, bool> lines;
    std::string out;
    std::map<std::uint32_t, std::string> warnings;
    std::map<std::string, std::uint64_t, std::less<>> clocks;
    std::uint64_t wake = ~std::uint64_t{0};
    std::uint64_t now() const override { return time; }
    void stall(std::uint32_t) override {}
    void set_irq(bool level) override { lines[0] = level; }
    void set_irq_line(unsigned line, bool level) override { lines[line] = level; }
    void output(std::string_view t) override { out += t; }
    void user_event(std::uint32_t, std::uint32_t) override {}
    void warn_once(std::uint32_t off, std::string_view what) override { warnings[off] = what; }
    void wake_at(std::uint64_t cycle) override { wake = cycle; }
    // Wires driven high, in order ("TIM2.TRGO"), at the cycles they went; the lines some device
    // of the board is said to drive; a bus read's side effect (a data register's read dropping
    // its DMA request).
    std::vector<std::pair<std::string, std::uint64_t>> wires;
    std::vector<std::string> driven;
    std::function<void(std::uint32_t)> on_read;
    bool wired(std::string_view line) const override { return std::find(driven.begin(), driven.end(), line) != driven.end(); }
    void signal(std::string_view line, bool level) override {
        if (level) wires.emplace_back(std::string(line), time);
    }
    void set_clock(std::string_view name, std::uint64_t hz) override { clocks[std::string(name)] = hz; }
    std::uint64_t clock(std::string_view name) const override {
        auto it = clocks.find(name);
        return it == clocks.end() ? 0 : it->second;
    }
    // A bus for bus masters: 64 words of RAM at 0x20000000, flash (read-only) at 0x08000000.
    std::vector<std::uint32_t> ram = std::vector<std::uint32_t>(64, 0);
    // Flash a controller programs (DeviceHost::program), byte by byte; reads of it see what it holds.
    std::map<std::uint32_t, std::uint8_t> rom;
    bool program(std::uint32_t address, std::span<const std::uint8_t> bytes) override {
        for (std::size_t i = 0; i < bytes.size(); ++i) rom[address + static_cast<std::uint32_t>(i)] = bytes[i];
        return true;
    }
    bool bus_read(std::uint32_t address, unsigned width, std::uint32_t& value) override {
        if (on_read) on_read(address);
        if (rom.count(address)) {
            value = 0;
            for (unsigned i = 0; i < width; ++i) value |= std::uint32_t{rom[address + i]} << (8 * i);
            return true;
        }
        if (address >= 0x08000000u && address < 0x08000100u) return value = address, true;
        if (address < 0x20000000u || address >= 0x20000100u) return false;
        value = ram[(address - 0x20000000u) / 4];
        return true;
    }
    bool bus_write(std::uint32_t address, unsigned, std::uint32_t value) override {
        if (address < 0x20000000u || address >= 0x20000100u) return false;  // flash and holes refuse a store
        ram[(address - 0x20000000u) / 4] = value;
        return true;
    }
    // Runs the device's own time up to `t`, as the machine would.
    void advance(emu::Peripheral& p, std::uint64_t t) {
        while (wake <= t) {
            time = wake;
            wake = ~std::uint64_t{0};
            p.on_time(time);
        }
        time = t;
    }
};

const decode::svd::Device& stm32f100() {
    static const decode::svd::Device d = decode::svd::read_device(test::source("scenarios/boards/svd/STM32F100.svd"));
    return d;
}

std::unique_ptr<emu::Peripheral> model(const std::string& type, const std::string& name, FakeHost& host, const std::string& params = "{}") {
    auto root = config::Node::load_string("type: " + type + "\nparams: " + params + "\n", "p.yaml");
    auto dev = emu::make_peripheral(root["type"], root["params"], stm32f100().peripheral(name));
    dev->attach(host);
    dev->reset();
    return dev;
}

constexpr const char* kPart = R"(<device><name>PART</name><peripherals><peripheral>
  <name>DEV</name><baseAddress>0x40000000</baseAddress>
  <registers>
    <register><name>SR</name><addressOffset>0</addressOffset><resetValue>0x10</resetValue><fields>
      <field><name>DONE</name><bitOffset>0</bitOffset><bitWidth>1</bitWidth><modifiedWriteValues>oneToClear</modifiedWriteValues></field>
      <field><name>ERR</name><bitOffset>1</bitOffset><bitWidth>1</bitWidth><readAction>clear</readAction></field>
      <field><name>READY</name><bitOffset>4</bitOffset><bitWidth>1</bitWidth><access>read-only</access></field>
      <field><name>BUSY</name><bitOffset>5</bitOffset><bitWidth>1</bitWidth><access>read-only</access></field>
    </fields></register>
    <register><name>CR</name><addressOffset>4</addressOffset><fields>
      <field><name>EN</name><bitOffset>0</bitOffset><bitWidth>1</bitWidth></field>
      <field><name>START</name><bitOffset>1</bitOffset><bitWidth>1</bitWidth></field>
      <field><name>MODE</name><bitOffset>8</bitOffset><bitWidth>8</bitWidth></field>
    </fields></register>
    <register><name>KEY</name><addressOffset>8</addressOffset><access>write-only</access></register>
    <register><name>DR</name><addressOffset>12</addressOffset></register>
  </registers></peripheral></peripherals></device>)";

std::unique_ptr<emu::RegisterPeripheral> part(FakeHost& host, const std::string& rules = "") {
    static const decode::svd::Device d = decode::svd::parse_device(kPart, "part.svd");
    auto dev =
        std::unique_ptr<emu::RegisterPeripheral>(static_cast<emu::RegisterPeripheral*>(emu::make_svd_registers(*d.peripheral("DEV")).release()));
    dev->attach(host);
    if (!rules.empty()) {
        auto root = config::Node::load_string(rules, "rules.yaml");
        for (const auto& r : root.items()) dev->add_rule(r, (r.has("field") ? r["field"] : r["register"]).str().substr(4));
    }
    dev->reset();
    return dev;
}

}  // namespace

TEST_CASE("svd registers: each bit as its field's access and actions say") {
    FakeHost host;
    auto dev = part(host);
    CHECK(dev->size() == 16);
    CHECK(dev->read(0, 4) == 0x10u);
    dev->write(0, 4, 0xff);  // DONE is write-1-to-clear (was 0), ERR plain, READY and BUSY read-only
    CHECK(dev->read(0, 4) == 0x12u);
    CHECK(dev->read(0, 4) == 0x10u);  // ERR cleared by the read before
    dev->set_register("SR.DONE", 1);
    dev->write(0, 4, 0x0);  // a 0 leaves a write-1-to-clear bit
    CHECK((dev->read(0, 4) & 1) == 1u);
    dev->write(0, 4, 0x1);
    CHECK((dev->read(0, 4) & 1) == 0u);
    dev->write(4 + 1, 1, 0x5a);  // a byte store to CR's second byte: MODE alone
    CHECK(dev->read(4, 4) == 0x5a00u);
    CHECK(dev->read(5, 1) == 0x5au);
    CHECK(dev->read(8, 4) == 0u);  // write-only
    CHECK(host.warnings.count(8));
    CHECK(dev->read(0x20, 4) == 0u);  // no register there
    CHECK(host.warnings.at(0x20).find("no register of DEV") != std::string::npos);
}

TEST_CASE("svd rules: follows, settles, value, set_by and cleared_by, output") {
    FakeHost host;
    auto dev = part(host, R"([
        {field: DEV.SR.BUSY, follows: DEV.CR.EN, after: 100},
        {field: DEV.CR.START, settles: 0, after: 10},
        {field: DEV.SR.READY, value: 0},
        {field: DEV.SR.DONE, set_by: DEV.CR.START, after: 5, cleared_by: [DEV.SR, DEV.DR]},
        {register: DEV.DR, output: console}])");
    CHECK((dev->read(0, 4) & 0x10) == 0u);  // READY reads 0 whatever its reset value
    dev->write(4, 4, 1);                    // EN
    host.time = 99;
    CHECK((dev->read(0, 4) & 0x20) == 0u);
    host.time = 100;
    CHECK((dev->read(0, 4) & 0x20) == 0x20u);  // BUSY followed EN 100 cycles later
    dev->write(4, 4, 3);                       // START
    CHECK((dev->read(4, 4) & 2) == 2u);
    host.time = 105;
    CHECK((dev->read(0, 4) & 1) == 1u);  // DONE, 5 cycles after START
    host.time = 110;
    CHECK((dev->read(4, 4) & 2) == 0u);  // START settled back to 0
    CHECK((dev->read(0, 4) & 1) == 1u);  // a read of SR alone leaves DONE (the sequence is SR, then DR)
    dev->read(12, 4);
    CHECK((dev->read(0, 4) & 1) == 0u);
    dev->write(12, 4, 'h');
    dev->write(12, 4, 'i');
    CHECK(host.out == "hi");
}

TEST_CASE("svd rules: a mistake names the rule") {
    FakeHost host;
    auto error = [&](const std::string& rules) {
        try {
            part(host, rules);
        } catch (const ConfigError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(error("[{field: DEV.SR.NOPE, value: 1}]").find("no field or register 'DEV.SR.NOPE'") != std::string::npos);
    CHECK(error("[{field: DEV.SR.DONE, value: 2}]").find("the value does not fit the field") != std::string::npos);
    CHECK(error("[{field: DEV.SR.DONE, value: 1, follows: DEV.CR.EN}]").find("a rule does exactly one of") != std::string::npos);
    CHECK(error("[{field: DEV.SR.DONE, write: sometimes}]").find("expected an SVD modifiedWriteValues") != std::string::npos);
}

TEST_CASE("stm32.rcc: the clock tree follows CFGR: HSE 8 MHz x3 on the PLL, APB1 halved, timers doubled") {
    FakeHost host;
    auto rcc = model("stm32.rcc", "RCC", host);
    CHECK(host.clocks.at("core") == 8'000'000u);  // the HSI at reset
    // PLLSRC=HSE, PLLMUL=x3, PPRE1=/2, SW=PLL
    rcc->write(0x4, 4, (1u << 16) | (1u << 18) | (4u << 8) | 2u);
    CHECK(host.clocks.at("core") == 24'000'000u);
    CHECK(host.clocks.at("pclk1") == 12'000'000u);
    CHECK(host.clocks.at("tim_pclk1") == 24'000'000u);
    CHECK(host.clocks.at("pclk2") == 24'000'000u);
    rcc->write(0x4, 4, (1u << 16) | (1u << 18) | (8u << 4) | 2u);  // HPRE=/2
    CHECK(host.clocks.at("core") == 12'000'000u);
}

TEST_CASE("stm32.usart: a byte shifts out at the baud rate, the next waits in DR with TXE clear") {
    FakeHost host;
    host.clocks = {{"core", 24'000'000}, {"pclk2", 24'000'000}};
    auto u = model("stm32.usart", "USART1", host, "{clock: pclk2, output: none}");
    u->write(0x8, 4, 208);                                             // BRR: 115,200 baud at 24 MHz
    u->write(0xC, 4, (1u << 13) | (1u << 3) | (1u << 2) | (1u << 7));  // UE, TE, RE, TXEIE
    CHECK(host.lines[0]);                                              // TXE with its interrupt enabled
    u->write(0x4, 4, 'a');
    CHECK(host.out == "a");
    CHECK((u->read(0x0, 4) & 0x80) == 0x80u);  // the shift register took it: TXE
    CHECK((u->read(0x0, 4) & 0x40) == 0u);     // but not TC
    u->write(0x4, 4, 'b');
    CHECK((u->read(0x0, 4) & 0x80) == 0u);  // 'b' waits in DR
    CHECK_FALSE(host.lines[0]);
    CHECK(host.wake == 2080u);  // a frame of 10 bits of 208 cycles
    host.advance(*u, 2080);
    CHECK(host.out == "ab");
    CHECK((u->read(0x0, 4) & 0x80) == 0x80u);
    host.advance(*u, 4160);
    CHECK((u->read(0x0, 4) & 0x40) == 0x40u);  // both sent: TC
    u->receive("x");
    CHECK((u->read(0x0, 4) & 0x20) == 0x20u);  // RXNE
    CHECK(u->read(0x4, 4) == 'x');
    CHECK((u->read(0x0, 4) & 0x20) == 0u);
}

TEST_CASE("stm32.timer: the update interrupt at (PSC+1)(ARR+1) timer clocks, UIF cleared by writing 0") {
    FakeHost host;
    host.clocks = {{"core", 24'000'000}, {"tim_pclk1", 24'000'000}};
    auto t = model("stm32.timer", "TIM2", host);
    t->write(0x28, 4, 23);   // PSC
    t->write(0x2C, 4, 999);  // ARR
    t->write(0x14, 4, 1);    // EGR.UG: loads PSC, sets UIF
    CHECK((t->read(0x10, 4) & 1) == 1u);
    t->write(0x10, 4, ~1u);  // SR = ~UIF clears UIF alone
    CHECK((t->read(0x10, 4) & 1) == 0u);
    t->write(0x0C, 4, 1);  // DIER.UIE
    t->write(0x00, 4, 1);  // CR1.CEN
    CHECK(host.wake == 24'000u);
    host.advance(*t, 12'000);
    CHECK(t->read(0x24, 4) == 500u);  // CNT halfway
    CHECK_FALSE(host.lines[0]);
    host.advance(*t, 24'000);
    CHECK(host.lines[0]);
    CHECK(t->read(0x24, 4) == 0u);
    t->write(0x10, 4, 0);
    CHECK_FALSE(host.lines[0]);
    host.advance(*t, 48'000);
    CHECK(host.lines[0]);  // and again one period later
}

TEST_CASE("stm32.timer: TRGO as CR2.MMS selects it, and a compare event on an enabled channel's wire") {
    FakeHost host;
    host.clocks = {{"core", 24'000'000}, {"tim_pclk1", 24'000'000}};
    auto t = model("stm32.timer", "TIM2", host);
    t->write(0x28, 4, 23);   // PSC: 1 MHz
    t->write(0x2C, 4, 999);  // ARR: an update each 1 ms
    t->write(0x14, 4, 1);    // EGR.UG with MMS = reset: UG is TRGO
    REQUIRE(host.wires.size() == 1);
    CHECK(host.wires[0].first == "TIM2.TRGO");
    host.wires.clear();
    t->write(0x04, 4, 2u << 4);  // CR2.MMS = update
    t->write(0x34, 4, 250);      // CCR1
    t->write(0x20, 4, 1);        // CCER.CC1E
    t->write(0x00, 4, 1);        // CR1.CEN; no interrupt enabled, yet the timer wakes for its wires
    host.advance(*t, 48'000);
    REQUIRE(host.wires.size() == 4);
    CHECK(host.wires[0] == std::pair<std::string, std::uint64_t>{"TIM2.CC1", 6'000});
    CHECK(host.wires[1] == std::pair<std::string, std::uint64_t>{"TIM2.TRGO", 24'000});
    CHECK(host.wires[2] == std::pair<std::string, std::uint64_t>{"TIM2.CC1", 30'000});
    CHECK(host.wires[3] == std::pair<std::string, std::uint64_t>{"TIM2.TRGO", 48'000});
}

TEST_CASE("stm32.timer: a PWM mode 1 output drives its channel's wire high below CCRn and low from it, forced levels at once") {
    FakeHost host;
    host.clocks = {{"core", 24'000'000}, {"tim_pclk1", 24'000'000}};
    auto t = model("stm32.timer", "TIM3", host);
    t->write(0x28, 4, 23);       // PSC: 1 MHz
    t->write(0x2C, 4, 999);      // ARR: 1 ms
    t->write(0x34, 4, 250);      // CCR1: 25%
    t->write(0x18, 4, 6u << 4);  // CCMR1.OC1M = PWM mode 1
    t->write(0x20, 4, 1);        // CCER.CC1E: the output follows OC1REF, high at count 0
    t->write(0x14, 4, 1);        // UG
    t->write(0x00, 4, 1);        // CEN
    host.advance(*t, 3 * 24'000);
    // Falls at 250 us, rises at each update (the wires list rising edges; CC1 pulses at each match).
    std::vector<std::uint64_t> high;
    for (const auto& [wire, at] : host.wires)
        if (wire == "TIM3.CH1") high.push_back(at);
    CHECK(high == std::vector<std::uint64_t>{0, 24'000, 48'000, 72'000});
    CHECK(host.wake == 3 * 24'000u + 6'000u);  // the next fall
    t->write(0x18, 4, 5u << 4);                // force active: already high, no edge
    t->write(0x18, 4, 4u << 4);                // force inactive
    t->write(0x18, 4, 5u << 4);                // force active: a rising edge at once
    std::size_t rises = 0;
    for (const auto& w : host.wires) rises += w.first == "TIM3.CH1";
    CHECK(rises == 5);
}

TEST_CASE("stm32.dma: a channel whose request line a device drives moves an item each time it finds the line high, circular mode starting over") {
    FakeHost host;
    host.driven = {"DMA1.1"};
    auto dma = model("stm32.dma", "DMA1", host);
    // The "peripheral" at 0x08000010 drops its request when it is read, as a data register does.
    host.on_read = [&](std::uint32_t address) {
        if (address == 0x08000010u) dma->on_signal("DMA1.1", false);
    };
    dma->write(0x0C, 4, 2);            // CNDTR1
    dma->write(0x10, 4, 0x08000010u);  // CPAR1 (the fake bus reads an address there as its value)
    dma->write(0x14, 4, 0x20000000u);  // CMAR1
    // 32-bit, memory incremented, circular, TC interrupt, peripheral to memory (DIR clear).
    dma->write(0x08, 4, (2u << 10) | (2u << 8) | (1u << 7) | (1u << 5) | (1u << 1) | 1u);
    CHECK(host.ram[0] == 0u);        // nothing moves before a request
    dma->on_signal("DMA2.1", true);  // another controller's line
    CHECK(host.ram[0] == 0u);
    dma->on_signal("DMA1.1", true);
    CHECK(host.ram[0] == 0x08000010u);
    CHECK(host.ram[1] == 0u);  // one item: the read dropped the line
    CHECK(dma->read(0x0C, 4) == 1u);
    CHECK((dma->read(0x00, 4) & 0x6) == 0x4u);  // HTIF1, not TCIF1
    CHECK(dma->read(0x14, 4) == 0x20000000u);   // CMAR keeps what was written
    host.ram[0] = 0;
    dma->on_signal("DMA1.1", true);
    CHECK(host.ram[1] == 0x08000010u);
    CHECK((dma->read(0x00, 4) & 0x2) == 0x2u);  // TCIF1
    CHECK(host.lines[0]);
    CHECK(dma->read(0x0C, 4) == 2u);  // circular: the count again
    dma->on_signal("DMA1.1", true);
    CHECK(host.ram[0] == 0x08000010u);  // and from the start of the buffer
    // A line that stays high whatever is read (CPAR elsewhere) moves one pass, then goes on at
    // the next cycle: never an endless loop inside one call.
    host.on_read = nullptr;
    host.ram = std::vector<std::uint32_t>(64, 0);
    dma->on_signal("DMA1.1", true);
    CHECK(host.ram[0] == 0x08000010u);
    CHECK(host.ram[1] == 0x08000010u);
    CHECK(host.wake == 1u);
}

TEST_CASE("stm32.adc: a software-started conversion at ADCCLK, a timer-triggered injected one with its offset and interrupt") {
    FakeHost host;
    host.clocks = {{"core", 24'000'000}, {"adcclk", 12'000'000}};
    auto adc = model("stm32.adc", "ADC1", host, "{inputs: {3: 1234, 17: 1000}}");
    adc->write(0x34, 4, 3);  // SQR3.SQ1 = channel 3
    adc->write(0x08, 4, 1);  // CR2.ADON: power up, no conversion
    CHECK(host.wake == ~std::uint64_t{0});
    adc->write(0x08, 4, 1u | (7u << 17) | (1u << 20));  // EXTSEL = SWSTART, EXTTRIG: a configuration, not a start
    CHECK(host.wake == ~std::uint64_t{0});
    adc->write(0x08, 4, 1u | (7u << 17) | (1u << 20) | (1u << 22));  // SWSTART
    CHECK((adc->read(0x08, 4) & (1u << 22)) == 0u);                  // cleared as the conversion starts
    // SMP3 = 0: 1.5 + 12.5 ADC clocks = 14 at 12 MHz, 28 core cycles.
    CHECK(host.wake == 28u);
    host.advance(*adc, 27);
    CHECK((adc->read(0x00, 4) & 2) == 0u);  // EOC not yet
    host.advance(*adc, 28);
    CHECK((adc->read(0x00, 4) & 2) == 2u);
    CHECK(adc->read(0x4C, 4) == 1234u);  // DR, whose read clears EOC
    CHECK((adc->read(0x00, 4) & 2) == 0u);
    // Injected: JSQ4 = 17 (one conversion), JOFR1 = 100, JEXTSEL = TIM2 TRGO, JEOCIE.
    adc->write(0x38, 4, 17u << 15);
    adc->write(0x14, 4, 100);
    adc->write(0x04, 4, 1u << 7);
    adc->write(0x08, 4, 1u | (2u << 12) | (1u << 15));
    adc->on_signal("TIM3.TRGO", true);  // not the selected trigger
    CHECK(host.wake == ~std::uint64_t{0});
    adc->on_signal("TIM2.TRGO", true);
    CHECK(host.wake == 28u + 28u);
    host.advance(*adc, 56);
    CHECK((adc->read(0x00, 4) & 4) == 4u);  // JEOC
    CHECK(host.lines[0]);
    CHECK(adc->read(0x3C, 4) == 900u);  // JDR1 = 1000 - JOFR1
    adc->write(0x00, 4, ~4u);           // JEOC is write-0-to-clear
    CHECK_FALSE(host.lines[0]);
}

TEST_CASE("stm32.i2c: SB and ADDR raise the event interrupt, a NACKed address the error interrupt, bytes take nine SCL periods") {
    FakeHost host;
    host.clocks = {{"core", 24'000'000}, {"pclk1", 24'000'000}};
    auto i2c = model("stm32.i2c", "I2C1", host, "{targets: [{address: 0x48, memory: {2: [0xab]}}]}");
    i2c->write(0x1C, 4, 120);              // CCR: 100 kHz, 240 core cycles a period
    i2c->write(0x04, 4, 24u | (3u << 8));  // CR2: FREQ, ITEVTEN, ITERREN
    i2c->write(0x00, 4, 1u | (1u << 8));   // CR1: PE, START
    CHECK(host.wake == 240u);
    host.advance(*i2c, 240);
    CHECK((i2c->read(0x14, 4) & 1) == 1u);  // SB
    CHECK(host.lines[0]);                   // I2C1_EV
    i2c->write(0x10, 4, 0x90);              // the address 0x48, write
    CHECK_FALSE(host.lines[0]);             // SB cleared by the address
    host.advance(*i2c, 240 + 9 * 240);
    CHECK((i2c->read(0x14, 4) & 2) == 2u);  // ADDR
    CHECK((i2c->read(0x18, 4) & 7) == 7u);  // SR2: MSL, BUSY, TRA (ADDR clears: SR1 then SR2)
    CHECK((i2c->read(0x14, 4) & 2) == 0u);
    i2c->write(0x10, 4, 2);  // the register pointer
    host.advance(*i2c, 240 + 18 * 240);
    CHECK((i2c->read(0x14, 4) & 4) == 4u);  // BTF
    i2c->write(0x00, 4, 1u | (1u << 8));    // repeated START
    host.advance(*i2c, 240 + 19 * 240);
    i2c->write(0x10, 4, 0x91);  // read
    host.advance(*i2c, 240 + 28 * 240);
    i2c->read(0x14, 4);
    i2c->read(0x18, 4);  // ADDR cleared: the target starts sending, ACK clear: one byte
    host.advance(*i2c, 240 + 37 * 240);
    CHECK((i2c->read(0x14, 4) & 0x40) == 0x40u);  // RxNE
    CHECK(i2c->read(0x10, 4) == 0xabu);
    i2c->write(0x00, 4, 1u | (1u << 9));  // STOP
    CHECK((i2c->read(0x18, 4) & 3) == 0u);
    // Nobody at 0x50: AF, the error interrupt.
    i2c->write(0x00, 4, 1u | (1u << 8));
    host.advance(*i2c, host.time + 240);
    i2c->read(0x14, 4);
    i2c->write(0x10, 4, 0xa0);
    host.advance(*i2c, host.time + 9 * 240);
    CHECK((i2c->read(0x14, 4) & (1u << 10)) != 0u);  // AF
    CHECK(host.lines[1]);                            // I2C1_ER
    i2c->write(0x14, 4, ~(1u << 10));                // AF is write-0-to-clear
    CHECK_FALSE(host.lines[1]);
}

TEST_CASE("stm32.flash: unlocked by KEY1 then KEY2, PG programs an erased half-word, a page erase, BSY for their time") {
    FakeHost host;
    host.clocks = {{"core", 24'000'000}};
    auto flash = model("stm32.flash", "FLASH", host, "{flash: 0x08000000, size: 4KiB, page: 1KiB, program_time: 50us, erase_time: 1ms}");
    CHECK_FALSE(flash->store_to_rom(0x08000400, 2, 0x1234));  // locked: the core's fault
    flash->write(0x10, 4, 1);                                 // CR.PG while locked: ignored
    CHECK((flash->read(0x10, 4) & 0x81) == 0x80u);
    flash->write(0x04, 4, 0x45670123);
    flash->write(0x04, 4, 0xCDEF89AB);
    CHECK((flash->read(0x10, 4) & 0x80) == 0u);               // unlocked
    CHECK_FALSE(flash->store_to_rom(0x08000400, 2, 0x1234));  // no PG: still a fault
    flash->write(0x10, 4, 2);                                 // PER
    flash->write(0x14, 4, 0x08000456);                        // AR inside the second page
    flash->write(0x10, 4, 2 | (1u << 6));                     // STRT
    CHECK(host.rom.size() == 1024);
    CHECK(host.rom.begin()->first == 0x08000400u);
    CHECK((flash->read(0x0C, 4) & 1) == 1u);  // BSY for tERASE
    host.advance(*flash, 24'000);
    CHECK((flash->read(0x0C, 4) & 0x21) == 0x20u);  // EOP, not BSY
    flash->write(0x0C, 4, 0x20);                    // EOP is write-1-to-clear
    flash->write(0x10, 4, 1);                       // PG
    CHECK(flash->store_to_rom(0x08000400, 2, 0x1234));
    CHECK(host.rom[0x08000400] == 0x34);
    CHECK(host.rom[0x08000401] == 0x12);
    CHECK(host.wake == 24'000u + 1'200u);  // tPROG
    host.advance(*flash, 25'200);
    CHECK(flash->store_to_rom(0x08000400, 2, 0x4321));  // taken, but not erased: PGERR
    CHECK((flash->read(0x0C, 4) & 4) == 4u);
    CHECK(host.rom[0x08000400] == 0x34);
    CHECK(flash->store_to_rom(0x08000402, 4, 0));  // a word store: PGERR, nothing written
    CHECK(host.rom[0x08000402] == 0xff);
    CHECK_FALSE(flash->store_to_rom(0x08001000, 2, 0));  // past the flash
}

TEST_CASE("stm32.gpio and stm32.exti: BSRR sets and resets ODR, SWIER pends EXTI0 until PR is written 1") {
    FakeHost host;
    auto gpio = model("stm32.gpio", "GPIOC", host);
    gpio->write(0x4, 4, 0x44444422);  // CRH: PC8, PC9 outputs
    gpio->write(0x10, 4, (1u << 8) | (1u << 9));
    CHECK(gpio->read(0xC, 4) == 0x300u);
    gpio->write(0x10, 4, 1u << (16 + 8));
    CHECK(gpio->read(0xC, 4) == 0x200u);
    gpio->write(0x14, 4, 1u << 9);  // BRR
    CHECK(gpio->read(0xC, 4) == 0u);
    gpio->set_register("IDR", 1u << 0);  // an input pin driven from outside
    CHECK(gpio->read(0x8, 4) == 1u);

    FakeHost ehost;
    auto exti = model("stm32.exti", "EXTI", ehost);
    exti->write(0x0, 4, 1);   // IMR
    exti->write(0x10, 4, 1);  // SWIER
    CHECK(exti->read(0x14, 4) == 1u);
    CHECK(ehost.lines[1]);  // EXTI0: the SVD's second EXTI interrupt (after TAMPER)
    exti->write(0x14, 4, 1);
    CHECK(exti->read(0x14, 4) == 0u);
    CHECK(exti->read(0x10, 4) == 0u);
    CHECK_FALSE(ehost.lines[1]);
}

TEST_CASE("stm32.crc: the CRC-32 of the words written to DR, as ST's units compute it") {
    FakeHost host;
    auto crc = model("stm32.crc", "CRC", host);
    CHECK(crc->read(0x0, 4) == 0xFFFFFFFFu);
    crc->write(0x0, 4, 0x12345678u);
    CHECK(crc->read(0x0, 4) == 0xDF8A8A2Bu);  // the value ST's application notes give for this word
    crc->write(0x8, 4, 1);                    // CR.RESET
    CHECK(crc->read(0x0, 4) == 0xFFFFFFFFu);
}

TEST_CASE("stm32.dma: memory to memory through the bus, a store flash refuses is a transfer error that stops the channel") {
    FakeHost host;
    auto dma = model("stm32.dma", "DMA1", host);
    // Channel 1: MEM2MEM, 32-bit, both addresses incremented, TC interrupt: 0x08000010.. to RAM.
    const std::uint32_t ccr = (1u << 14) | (2u << 10) | (2u << 8) | (1u << 7) | (1u << 6) | (1u << 1);
    dma->write(0x0C, 4, 4);            // CNDTR1
    dma->write(0x10, 4, 0x08000010u);  // CPAR1: the source
    dma->write(0x14, 4, 0x20000000u);  // CMAR1
    dma->write(0x08, 4, ccr);
    CHECK(host.ram[0] == 0u);  // not before EN
    dma->write(0x08, 4, ccr | 1);
    CHECK(host.ram[0] == 0x08000010u);
    CHECK(host.ram[3] == 0x0800001Cu);
    CHECK((dma->read(0x00, 4) & 0xf) == 0x7u);  // GIF1, TCIF1, HTIF1
    CHECK(dma->read(0x0C, 4) == 0u);
    CHECK(host.lines[0]);    // DMA1_Channel1
    dma->write(0x04, 4, 1);  // IFCR.CGIF1 clears all four
    CHECK((dma->read(0x00, 4) & 0xf) == 0u);
    CHECK_FALSE(host.lines[0]);
    // Channel 2 the other way: into flash, which refuses the store.
    dma->write(0x20, 4, 2);
    dma->write(0x24, 4, 0x20000000u);
    dma->write(0x28, 4, 0x08000000u);
    dma->write(0x1C, 4, (1u << 14) | (2u << 10) | (2u << 8) | 1u);
    CHECK((dma->read(0x00, 4) >> 4 & 0x9) == 0x9u);  // GIF2 and TEIF2
    CHECK((dma->read(0x1C, 4) & 1) == 0u);           // the channel stopped
}
