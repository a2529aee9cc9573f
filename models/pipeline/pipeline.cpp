#include "models/pipeline/pipeline.h"

#include <algorithm>
#include <bit>
#include <cstdio>

namespace emutrace::models {
namespace {

constexpr std::uint16_t kSp = 1u << 13;
constexpr std::uint16_t kLr = 1u << 14;

// A 16-bit instruction an IT behind it may fold into: no load, store, branch, status-register
// access or SP write, and none an IT block makes conditional: decode holds one IT state, and the
// IT behind the last member of a block waits for that block to retire. (The STM32F100's compiled
// set: libgcc's `it pl; cmppl; it eq; cmpeq` and kin; folding there gave FOLDCNT more than
// measured in aha-mont64, minver and st, and every FOLDCNT word matches without it.)
bool folds_it(const ClassifiedInstruction& i) {
    return i.size == 2 && !i.memory_access() && !i.is_branch() && !i.conditional && i.kind != InstructionClass::StatusRegister && !(i.writes & kSp);
}

bool single_transfer(const ClassifiedInstruction& i) {
    return i.kind == InstructionClass::Load || i.kind == InstructionClass::Store;
}

// The aligner's next part of a split access from `address` to `end`: the largest aligned
// transfer that fits (a word at 1 mod 4: byte, halfword, byte; at 2 mod 4: two halfwords).
unsigned aligner_part_bytes(std::uint32_t address, std::uint32_t end) {
    for (unsigned bytes = 4; bytes > 1; bytes /= 2)
        if (!(address & (bytes - 1)) && address + bytes <= end) return bytes;
    return 1;
}

// The fetch word an instruction's last halfword is in.
std::uint32_t last_fetch_word(const ClassifiedInstruction& i) {
    return (i.address + i.size - 2) & ~3u;
}

}  // namespace

unsigned compute_cycles(const ClassifiedInstruction& i, const InstructionFacts& f, const PipelineParameters& p) {
    switch (i.kind) {
        case InstructionClass::MultiplyAccumulate: return p.multiply_accumulate_cycles;
        case InstructionClass::MultiplyLong:
        case InstructionClass::MultiplyAccumulateLong:
            return p.iterative_long_multiply && f.execute_cycles ? f.execute_cycles : p.long_multiply_cycles;
        case InstructionClass::Divide: return std::max<unsigned>(f.execute_cycles, 2);
        case InstructionClass::FloatingDivide: return 14;
        case InstructionClass::FloatingMultiplyAdd: return 3;
        default: return 1;
    }
}

bool it_outcome_changes_timing(std::span<const ClassifiedInstruction* const> members, const ClassifiedInstruction* after,
                               const PipelineParameters& p) {
    std::uint16_t written = 0;
    for (const ClassifiedInstruction* m : members) {
        if (!m || m->writes_pc || m->memory_access() || m->late_write) return true;
        if (m->kind != InstructionClass::DataProcessing && m->kind != InstructionClass::Nop) return true;
        if (compute_cycles(*m, InstructionFacts{}, p) != 1) return true;
        written |= m->writes;
    }
    return !after || (after->address_registers() & written) != 0;
}

Pipeline::Pipeline(const PipelineParameters& parameters, const MemorySystem& memory, CodeView& code)
    : p_(parameters), code_(&code), bus_(memory, parameters),
      fetch_(bus_, parameters.fetch_holds_presented_address, parameters.held_branch_fetch_words) {}

Pipeline::Pipeline(const Pipeline& other)
    : p_(other.p_), code_(other.code_), bus_(other.bus_), fetch_(other.fetch_), cycle_(other.cycle_), decoded_(other.decoded_), x_(other.x_),
      facts_(other.facts_), last_given_(other.last_given_), last_given_insn_(other.last_given_insn_), address_ready_(other.address_ready_),
      previous_decoded_writes_lr_(other.previous_decoded_writes_lr_), control_(other.control_), decoded_link_(other.decoded_link_),
      it_block_(other.it_block_), lsu_next_address_(other.lsu_next_address_), history_(other.history_), lr_(other.lr_),
      store_data_end_(other.store_data_end_), last_was_lsu_(other.last_was_lsu_), refill_from_(other.refill_from_),
      decode_stalled_at_(other.decode_stalled_at_), decode_not_before_(other.decode_not_before_), lsu_until_(other.lsu_until_),
      counters_(other.counters_), given_data_phase_(other.given_data_phase_), trace_(other.trace_) {
    fetch_.attach(bus_);
}

void Pipeline::settle_registers() {
    for (auto& r : address_ready_) r = std::min(r, cycle_);
}

void Pipeline::drain() {
    for (int guard = 0; (x_.active || !facts_.empty()) && guard < 4096; ++guard)
        if (!step()) break;
    // What could not finish without the next instruction's facts (a branch whose target they
    // tell) still ran: counted, not timed.
    for (const auto& f : facts_)
        if (f.executed) ++counters_.instructions;
    facts_.clear();
    decoded_.reset();
    x_ = {};
    settle_registers();
}

std::uint64_t Pipeline::frame_transfers(std::uint32_t frame, std::span<const unsigned> order, bool write, std::uint32_t vector_slot,
                                        std::uint64_t* vector_end) {
    std::uint64_t last = cycle_;
    bool vector_done = !vector_slot;
    std::size_t next = 0;
    const std::size_t words = order.size();
    for (std::uint64_t c = cycle_; next < words || !vector_done; ++c) {
        std::uint32_t address = frame + 4 * order[next < words ? next : 0];
        if (next < words) bus_.request(Master::Data, address, c);
        if (!vector_done) bus_.request(Master::Fetch, vector_slot, c);
        if (next < words && c >= lsu_next_address_ && bus_.may_grant(Master::Data, address, c)) {
            Grant g = bus_.grant(Master::Data, address, c, write ? DataTransfer::Write : DataTransfer::Read);
            lsu_next_address_ = g.data_end;
            last = std::max(last, g.data_end);
            ++next;
        }
        if (!vector_done && bus_.may_grant(Master::Fetch, vector_slot, c)) {
            *vector_end = bus_.grant(Master::Fetch, vector_slot, c).data_end;
            vector_done = true;
        }
        if (c - cycle_ > 256 + 4 * words) break;  // a bus that never grants: give up rather than hang
    }
    return last;
}

namespace {
// Frame words by index: R0-R3, R12, LR, PC, xPSR, then S0-S15 and FPSCR of an extended frame.
constexpr unsigned kStackingOrder[] = {6, 7, 0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24};
constexpr unsigned kUnstackingOrder[] = {8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 0, 1, 2, 3, 4, 5, 6, 7};
constexpr unsigned kFloatingOrder[] = {8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24};
}  // namespace

std::uint64_t Pipeline::exception_entry(std::uint32_t frame, std::uint32_t vector_slot, std::uint32_t handler, bool tail_chain, FloatingEntry fp) {
    drain();
    const std::uint64_t start = cycle_;
    std::uint64_t vector_end = cycle_, done = cycle_;
    if (!tail_chain) {
        std::span<const unsigned> order(kStackingOrder);
        done = frame_transfers(frame, order.first(fp.stacked ? order.size() : 8), true, vector_slot, &vector_end);
    } else {
        for (std::uint64_t c = cycle_ + 1;; ++c) {  // LR takes its EXC_RETURN value, then the vector alone
            bus_.request(Master::Fetch, vector_slot, c);
            if (bus_.may_grant(Master::Fetch, vector_slot, c) || c - cycle_ > 256) {
                vector_end = bus_.grant(Master::Fetch, vector_slot, c).data_end;
                break;
            }
        }
    }
    // The entry completes in the cycle after the frame and the vector are in; the handler's
    // fetch goes out then.
    std::uint64_t complete = std::max(done, vector_end) + 1;
    cycle_ = complete;
    counters_.cycles = cycle_;
    fetch_.redirect(handler);
    settle_registers();
    return complete - start;
}

std::uint64_t Pipeline::exception_return(std::uint32_t frame, std::uint32_t resume, FloatingReturn fp) {
    drain();
    const std::uint64_t start = cycle_;
    std::uint64_t ignored = 0;
    if (fp.preserved) {  // lazy stacking's writes, which the core made at the handler's first FP instruction
        cycle_ = frame_transfers(frame, kFloatingOrder, true, 0, &ignored);
    }
    std::span<const unsigned> order(kUnstackingOrder);
    std::uint64_t last = frame_transfers(frame, fp.unstacked ? order : order.last(8), false, 0, &ignored);
    // The return address is the 7th word: its fetch goes out as it arrives, the 8th behind it.
    std::uint64_t resume_at = last - 1;
    cycle_ = std::max(resume_at, start);
    counters_.cycles = cycle_;
    fetch_.redirect(resume);
    settle_registers();
    return cycle_ - start;
}

std::uint64_t Pipeline::lazy_preservation(std::uint32_t frame) {
    drain();
    const std::uint64_t start = cycle_;
    std::uint64_t ignored = 0;
    cycle_ = std::max(frame_transfers(frame, kFloatingOrder, true, 0, &ignored), start);  // the last write's data phase
    counters_.cycles = cycle_;
    settle_registers();
    return cycle_ - start;
}

void Pipeline::drain_and_wait(std::uint64_t cycles) {
    drain();
    cycle_ += cycles;
    counters_.cycles = cycle_;
    settle_registers();
}

std::uint32_t Pipeline::expected_next() const {
    const InstructionFacts& f = *last_given_;
    const ClassifiedInstruction* i = last_given_insn_;
    if (!i || !f.executed) return f.pc + (i ? i->size : 2);
    bool conditional_branch = i->kind == InstructionClass::ConditionalBranch || i->kind == InstructionClass::CompareBranch;
    bool taken = conditional_branch ? f.taken : i->writes_pc;
    if (!taken) return f.pc + i->size;
    if (i->target) return i->target;
    return f.target;  // 0 when not yet known
}

void Pipeline::queue_skipped_before(std::uint32_t pc) {
    if (!last_given_) return;
    std::uint32_t expected = expected_next();
    if (expected == pc) return;
    if (expected == 0) {  // a register branch or a load of the pc: this is where it went
        last_given_->target = pc;
        if (!facts_.empty() && facts_.back().pc == last_given_->pc) facts_.back().target = pc;
        if (x_.active && x_.facts.pc == last_given_->pc) {
            x_.facts.target = pc;
            if (!x_.redirect_to) x_.redirect_to = pc;
        }
        return;
    }
    // Instructions an IT block skipped: Unicorn runs no hook for them.
    std::uint32_t a = expected;
    std::array<std::uint32_t, 4> skipped{};  // an IT block holds at most 4
    std::size_t n = 0;
    for (; a != pc && n < skipped.size(); ++n) {
        const ClassifiedInstruction* i = code_->instruction_at(a);
        if (!i || !i->conditional) break;
        skipped[n] = a;
        a += i->size;
    }
    if (a != pc) return;  // a discontinuity: execute refetches when it sees it
    for (std::size_t k = 0; k < n; ++k) {
        InstructionFacts s;
        s.pc = skipped[k];
        s.executed = false;
        facts_.push_back(s);
    }
}

void Pipeline::executes(const InstructionFacts& facts) {
    queue_skipped_before(facts.pc);
    facts_.push_back(facts);
    last_given_ = facts;
    last_given_insn_ = code_->instruction_at(facts.pc);
    lr_ = facts.lr;
    given_data_phase_.reset();
    for (int guard = 0; guard < 4096 && step(); ++guard) {}
    // A pipeline that waits for facts it already has would hold every later instruction, and
    // each saved state would be larger than the one before (the facts are part of its key): the
    // model is wrong there, and it starts again from what was given rather than take the host's
    // memory. A few instructions are ever waiting normally (a branch and what follows it).
    if (facts_.size() > kMostWaiting) drain();
}

PipelineCounters Pipeline::at_data_phase() const {
    if (!given_data_phase_) return counters_;
    std::uint64_t d = *given_data_phase_;
    if (d < cycle_ && cycle_ - d < history_.size()) return history_[d % history_.size()];
    PipelineCounters c = counters_;
    if (d > cycle_) c.cycles += d - cycle_;
    return c;
}

std::uint64_t Pipeline::address_ready(const Decoded& d) const {
    std::uint64_t ready = d.decoded_at;
    // A load or store its IT block fails needs no address: it does not wait for its registers,
    // unless the instruction in execute decides the flags its condition is read from this late
    // (CMEmu: Decode::run_decode_phase_for_main_instruction, Execute::flags_on_critical_path_to_agu).
    if (d.insn->memory_access() && d.insn->conditional && d.insn->kind != InstructionClass::TableBranch && !it_condition_passes(*d.insn) &&
        !flags_reach_agu())
        return ready;
    for (std::uint16_t regs = d.insn->address_registers(); regs; regs &= regs - 1)
        ready = std::max(ready, address_ready_[static_cast<unsigned>(std::countr_zero(regs))]);
    return ready;
}

// The instruction in execute (that ran) sets the flags, or could (a 16-bit data-processing one),
// or carries a folded IT: a condition read at decode waits for it.
bool Pipeline::flags_reach_agu() const {
    if (!x_.active || !x_.facts.executed) return false;
    const ClassifiedInstruction& m = *x_.insn;
    if (m.sets_flags || (m.size == 2 && m.kind == InstructionClass::DataProcessing)) return true;
    const ClassifiedInstruction* next = m.size == 2 ? code_->instruction_at(m.address + 2) : nullptr;
    return next && next->kind == InstructionClass::It;
}

bool Pipeline::aligner_splits(const ClassifiedInstruction& i, const InstructionFacts& f) const {
    const bool aligned_by_core = single_transfer(i) || i.kind == InstructionClass::TableBranch;
    return aligned_by_core && misaligned(f.data_address, i.bytes) && bus_.port(f.data_address).times_unaligned;
}

bool Pipeline::in_first_data_cycle(std::uint64_t c) const {
    return x_.transfers_left == 0 && single_transfer(*x_.insn) && c == x_.address_cycle + 1;
}

bool Pipeline::can_accept(const Decoded& d) const {
    std::uint64_t c = cycle_;
    if (d.decoded_at >= c || address_ready(d) >= c) return false;
    if (!x_.active) return true;
    if (x_.redirect_at && *x_.redirect_at >= c) return false;
    // On the M4 only a single load or store, a NOP or a skipped instruction enters in a store's
    // data phase (PipelineParameters::store_data_phase_admits_transfers_only).
    if (p_.store_data_phase_admits_transfers_only && x_.insn->store && x_.transfers_left == 0 && c <= x_.last_data_end && !single_transfer(*d.insn) &&
        d.insn->kind != InstructionClass::Nop && !known_skipped(d.insn->address))
        return false;
    // Behind a split access, one the aligner splits too enters in the last part's data phase only
    // if its address was generated before the cycle that part issued in; else a cycle later
    // (CC2652, ldr_str_unaligned: a split load or store decoded just as the word at 1 mod 4
    // before it issued its last part; decoded earlier, or behind one transfer, it follows at once).
    if (x_.split_end && x_.transfers_left == 0 && c == x_.address_cycle + 1 && single_transfer(*d.insn) && address_ready(d) + 1 >= c) {
        if (facts_.empty()) return false;  // whether it splits: knows_enough() asks for its facts
        if (facts_.front().executed && aligner_splits(*d.insn, facts_.front())) return false;
    }
    if (x_.transfers_left == 0 && x_.busy_until < c) return true;
    // An MLA accumulating the RdHi of the SMULL/UMULL before it (and not multiplying it) enters in
    // the multiply's last cycle, as RdHi is written (CMEmu's pipelined xMULL/MLA slot).
    const ClassifiedInstruction& m = *x_.insn;
    if (m.kind == InstructionClass::MultiplyLong && d.insn->kind == InstructionClass::MultiplyAccumulate && !d.insn->subtracts &&
        d.insn->accumulator >= 0 && ((m.late_write >> d.insn->accumulator) & 1u) && !(d.insn->multiplicands & m.late_write) && c == x_.busy_until &&
        x_.facts.executed && !known_skipped(d.insn->address))  // the MLA runs too (CMEmu)
        return true;
    // A load/store's data phase may overlap the next single load/store (or NOP): its address
    // phase follows in the data phase, within one memory, and only in the data phase's first
    // cycle (CMEmu: LSU::can_pipeline_new_request). Behind a transfer in wait states, an
    // instruction not ready by then waits for the data phase to end (CC2652 from SRAM code to
    // flash without line buffers: the second of `ldr.w r0, [r1]` in a row a cycle longer than
    // the rest, ldm_ldmdb; ldr_reg).
    if (!p_.pipelined_loads || !in_first_data_cycle(c) || x_.insn->writes_pc || !x_.facts.executed) return false;
    if (x_.insn->store && x_.insn->writeback) return false;
    if (x_.insn->is_load() && (x_.insn->loaded & kSp)) return false;
    const ClassifiedInstruction& n = *d.insn;
    // An instruction its IT block fails runs in the data phase as a NOP does, unless the store
    // there reads its data register in it or an IT is folded onto it (CMEmu:
    // Execute::can_lsu_instr_be_pipelined, is_non_exec).
    if (known_skipped(n.address) && !d.folded_it) return !(x_.insn->store && x_.insn->register_offset);
    if (n.kind == InstructionClass::Nop) return true;
    // A store addressed [Rn, Rm] reads its data register in its data phase: the register file has
    // no port left for the next instruction (CMEmu's RegisterBankConflict).
    if (x_.insn->store && x_.insn->register_offset) return false;
    if (!single_transfer(n) || n.writes_pc || (n.writeback && !p_.writeback_transfers_pipeline)) return false;
    if (facts_.empty()) return false;
    const InstructionFacts& nf = facts_.front();
    if (!nf.executed) return false;
    const MemoryPort& here = bus_.port(x_.facts.data_address);
    const MemoryPort& there = bus_.port(nf.data_address);
    return &here == &there;
}

// What cycle `c` needs to know before it runs: false when facts of an instruction not yet
// given decide it. `accepting`: execute takes the decoded instruction this cycle.
bool Pipeline::knows_enough(std::uint64_t c, bool& accepting) {
    if (x_.active && x_.redirect_at && *x_.redirect_at == c && !x_.redirect_to) return false;
    bool idle = !decoded_ && !x_.active;
    if (idle && (fetch_.stopped() || !code_->instruction_at(fetch_.head()))) {
        if (facts_.empty()) return false;  // nothing to do
        // Execution went where nothing fetches (an exception's handler or return after the
        // fetch stopped): fetch from there.
        fetch_.redirect(facts_.front().pc);
    }
    accepting = decoded_ && can_accept(*decoded_);
    // can_accept() may depend on facts (pipelining into another memory): ask for them.
    if (decoded_ && !accepting && decoded_->decoded_at < c && address_ready(*decoded_) < c && facts_.empty() && x_.active && in_first_data_cycle(c))
        return false;
    if (accepting && facts_.size() < (decoded_->folded_it ? 2u : 1u)) return false;  // a folded IT runs with it
    // A register branch's own facts, without where it went: that shows at the next instruction.
    // (Facts of another instruction first: execution went elsewhere, and execute refetches.)
    if (accepting && decoded_->insn->kind == InstructionClass::RegisterBranch && !decoded_->branched_at_decode && !decoded_->insn->late_branch &&
        facts_.front().pc == decoded_->insn->address && facts_.front().executed && !facts_.front().target)
        return false;
    return !(decoded_ && decoded_->speculated && !decoded_->resolved && c >= decoded_->speculated_at + 1 && facts_.empty());
}

// Execute's cycle: the instruction leaving, the decoded one entering, a branch in execute
// fetching its target, a B<cc> resolved. Returns whether an instruction entered.
bool Pipeline::execute_cycle(std::uint64_t c, bool accepting, std::optional<std::uint32_t>& late_redirect) {
    if (x_.active && x_.transfers_left == 0 && x_.busy_until < c && !(x_.redirect_at && *x_.redirect_at >= c)) x_.active = false;
    bool issued = false;
    if (accepting) {
        if (facts_.front().pc != decoded_->insn->address) {  // not what was fetched: refetch from where execution went
            fetch_.redirect(facts_.front().pc);
            decoded_.reset();
        } else {
            start_execute(c, x_.active);  // still active: this one runs in its data phase
            issued = true;
        }
    }
    if (x_.active && x_.redirect_at && *x_.redirect_at == c) {  // a branch in execute fetches its target
        // A word of its own stream whose address the bus holds is still fetched first; so is the
        // one the registration buffer takes this cycle, where the core redirects after it
        // (step()), unless the branch's target went out at decode.
        const bool own_stream = x_.in_stream && x_.epoch_at_start == fetch_.epoch();
        if (p_.branch_follows_registered_fetch && own_stream && !x_.target_fetch_only && bus_.fetch_registered(fetch_.next_word()))
            late_redirect = *x_.redirect_to;
        else
            fetch_.redirect(*x_.redirect_to, false, p_.fetch_holds_presented_address && own_stream);
        x_.redirect_at.reset();
        decoded_.reset();
        refill_from_ = c + 1;  // waiting for the target is a fetch stall: CPI, whatever ran before
    }
    // A B<cc> (or a failing IT-block branch) is resolved the cycle after its target fetch.
    if (issued && x_.speculation_unresolved) {
        const bool taken = x_.facts.executed && x_.facts.taken && !x_.target_fetch_only;
        fetch_.resolve(taken, c, !taken && gap_after_not_taken(*x_.insn, x_.after_it_block));
        x_.speculation_unresolved = false;
    } else if (decoded_ && decoded_->speculated && !decoded_->resolved && c >= decoded_->speculated_at + 1) {
        const InstructionFacts& f = facts_.front();
        const bool taken = f.pc == decoded_->insn->address && f.executed && f.taken && !decoded_->target_fetch_only;
        fetch_.resolve(taken, c, !taken && gap_after_not_taken(*decoded_->insn, decoded_->after_it_block));
        decoded_->resolved = true;
    }
    return issued;
}

// Halfwords the decoded instruction frees when it moves to execute next cycle, which the fetch
// may count on (CMEmu's over-commit): none while execute is busy beyond this cycle, or for a
// load that cannot run in the data phase of the load before it (a multiple or dual one, one
// writing its base back, anything behind a multiple load). Nor while execute holds an instruction
// that learns only late in the cycle that it ends (ends_late): a multi-cycle computation or a load
// on every bus (on the M3 not a load on the PPB, which is inside the core); a store or CBZ on the
// M4 on every bus too, on the M3 only for a fetch the registration buffer takes in this cycle,
// which has the address before execute knows, or a store that entered in a data phase or has a
// load or store decoded behind it (all_transfers_postpone_fetch).
unsigned Pipeline::slots_freed_next_cycle(std::uint64_t c, bool execute_frees) const {
    if (!decoded_ || !execute_frees || address_ready(*decoded_) > c) return 0;
    const ClassifiedInstruction& d = *decoded_->insn;
    bool waits = x_.active && x_.insn->is_load() && d.is_load() &&
                 (x_.insn->kind == InstructionClass::LoadMultiple || !single_transfer(d) || (d.writeback && !p_.writeback_transfers_pipeline));
    const bool multiplies_end_late = p_.multiply_accumulate_cycles > 1 || p_.iterative_long_multiply;
    bool undecided = false;
    if (x_.active && x_.facts.executed && x_.insn->ends_late(multiplies_end_late)) {
        const bool memory = x_.insn->memory_access();
        if (memory && !p_.all_transfers_postpone_fetch && bus_.port(x_.facts.data_address).port == BusPort::Private)
            undecided = false;  // the PPB is inside the core: it knows when the transfer ends
        else if (!memory && x_.insn->kind != InstructionClass::CompareBranch)
            undecided = true;  // a multi-cycle computation
        else if (x_.insn->is_load())
            undecided = true;
        else  // a store or CBZ: on the M3 a store too when a data phase's end decides what comes next
            undecided =
                p_.all_transfers_postpone_fetch || bus_.fetch_registered(fetch_.next_word()) || (memory && (x_.pipelined || d.memory_access()));
    }
    // A NOP or an instruction its IT block skips entering execute in a load's or store's data phase
    // (CMEmu's phony multicycle NOP), or the bubble while a load waits for its address (CMEmu's
    // decode_stall, read by should_speculate): the fetch does not count on the slots in that cycle either.
    const bool phony = x_.active && x_.phony && x_.start == c;
    const bool decode_stalled = decode_stalled_at_ == c;
    return waits || undecided || phony || decode_stalled ? 0u : d.size / 2u + (decoded_->folded_it ? 1u : 0u);
}

bool Pipeline::step() {
    const std::uint64_t c = cycle_;
    bool accepting = false;
    if (!knows_enough(c, accepting)) return false;
    fetch_.receive(c);
    bool folded = accepting && decoded_->folded_it;
    std::optional<std::uint32_t> late_redirect;
    bool issued = execute_cycle(c, accepting, late_redirect);
    folded = folded && issued;
    // The load/store unit asks for the bus before the fetch does; the bus matrix arbitrates.
    bool wants_data = x_.active && x_.transfers_left && c >= x_.first_address && c >= lsu_next_address_ &&
                      !(x_.insn->is_load() && store_data_end_ + load_waits_behind_store(c) >= c);
    std::uint32_t data_address = x_.next_address;
    if (wants_data)
        bus_.request(Master::Data, data_address, c);
    else if (x_.active && x_.transfers_left && x_.transfers_done)
        bus_.keep_asking(Master::Data, data_address, c);
    else if (x_.active && x_.pipelined && x_.transfers_left && !x_.transfers_done && c >= x_.first_address && c < lsu_next_address_ &&
             !x_.insn->writeback)
        // Entered in the data phase before it, it presents its address at once, and while that
        // data phase is in wait states the bus holds it (AHB): it goes before a fetch that asked
        // after it. (CC2652, flash without line buffers: a load behind a load costs one flash
        // access, not two, ldm_narrow; ldr_reg.) A load writing its base back presents it only
        // when the bus can take it (ldr_imm_index: the fetch first, a flash access later).
        bus_.request(Master::Data, data_address, c);
    if (late_redirect) {
        // Nothing to decode: the queue is the one the branch in execute flushes this cycle.
    } else if (!decoded_) {
        decode(c);
    } else {
        fold_late_it();
    }
    // The decoded instruction moves on next cycle unless execute is busy beyond this one. A store
    // whose last address phase goes out now leaves execute with it (its data phase runs on in the
    // write buffer), unless the fetch competes for that bus this cycle.
    bool store_leaves = wants_data && x_.transfers_left == 1 && !x_.waits_for_data && bus_.may_grant(Master::Data, data_address, c) &&
                        (control_.write_buffer || bus_.port(data_address).wait_states == 0) &&
                        !(bus_.port(data_address).port == BusPort::System && bus_.port(fetch_.next_word()).port == BusPort::System);
    bool execute_frees = !x_.active || (x_.transfers_left == 0 && x_.busy_until <= c && !x_.redirect_at) || store_leaves;
    if (decoded_ && (execute_frees || decoded_->decode_target || speculates_at_decode(execute_frees)))
        branch_at_decode(c, execute_frees, late_redirect);
    // Execute frees while the decoded load still waits for an address register the load in
    // execute brings from memory: next cycle is a bubble (CMEmu: Fetch::tick_piq's decode_stall),
    // which slots_freed_next_cycle reads. CMEmu latches it for a store too, and behind any
    // instruction; the STM32F100's compiled set says not (primecount -Os exact only without the
    // store's; nettle-aes -O3, whose table loads wait for an ALU result, +2.07% with the bubble
    // behind it, +0.33% without).
    if (decoded_ && decoded_->insn->is_load() && execute_frees && address_ready(*decoded_) > c && x_.active &&
        (x_.insn->loaded & decoded_->insn->address_registers()))
        decode_stalled_at_ = c + 1;
    fetch_.request(c, slots_freed_next_cycle(c, execute_frees));
    if (wants_data && bus_.may_grant(Master::Data, data_address, c)) issue_transfers(c);
    const bool fetched = fetch_.issue(c);
    if (late_redirect) {  // the word the buffer took goes first; without one the target goes now
        fetch_.redirect(*late_redirect, false, true);
        if (!fetched) {
            fetch_.request(c);
            fetch_.issue(c);
        }
    }
    count(c, issued, folded);
    if (trace_)
        std::fprintf(trace_, "c%lu X:%x%s t%u/%lu D:%x fetch:%s\n", (unsigned long)c, x_.active ? x_.insn->address : 0, issued ? "*" : " ",
                     x_.transfers_left, (unsigned long)x_.last_data_end, decoded_ ? decoded_->insn->address : 0, fetch_.describe().c_str());
    ++cycle_;
    return true;
}

// An instruction waiting in decode folds the IT behind it once the IT is in the queue, as at
// decode (CMEmu: Decode::run_decode re-runs the folded-instruction phase each cycle).
void Pipeline::fold_late_it() {
    Decoded& d = *decoded_;
    if (!p_.fold_it || !control_.fold_it || d.folded_it || d.epoch != fetch_.epoch() || !folds_it(*d.insn)) return;
    const ClassifiedInstruction* next = code_->instruction_at(d.insn->address + 2);
    d.folded_it = next && next->kind == InstructionClass::It && fetch_.holds(d.insn->address + 2, 2);
}

void Pipeline::decode(std::uint64_t c) {
    if (c < decode_not_before_) return;  // a branch's target enters the decode head as the branch enters execute
    const ClassifiedInstruction* i = code_->instruction_at(fetch_.head());
    if (!i || !fetch_.holds(i->address, i->size)) return;
    Decoded d;
    d.insn = i;
    d.decoded_at = c;
    d.epoch = fetch_.epoch();
    if (p_.fold_it && control_.fold_it && folds_it(*i)) {
        const ClassifiedInstruction* next = code_->instruction_at(i->address + 2);
        d.folded_it = next && next->kind == InstructionClass::It && fetch_.holds(i->address + 2, 2);
    }
    d.after_it_block = previous_decoded_in_it_block_ && i->kind == InstructionClass::ConditionalBranch;
    previous_decoded_in_it_block_ = i->conditional && !i->is_branch();
    bool lr_dirty = previous_decoded_writes_lr_;
    const std::uint32_t link = decoded_link_;
    // A BL's or BLX's own link write does not hold a BX LR behind it: decode knows the value, its
    // return address (CMEmu: Decode::move_pipeline).
    const bool links = (i->writes & kLr) && (i->kind == InstructionClass::Branch || i->kind == InstructionClass::RegisterBranch);
    previous_decoded_writes_lr_ = (i->writes & kLr) && !links;
    decoded_link_ = links ? i->address + i->size : 0;
    // In an IT block too, when its condition passes (decode sees the flags as execute sets them).
    if (p_.decode_time_branches && i->kind != InstructionClass::ConditionalBranch) {
        if (i->kind == InstructionClass::Branch && i->target)
            d.decode_target = i->target;
        else if (i->kind == InstructionClass::RegisterBranch && i->reads_lr_target && !i->late_branch && !lr_dirty && (link || lr_)) {
            d.decode_target = (link ? link : lr_) & ~1u;
            d.target_fetch_only = !p_.conditional_register_branches_at_decode && i->conditional;
        }
    }
    if (p_.speculative_conditional_branches && i->kind == InstructionClass::ConditionalBranch && i->target) d.speculate_target = i->target;
    decoded_ = d;
}

void Pipeline::branch_at_decode(std::uint64_t c, bool execute_frees, std::optional<std::uint32_t>& late_redirect) {
    // Called as a branch is decoded (a B<cc> as speculates_at_decode says), or in the cycle before
    // it moves to execute.
    Decoded& d = *decoded_;
    // A member of an IT block that fails its condition, a B<cc> there too (a B the IT made
    // conditional).
    const std::optional<std::uint32_t> target = d.decode_target ? d.decode_target : d.speculate_target;
    const bool fails = target && d.insn->conditional && !it_condition_passes(*d.insn);
    if (fails && condition_known_at_decode(*target)) {
        d.decode_target.reset();  // no fetch: decode knows it does not branch
        d.speculate_target.reset();
    } else if (d.decode_target && (fails || d.target_fetch_only)) {
        // Its condition fails: the target fetch goes out as for a B<cc> and its data is dropped.
        // The same where the core branches in execute only (target_fetch_only).
        d.speculate_target = d.decode_target;
        d.decode_target.reset();
    }
    if (d.decode_target) {
        // Held only behind a multi-cycle computation: behind a load the fetch keeps its pace
        // (a load's target has its first two words in when it executes, silicon rule 40).
        const bool computing = computing_beyond(execute_frees);
        // As a branch in execute, it follows the word the registration buffer takes this cycle.
        if (p_.branch_follows_registered_fetch && !computing && !late_redirect && bus_.fetch_registered(fetch_.next_word()))
            late_redirect = *d.decode_target;
        else if (!fetch_.redirect_within_queue(*d.decode_target, last_fetch_word(*d.insn), computing))
            // a held branch, as one in execute, goes after the address the bus holds; a free one replaces it
            fetch_.redirect(*d.decode_target, computing, computing && p_.fetch_holds_presented_address);
        d.decode_target.reset();
        d.branched_at_decode = true;
    } else if (d.speculate_target) {
        fetch_.speculate(*d.speculate_target);
        d.speculate_target.reset();
        d.speculated = true;
        d.speculated_at = c;
    }
}

// The branch decoded is the first member of an IT block whose IT is in execute, not folded: the
// IT decides its condition in this cycle, before the fetch presents the target's address, except
// over the System bus, whose registration buffer has taken it by then. Measured on the CC2652
// (it_and_blx_bx_mov_pc_lr: `movs; it ne; blxne lr`, NE failing, the IT folded at every other
// alignment): from flash without line buffers the unfolded copies cost no flash access (3 cycles
// fewer than a dropped target fetch), the folded ones one; from SRAM both cost the fetch. So does
// `it ne; bne.n` failing, a B<cc> to the model (it_fold_after_skipped_branch: a flash access
// fewer without line buffers, a cycle with them). The STM32F100's measurements of the same code
// do not tell (its flash has no wait states).
bool Pipeline::condition_known_at_decode(std::uint32_t target) const {
    return x_.active && x_.insn->kind == InstructionClass::It && bus_.port(target).port != BusPort::System;
}

bool Pipeline::gap_after_not_taken(const ClassifiedInstruction& branch, bool after_it_block) const {
    if (!p_.fetch_gap_after_it_branch || !after_it_block) return false;
    const ClassifiedInstruction* behind = code_->instruction_at(branch.address + branch.size);
    return behind && behind->size == 4;
}

// A B<cc> sends its target fetch in the cycle it is decoded, while execute is still busy with the
// instruction before it (CMEmu: decode's branch phase runs right after decode, under a busy
// execute). Measured on the CC2652 from flash with line buffers: `ldr.w; bne.n` taken costs what
// `ldr.w; b.n` does (5 cycles to the target's load, 8 when the fetch waited for the load's data
// phase, bcond); on the STM32F100's compiled set st -Os +0.05% -> -0.01%. Behind a multi-cycle
// computation (MLA, a long multiply, a divide) it waits for the computation's last cycle if it came
// in the fetch word that instruction ends in: the decode head has not moved past that word while
// the instruction executes (edn's `cmp; mla; bne`, the B<cc> in a word of its own, is a cycle
// shorter than the B<cc> held gives; its `mla; mla; bne`, the B<cc> in the MLA's last word, is not).
bool Pipeline::speculates_at_decode(bool execute_frees) const {
    const Decoded& d = *decoded_;
    if (!d.speculate_target) return false;
    return !computing_beyond(execute_frees) || (d.insn->address & ~3u) != last_fetch_word(*x_.insn);
}

// Decode sees the flags as execute will have them: whether an instruction of the IT block the
// last IT opened passes its condition.
bool Pipeline::it_condition_passes(const ClassifiedInstruction& i) const {
    std::uint32_t a = it_block_.first;
    for (unsigned k = 0; k < it_block_.length; ++k) {
        if (a == i.address) return (it_block_.passes >> k) & 1u;
        const ClassifiedInstruction* n = code_->instruction_at(a);
        if (!n) break;
        a += n->size;
    }
    return true;
}

// Long on purpose: the execute stage's one decision per instruction, in the order the TRM gives
// its rules (fold, branch, load/store pipelining, multi-cycle classes), on the hot path of every
// instruction the pipeline times; split, the rules' order would be spread over calls.
void Pipeline::start_execute(std::uint64_t c, bool pipelined) {
    Decoded d = *decoded_;
    decoded_.reset();
    // What the instruction before this one wrote, a base it wrote back included (the classifier
    // reads writeback from its writes); execute's record still holds it.
    const std::uint16_t written_before = x_.insn && x_.facts.executed ? x_.insn->writes : 0;
    x_.facts = facts_.front();  // straight into execute's record: no copy in between
    facts_.pop_front();
    const InstructionFacts& f = x_.facts;
    if (d.folded_it && !facts_.empty() && facts_.front().pc == d.insn->address + d.insn->size) {
        const ClassifiedInstruction* it = code_->instruction_at(facts_.front().pc);
        it_block_ = {facts_.front().pc + 2, static_cast<std::uint8_t>(it ? it->it_length : 0), facts_.front().it_passes};
        facts_.pop_front();
    }
    if (d.insn->kind == InstructionClass::It) it_block_ = {d.insn->address + 2, d.insn->it_length, f.it_passes};
    const ClassifiedInstruction& i = *d.insn;
    x_.in_stream = d.epoch == fetch_.epoch();
    x_.epoch_at_start = fetch_.epoch();
    if (x_.in_stream) fetch_.consume(i.size + (d.folded_it ? 2u : 0u));
    // Field by field: clearing the whole record costs more than the instruction (per instruction).
    x_.active = true;
    x_.insn = &i;
    x_.start = c;
    x_.busy_until = c;
    x_.transfers_left = 0;
    x_.next_address = 0;
    x_.split_end = 0;
    x_.last_data_end = 0;
    x_.waits_for_data = false;
    x_.redirect_at.reset();
    x_.redirect_to.reset();
    x_.first_address = 0;
    x_.address_cycle = 0;
    x_.transfers_done = 0;
    x_.phony = pipelined && (i.kind == InstructionClass::Nop || !f.executed);
    x_.pipelined = pipelined;
    x_.speculation_unresolved = d.speculated && !d.resolved;
    x_.after_it_block = d.after_it_block;
    x_.target_fetch_only = d.target_fetch_only;
    // A taken B<cc> whose target arrived while it waited in decode: the target decodes the cycle
    // after the branch executes at the earliest (the TRM's P >= 1), not alongside it.
    if (d.speculated && f.executed && f.taken) decode_not_before_ = c + 1;
    if (d.branched_at_decode) {
        decode_not_before_ = c + 1;
        fetch_.release();
    }
    last_was_lsu_ = i.memory_access() || i.late_branch;
    lsu_until_ = ~0ull;
    if (!f.executed) {  // skipped in an IT block: one cycle,
        // but two for a load of the pc, and the second is a fetch stall (CPI): measured on the
        // STM32F100's compiled set, where libgcc's soft float skips `ittt ne; movne; movne; popne
        // {r4, r5, pc}` once a call. ud -Os and -O0 make the same calls and were short by exactly
        // one cycle a call, with LSUCNT exact and CPICNT short by the same count modulo 256.
        if (i.writes_pc && i.is_load()) x_.busy_until = c + 1, last_was_lsu_ = false;
        return;
    }
    auto written_ready = [&](std::uint16_t regs, std::uint64_t at) {
        for (; regs; regs &= regs - 1) address_ready_[static_cast<unsigned>(std::countr_zero(regs))] = at;
    };
    if (i.memory_access()) {
        unsigned transfers = i.transfers;
        // The aligner splits an unaligned access: a word at 1 or 3 mod 4 into byte, halfword, byte;
        // at 2 mod 4, or a halfword at an odd address (an LDRH's or a TBH's entry), into two.
        if (aligner_splits(i, f)) {
            transfers += i.bytes == 4 && (f.data_address & 1) ? 2 : 1;
            x_.split_next = f.data_address;
            x_.split_end = f.data_address + i.bytes;
        }
        x_.transfers_left = transfers;
        x_.next_address = f.data_address & ~3u;
        x_.first_address = c;
        // A store leaves execute after its address phase, but one addressed [Rn, Rm] reads its
        // third register, the data, in its data phase and stays for it (unless it runs in a
        // load's data phase, when the register file has a port to spare).
        x_.waits_for_data = i.kind != InstructionClass::Store || (i.register_offset && !pipelined) || p_.stores_hold_execute;
        if (i.writes_pc || i.kind == InstructionClass::TableBranch) fetch_.disable(c);
        if (i.writeback && i.base >= 0) {
            // On a core whose writeback loads pipeline, a load that waited in decode (its address
            // and new base generated a cycle or more before it entered) forwards the new base to
            // the next load's address generation in this cycle, so that load may enter in this
            // one's data phase; unless its own base was the instruction before's result, which
            // came through the forwarding path itself (PipelineParameters::writeback_transfers_pipeline).
            const bool forwarded =
                p_.writeback_transfers_pipeline && single_transfer(i) && i.is_load() && d.decoded_at + 2 <= c && !((written_before >> i.base) & 1u);
            written_ready(static_cast<std::uint16_t>(1u << i.base), forwarded ? c : c + 1);
        }
        written_ready(i.loaded, ~0ull >> 1);  // set as the data arrives
        return;
    }
    switch (i.kind) {
        case InstructionClass::Branch:
            if (!d.branched_at_decode) x_.redirect_at = c, x_.redirect_to = i.target ? i.target : f.target;
            if (i.writes & kLr) written_ready(kLr, c + 1);
            return;
        case InstructionClass::ConditionalBranch: return;
        case InstructionClass::CompareBranch:
            if (f.taken) x_.redirect_at = c, x_.redirect_to = i.target;
            return;
        case InstructionClass::RegisterBranch:
            written_ready(static_cast<std::uint16_t>(i.writes & 0x7FFF), c + 1);
            if (d.branched_at_decode) return;
            if (i.late_branch) {
                if (p_.late_branch_stops_fetch) fetch_.disable(c);
                x_.redirect_at = c + 1;
            } else {
                x_.redirect_at = c;
            }
            if (f.target) x_.redirect_to = f.target;
            x_.busy_until = *x_.redirect_at;
            return;
        case InstructionClass::InstructionBarrier:
            x_.redirect_at = c;
            x_.redirect_to = i.address + i.size;
            return;
        default: break;
    }
    unsigned cycles = compute_cycles(i, f, p_);
    x_.busy_until = c + cycles - 1;
    written_ready(static_cast<std::uint16_t>(i.writes & ~i.late_write & 0x7FFF), cycles > 1 && i.late_write ? x_.busy_until : x_.busy_until + 1);
    written_ready(i.late_write, x_.busy_until + 1);
}

void Pipeline::issue_transfers(std::uint64_t c) {
    Grant g = bus_.grant(Master::Data, x_.next_address, c,
                         !x_.insn->store ? DataTransfer::Read
                         : x_.split_end  ? DataTransfer::WritePiece
                                         : DataTransfer::Write);
    const ClassifiedInstruction& i = *x_.insn;
    if (x_.transfers_done == 0 && last_given_ && x_.facts.pc == last_given_->pc) given_data_phase_ = g.data_end;
    ++x_.transfers_done;
    --x_.transfers_left;
    if (x_.split_end) {
        x_.split_next += aligner_part_bytes(x_.split_next, x_.split_end);
        x_.next_address = x_.split_next & ~3u;
    } else {
        x_.next_address += 4;
    }
    x_.address_cycle = c;
    x_.last_data_end = g.data_end;
    lsu_next_address_ = g.data_end;
    if (i.store) store_data_end_ = g.data_end;
    if (!i.store && i.loaded) {
        // The registers arrive in ascending order, one a transfer (a split access: with its last).
        unsigned n = 0;
        for (std::uint16_t regs = i.loaded; regs; regs &= regs - 1, ++n) {
            bool arrives =
                single_transfer(i) ? x_.transfers_left == 0 : n + 1 == x_.transfers_done || (x_.transfers_left == 0 && n >= x_.transfers_done);
            if (!arrives) continue;
            // The AGU's forwarding path takes a single, dual or 32-bit multiple load's data as it
            // arrives; a 16-bit LDM/POP, or a load writing its base back, writes the register it
            // loads last through the register file, a cycle later.
            auto r = static_cast<unsigned>(std::countr_zero(regs));
            bool late = (i.writeback || (i.kind == InstructionClass::LoadMultiple && i.size == 2)) && static_cast<int>(r) == i.last_loaded;
            address_ready_[r] = g.data_end + (late ? 1 : 0);
        }
    }
    if (x_.transfers_left) return;
    // Without the write buffer (ACTLR.DISDEFWBUF) a store holds execute through its data phase's
    // wait states; its last cycle overlaps the next instruction as it does behind a load.
    x_.busy_until = x_.waits_for_data ? g.data_end : i.store && !control_.write_buffer ? std::max(c, g.data_end - 1) : c;
    if (i.kind == InstructionClass::TableBranch) {
        lsu_until_ = g.data_end + 1;  // then the adder forms the target: CPI
        x_.redirect_at = g.data_end + 2;
        if (x_.facts.target) x_.redirect_to = x_.facts.target;
        x_.busy_until = *x_.redirect_at;
    } else if (i.writes_pc) {
        x_.redirect_at = g.data_end + 1;
        if (x_.facts.target) x_.redirect_to = x_.facts.target;
        x_.busy_until = *x_.redirect_at;
    }
}

void Pipeline::count(std::uint64_t c, bool issued, bool folded) {
    history_[c % history_.size()] = counters_;  // as a read in cycle c sees them
    if (issued) {
        refill_from_ = ~0ull;
        ++counters_.instructions;
        if (folded) ++counters_.instructions, ++counters_.fold;
    } else if (last_was_lsu_ &&
               (p_.lsu_counts_fetch_waits || (c < refill_from_ && c <= lsu_until_ && x_.active && (x_.transfers_left || c <= x_.busy_until)))) {
        // Execute still holds a load or store: LSU. Waiting for an address, a fetch or a refill: CPI.
        ++counters_.lsu;
    }
    counters_.cycles = c + 1;
}

}  // namespace emutrace::models
