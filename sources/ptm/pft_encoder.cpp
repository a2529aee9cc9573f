#include "sources/ptm/pft_encoder.h"

#include <array>
#include <stdexcept>
#include <utility>

#include "decode/elf_image.h"
#include "decode/instruction_decoder.h"
#include "sources/ptm/branch_address.h"

namespace emutrace::decode {
namespace {

constexpr std::uint8_t kISync = 0x08, kWaypointUpdate = 0x72, kExceptionReturn = 0x76;
constexpr unsigned kReasonPeriodic = 0, kReasonTraceEnable = 1;

}  // namespace

PftEncoder::PftEncoder(PftOptions options, const ElfImage* code) : options_(options), code_(code) {
    if (options_.trace_id == 0 || options_.trace_id > 0x6F)
        throw std::invalid_argument("a trace ID is 1..0x6F, not " + std::to_string(options_.trace_id));
    if (options_.sync_period < 16) options_.sync_period = 16;
}

void PftEncoder::reserve() {
    if (out_.size() < used_ + kMostPerEvent) out_.resize(std::max<std::size_t>(2 * out_.size(), 4096));
}

void PftEncoder::encode(std::span<const trace::Event> events) {
    for (const auto& e : events) {
        if (used_ + kMostPerEvent > out_.size()) [[unlikely]]
            reserve();
        if (e.kind == trace::EventKind::Block)
            on_block(e);
        else
            on_other(e);
    }
}

[[gnu::always_inline]] inline void PftEncoder::on_block(const trace::Event& e) {
    std::uint32_t pc = e.address;
    if (!started_) {
        start(pc, e.cycle);
    } else {
        if (pending_return_ >= 0) {
            settle_return(e.cycle);  // resumes at this block
        } else if (pending_exception_ >= 0) {
            branch(pc, pending_exception_, e.cycle);
            pending_exception_ = -1;
        } else {
            resolve(pc, e.cycle);
        }
    }
    // Periodic A-sync + I-sync at a range start, where the decoder's address is this block's.
    if (decoder_at_ == pc && stats_.bytes + used_ >= next_sync_at_) [[unlikely]] {
        async();
        isync(pc, kReasonPeriodic, e.cycle);
    }
    block_start_ = pc;
    block_end_ = pc + e.value;
    pending_ = static_cast<trace::BlockEnd>(e.width);
}

void PftEncoder::on_other(const trace::Event& e) {
    if (!started_) return;
    switch (e.kind) {
        case trace::EventKind::ExceptionEntry: {
            if (pending_return_ >= 0) settle_return(e.cycle);
            std::uint32_t resume = e.address;
            // A fault inside the block stops it short of its final waypoint.
            bool inside = resume > block_start_ && resume < block_end_;
            if (pending_ != trace::BlockEnd::Fallthrough && !inside) {
                resolve(resume, e.cycle);
            } else {
                pending_ = trace::BlockEnd::Fallthrough;
                trace_up_to(resume);
            }
            pending_exception_ = static_cast<int>(e.value);
            break;
        }
        case trace::EventKind::ExceptionReturn:
            if (pending_return_ >= 0) settle_return(e.cycle);
            pending_return_ = e.address;
            break;
        case trace::EventKind::Stop: finish(); break;
        default: break;
    }
}

void PftEncoder::settle_return(std::uint64_t cycle) {
    auto resume = static_cast<std::uint32_t>(pending_return_);
    pending_return_ = -1;
    resolve(resume, cycle);
    flush_atoms();
    byte(kExceptionReturn);
    ++stats_.exception_returns;
}

void PftEncoder::finish() {
    if (!started_) return;
    reserve();
    if (pending_return_ >= 0) {
        settle_return(last_count_cycle_);  // the trace ends where execution would resume
    } else {
        pending_ = trace::BlockEnd::Fallthrough;
        trace_up_to(block_end_);
    }
    flush_atoms();
    started_ = false;
    pending_exception_ = -1;
}

void PftEncoder::start(std::uint32_t address, std::uint64_t cycle) {
    started_ = true;
    last_count_cycle_ = 0;
    async();
    isync(address, kReasonTraceEnable, cycle);
}

void PftEncoder::resolve(std::uint32_t next, std::uint64_t cycle) {
    switch (pending_) {
        case trace::BlockEnd::Fallthrough:
            if (next != block_end_) {  // no waypoint explains the jump: restart the trace there
                trace_up_to(block_end_);
                isync(next, kReasonTraceEnable, cycle);
                ++stats_.discontinuities;
            }
            break;
        case trace::BlockEnd::Direct: atom(next != block_end_, cycle); break;
        case trace::BlockEnd::Barrier: atom(true, cycle); break;
        case trace::BlockEnd::Indirect:
            if (next == block_end_)
                atom(false, cycle);
            else
                branch(next, -1, cycle);
            break;
    }
    pending_ = trace::BlockEnd::Fallthrough;
    decoder_at_ = next;
}

void PftEncoder::trace_up_to(std::uint32_t address) {
    if (address == decoder_at_) return;
    // A waypoint update walks forward in a straight line; anything else is a discontinuity.
    if (address > decoder_at_ && address <= block_end_) {
        waypoint_update(address);
    } else {
        if (decoder_at_ < block_end_) waypoint_update(block_end_);
        isync(address, kReasonTraceEnable, last_count_cycle_);
        ++stats_.discontinuities;
    }
    decoder_at_ = address;
}

[[gnu::always_inline]] inline std::uint32_t PftEncoder::cycles_since(std::uint64_t cycle) {
    std::uint64_t delta = cycle > last_count_cycle_ ? cycle - last_count_cycle_ : 0;
    last_count_cycle_ = cycle > last_count_cycle_ ? cycle : last_count_cycle_;
    return delta > 0xFFFFFFFFu ? 0xFFFFFFFFu : static_cast<std::uint32_t>(delta);
}

// Branch-free: the count's bytes are all stored, then as many kept as it needs (reserve() leaves
// the room); deltas of a few cycles would otherwise mispredict on every waypoint.
[[gnu::always_inline]] inline void PftEncoder::cycle_count(std::uint32_t count, std::uint8_t first_byte_flags) {
    std::uint8_t* p = out_.data() + used_;
    std::uint32_t rest = count >> 4;
    p[0] = static_cast<std::uint8_t>(first_byte_flags | (count & 0xF) << 2 | (rest ? 0x40 : 0));
    p[1] = static_cast<std::uint8_t>((rest & 0x7F) | (rest >> 7 ? 0x80 : 0));
    p[2] = static_cast<std::uint8_t>(((rest >> 7) & 0x7F) | (rest >> 14 ? 0x80 : 0));
    p[3] = static_cast<std::uint8_t>(((rest >> 14) & 0x7F) | (rest >> 21 ? 0x80 : 0));
    p[4] = static_cast<std::uint8_t>((rest >> 21) & 0x7F);
    used_ += 1u + (rest != 0) + (rest >> 7 != 0) + (rest >> 14 != 0) + (rest >> 21 != 0);
}

[[gnu::always_inline]] inline void PftEncoder::atom(bool executed, std::uint64_t cycle) {
    ++stats_.atoms;
    if (options_.cycle_accurate) {
        cycle_count(cycles_since(cycle), static_cast<std::uint8_t>(0x80 | (executed ? 0 : 2)));
        return;
    }
    // Oldest atom in the highest bit: shift each new one in at the bottom.
    atom_bits_ = static_cast<std::uint8_t>(atom_bits_ << 1 | (executed ? 0 : 1));
    if (++atom_count_ == 5) flush_atoms();
}

void PftEncoder::flush_atoms() {
    static constexpr std::array<std::uint8_t, 6> kFormat{0, 0x80, 0x88, 0x90, 0xA0, 0xC0};
    if (!atom_count_) return;
    byte(static_cast<std::uint8_t>(kFormat[atom_count_] | atom_bits_ << 1));
    atom_bits_ = atom_count_ = 0;
}

void PftEncoder::address_bytes(std::uint32_t address, unsigned count, bool more_follows) {
    put_branch_address(out_.data() + used_, address, count, more_follows);
    used_ += count;
}

void PftEncoder::branch(std::uint32_t address, int exception, std::uint64_t cycle) {
    flush_atoms();
    bool is_exception = exception >= 0;
    address_bytes(address, branch_address_byte_count(address, last_address_, is_exception ? 2 : 1), is_exception);
    if (is_exception) {
        used_ += put_exception_number(out_.data() + used_, static_cast<std::uint32_t>(exception));
        ++stats_.exceptions;
    } else {
        ++stats_.branch_addresses;
    }
    if (options_.cycle_accurate) cycle_count(cycles_since(cycle), 0);
    last_address_ = address;
    decoder_at_ = address;
}

std::uint32_t PftEncoder::last_instruction_before(std::uint32_t address) const {
    std::uint32_t at = address > block_start_ ? block_start_ : decoder_at_;
    if (!code_ || at >= address) return address - 2;
    std::vector<std::uint8_t> bytes = code_->bytes_at(at, address - at);
    for (std::uint32_t off = 0; off + 1 < bytes.size();) {
        std::uint32_t size = thumb_instruction_size(static_cast<std::uint16_t>(bytes[off] | bytes[off + 1] << 8));
        if (off + size >= bytes.size()) return at + off;
        off += size;
    }
    return address - 2;
}

// The packet names the last instruction of the stretch (OpenCSD traces up to and including it).
void PftEncoder::waypoint_update(std::uint32_t end) {
    std::uint32_t address = last_instruction_before(end);
    flush_atoms();
    byte(kWaypointUpdate);
    address_bytes(address, branch_address_byte_count(address, last_address_, 1), false);
    last_address_ = address;
    ++stats_.waypoint_updates;
}

void PftEncoder::async() {
    flush_atoms();
    for (int i = 0; i < 5; ++i) byte(0);
    byte(0x80);
}

void PftEncoder::isync(std::uint32_t address, unsigned reason, std::uint64_t cycle) {
    flush_atoms();
    byte(kISync);
    byte(static_cast<std::uint8_t>((address & 0xFE) | 1));  // bit 0: Thumb
    byte(static_cast<std::uint8_t>(address >> 8));
    byte(static_cast<std::uint8_t>(address >> 16));
    byte(static_cast<std::uint8_t>(address >> 24));
    byte(static_cast<std::uint8_t>(reason << 5));
    if (options_.cycle_accurate && reason != kReasonPeriodic) cycle_count(cycles_since(cycle), 0);
    last_address_ = address;
    decoder_at_ = address;
    ++stats_.syncs;
    next_sync_at_ = stats_.bytes + used_ + options_.sync_period;
}

}  // namespace emutrace::decode
