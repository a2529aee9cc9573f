#include "models/pipeline/bus_matrix.h"

#include <algorithm>

namespace emutrace::models {

BusMatrix::Interface BusMatrix::interface_of(Master master, std::uint32_t address) const {
    const MemoryPort& p = memory_->at(address);
    switch (p.port) {
        case BusPort::Code: return master == Master::Fetch && !p.fetch_shares_data_port ? ICode : DCode;
        case BusPort::Private: return Ppb;
        case BusPort::System: break;
    }
    return System;
}

std::uint64_t BusMatrix::presented(Master master, std::uint32_t address, std::uint64_t cycle) const {
    return master == Master::Fetch && fetch_registered(address) ? cycle + memory_->at(address).fetch_word_cycles - 1 : cycle;
}

void BusMatrix::request(Master master, std::uint32_t address, std::uint64_t cycle) {
    State& s = state_[interface_of(master, address)];
    std::uint64_t at = presented(master, address, cycle);
    if (s.requested_cycle != at || s.requested_in != cycle) s.requested = 0, s.requested_cycle = at, s.requested_in = cycle;
    s.requested |= static_cast<std::uint8_t>(1u << static_cast<unsigned>(master));
    const auto m = static_cast<unsigned>(master);
    if (!s.asks_on(m, cycle)) s.asking_since[m] = cycle;
    s.asked_last[m] = cycle;
}

void BusMatrix::keep_asking(Master master, std::uint32_t address, std::uint64_t cycle) {
    State& s = state_[interface_of(master, address)];
    const auto m = static_cast<unsigned>(master);
    if (s.asks_on(m, cycle)) s.asked_last[m] = cycle;
}

bool BusMatrix::may_grant(Master master, std::uint32_t address, std::uint64_t cycle) const {
    Interface i = interface_of(master, address);
    const State& s = state_[i];
    std::uint64_t at = presented(master, address, cycle);
    if (s.next_address > at) return false;
    if (master == Master::Fetch && (fetch_next_issue_ > cycle || (at < s.fetch_after_write && !(s.write_latches_fetch && fetch_registered(address)))))
        return false;
    if (s.requested_cycle == at && s.requested_in == cycle && s.requested == 3) {
        // Both masters want it in the same cycle: the System bus serves the fetch first, the code
        // interfaces data first, unless one master's address has waited on the bus for a data
        // phase in wait states since before the other asked.
        Master first = i == System ? Master::Fetch : Master::Data;
        const auto fetch = static_cast<unsigned>(Master::Fetch), data = static_cast<unsigned>(Master::Data);
        if (holds_presented_ && s.asking_since[fetch] != s.asking_since[data] &&
            std::max(s.asking_since[fetch], s.asking_since[data]) <= s.ready_from)
            first = s.asking_since[fetch] < s.asking_since[data] ? Master::Fetch : Master::Data;
        return master == first;
    }
    return true;
}

Grant BusMatrix::grant(Master master, std::uint32_t address, std::uint64_t cycle, DataTransfer kind) {
    State& s = state_[interface_of(master, address)];
    std::uint64_t at = presented(master, address, cycle);
    // A fetch latched in a write's data phase (may_grant): the bus takes its address when that
    // phase ends, and nothing else goes until then. (CMEmu's System output stage stops a read
    // that asks in a write's data phase, SYSTEM_WB_DENIES_LDR_AFTER_STR, and the arbiter keeps
    // the fetch that won; silicon: STM, PUSH and STRD to SRAM from SRAM code, a cycle each more
    // from two registers on, stm_stmdb, push, strd_str_pipelining.)
    if (master == Master::Fetch && at < s.fetch_after_write) at = s.fetch_after_write;
    const bool write = kind != DataTransfer::Read;
    const MemoryPort& p = memory_->at(address);
    std::uint64_t data_end = at + 1 + p.wait_states + (write ? 0 : line_buffer_wait(p, address, at));
    if (master == Master::Fetch && at != cycle) held_ = {interface_of(master, address), at, s.next_address};
    s.ready_from = data_end > at + 1 ? data_end : 0;
    s.next_address = data_end;  // the next address phase may overlap the last data cycle
    // Not behind an unaligned store's pieces: from SRAM code those cost no more (silicon,
    // ldr_str_unaligned's str.w and strh.w at +1 and +2; latched, 2 to 4 cycles each too long).
    if (write) s.fetch_after_write = data_end + 1, s.write_latches_fetch = kind == DataTransfer::Write;
    if (master == Master::Fetch) {
        fetch_next_issue_ = at + 1, s.fetch_data_end = data_end;
        s.asked_last[static_cast<unsigned>(master)] = kNotAsking;  // served: its next word starts a new wait
    }
    return {data_end};
}

unsigned BusMatrix::line_buffer_wait(const MemoryPort& port, std::uint32_t address, std::uint64_t at) {
    if (port.cached && mode_.cache_enabled) return cache_front_wait(port, address, at);
    if (!port.line_bytes) return 0;
    std::uint32_t line = (address & ~(port.line_bytes - 1u)) + 1;
    if (mode_.line_buffers && line == buffered_line_) return 0;
    buffered_line_ = mode_.line_buffers ? line : 0;
    return port.line_wait_states;
}

// CMEmu's VIMS (fitted to CC2652 silicon): each read that passes the cache's line buffer looks
// its tag up and reads the next line's tag ahead; a data read from the flash (a literal, a table)
// takes the buffer and the tag read ahead from the fetch as any other read does. The tag read
// ahead goes unused by a lookup presented two cycles after a miss's read from the flash ended,
// and by one three cycles after it when the cache RAM was read for a hit the cycle before (a
// lookup the cycle after the miss, not read ahead: its RAM read comes a cycle later). CMEmu's
// cache.rs has both as special cases, from its authors' measurements (their cache thesis, end of
// section 5.2 and figure 6.4): such a lookup costs its tag cycle.
unsigned BusMatrix::cache_front_wait(const MemoryPort& port, std::uint32_t address, std::uint64_t at) {
    if (!port.cache_line_bytes) return 0;
    const std::uint32_t line = (address & ~(port.cache_line_bytes - 1u)) + 1;
    if (line == buffered_line_) return 0;
    const bool read_ahead = line == prefetched_tag_ && at != read_ahead_lost_at_[0] && at != read_ahead_lost_at_[1];
    const bool missed = take_missed(line);
    const unsigned wait = (read_ahead ? 0 : port.cache_tag_cycles) + (missed ? port.line_wait_states : 0);
    if (missed) {
        const std::uint64_t flash_read_end = at + 1 + port.wait_states + wait;  // grant()'s data_end
        read_ahead_lost_at_ = {flash_read_end + 2, kNoCycle};
    } else if (!read_ahead && read_ahead_lost_at_[0] != kNoCycle && at + 1 == read_ahead_lost_at_[0]) {
        read_ahead_lost_at_[1] = at + 2;
    }
    buffered_line_ = line;
    prefetched_tag_ = line + port.cache_line_bytes;
    return wait;
}

void BusMatrix::cache_missed(std::uint32_t line) {
    if (missed_.size() == kMostMissedLines) missed_.erase(missed_.begin());
    missed_.push_back(line + 1);
}

bool BusMatrix::take_missed(std::uint32_t line) {
    if (missed_.empty()) [[likely]]
        return false;
    auto at = std::find(missed_.begin(), missed_.end(), line);
    if (at == missed_.end()) return false;
    missed_.erase(at);
    return true;
}

bool BusMatrix::waits_for_ready(Master master, std::uint32_t address, std::uint64_t cycle) const {
    const State& s = state_[interface_of(master, address)];
    std::uint64_t at = presented(master, address, cycle);
    return at < s.ready_from;
}

void BusMatrix::drop_held_fetch(std::uint64_t cycle) {
    if (held_.at < cycle || held_.at == ~0ull) return;
    state_[held_.interface].next_address = held_.next_address_before;
    fetch_next_issue_ = cycle;
    held_ = {};
}

}  // namespace emutrace::models
