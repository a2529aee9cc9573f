#include "emu/detail/data_watches.h"

namespace emutrace::emu::detail {

void DataWatches::request(Peripheral& owner, std::vector<DataWatch> watches) {
    if (watches.size() > kMostWatches) watches.resize(kMostWatches);
    owner_ = &owner;
    watches_ = std::move(watches);
    pending_ = true;
}

void DataWatches::apply(UnicornCore& uc, const MemoryPlan& plan) {
    pending_ = false;
    for (uc_hook h : hooks_) uc.remove_hook(h);
    hooks_.clear();
    hooked_.clear();
    bool wants_pc = false;
    for (unsigned i = 0; i < watches_.size(); ++i) {
        const DataWatch& w = watches_[i];
        if (!w.size || (!w.loads && !w.stores)) continue;
        const std::uint64_t end = std::min<std::uint64_t>(std::uint64_t{w.base} + w.size - 1, 0xFFFFFFFFu);
        hooked_.push_back(std::make_unique<Hooked>(Hooked{this, i}));
        if (w.loads)
            hooks_.push_back(uc.add_removable_hook(UC_HOOK_MEM_READ_AFTER, reinterpret_cast<void*>(on_load), hooked_.back().get(), w.base, end));
        if (w.stores)
            hooks_.push_back(uc.add_removable_hook(UC_HOOK_MEM_WRITE, reinterpret_cast<void*>(on_store), hooked_.back().get(), w.base, end));
        wants_pc = wants_pc || w.wants_pc;
    }
    if (wants_pc && !pc_hook_) {
        pc_hook_ = uc.add_removable_hook(UC_HOOK_CODE, reinterpret_cast<void*>(on_instruction), this);
    } else if (!wants_pc && pc_hook_) {
        uc.remove_hook(*pc_hook_);
        pc_hook_.reset();
    }
    // Region by region: Unicorn 2.0.1's whole flush clears its code buffer, seconds a time.
    for (const auto& r : plan.memory)
        if (r.access & AccessExecute) uc.remove_cache(r.base, r.base + (r.size - 1));
}

void DataWatches::hit(unsigned watch, std::uint64_t address, int size, std::int64_t value, bool store) {
    if (!owner_) return;
    owner_->on_data_access(watch, {pc_, static_cast<std::uint32_t>(address), static_cast<std::uint32_t>(value), static_cast<unsigned>(size), store});
}

void DataWatches::on_load(uc_engine*, uc_mem_type, std::uint64_t address, int size, std::int64_t value, void* user) {
    auto* h = static_cast<Hooked*>(user);
    h->watches->hit(h->index, address, size, value, false);
}

void DataWatches::on_store(uc_engine*, uc_mem_type, std::uint64_t address, int size, std::int64_t value, void* user) {
    auto* h = static_cast<Hooked*>(user);
    h->watches->hit(h->index, address, size, value, true);
}

void DataWatches::on_instruction(uc_engine*, std::uint64_t address, std::uint32_t, void* user) {
    static_cast<DataWatches*>(user)->pc_ = static_cast<std::uint32_t>(address);
}

}  // namespace emutrace::emu::detail
