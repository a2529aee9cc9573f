#include "emu/peripherals/register_file.h"

#include <algorithm>
#include <bit>
#include <limits>

namespace emutrace::emu {

using decode::svd::Access;
using decode::svd::ReadAction;
using decode::svd::WriteAction;

RegisterFile::RegisterFile(decode::svd::Peripheral description) : desc_(std::move(description)), slots_(desc_.registers.size()) {
    by_byte_.assign(std::min(desc_.size, kTabled), -1);
    const std::size_t most = std::min<std::size_t>(desc_.registers.size(), std::numeric_limits<std::int16_t>::max());
    for (std::size_t i = 0; i < most; ++i) {
        const auto& r = desc_.registers[i];
        for (std::uint32_t b = 0; b < r.bytes; ++b)
            if (r.offset + b < by_byte_.size() && by_byte_[r.offset + b] < 0) by_byte_[r.offset + b] = static_cast<std::int16_t>(i);
        derive_masks(i);
    }
    reset();
}

void RegisterFile::derive_masks(std::size_t i) {
    const auto& r = desc_.registers[i];
    Slot& s = slots_[i];
    const std::uint32_t all = r.bytes >= 4 ? 0xffffffffu : (1u << (8 * r.bytes)) - 1;
    s = Slot{s.value};
    auto bits = [&](std::uint32_t mask, Access access, WriteAction write, ReadAction read) {
        if (access != Access::WriteOnly) s.readable |= mask;
        if (access == Access::ReadOnly) return;
        switch (write) {
            case WriteAction::Modify: s.keeps |= mask; break;
            case WriteAction::OneToClear: s.one_clears |= mask; break;
            case WriteAction::OneToSet: s.one_sets |= mask; break;
            case WriteAction::OneToToggle: s.one_toggles |= mask; break;
            case WriteAction::ZeroToClear: s.zero_clears |= mask; break;
            case WriteAction::ZeroToSet: s.zero_sets |= mask; break;
            case WriteAction::ZeroToToggle: s.zero_toggles |= mask; break;
            case WriteAction::Clear: s.any_clears |= mask; break;
            case WriteAction::Set: s.any_sets |= mask; break;
        }
        if (read == ReadAction::Clear) s.read_clears |= mask;
        if (read == ReadAction::Set) s.read_sets |= mask;
    };
    if (r.fields.empty()) {
        bits(all, r.access, WriteAction::Modify, ReadAction::None);
        return;
    }
    std::uint32_t covered = 0;
    for (const auto& f : r.fields) {
        bits(f.mask() & all, f.access, f.write, f.read);
        covered |= f.mask();
    }
    s.readable |= all & ~covered;  // reserved bits read as they reset and ignore writes
}

int RegisterFile::search(std::uint32_t offset) const {
    const auto& regs = desc_.registers;  // by offset
    auto it = std::upper_bound(regs.begin(), regs.end(), offset, [](std::uint32_t o, const decode::svd::Register& r) { return o < r.offset; });
    while (it != regs.begin()) {
        --it;
        if (offset < it->offset + it->bytes) return static_cast<int>(it - regs.begin());
        if (offset - it->offset >= 4) break;
    }
    return -1;
}

void RegisterFile::reset() {
    for (std::size_t i = 0; i < slots_.size(); ++i) slots_[i].value = desc_.registers[i].reset;
}

int RegisterFile::find(std::string_view name) const {
    for (std::size_t i = 0; i < desc_.registers.size(); ++i)
        if (desc_.registers[i].name == name) return static_cast<int>(i);
    return -1;
}

FieldRef RegisterFile::field(std::string_view path) const {
    auto dot = path.rfind('.');
    int whole = find(path);
    if (whole >= 0) {
        const auto& r = desc_.registers[static_cast<std::size_t>(whole)];
        return {whole, r.bytes >= 4 ? 0xffffffffu : (1u << (8 * r.bytes)) - 1, 0};
    }
    if (dot == std::string_view::npos) return {};
    int reg = find(path.substr(0, dot));
    if (reg < 0) return {};
    const auto* f = desc_.registers[static_cast<std::size_t>(reg)].field(path.substr(dot + 1));
    if (!f) return {};
    return {reg, f->mask(), f->lsb};
}

bool RegisterFile::writable(int reg) const {
    const Slot& s = slots_[static_cast<std::size_t>(reg)];
    return (s.keeps | s.one_clears | s.one_sets | s.one_toggles | s.zero_clears | s.zero_sets | s.zero_toggles | s.any_clears | s.any_sets) != 0;
}

std::uint32_t RegisterFile::load(int reg, std::uint32_t offset, unsigned width) {
    Slot& s = slots_[static_cast<std::size_t>(reg)];
    const unsigned shift = 8 * (offset - desc_.registers[static_cast<std::size_t>(reg)].offset);
    const std::uint32_t lane = (width >= 4 ? 0xffffffffu : (1u << (8 * width)) - 1) << shift;
    std::uint32_t v = s.value & s.readable;
    s.value = (s.value & ~(s.read_clears & lane)) | (s.read_sets & lane);
    return (v & lane) >> shift;
}

void RegisterFile::store(int reg, std::uint32_t offset, unsigned width, std::uint32_t value) {
    Slot& s = slots_[static_cast<std::size_t>(reg)];
    const unsigned shift = 8 * (offset - desc_.registers[static_cast<std::size_t>(reg)].offset);
    const std::uint32_t lane = (width >= 4 ? 0xffffffffu : (1u << (8 * width)) - 1) << shift;
    const std::uint32_t ones = (value << shift) & lane, zeros = ~(value << shift) & lane;
    std::uint32_t v = (s.value & ~(s.keeps & lane)) | (ones & s.keeps);
    v &= ~((s.one_clears & ones) | (s.zero_clears & zeros) | (s.any_clears & lane));
    v |= (s.one_sets & ones) | (s.zero_sets & zeros) | (s.any_sets & lane);
    v ^= (s.one_toggles & ones) | (s.zero_toggles & zeros);
    s.value = v;
}

void RegisterFile::set_write_action(FieldRef f, WriteAction action) {
    auto& r = desc_.registers[static_cast<std::size_t>(f.reg)];
    bool found = false;
    for (auto& field : r.fields)
        if ((field.mask() & f.mask) == field.mask()) {
            field.write = action;
            found = true;
        }
    if (!found) {  // a register without fields: one field covering the bits named
        decode::svd::Field whole;
        whole.name = r.name;
        whole.lsb = f.lsb;
        whole.width = static_cast<std::uint8_t>(std::popcount(f.mask));
        whole.access = r.access;
        whole.write = action;
        r.fields.push_back(whole);
    }
    derive_masks(static_cast<std::size_t>(f.reg));
}

}  // namespace emutrace::emu
