#pragma once
// Feeds the component pipeline (models/pipeline) from the running core with what only execution tells:
// which instructions ran, where each branch went, the data addresses, operand-dependent cycles.
// It also serves the pipeline's fetch and decode stages the static instructions they look ahead
// at. Used with TimingMode::Pipeline, where it replaces the per-block costs.
//
// Two sources of facts. Per block (the default): the block hook says which translated block runs
// and where the one before went; per-address hooks at the few instructions whose facts only their
// operands tell (an IT's flags, a divide's or long multiply's operands); data addresses from the
// memory hooks on a board that times its memories apart, else from the instruction (a literal's
// is exact, the rest are taken to be the stack's memory), and a device access's from the device.
// Per instruction (PipelineFacts::Instruction): a code hook on every instruction reads them all
// from the registers as they are: slower, exact on every board; the reference for the first.

#include <array>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "decode/instruction_decoder.h"
#include "models/core.h"
#include "models/feed/running_core.h"
#include "models/instruction_class.h"
#include "models/memory_system.h"
#include "models/pipeline/cached_pipeline.h"
#include "models/timing_model.h"

namespace emutrace::models {

/// A memory region as the feed sees it: its timing, and whether code there can change.
struct FeedRegion {
    std::uint32_t base = 0, size = 0;
    MemoryPort port;
    bool writable = false;  ///< a store can change code there: compared with memory when it runs
    bool device = false;    ///< a device's registers, not memory
};

class PipelineFeed final : public models::CodeView {
public:
    /// `cached`: through the block-cost cache (timing_cache); off, every instruction is stepped.
    /// `per_block`: facts per block (else a code hook calls executes() for every instruction).
    /// `regions`: the board's memory map; an address in none of them is taken to be writable.
    PipelineFeed(RunningCore& cpu, std::vector<FeedRegion> regions, const models::CoreSpec& core, bool cached, bool per_block);

    const models::ClassifiedInstruction* instruction_at(std::uint32_t address) override;
    /// Per instruction: the instruction at `pc` is about to run, with the registers as they are now.
    void executes(std::uint32_t pc);

    // Per block (pipeline_block_feed.cpp). Each call gives the pipeline what ran before it.
    bool per_block() const { return per_block_; }
    /// Translated block [address, address + size) is about to run. False when it holds sites
    /// not hooked yet: they are hooked now, and the block must be translated and started again.
    bool block_starts(std::uint32_t address, std::uint32_t size) {
        Block* next = next_;
        next_ = nullptr;
        if (next && next->address == address && next->size == size && skip_next_.empty()) {
            current_ = next;   // the hot path: the block the pipeline expected, nothing carried over
            clear_accesses();  // but the accesses a hooked board saw the block before make
            return true;
        }
        return block_starts_slow(address, size);
    }
    /// The block hook's hot path when the machine has nothing of its own to do: block [address,
    /// address + size) is about to run, is the one the pipeline expected (as in block_starts) and
    /// was marked plain. True: it is current now. False: nothing changed, call block_starts().
    bool plain_block_starts(std::uint32_t address, std::uint32_t size) {
        Block* next = next_;
        if (!next || next->address != address || next->size != size || !next->plain || !skip_next_.empty()) return false;
        next_ = nullptr;
        current_ = next;
        clear_accesses();
        return true;
    }
    /// Whether the machine has nothing of its own to do when the current block runs (no flag to
    /// serve, and its counts are the pipeline's): plain_block_starts can then start the block
    /// without the machine looking it up.
    void mark_plain(bool plain) {
        if (current_) current_->plain = plain && !current_->writable;
    }
    /// The current block ran to its end, and execution went on at `successor`, and the pipeline
    /// knows what it does after what ran before it (the hot path): returns the transition it
    /// followed on, whose counts are what the block added. Null: nothing changed, call
    /// ends_unfollowed() (the block was run otherwise: read the pipeline's counts).
    const models::BlockCostCache::Transition* ends_followed(std::uint32_t successor) {
        // The whole block, with nothing only its run tells but its accesses' memories (a device
        // read has given part of it; a skipped instruction).
        Block* b = current_;
        if (!b || given_ != 0 || !successor) return nullptr;
        const auto* t = pipeline_->follow(b, run_exit(*b, successor));
        if (!t) return nullptr;
        // What its sites said is done with: the next block a followed run starts has none of it.
        if (sites_sig_) [[unlikely]]
            sites_.clear(), any_skipped_ = false, sites_sig_ = 0;
        current_ = nullptr;
        next_ = static_cast<Block*>(const_cast<void*>(pipeline_->next_run()));  // the block it ran before next time
        return t;
    }
    /// The current block, if any, ended otherwise: what is left of it is given to the pipeline.
    void ends_unfollowed(std::uint32_t successor);
    /// Execution is at `pc` in the current block (a hook there, an exception, a stop), the
    /// instruction there run (`including`) or not yet.
    void reached(std::uint32_t pc, bool including);
    /// Execution left the current block at `pc` (a debugger stopped it there) and comes back to
    /// `pc` as the start of a block: what ran before `pc` is given, the rest runs as that block.
    void leaves_at(std::uint32_t pc);
    /// A data access to `address` by the current block: a device's, or any on a hooked board.
    /// `device`: the pipeline then runs up to its instruction (a device read sees its data phase).
    void data_access(std::uint32_t address, bool device) {
        if (hooks_memory_ && !device) return memory_access(address, 4);  // its size unknown: keyed as a word
        if (!current_ || current_->code.empty()) return;
        access_sig_ = models::BlockCostCache::mix(access_sig_, memory_.timing_key(address));
        place_access_now(address, device);
    }
    /// A hooked board's memory hook: the current block accessed memory (not a device) at `address`.
    /// Called on every load and store there, so it only notes the access. It is placed on its
    /// instruction by counting transfers, which gives the same answer later: when facts are built,
    /// never on a block the pipeline follows (the hot path).
    void memory_access(std::uint32_t address, unsigned size) {
        if (!current_ || current_->code.empty()) [[unlikely]]
            return;
        // What of the access the key holds (BlockCostCache::hash): its memory and misalignment
        // (and line). Every other turn is a tail call, so that the hook needs no frame.
        std::uint64_t key;
        if (!memory_.paged_timing_key(models::timing_address(address, size), key) || !accesses_.has_room()) [[unlikely]]
            return memory_access_slow(address, size);
        access_sig_ = models::BlockCostCache::mix(access_sig_, key);
        accesses_.append({kUnplaced, address});
    }
    /// Whether the board's memories differ in timing, so that data accesses are worth hooking.
    bool hooks_memory() const { return hooks_memory_; }
    /// A site's hook: the instruction at `pc` is about to run.
    void site_runs(std::uint32_t pc);
    models::CachedPipeline& pipeline() { return *pipeline_; }

private:
    struct Code {
        decode::Instruction insn;
        models::ClassifiedInstruction cls;
        std::array<std::uint8_t, 4> bytes{};
        bool valid = false;
        bool writable = true;  ///< in memory a store can change: compared with memory when it runs
    };
    /// The cache's entry for `address` (decoded on first sight; `check`: read again if in RAM).
    const Code& code_at(std::uint32_t address, bool check);
    void set(Code& c, const decode::Instruction& insn) const;
    void decode_it_block(std::uint32_t it);
    std::uint32_t core_register(int r) const;
    bool condition_passes(unsigned cond) const;
    /// A divide's or (iterative) long multiply's cycles from its operands as they are now; 0: the class's.
    std::uint8_t operand_cycles(const Code& code) const;
    /// An IT's instructions whose condition passes with the flags as they are now (bit k: the k-th).
    std::uint8_t it_passes(const Code& code) const;

    // Per block.
    struct Block {
        std::uint32_t address = 1, size = 0;
        std::vector<const Code*> code;
        bool sites = false;     ///< holds an IT, a divide or (iterative) long multiply
        bool reads_lr = false;  ///< holds a branch to LR, which decode can take from LR
        bool writable = false;  ///< in memory a store can change: decoded again each time it runs
        bool ends_in_lr_branch = false;
        std::uint32_t transfers = 0;  ///< of its loads and stores, each a data access on a hooked board
        bool plain = false;           ///< mark_plain
        /// The last two successors looked at, and whether each branches to LR within decode's reach.
        std::array<std::uint32_t, 2> next_checked{1, 1};
        std::array<bool, 2> next_wants_lr{};
        std::uint8_t next_replace = 0;
    };
    Block& block_at(std::uint32_t address, std::uint32_t size);
    bool block_starts_slow(std::uint32_t address, std::uint32_t size);
    void give_until(std::size_t end, std::uint32_t successor);  // instructions [given_, end); successor 0: not known
    void build_facts(std::size_t from, std::size_t end, std::uint32_t successor, std::uint32_t lr);
    std::uint32_t lr_fact(Block& b, std::size_t end, std::uint32_t successor);  // sets lr_read_
    // With the block's node (the run's name for CachedPipeline::follow), what tells its runs apart:
    // where it went, its size (a node can be translated again with another) and, on a board whose
    // data accesses are hooked, the memory and alignment of each.
    // In a block with sites, also what they said and which instructions an IT skipped (sites_sig_).
    std::uint64_t run_exit(const Block& b, std::uint32_t successor) const {
        return (successor | std::uint64_t{b.size} << 32) ^ access_sig_ ^ sites_sig_;
    }
    // What the block before saw run: its accesses (all that a followed run leaves, since
    // ends_followed() clears its sites'), and with clear_run() its sites' facts and skips.
    void clear_accesses() {
        accesses_.clear();
        placed_ = 0;
        access_sig_ = 0;
        count_at_ = count_left_ = 0;
    }
    void clear_run() {
        clear_accesses();
        sites_.clear();
        any_skipped_ = false;
        sites_sig_ = 0;
    }
    bool lr_branch_near(std::uint32_t address);
    bool skipped(std::size_t i) const { return any_skipped_ && skipped_[i]; }
    void skip(std::size_t i) {
        if (!any_skipped_) skipped_.assign(current_->code.size(), 0), any_skipped_ = true;
        skipped_[i] = 1;
    }
    void unskip(std::size_t i) {
        if (any_skipped_) skipped_[i] = 0;
    }
    std::size_t index_in_block(std::uint32_t pc) const;
    std::size_t instruction_of_access(std::uint32_t address);  // the current block's, by count or by registers
    std::uint32_t predicted_address(const Code& c);
    std::uint8_t site_fact(std::uint32_t pc) const;
    static void on_site(void* self, std::uint32_t address);

    RunningCore& cpu_;
    std::vector<FeedRegion> regions_;
    bool per_block_;
    bool hooks_memory_ = false;
    std::unordered_map<std::uint32_t, Block> blocks_;
    std::unordered_set<std::uint32_t> hooked_sites_;
    /// Members of an IT block that come after a member setting the flags: whether one passes is
    /// decided by those flags, not the IT's, and shows only by its running (the core calls nothing
    /// for an instruction its IT block skips), so each is a site whose hook says it ran.
    std::unordered_set<std::uint32_t> late_it_members_;
    bool site_at(const Code& c);
    bool it_outcome_times(const Code& it);
    std::array<Block*, 4096> block_slots_{};  ///< direct-mapped in front of blocks_
    // What the block hook's hot path (ends_followed, plain_block_starts) reads and writes, in two
    // cache lines.
    alignas(64) Block* current_ = nullptr;
    Block* next_ = nullptr;         ///< the block expected to start next (a named run, so without sites)
    std::size_t given_ = 0;         ///< instructions of current_ given to the pipeline
    std::uint64_t access_sig_ = 0;  ///< a hash of the accesses' memories and alignments (0: none)
    /// A hash of what the current block's sites said, in order, and of the instructions skipped
    /// from the block before (0: none): with its code and where it went, what decides its run.
    std::uint64_t sites_sig_ = 0;
    std::size_t count_at_ = 0, count_left_ = 0;  ///< counting transfers on a hooked board
    struct Access {
        std::size_t instruction;
        std::uint32_t address;
    };
    /// The current block's accesses, in order. It keeps its storage from block to block, and
    /// appending is a store once has_room() (the memory hook grows it out of line).
    class AccessLog {
    public:
        bool empty() const { return size_ == 0; }
        std::size_t size() const { return size_; }
        Access& operator[](std::size_t i) { return items_[i]; }
        const Access& operator[](std::size_t i) const { return items_[i]; }
        const Access& back() const { return items_[size_ - 1]; }
        void clear() { size_ = 0; }
        bool has_room() const { return size_ < room_; }
        void append(const Access& a) { items_[size_++] = a; }  ///< only when has_room()
        void push_back(const Access& a) {
            if (!has_room()) items_.resize(items_.size() * 2 + 16), room_ = items_.size();
            append(a);
        }

    private:
        std::vector<Access> items_;
        std::size_t size_ = 0, room_ = 0;  // room_: items_.size(), beside size_
    };
    AccessLog accesses_;
    [[gnu::noinline]] void memory_access_slow(std::uint32_t address, unsigned size);  ///< memory_access's other turns
    static constexpr std::size_t kUnplaced = ~std::size_t{0};                         ///< an Access's instruction not counted yet
    std::size_t placed_ = 0;                                                          ///< accesses_ before this have their instruction
    void place_accesses();                                                            ///< counts the instructions of those after
    void place_access_now(std::uint32_t address, bool device);                        ///< data_access's other path
    bool accesses_stand_for_facts(const Block& b, std::size_t from, std::size_t end) const;
    std::vector<std::uint32_t> skip_next_;                       ///< addresses an IT block failed beyond current_
    bool lr_read_ = false;                                       ///< the last lr_fact() read LR: the run depends on more than where it went
    std::vector<std::pair<std::uint32_t, std::uint8_t>> sites_;  ///< the current block's site facts
    std::vector<std::uint8_t> skipped_;                          ///< per instruction of current_: an IT failed it
    bool any_skipped_ = false;                                   ///< else skipped_ is stale
    void note_site(std::uint64_t event) { sites_sig_ = models::BlockCostCache::mix(sites_sig_ ? sites_sig_ : 1, event); }
    std::vector<models::InstructionFacts> facts_;
    struct Pending {
        std::size_t from = 0, end = 0;
        std::uint32_t successor = 0, lr = 0;
    } pending_;                ///< the run a cache miss builds facts for
    std::uint32_t stack_ = 0;  ///< where predicted non-literal accesses go
    models::CoreSpec core_;
    models::MemorySystem memory_;
    models::TimingModel operands_;  // the divider's and the iterative multiplier's operand timing
    decode::InstructionDecoder decoder_;
    std::unordered_map<std::uint32_t, Code> code_;
    struct Recent {
        std::uint32_t address = 1;
        const Code* code = nullptr;
    };
    std::array<Recent, 1024> recent_{};
    std::optional<models::CachedPipeline> pipeline_;  // in place: the hot path reaches it without a load
};

}  // namespace emutrace::models
