// The pipeline's facts per translated block (PipelineFeed, per block): the block hook tells which
// block runs and where the one before went; what only operands tell comes from hooks at the few
// instructions that need it; data addresses from the memory hooks of a board that times its
// memories apart, or from the instruction. The facts of a block are handed to the pipeline when
// the machine needs its counts (the next block, a device access, an exception), through the
// block-cost cache.
#include "models/feed/pipeline_feed.h"

namespace emutrace::models {
namespace {

using models::InstructionClass;

bool is_site(const models::ClassifiedInstruction& c, bool iterative_multiply) {
    switch (c.kind) {
        case InstructionClass::It:
        case InstructionClass::Divide: return true;
        case InstructionClass::MultiplyLong:
        case InstructionClass::MultiplyAccumulateLong: return iterative_multiply;
        default: return false;
    }
}

bool lr_branch(const models::ClassifiedInstruction* c) {
    return c && c->kind == InstructionClass::RegisterBranch && c->reads_lr_target;
}

}  // namespace

PipelineFeed::Block& PipelineFeed::block_at(std::uint32_t address, std::uint32_t size) {
    Block*& slot = block_slots_[(address >> 1) & (block_slots_.size() - 1)];
    // Code in memory a store can change is decoded again each time it runs (code_at compares it
    // with memory): a program that rewrites code in RAM runs what it wrote.
    if (slot && slot->address == address && slot->size == size && !slot->writable) return *slot;
    auto it = blocks_.find(address);
    if (it != blocks_.end() && it->second.size == size && !it->second.writable) return *(slot = &it->second);
    Block b;
    b.address = address;
    b.size = size;
    unsigned it_left = 0;       // members of the last IT still to come
    bool it_flags_set = false;  // one of its members so far sets the flags
    bool it_times = false;      // which of its members pass can change the timing
    for (std::uint32_t a = address; a < address + size;) {
        const Code& c = code_at(a, true);
        if (!c.valid) break;
        b.writable |= c.writable;
        b.code.push_back(&c);
        if (c.cls.memory_access()) b.transfers += c.cls.transfers;
        if (it_left) {
            if (it_flags_set && it_times) late_it_members_.insert(a);
            it_flags_set |= c.cls.sets_flags;
            --it_left;
        }
        if (c.cls.kind == InstructionClass::It) it_left = c.cls.it_length, it_flags_set = false, it_times = it_outcome_times(c);
        b.sites |= site_at(c);
        b.reads_lr |= lr_branch(&c.cls);
        a += c.cls.size;
    }
    b.ends_in_lr_branch = !b.code.empty() && lr_branch(&b.code.back()->cls);
    return *(slot = &(blocks_[address] = std::move(b)));
}

bool PipelineFeed::site_at(const Code& c) {
    if (c.cls.kind == InstructionClass::It && !it_outcome_times(c)) return false;  // runs alike whichever members pass
    return is_site(c.cls, operands_.multiply_long_by_operands()) || late_it_members_.count(c.cls.address);
}

// An IT whose outcome the pipeline's timing does not see needs no hook: its members are given as
// run, whichever passed (the running core calls nothing for one that fails, and a block cannot tell).
bool PipelineFeed::it_outcome_times(const Code& it) {
    std::array<const models::ClassifiedInstruction*, 4> members{};
    std::uint32_t a = it.cls.address + it.cls.size;
    for (unsigned k = 0; k < it.cls.it_length && k < members.size(); ++k) {
        const Code& m = code_at(a, false);
        if (!m.valid) return true;
        members[k] = &m.cls;
        a += m.cls.size;
    }
    const Code& after = code_at(a, false);
    return models::it_outcome_changes_timing(std::span(members).first(std::min<std::size_t>(it.cls.it_length, members.size())),
                                             after.valid ? &after.cls : nullptr, core_.pipeline);
}

void PipelineFeed::on_site(void* self, std::uint32_t address) {
    static_cast<PipelineFeed*>(self)->site_runs(address);
}

bool PipelineFeed::block_starts_slow(std::uint32_t address, std::uint32_t size) {
    Block& b = block_at(address, size);
    if (b.sites) {
        bool added = false;
        for (const Code* c : b.code) {
            if (!site_at(*c) || !hooked_sites_.insert(c->cls.address).second) continue;
            cpu_.call_before(c->cls.address, on_site, this);
            added = true;
        }
        if (added) {  // translated before its hooks existed: translate it again and start it over
            cpu_.retranslate(address, address + size);
            return false;
        }
    }
    current_ = &b;
    given_ = 0;
    clear_run();
    // Instructions an IT block before this one failed.
    for (std::uint32_t at : skip_next_)
        if (std::size_t i = index_in_block(at); i < b.code.size()) skip(i), note_site(~std::uint64_t{i});
    skip_next_.clear();
    return true;
}

std::size_t PipelineFeed::index_in_block(std::uint32_t pc) const {
    if (!current_) return 0;
    const auto& code = current_->code;
    for (std::size_t i = 0; i < code.size(); ++i)
        if (code[i]->cls.address == pc) return i;
    return code.size();
}

void PipelineFeed::site_runs(std::uint32_t pc) {
    // The current block holds it (and, unless it ends the block, its IT block's members): read
    // there rather than looked up (a hook per IT is on the hot path of branchy code).
    std::size_t i = index_in_block(pc);
    const std::size_t in_block = current_ ? current_->code.size() : 0;
    auto code_of = [&](std::size_t k, std::uint32_t at) -> const Code& { return k < in_block ? *current_->code[k] : code_at(at, false); };
    const Code& code = code_of(i, pc);
    const models::ClassifiedInstruction& c = code.cls;
    const bool late_members = !late_it_members_.empty();
    if (late_members && late_it_members_.count(pc)) {  // it runs: its condition passed with the flags as its block left them
        if (i < in_block) unskip(i);
        note_site(pc | std::uint64_t{0x100} << 32);
        if (!is_site(c, operands_.multiply_long_by_operands())) return;
    }
    if (c.kind != InstructionClass::It) {
        sites_.emplace_back(pc, operand_cycles(code));
        note_site(pc | std::uint64_t{sites_.back().second} << 32);
        return;
    }
    const std::uint8_t passes = it_passes(code);
    // The instructions it fails are skipped: in this block, or in the next when it ends here. A
    // member after one that sets the flags is skipped unless its own hook says it ran.
    std::uint32_t at = pc + 2;
    ++i;
    for (unsigned k = 0; k < c.it_length; ++k, ++i) {
        const Code& next = code_of(i, at);
        if (!((passes >> k) & 1u) || (late_members && late_it_members_.count(at))) {
            if (i < in_block)
                skip(i);
            else
                skip_next_.push_back(at);
        }
        at += next.valid ? next.cls.size : 2;
    }
    sites_.emplace_back(pc, passes);
    note_site(pc | std::uint64_t{passes} << 32);
}

std::uint8_t PipelineFeed::site_fact(std::uint32_t pc) const {
    for (const auto& [at, fact] : sites_)
        if (at == pc) return fact;
    return 0;
}

std::uint32_t PipelineFeed::predicted_address(const Code& c) {
    if (c.insn.memory.base == 15) return decode::effective_address(c.insn.memory, c.cls.address, [](int) { return 0u; });
    if (!stack_) stack_ = (cpu_.core_register(13) & ~3u) - 4;
    return stack_;
}

std::size_t PipelineFeed::instruction_of_access(std::uint32_t address) {
    const auto& code = current_->code;
    if (hooks_memory_) {  // every access is seen: the next transfer of the next instruction that makes one
        while (count_left_ == 0 && count_at_ < code.size()) {
            const auto& c = code[count_at_]->cls;
            if (c.memory_access() && !skipped(count_at_))
                count_left_ = c.transfers;
            else
                ++count_at_;
        }
        if (count_at_ >= code.size()) return code.size() - 1;
        std::size_t at = count_at_;
        if (--count_left_ == 0) ++count_at_;
        return at;
    }
    // Only device accesses are seen: the first instruction after the last one matched whose
    // access, with the registers as they are now, covers the address (or the next word of the
    // multiple load or store matched last).
    auto covers = [&](std::size_t i) {
        const Code& c = *code[i];
        std::uint32_t a = decode::effective_address(c.insn.memory, c.cls.address, [this](int r) { return core_register(r); });
        std::uint32_t bytes = c.cls.transfers > 1 ? 4u * c.cls.transfers : c.insn.memory.bytes;
        if (c.insn.memory.mode == decode::MemoryAccess::Mode::DecrementBefore) a -= bytes;
        return address - a < bytes;
    };
    std::size_t from = given_;
    if (!accesses_.empty()) {
        std::size_t last = accesses_.back().instruction;
        if (code[last]->cls.transfers > 1 && covers(last)) return last;
        from = std::max(from, last + 1);
    }
    for (std::size_t i = from; i < code.size(); ++i)
        if (code[i]->cls.memory_access() && !skipped(i) && covers(i)) return i;
    return std::min(from, code.size() - 1);
}

void PipelineFeed::place_access_now(std::uint32_t address, bool device) {
    place_accesses();
    std::size_t i = instruction_of_access(address);
    accesses_.push_back({i, address});
    placed_ = accesses_.size();
    if (device) give_until(i + 1, 0);
}

// Whether a hooked board's accesses key the run [from, end) as its facts would: the whole block at
// once, and one access for each transfer of every instruction that ran, so that each fact's data
// address is a seen access, whose memory and alignment access_sig_ holds (BlockCostCache::hash
// keys a fact by no more). Else a fact may hold a predicted address: the facts are built and hashed.
bool PipelineFeed::accesses_stand_for_facts(const Block& b, std::size_t from, std::size_t end) const {
    if (!hooks_memory_ || from != 0 || end != b.code.size()) return false;
    std::size_t transfers = b.transfers;
    if (any_skipped_)
        for (std::size_t i = 0; i < end; ++i)
            if (skipped_[i] && b.code[i]->cls.memory_access()) transfers -= b.code[i]->cls.transfers;
    return accesses_.size() == transfers;
}

void PipelineFeed::memory_access_slow(std::uint32_t address, unsigned size) {
    access_sig_ = models::BlockCostCache::mix(access_sig_, memory_.timing_key(models::timing_address(address, size)));
    accesses_.push_back({kUnplaced, address});
}

void PipelineFeed::place_accesses() {
    for (; placed_ < accesses_.size(); ++placed_) accesses_[placed_].instruction = instruction_of_access(accesses_[placed_].address);
}

void PipelineFeed::reached(std::uint32_t pc, bool including) {
    if (!current_) return;
    std::size_t i = index_in_block(pc);
    give_until(i < current_->code.size() && including ? i + 1 : i, 0);
}

void PipelineFeed::leaves_at(std::uint32_t pc) {
    reached(pc, false);
    current_ = nullptr;
    next_ = nullptr;
    clear_accesses();
}

void PipelineFeed::ends_unfollowed(std::uint32_t successor) {
    if (!current_) return;
    give_until(current_->code.size(), successor);
    current_ = nullptr;
}

// Decoded from `at` up to the first branch, as the block there holds them: the answer depends on
// the address alone, never on which blocks have run, so a run's key never changes with time.
bool PipelineFeed::lr_branch_near(std::uint32_t at) {
    for (int k = 0; k < 3; ++k) {
        const models::ClassifiedInstruction* c = instruction_at(at);
        if (!c) return false;
        if (lr_branch(c)) return true;
        if (c->is_branch() || c->writes_pc) return false;
        at += c->size;
    }
    return false;
}

// LR as decode reads it for a branch to LR, in this block or within decode's reach past the last
// instruction given; 0 when there is none (a register read costs as much as the block's lookup).
// A branch to LR that ran at the end of this block went to LR as it was (a BLX LR has written it since).
std::uint32_t PipelineFeed::lr_fact(Block& b, std::size_t end, std::uint32_t successor) {
    const bool to_end = end == b.code.size();
    lr_read_ = false;
    if (to_end && successor && b.ends_in_lr_branch && !skipped(end - 1)) return successor | 1u;
    bool wants = b.reads_lr;
    if (!wants && to_end && successor) {
        if (b.next_checked[0] == successor) {
            wants = b.next_wants_lr[0];
        } else if (b.next_checked[1] == successor) {
            wants = b.next_wants_lr[1];
        } else {
            wants = lr_branch_near(successor);
            b.next_checked[b.next_replace] = successor, b.next_wants_lr[b.next_replace] = wants;
            b.next_replace ^= 1;
        }
    } else if (!wants) {
        wants = lr_branch_near(to_end ? b.address + b.size : b.code[end]->cls.address);
    }
    lr_read_ = wants;
    return wants ? cpu_.core_register(14) : 0;
}

void PipelineFeed::build_facts(std::size_t from, std::size_t end, std::uint32_t successor, std::uint32_t lr) {
    const Block& b = *current_;
    place_accesses();
    facts_.clear();
    std::size_t access = 0;
    for (std::size_t i = from; i < end; ++i) {
        if (skipped(i)) continue;
        const Code& code = *b.code[i];
        const models::ClassifiedInstruction& c = code.cls;
        models::InstructionFacts f;
        f.pc = c.address;
        f.lr = lr;
        if (c.memory_access()) {
            while (access < accesses_.size() && accesses_[access].instruction < i) ++access;
            const std::uint32_t address =
                access < accesses_.size() && accesses_[access].instruction == i ? accesses_[access].address : predicted_address(code);
            f.data_address = models::timing_address(address, c.bytes);  // what of it timing reads, so that keys tell no more
        }
        bool last = i + 1 == b.code.size() && successor;
        switch (c.kind) {
            case InstructionClass::ConditionalBranch:
            case InstructionClass::CompareBranch: f.taken = last && successor == c.target; break;
            case InstructionClass::RegisterBranch:
                if (last && !c.late_branch) f.target = successor & ~1u;
                break;
            case InstructionClass::It: f.it_passes = site_fact(c.address); break;
            case InstructionClass::Divide: f.execute_cycles = site_fact(c.address); break;
            case InstructionClass::MultiplyLong:
            case InstructionClass::MultiplyAccumulateLong:
                if (operands_.multiply_long_by_operands()) f.execute_cycles = site_fact(c.address);
                break;
            default: break;
        }
        facts_.push_back(f);
    }
}

void PipelineFeed::give_until(std::size_t end, std::uint32_t successor) {
    Block& b = *current_;
    end = std::min(end, b.code.size());
    if (given_ >= end) return;
    const std::uint32_t lr = lr_fact(b, end, successor);
    const std::size_t from = given_;
    given_ = end;
    auto give = [](models::Pipeline& p, void* self) {
        for (const auto& f : static_cast<PipelineFeed*>(self)->facts_) p.executes(f);
    };
    using Cache = models::BlockCostCache;
    if (accesses_.empty() || accesses_stand_for_facts(b, from, end)) {
        // Its facts follow from its code, where it went, LR and, in a block with sites, what they
        // have said so far (sites_sig_: which instructions an IT skipped follows from it), and on
        // a hooked board the memories and alignments of its accesses (access_sig_): keyed by
        // those, and built only when the cache does not know them (the hot path; branchy code
        // runs IT blocks on it too).
        std::uint64_t key =
            Cache::mix(Cache::mix(Cache::mix(Cache::kEmpty, b.address | std::uint64_t{b.size} << 32), from | std::uint64_t{end} << 32),
                       successor | std::uint64_t{lr} << 32);
        if (sites_sig_) key = Cache::mix(key, sites_sig_);
        if (access_sig_) key = Cache::mix(key, access_sig_);
        pending_ = {from, end, successor, lr};
        // Named for follow() when the block, where it went and what its sites said decide the key:
        // the whole block, LR as the branch to it left it or not read, its code not rewritable.
        const bool named = from == 0 && end == b.code.size() && successor && !lr_read_ && !b.writable;
        return pipeline_->run(
            key,
            [](models::Pipeline& p, void* self) {
                auto& feed = *static_cast<PipelineFeed*>(self);
                feed.build_facts(feed.pending_.from, feed.pending_.end, feed.pending_.successor, feed.pending_.lr);
                for (const auto& f : feed.facts_) p.executes(f);
            },
            this, named ? &b : nullptr, run_exit(b, successor));
    }
    build_facts(from, end, successor, lr);
    if (facts_.empty()) return;
    std::uint64_t key = Cache::kEmpty;
    for (const auto& f : facts_) key = Cache::hash(key, f, memory_);
    // With its accesses (a board that hooks them): named when the block, where it went and their
    // memories and alignments decide the facts (no site, no skipped instruction).
    const bool named = from == 0 && end == b.code.size() && successor && !lr_read_ && !b.writable && !b.sites && !any_skipped_;
    pipeline_->run(key, give, this, named ? &b : nullptr, run_exit(b, successor));
}

}  // namespace emutrace::models
