#pragma once
// A device whose registers an SVD describes (Renode's register-level peripheral): the register
// file answers loads and stores as the description says, the scenario's rules add what start-up
// code waits on (a ready bit following its enable bit, a flag a write sets and a read clears), and
// a C++ model (stm32_usart.cpp, ...) adds behaviour through the three hooks.

#include <cstdint>
#include <string>
#include <vector>

#include "emu/peripherals/peripheral.h"
#include "emu/peripherals/register_file.h"
#include "emutrace/config.h"

namespace emutrace::emu {

class RegisterPeripheral : public Peripheral {
public:
    explicit RegisterPeripheral(decode::svd::Peripheral description);

    std::uint32_t size() const final { return regs_.size(); }
    std::uint32_t read(std::uint32_t offset, unsigned width) final;
    void write(std::uint32_t offset, unsigned width, std::uint32_t value) final;
    void reset() final;
    /// Stimuli name a register ("CR") or a field ("SR.RXNE").
    bool has_register(std::string_view name) const final { return static_cast<bool>(regs_.field(name)); }
    void set_register(std::string_view name, std::uint32_t value) final;
    const decode::svd::Peripheral* description() const final { return &regs_.description(); }
    void on_time(std::uint64_t now) final;
    void on_signal(std::string_view line, bool level) override { (void)line, (void)level; }

    /// A scenario rule about one of this device's fields, `field` without the device's name
    /// ("CR.HSERDY"); throws ConfigError at `rule` naming what is wrong.
    void add_rule(const config::Node& rule, const std::string& field);

protected:
    RegisterFile& regs() { return regs_; }
    const RegisterFile& regs() const { return regs_; }
    /// A field the model needs; its absence from the SVD is a configuration error.
    FieldRef need(std::string_view reg_dot_field) const;

    /// Before a load of register `reg`: bring it up to date (a counter read at this cycle).
    virtual void refresh(int reg) { (void)reg; }
    /// After a load of `reg` (a data register read takes the received byte).
    virtual void loaded(int reg) { (void)reg; }
    /// After a store to `reg` that found it holding `before` (a data register write sends).
    virtual void stored(int reg, std::uint32_t before) { (void)reg, (void)before; }
    /// After reset, and whenever the device's own time is due (see DeviceHost::wake_at).
    virtual void reset_model() {}
    virtual void tick(std::uint64_t now) { (void)now; }

private:
    struct Rule;
    struct Pending {
        std::uint64_t due;
        FieldRef field;
        std::uint32_t value;
    };
    void apply_due(std::uint64_t now);
    void after_store(int reg, std::uint32_t before);
    void after_load(int reg);
    void schedule(FieldRef f, std::uint32_t value, std::uint64_t after);

    RegisterFile regs_;
    std::vector<Rule> rules_;
    std::vector<Pending> pending_;        ///< by due cycle
    std::vector<std::uint8_t> watched_;   ///< per register: bit 0 a rule watches its stores, bit 1 its loads
    std::vector<std::uint8_t> sequence_;  ///< per rule: how far a clearing read sequence has come
};

/// The rules' shapes, as scenarios write them (docs/scenario.md, "Registers from an SVD file").
struct RegisterPeripheral::Rule {
    enum class Kind : std::uint8_t {
        Follows,  ///< field takes `source`'s value `after` cycles after `source` changes
        Settles,  ///< written to anything but `value`, field goes back to it `after` cycles later
        Fixed,    ///< field always reads `value`
        SetBy,    ///< a store to `source` sets field (to `value`) `after` cycles later; `cleared_by` loads clear it
        Output,   ///< a store to the register sends its low byte to the console
    };
    Kind kind = Kind::Fixed;
    FieldRef field;
    FieldRef source;
    std::uint32_t value = 1;
    std::uint64_t after = 0;
    std::vector<int> cleared_by;  ///< registers whose loads, in this order, clear the field
};

}  // namespace emutrace::emu
