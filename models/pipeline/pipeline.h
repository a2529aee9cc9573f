#pragma once
// The Cortex-M3/M4 pipeline as components stepped cycle by cycle: the fetch unit with its
// prefetch queue, decode (with the address generation unit, IT folding and branches taken at
// decode), execute (multi-cycle instructions, the register hazards the AGU sees), the load/store
// unit on the bus matrix, and the DWT's view of each cycle. It is fed in program order with what
// only execution knows (the instruction ran or was skipped, where a branch went, the address of
// a data access, operand-dependent cycles) and runs as far as those facts allow, so that a data
// access's cycle is known while the emulator performs it.

#include <array>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "models/core.h"
#include "models/instruction_class.h"
#include "models/memory_system.h"
#include "models/pipeline/bus_matrix.h"
#include "models/pipeline/fetch_unit.h"
#include "models/pipeline/pipeline_parameters.h"

namespace emutrace::models {

/// What only executing an instruction tells the pipeline.
struct InstructionFacts {
    std::uint32_t pc = 0;
    bool executed = true;             ///< false: in an IT block with its condition failing
    bool taken = false;               ///< a conditional branch whose condition passed
    std::uint32_t target = 0;         ///< a register branch's destination (0: learnt from the next instruction)
    std::uint32_t data_address = 0;   ///< its first data transfer's address, as timing sees it (models::timing_address)
    std::uint8_t execute_cycles = 0;  ///< operand-dependent cycles (divide, iterative long multiply); 0: the class's
    std::uint32_t lr = 0;             ///< LR before it runs, for a BX LR decoded behind it
    std::uint8_t it_passes = 0;       ///< an IT: bit k, its k-th instruction's condition passes with the flags now
};

/// Execute cycles of an instruction that neither accesses memory nor branches, with the
/// operand-dependent count from `facts` where the class has one (0 there: the class's fewest).
unsigned compute_cycles(const ClassifiedInstruction& i, const InstructionFacts& facts, const PipelineParameters& p);

/// Whether which instructions of an IT block pass can change the pipeline's timing. Not when each
/// member is a one-cycle data-processing instruction (one that fails takes its execute cycle too)
/// and `after`, the instruction after the block, does not form its address from a register they
/// write (a result the address generation unit would wait for only if the member ran). Null
/// members or `after`: not known, so it may.
bool it_outcome_changes_timing(std::span<const ClassifiedInstruction* const> members, const ClassifiedInstruction* after,
                               const PipelineParameters& p);

/// Static instructions by address, for the stages that run ahead of execution.
class CodeView {
public:
    virtual ~CodeView() = default;
    /// The instruction at `address`, or nullptr when none can be decoded there.
    virtual const ClassifiedInstruction* instruction_at(std::uint32_t address) = 0;
};

/// The DWT's counts: cycles = instructions + CPI + LSU - folded (plus exception and sleep cycles).
struct PipelineCounters {
    std::uint64_t cycles = 0, instructions = 0, lsu = 0, fold = 0;
};

/// What an exception entry transfers of those words.
struct FloatingEntry {
    bool stacked = false;  ///< written with the frame (FPCCR.LSPEN clear)
};

/// What an exception return transfers of them.
struct FloatingReturn {
    bool unstacked = false;  ///< read back (written at entry, or lazily since)
    bool preserved = false;  ///< lazy stacking wrote them since, and they were not charged then
};

class Pipeline {
public:
    Pipeline(const PipelineParameters& parameters, const MemorySystem& memory, CodeView& code);
    /// A copy is a saved state: it runs on as the original would, on its own bus. (Every member
    /// but the wiring is in the copy's list: a new member goes there too.)
    Pipeline(const Pipeline& other);
    Pipeline& operator=(const Pipeline&) = delete;

    /// The memory system's run-time switches from the next transfer on (BusMatrix::set_mode).
    void set_memory_mode(const MemoryMode& mode) { bus_.set_mode(mode); }
    /// The flash cache missed the line at `line` (BusMatrix::cache_missed).
    void cache_missed(std::uint32_t line) { bus_.cache_missed(line); }
    /// What the core's auxiliary control register (ACTLR) sets, as the firmware wrote it.
    struct CoreControl {
        bool write_buffer = true;  ///< clear DISDEFWBUF: a store leaves execute with its address phase
        bool fold_it = true;       ///< clear DISFOLD: an IT may fold into the instruction before it
        bool operator==(const CoreControl&) const = default;
    };
    void set_core_control(const CoreControl& control) { control_ = control; }
    const MemoryMode& memory_mode() const { return bus_.mode(); }
    /// Lets the instructions already given finish, then `cycles` pass with the pipeline empty.
    void drain_and_wait(std::uint64_t cycles);
    /// Exception entry once the instructions given have finished: the 8-word frame at `frame` is
    /// written a word a cycle (PC, xPSR, R0-R3, R12, LR, then any FP words) while the fetch reads the
    /// vector at `vector_slot`; the handler at `handler` is fetched when both are done. A tail-chain
    /// reads only the vector. Returns the cycles the entry took before the handler's fetch (EXCCNT).
    std::uint64_t exception_entry(std::uint32_t frame, std::uint32_t vector_slot, std::uint32_t handler, bool tail_chain, FloatingEntry fp = {});
    /// Exception return, right after the instruction that returned: the frame at `frame` is read
    /// a word a cycle (any FP words first) and `resume` is fetched as the return address (the 7th
    /// word) arrives. Returns the cycles it took (EXCCNT).
    std::uint64_t exception_return(std::uint32_t frame, std::uint32_t resume, FloatingReturn fp = {});
    /// Lazy FP preservation, at a handler's first FP instruction: once the instructions given have
    /// finished, S0-S15 and FPSCR are written a word a cycle to the frame at `frame` (FPCAR - 0x20).
    /// Returns the cycles it took.
    std::uint64_t lazy_preservation(std::uint32_t frame);
    /// The next instruction in program order runs with `facts`; the pipeline advances as far as
    /// they allow. Instructions between the previous one and `facts.pc` that an IT block skipped
    /// are found here.
    void executes(const InstructionFacts& facts);

    /// Writes each simulated cycle's stages to `out` (null: off): what execute started, what decode
    /// holds, the prefetch queue and the words in flight.
    void trace_to(std::FILE* out) { trace_ = out; }

    /// The state as a key: everything that decides what the pipeline does from here, with cycles
    /// counted back from now (those longer ago than kHorizon, which nothing compares any more,
    /// as one value) and data addresses as the memory they are in. States with equal keys run
    /// alike from here, whenever they occur.
    void state_key(std::vector<std::uint64_t>& out) const;
    static constexpr std::uint64_t kHorizon = 64;
    /// Given instructions the pipeline has not taken in yet beyond which it is wedged (executes()).
    static constexpr std::size_t kMostWaiting = 64;
    /// Moves a saved state in time: it is now at `now` (its cycle counter) with these counts.
    void move_to(const PipelineCounters& now);

    /// The counts as of the last cycle simulated.
    const PipelineCounters& counters() const { return counters_; }
    /// The counts as of the data phase of the last given instruction's first transfer: what a
    /// device it reads sees (a DWT counter read).
    PipelineCounters at_data_phase() const;

private:
    struct Decoded {
        const ClassifiedInstruction* insn = nullptr;
        std::uint64_t decoded_at = 0;
        bool folded_it = false;
        bool branched_at_decode = false;
        bool speculated = false;
        bool resolved = false;
        /// A register branch the core takes in execute: its target fetch at decode is dropped
        /// (PipelineParameters::conditional_register_branches_at_decode).
        bool target_fetch_only = false;
        std::uint64_t speculated_at = 0;
        std::optional<std::uint32_t> decode_target, speculate_target;  ///< a branch at decode not yet taken
        std::uint32_t epoch = 0;                                       ///< the fetch unit's when decoded
        bool after_it_block = false;                                   ///< a B<cc> right behind an IT block's last instruction
    };
    struct Executing {
        const ClassifiedInstruction* insn = nullptr;
        InstructionFacts facts;
        std::uint64_t start = 0;
        std::uint64_t busy_until = 0;    ///< last cycle it holds execute (for transfers: set as they go)
        unsigned transfers_left = 0;     ///< data transfers not yet granted an address phase
        std::uint32_t next_address = 0;  ///< the word its next transfer addresses
        /// An access the aligner splits: where its next part starts and where the access ends
        /// (split_end 0: not split). The parts are the largest aligned pieces, in address order.
        std::uint32_t split_next = 0, split_end = 0;
        std::uint64_t last_data_end = 0;
        bool waits_for_data = false;               ///< holds execute until its last data phase ends
        std::optional<std::uint64_t> redirect_at;  ///< cycle its branch fetches the target
        std::optional<std::uint32_t> redirect_to;  ///< unknown until the next instruction shows it
        std::uint64_t first_address = 0;           ///< the first cycle it may present an address
        std::uint64_t address_cycle = 0;           ///< when its last address phase was granted
        unsigned transfers_done = 0;
        bool phony = false;                   ///< a NOP or skipped instruction that entered in a data phase (CMEmu's phony multicycle NOP)
        bool pipelined = false;               ///< entered in the data phase of the load or store before it
        bool speculation_unresolved = false;  ///< a B<cc> whose target fetch has not been confirmed
        bool after_it_block = false;          ///< Decoded::after_it_block
        bool target_fetch_only = false;       ///< its target fetch is dropped whether it branches or not
        bool active = false;
        bool in_stream = false;            ///< decoded from the fetch unit's stream of its start
        std::uint32_t epoch_at_start = 0;  ///< the fetch unit's stream when it started
    };

    bool step();  // one cycle; false (nothing done) when it needs facts it has not got
    bool knows_enough(std::uint64_t c, bool& accepting);
    /// `late_redirect`: set to the target of a branch in execute whose redirect waits for the
    /// fetch's address of this cycle (PipelineParameters::branch_follows_registered_fetch).
    bool execute_cycle(std::uint64_t c, bool accepting, std::optional<std::uint32_t>& late_redirect);
    unsigned slots_freed_next_cycle(std::uint64_t c, bool execute_frees) const;
    /// The cycles a load waits beyond a store's data phase (PipelineParameters::load_behind_store_waits_for_fetch).
    unsigned load_waits_behind_store(std::uint64_t c) const { return p_.load_behind_store_waits_for_fetch && bus_.system_fetch_in_flight(c) ? 1 : 0; }
    bool can_accept(const Decoded& d) const;
    /// Whether the core's aligner splits `i`'s access at `f`'s address into several transfers.
    bool aligner_splits(const ClassifiedInstruction& i, const InstructionFacts& f) const;
    std::uint64_t address_ready(const Decoded& d) const;  // the cycle its AGU has the address
    void start_execute(std::uint64_t c, bool pipelined);
    void settle_registers();  // after a flush: no register waits for an instruction that will not finish
    void drain();             // lets execute finish what it has; drops what it cannot finish without facts
    // Transfers of an exception's frame, one a cycle as the bus grants them, from cycle_ on:
    // the last data phase's end (and the vector's, when `vector_slot` is not 0).
    // `order` lists the frame's words (by index) in the order they move.
    std::uint64_t frame_transfers(std::uint32_t frame, std::span<const unsigned> order, bool write, std::uint32_t vector_slot,
                                  std::uint64_t* vector_end);
    void decode(std::uint64_t c);
    void fold_late_it();
    bool speculates_at_decode(bool execute_frees) const;
    /// Execute is busy beyond this cycle with something other than a load or store: a multi-cycle
    /// computation, which holds a branch at decode (`execute_frees` as step() computes it).
    bool computing_beyond(bool execute_frees) const { return !execute_frees && x_.active && !x_.insn->memory_access(); }
    /// Cycle `c` is the first of the data phase of execute's single load or store, its last
    /// address phase out: the one cycle the next load or store may enter behind it.
    bool in_first_data_cycle(std::uint64_t c) const;
    /// The facts given say the instruction at `address`, next to run, is skipped (its IT block
    /// failed it). False while they do not reach it yet.
    bool known_skipped(std::uint32_t address) const { return !facts_.empty() && facts_.front().pc == address && !facts_.front().executed; }
    /// `late_redirect` as execute_cycle's: set where the target waits for the word the fetch
    /// presents this cycle.
    void branch_at_decode(std::uint64_t c, bool execute_frees, std::optional<std::uint32_t>& late_redirect);
    void issue_transfers(std::uint64_t c);
    void count(std::uint64_t c, bool issued, bool folded);
    void queue_skipped_before(std::uint32_t pc);
    std::uint32_t expected_next() const;

    PipelineParameters p_;
    CodeView* code_;
    BusMatrix bus_;
    FetchUnit fetch_;
    std::uint64_t cycle_ = 0;
    std::optional<Decoded> decoded_;
    Executing x_;
    std::deque<InstructionFacts> facts_;
    std::optional<InstructionFacts> last_given_;
    const ClassifiedInstruction* last_given_insn_ = nullptr;
    std::array<std::uint64_t, 16> address_ready_{};  ///< per register: the cycle the AGU can use it
    bool previous_decoded_in_it_block_ = false;      ///< the last instruction decoded is an IT block's (not a branch)
    bool previous_decoded_writes_lr_ = false;
    CoreControl control_;
    std::uint32_t decoded_link_ = 0;  ///< the instruction decoded last is a BL or BLX linking here (0: not)
    struct ItBlock {
        std::uint32_t first = 1;  ///< the first instruction it makes conditional
        std::uint8_t length = 0, passes = 0;
    } it_block_;
    bool it_condition_passes(const ClassifiedInstruction& i) const;
    /// Whether decode knows, as it decodes a branch to `target`, the condition of the IT block it is in.
    bool condition_known_at_decode(std::uint32_t target) const;
    /// Whether `branch`, a B<cc> resolved not taken, leaves the fetch a gap (fetch_gap_after_it_branch).
    bool gap_after_not_taken(const ClassifiedInstruction& branch, bool after_it_block) const;
    bool flags_reach_agu() const;                 // the instruction in execute decides flags a skipped load/store waits on
    std::uint64_t lsu_next_address_ = 0;          ///< the LSU's next address phase may come from this cycle
    std::array<PipelineCounters, 32> history_{};  ///< counts before each recent cycle
    std::uint32_t lr_ = 0;
    std::uint64_t store_data_end_ = 0;  ///< a store's data phase still running behind execute
    bool last_was_lsu_ = false;
    std::uint64_t refill_from_ = ~0ull;             ///< cycles from here to the next issue wait for a branch target
    std::uint64_t decode_stalled_at_ = ~0ull >> 2;  ///< the bubble while decode's AGU waits for a loaded register (read only then)
    std::uint64_t decode_not_before_ = 0;           ///< a branch taken at decode: its target waits for it to enter execute
    std::uint64_t lsu_until_ = ~0ull;               ///< the last cycle the instruction's load/store work counts as LSU
    PipelineCounters counters_;
    std::optional<std::uint64_t> given_data_phase_;  ///< data phase cycle of the last given instruction
    std::FILE* trace_ = nullptr;
};

}  // namespace emutrace::models
