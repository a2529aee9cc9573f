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
    if (forget_) {
        materialise();
        cache_.clear();
        live_changed_ = true;
        forget_ = false;
    }
    if (live_changed_) {
        state_ = cache_.intern(*live_);
        live_changed_ = false;
    }
    if (const BlockCostCache::Transition* t = cache_.find(state_, pending_hash_)) {
        if (live_current_) counters_ = live_->counters();
        counters_ += t->cost;
        state_ = t->to;
        live_current_ = false;
    } else {
        materialise();
        if (cache_.full()) {
            cache_.clear();
            state_ = cache_.intern(*live_);
        }
        const PipelineCounters before = live_->counters();
        for (const InstructionFacts& f : pending_) live_->executes(f);
        const BlockCostCache::StateId from = state_;
        if (forget_) {  // the run decoded code that replaced what saved states point at
            cache_.clear();
            forget_ = false;
            state_ = cache_.intern(*live_);
        } else {
            state_ = cache_.intern(*live_);
            cache_.remember(from, pending_hash_, {state_, live_->counters() - before});
        }
    }
    pending_.clear();
    pending_hash_ = BlockCostCache::kEmpty;
}

const PipelineCounters& CachedPipeline::counters() {
    settle();
    return live_current_ ? live_->counters() : counters_;
}

const Pipeline& CachedPipeline::view() {
    settle();
    materialise();
    return *live_;
}

Pipeline& CachedPipeline::change() {
    settle();
    materialise();
    live_changed_ = use_cache_;
    return *live_;
}

void CachedPipeline::trace_to(std::FILE* out) {
    materialise();
    live_->trace_to(out);
}

}  // namespace emutrace::models
