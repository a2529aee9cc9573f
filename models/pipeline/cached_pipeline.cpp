#include "models/pipeline/cached_pipeline.h"

namespace emutrace::models {
namespace {

// Runs longer than this are split: a translated block holds at most 512 instructions, and a
// long straight run is better cached as parts that recur.
constexpr std::size_t kMaxPending = 64;

}  // namespace

CachedPipeline::CachedPipeline(const PipelineParameters& parameters, const MemorySystem& memory, CodeView& code, bool use_cache)
    : memory_(memory), use_cache_(use_cache) {
    live_.emplace(parameters, memory, code);
    if (use_cache_) state_ = cache_.intern(*live_);
    pending_.reserve(kMaxPending);
}

void CachedPipeline::executes(const InstructionFacts& facts) {
    if (!use_cache_) return live_->executes(facts);
    pending_.push_back(facts);
    pending_hash_ = BlockCostCache::hash(pending_hash_, facts, memory_);
    if (pending_.size() == kMaxPending) settle();
}

void CachedPipeline::materialise() {
    if (live_current_) return;
    live_.emplace(cache_.state(state_));
    live_->move_to(counters_);
    live_current_ = true;
}

void CachedPipeline::settle() {
    if (pending_.empty()) return;
    auto give = [](Pipeline& p, void* self) {
        for (const InstructionFacts& f : static_cast<CachedPipeline*>(self)->pending_) p.executes(f);
    };
    const std::uint64_t key = pending_hash_;
    pending_hash_ = BlockCostCache::kEmpty;
    run(key, give, this);
    pending_.clear();
}

void CachedPipeline::clear_cache() {
    cache_.clear();
    last_ = nullptr;
}

void CachedPipeline::run_after_change(std::uint64_t key, Give give, void* context, const void* run_id, std::uint64_t exit) {
    if (!use_cache_) return give(*live_, context);
    if (forget_) {
        materialise();
        clear_cache();
        live_changed_ = true;
        forget_ = false;
    }
    if (live_changed_) {
        state_ = cache_.intern(*live_);
        last_ = nullptr;
        live_changed_ = false;
    }
    run(key, give, context, run_id, exit);
}

void CachedPipeline::run_model(std::uint64_t key, Give give, void* context, const void* run_id, std::uint64_t exit) {
    materialise();
    if (cache_.full()) {
        clear_cache();
        state_ = cache_.intern(*live_);
    }
    const PipelineCounters before = live_->counters();
    give(*live_, context);
    const BlockCostCache::StateId from = state_;
    if (forget_) {  // the run decoded code that replaced what saved states point at
        clear_cache();
        forget_ = false;
        state_ = cache_.intern(*live_);
        return;
    }
    state_ = cache_.intern(*live_);
    chain(cache_.remember(from, key, state_, live_->counters() - before), run_id, exit);
}

PipelineCounters CachedPipeline::at_data_phase() {
    settle();
    if (live_current_) return live_->at_data_phase();
    // A saved state answers in its own time; its key holds the data phase and the recent counts
    // relative to its now, so moved by the counts' difference it answers for the current state.
    const Pipeline& saved = cache_.state(state_);
    PipelineCounters p = saved.at_data_phase();
    p += counters_ - saved.counters();
    return p;
}

Pipeline& CachedPipeline::change() {
    settle();
    materialise();
    live_changed_ = use_cache_;
    last_ = nullptr;
    return *live_;
}

void CachedPipeline::trace_to(std::FILE* out) {
    materialise();
    live_->trace_to(out);
}

}  // namespace emutrace::models
