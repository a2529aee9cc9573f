#pragma once
// The registers of one peripheral as its SVD describes them, holding their values: what a load
// returns and what a store keeps, bit by bit (read-only and write-only fields, write-1-to-clear and
// the other modifiedWriteValues, clear-on-read). Device models keep their state here and add
// behaviour around it; names come from the description, for errors and events.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "decode/svd/svd_device.h"

namespace emutrace::emu {

/// A field of a register file, found by name: the register's index and the field's bits.
struct FieldRef {
    int reg = -1;
    std::uint32_t mask = 0;
    std::uint8_t lsb = 0;

    explicit operator bool() const { return reg >= 0; }
    std::uint32_t of(std::uint32_t value) const { return (value & mask) >> lsb; }
};

class RegisterFile {
public:
    explicit RegisterFile(decode::svd::Peripheral description);

    const decode::svd::Peripheral& description() const { return desc_; }
    std::uint32_t size() const { return desc_.size; }
    void reset();

    /// The register covering byte `offset`, or -1 (a hole the description leaves).
    int at(std::uint32_t offset) const { return offset < by_byte_.size() ? by_byte_[offset] : search(offset); }
    /// A register by name, or -1.
    int find(std::string_view name) const;
    /// "CR.HSERDY" (or "CR" for the whole register); a false FieldRef when there is none.
    FieldRef field(std::string_view reg_dot_field) const;
    const std::string& name(int reg) const { return desc_.registers[static_cast<std::size_t>(reg)].name; }
    std::uint32_t offset(int reg) const { return desc_.registers[static_cast<std::size_t>(reg)].offset; }

    /// A load of `width` bytes at `offset` inside register `reg`, with the fields' read actions.
    std::uint32_t load(int reg, std::uint32_t offset, unsigned width);
    /// A store: only the bytes written, each bit as its field's access and write action say.
    void store(int reg, std::uint32_t offset, unsigned width, std::uint32_t value);
    /// Whether a load or store of register `reg` means anything (a write-only register reads 0).
    bool readable(int reg) const { return slots_[static_cast<std::size_t>(reg)].readable != 0; }
    bool writable(int reg) const;

    /// The hardware's side: the stored value, and setting it regardless of access.
    std::uint32_t value(int reg) const { return slots_[static_cast<std::size_t>(reg)].value; }
    void set(int reg, std::uint32_t value) { slots_[static_cast<std::size_t>(reg)].value = value; }
    std::uint32_t get(FieldRef f) const { return f.of(value(f.reg)); }
    void put(FieldRef f, std::uint32_t v) { set(f.reg, (value(f.reg) & ~f.mask) | ((v << f.lsb) & f.mask)); }

    /// Changes what writing a field does (a scenario's rule where the SVD says too little).
    void set_write_action(FieldRef f, decode::svd::WriteAction action);

private:
    struct Slot {
        std::uint32_t value = 0;
        std::uint32_t readable = 0;  ///< bits a load returns
        std::uint32_t keeps = 0;     ///< bits a store writes as given
        std::uint32_t one_clears = 0, one_sets = 0, one_toggles = 0;
        std::uint32_t zero_clears = 0, zero_sets = 0, zero_toggles = 0;
        std::uint32_t any_clears = 0, any_sets = 0;
        std::uint32_t read_clears = 0, read_sets = 0;
    };
    void derive_masks(std::size_t reg);
    int search(std::uint32_t offset) const;
    /// The first 4 KiB by byte (every register of a real part's peripheral); beyond, a search.
    static constexpr std::uint32_t kTabled = 4096;

    decode::svd::Peripheral desc_;
    std::vector<Slot> slots_;
    std::vector<std::int16_t> by_byte_;
};

}  // namespace emutrace::emu
