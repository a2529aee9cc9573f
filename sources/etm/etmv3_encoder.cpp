#include "sources/etm/etmv3_encoder.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "decode/elf_image.h"
#include "decode/instruction_decoder.h"
#include "sources/etm/exception_numbers.h"
#include "sources/ptm/branch_address.h"

namespace emutrace::decode {
namespace {

constexpr std::uint8_t kISync = 0x08, kExceptionReturn = 0x76;
constexpr unsigned kReasonPeriodic = 0, kReasonTraceEnable = 1;
constexpr unsigned kMostExecutedInHeader = 15;   // a format-1 P-header's E count
constexpr unsigned kMostExecutedCycleAcc = 7;    // and in cycle-accurate mode, with a W each
constexpr std::uint64_t kMostWaitsInHeader = 8;  // a cycle-accurate format-3 P-header's W count

}  // namespace

Etmv3Encoder::Etmv3Encoder(EtmOptions options, const ElfImage* code) : options_(options), code_(code) {
    if (options_.trace_id == 0 || options_.trace_id > 0x6F)
        throw std::invalid_argument("a trace ID is 1..0x6F, not " + std::to_string(options_.trace_id));
    if (options_.sync_period < 16) options_.sync_period = 16;
}

void Etmv3Encoder::encode(std::span<const trace::Event> events) {
    for (const trace::Event& e : events) {
        switch (e.kind) {
            case trace::EventKind::Block: block(e); break;
            case trace::EventKind::ExceptionEntry:
                if (!started_) break;
                if (in_block_) {
                    // Inside the block: it was cut there (a fault). At its start it ran whole and
                    // branched back to itself (a loop), the interrupt taken before it ran again.
                    if (e.address > block_start_ && e.address < block_end_)
                        cut_at(e.address, e.cycle);
                    else
                        resolve(e.address, e.cycle);
                }
                in_block_ = false;
                pending_return_ = false;  // a tail-chain: the handler's address comes with its number
                pending_exception_ = static_cast<int>(e.value);
                break;
            case trace::EventKind::ExceptionReturn:
                if (!started_) break;
                if (in_block_) run_to_end(e.cycle);  // the handler's last instruction (BX LR, POP pc) ran: its atom, then the return
                flush_atoms();
                out_.push_back(kExceptionReturn);
                ++stats_.exception_returns;
                pending_return_ = true;
                break;
            case trace::EventKind::Stop: finish_at(e.cycle); break;
            default: break;
        }
    }
}

void Etmv3Encoder::block(const trace::Event& e) {
    const std::uint32_t at = e.address;
    if (!started_) {
        started_ = true;
        accounted_ = e.cycle;
        async();
        isync(at, kReasonTraceEnable);
    } else if (pending_exception_ >= 0) {
        branch(at, pending_exception_);
        pending_exception_ = -1;
    } else if (pending_return_) {
        branch(at, -1);
    } else if (in_block_) {
        resolve(at, e.cycle);
    }
    pending_return_ = false;
    // A periodic sync where the decoder stands at a block's start with nothing pending.
    if (stats_.bytes + out_.size() >= next_sync_at_) {
        async();
        isync(at, kReasonPeriodic);
    }
    in_block_ = true;
    block_start_ = at;
    block_end_ = at + e.value;
    block_instructions_ = e.extra;
    block_leaves_ = static_cast<trace::BlockEnd>(e.width);
}

void Etmv3Encoder::resolve(std::uint32_t next, std::uint64_t now) {
    if (block_instructions_ == 0) return;
    const bool taken = next != block_end_;
    switch (block_leaves_) {
        case trace::BlockEnd::Fallthrough:
        case trace::BlockEnd::Barrier:
            atoms(block_instructions_, true, now);
            if (taken) {  // nothing the decoder can follow explains the jump: restart there
                flush_atoms();
                isync(next, kReasonTraceEnable);
                ++stats_.discontinuities;
            }
            break;
        case trace::BlockEnd::Direct: atoms(block_instructions_, taken, now); break;
        case trace::BlockEnd::Indirect:
            atoms(block_instructions_, taken, now);
            if (taken) branch(next, -1);
            break;
    }
}

void Etmv3Encoder::cut_at(std::uint32_t at, std::uint64_t now) {
    const std::uint32_t n = code_ ? instructions_between(block_start_, at) : block_instructions_;
    if (n) atoms(n, true, now);
}

// Without cycle accuracy just the atoms. With it, the cycles since the last atoms: one W with
// each instruction, the rest as waits before the last one (its fetch stall, its multi-cycle
// execution, a refill); fewer cycles than instructions (a folded IT) leaves the first ones without.
void Etmv3Encoder::atoms(std::uint32_t n, bool last_executed, std::uint64_t now) {
    if (!options_.cycle_accurate) {
        for (std::uint32_t i = 1; i < n; ++i) atom(true);
        atom(last_executed);
        return;
    }
    const std::uint64_t cycles = now > accounted_ ? now - accounted_ : 0;
    accounted_ = std::max(accounted_, now);
    const std::uint64_t without = cycles < n ? n - cycles : 0;
    for (std::uint32_t i = 1; i < n; ++i) {
        cycle_atoms_ = i > without;
        atom(true);
    }
    if (cycles > n) waits(cycles - n);
    cycle_atoms_ = without < n;
    atom(last_executed);
    cycle_atoms_ = true;
}

void Etmv3Encoder::waits(std::uint64_t n) {
    flush_atoms();
    stats_.cycles += n;
    for (; n > 0;) {
        const std::uint64_t w = std::min(n, kMostWaitsInHeader);
        out_.push_back(static_cast<std::uint8_t>(0xA0 | (w - 1) << 2));  // format 3: w W's, no atom
        n -= w;
    }
}

std::uint32_t Etmv3Encoder::instructions_between(std::uint32_t from, std::uint32_t to) const {
    return to > from ? thumb_instruction_count(code_->bytes_at(from, to - from)) : 0;
}

void Etmv3Encoder::atom(bool executed) {
    ++stats_.atoms;
    if (options_.cycle_accurate && !cycle_atoms_) {  // format 4: an atom in no cycle of its own
        flush_atoms();
        out_.push_back(executed ? 0x92 : 0x96);
        return;
    }
    if (options_.cycle_accurate) ++stats_.cycles;
    if (executed) {
        if (executed_run_ == (options_.cycle_accurate ? kMostExecutedCycleAcc : kMostExecutedInHeader)) flush_atoms();
        ++executed_run_;
        return;
    }
    out_.push_back(static_cast<std::uint8_t>(0x80 | 0x40 | executed_run_ << 2));  // E run, then one N (each with its W)
    executed_run_ = 0;
}

void Etmv3Encoder::flush_atoms() {
    if (!executed_run_) return;
    out_.push_back(static_cast<std::uint8_t>(0x80 | executed_run_ << 2));  // format 1
    executed_run_ = 0;
}

void Etmv3Encoder::branch(std::uint32_t address, int exception) {
    flush_atoms();
    const bool is_exception = exception >= 0;
    std::uint8_t packet[7];
    const unsigned count = branch_address_byte_count(address, last_address_, is_exception ? 2 : 1);
    put_branch_address(packet, address, count, is_exception);
    unsigned n = count;
    if (is_exception) {
        n += put_exception_number(packet + count, etm_exception_number(static_cast<std::uint32_t>(exception)));
        ++stats_.exceptions;
    } else {
        ++stats_.branch_addresses;
    }
    out_.insert(out_.end(), packet, packet + n);
    last_address_ = address;
}

void Etmv3Encoder::async() {
    flush_atoms();
    out_.insert(out_.end(), {0x00, 0x00, 0x00, 0x00, 0x00, 0x80});
}

// Header, information byte (the reason; Secure, not Jazelle), then the whole address with the
// Thumb bit.
void Etmv3Encoder::isync(std::uint32_t address, unsigned reason) {
    flush_atoms();
    out_.push_back(kISync);
    out_.push_back(static_cast<std::uint8_t>(reason << 5));
    out_.push_back(static_cast<std::uint8_t>((address & 0xFE) | 1));
    out_.push_back(static_cast<std::uint8_t>(address >> 8));
    out_.push_back(static_cast<std::uint8_t>(address >> 16));
    out_.push_back(static_cast<std::uint8_t>(address >> 24));
    last_address_ = address;
    ++stats_.syncs;
    next_sync_at_ = stats_.bytes + out_.size() + options_.sync_period;
}

void Etmv3Encoder::run_to_end(std::uint64_t now) {
    block_leaves_ = trace::BlockEnd::Fallthrough;
    resolve(block_end_, now);
    in_block_ = false;
}

void Etmv3Encoder::finish_at(std::uint64_t now) {
    if (in_block_) run_to_end(now);  // the run ended in this block: every instruction of it ran
    flush_atoms();
}

void Etmv3Encoder::finish() {
    finish_at(accounted_);
}

}  // namespace emutrace::decode
