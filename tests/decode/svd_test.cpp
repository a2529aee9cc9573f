// CMSIS-SVD reading: ST's STM32F100 file as shipped (derived peripherals, interrupts, reset
// values, field access) and small documents for what ST's files do not use (dim arrays,
// clusters, modifiedWriteValues, readAction, bitRange, inherited properties); broken files give
// one error naming the file and line.
#include <doctest/doctest.h>

#include <string>

#include "decode/svd/svd_device.h"
#include "emutrace/config_error.h"
#include "support/paths.h"

using namespace emutrace;
using namespace emutrace::decode::svd;

namespace {

std::string error_of(const std::string& xml) {
    try {
        parse_device(xml, "part.svd");
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

constexpr const char* kSmall = R"(<?xml version="1.0"?>
<device>
  <name>PART</name>
  <size>32</size><resetValue>0</resetValue><resetMask>0xFFFFFFFF</resetMask>
  <peripherals>
    <peripheral>
      <name>TIMER</name><baseAddress>0x40001000</baseAddress>
      <addressBlock><offset>0</offset><size>0x400</size><usage>registers</usage></addressBlock>
      <interrupt><name>TIMER</name><value>7</value></interrupt>
      <registers>
        <register>
          <name>STATUS</name><addressOffset>0x0</addressOffset><resetValue>0x00000101</resetValue>
          <fields>
            <field><name>DONE</name><bitOffset>0</bitOffset><bitWidth>1</bitWidth>
              <modifiedWriteValues>oneToClear</modifiedWriteValues></field>
            <field><name>ERR</name><bitRange>[3:2]</bitRange><readAction>clear</readAction></field>
            <field><name>READY</name><lsb>8</lsb><msb>8</msb><access>read-only</access></field>
          </fields>
        </register>
        <register>
          <dim>4</dim><dimIncrement>4</dimIncrement><dimIndex>0-3</dimIndex>
          <name>CH%s</name><addressOffset>0x10</addressOffset><size>16</size><access>write-only</access>
        </register>
        <cluster>
          <name>BANK[%s]</name><dim>2</dim><dimIncrement>0x20</dimIncrement><addressOffset>0x100</addressOffset>
          <register><name>CTRL</name><addressOffset>0x4</addressOffset><resetValue>0xAB</resetValue></register>
        </cluster>
      </registers>
    </peripheral>
    <peripheral derivedFrom="TIMER">
      <name>TIMER2</name><baseAddress>0x40002000</baseAddress>
      <interrupt><name>TIMER2</name><value>8</value></interrupt>
    </peripheral>
  </peripherals>
</device>)";

}  // namespace

TEST_CASE("svd: ST's STM32F100 file as the part's registers") {
    const Device d = read_device(test::source("scenarios/boards/svd/STM32F100.svd"));
    CHECK(d.name == "STM32F100");
    CHECK(d.peripherals.size() == 53);
    const Peripheral* rcc = d.peripheral("RCC");
    REQUIRE(rcc);
    CHECK(rcc->base == 0x40021000u);
    REQUIRE(rcc->reg("CR"));
    CHECK(rcc->reg("CR")->reset == 0x83u);  // HSION and HSIRDY: the part starts on the HSI
    const Field* hserdy = rcc->reg("CR")->field("HSERDY");
    REQUIRE(hserdy);
    CHECK(hserdy->lsb == 17);
    CHECK(hserdy->access == Access::ReadOnly);
    // USART2 is derivedFrom USART1: the same registers at its own base, with its own interrupt.
    const Peripheral* u2 = d.peripheral("USART2");
    REQUIRE(u2);
    CHECK(u2->base == 0x40004400u);
    CHECK(u2->registers.size() == d.peripheral("USART1")->registers.size());
    REQUIRE(u2->interrupts.size() == 1);
    CHECK(u2->interrupts[0].number == 38);
    CHECK(u2->reg("SR")->reset == 0xC0u);  // TXE and TC
    const Peripheral* exti = d.peripheral("EXTI");
    REQUIRE(exti);
    CHECK(exti->interrupts.size() == 8);
    CHECK(exti->size == 0x400);
}

TEST_CASE("svd: dim arrays, clusters, write and read actions, bit ranges, inherited sizes") {
    const Device d = parse_device(kSmall, "part.svd");
    const Peripheral* t = d.peripheral("TIMER");
    REQUIRE(t);
    const Register* status = t->reg("STATUS");
    REQUIRE(status);
    CHECK(status->reset == 0x101u);
    CHECK(status->field("DONE")->write == WriteAction::OneToClear);
    CHECK(status->field("ERR")->lsb == 2);
    CHECK(status->field("ERR")->width == 2);
    CHECK(status->field("ERR")->read == ReadAction::Clear);
    CHECK(status->field("READY")->access == Access::ReadOnly);
    for (int i = 0; i < 4; ++i) {
        const Register* ch = t->reg("CH" + std::to_string(i));
        REQUIRE(ch);
        CHECK(ch->offset == 0x10u + 4u * static_cast<unsigned>(i));
        CHECK(ch->bytes == 2);
        CHECK(ch->access == Access::WriteOnly);
    }
    REQUIRE(t->reg("BANK1.CTRL"));
    CHECK(t->reg("BANK1.CTRL")->offset == 0x124u);
    CHECK(t->reg("BANK0.CTRL")->reset == 0xABu);
    const Peripheral* t2 = d.peripheral("TIMER2");
    REQUIRE(t2);
    CHECK(t2->registers.size() == t->registers.size());
    CHECK(t2->interrupts.at(0).number == 8);
}

TEST_CASE("svd: a broken file is one error naming the file and line") {
    CHECK(error_of("<device><name>X</name><peripherals>").find("part.svd:1: not an SVD file") == 0);
    CHECK(error_of("<notadevice/>") == "part.svd: not an SVD file (no <device> element)");
    CHECK(error_of("<device><name>X</name><peripherals>\n<peripheral><name>P</name></peripheral></peripherals></device>")
              .find("part.svd:2: <peripheral> has no <baseAddress> (peripheral P)") == 0);
    CHECK(error_of("<device><name>X</name><peripherals><peripheral derivedFrom=\"Q\"><name>P</name><baseAddress>0</baseAddress></peripheral>"
                   "</peripherals></device>")
              .find("derivedFrom names no peripheral 'Q'") != std::string::npos);
    CHECK(error_of("<device><name>X</name><peripherals><peripheral><name>P</name><baseAddress>0x1_0000_0000</baseAddress></peripheral>"
                   "</peripherals></device>")
              .find("is not a 32-bit number") != std::string::npos);
    CHECK(error_of("<device><name>X</name><peripherals><peripheral><name>P</name><baseAddress>0</baseAddress><registers><register>"
                   "<name>R</name><addressOffset>0</addressOffset><fields><field><name>F</name><bitOffset>30</bitOffset><bitWidth>4</bitWidth>"
                   "</field></fields></register></registers></peripheral></peripherals></device>")
              .find("field bits outside a 32-bit register (field F)") != std::string::npos);
    CHECK(error_of(
              "<device><name>X</name><peripherals><peripheral><name>P</name><baseAddress>0</baseAddress><registers><register>"
              "<name>R</name><addressOffset>0</addressOffset><access>sometimes</access></register></registers></peripheral></peripherals></device>")
              .find("unknown <access> value 'sometimes'") != std::string::npos);
}
