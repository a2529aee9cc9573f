#include "analysis/wcet/call_context.h"

namespace emutrace::analysis::wcet {

CallContexts::CallContexts(unsigned depth, std::size_t most) : depth_(depth), most_(most < 16 ? 16 : most) {}

std::size_t CallContexts::StringHash::operator()(const CallContext& c) const {
    std::uint64_t h = 0xcbf29ce484222325ull ^ c.function;
    for (std::uint32_t s : c.sites) h = (h ^ s) * 0x100000001b3ull;
    return static_cast<std::size_t>(h);
}

std::uint32_t CallContexts::intern(CallContext c) {
    if (auto it = ids_.find(c); it != ids_.end()) return it->second;
    if (contexts_.size() >= most_) {
        // Hostile or pathological call graphs: stop telling contexts apart rather than grow.
        overflowed_ = true;
        c.sites.clear();
        if (auto it = ids_.find(c); it != ids_.end()) return it->second;
    }
    auto id = static_cast<std::uint32_t>(contexts_.size());
    contexts_.push_back(c);
    ids_.emplace(std::move(c), id);
    return id;
}

std::uint32_t CallContexts::root(std::uint32_t function) {
    return intern({{}, function});
}

std::uint32_t CallContexts::call_slow(const Key& key) {
    CallContext next{contexts_[key.from].sites, key.callee};
    if (key.site != kTail && depth_ > 0) {
        next.sites.push_back(key.site);
        if (next.sites.size() > depth_) next.sites.erase(next.sites.begin());
    }
    std::uint32_t id = intern(std::move(next));
    if (!overflowed_) transitions_.emplace(key, id);
    return id;
}

}  // namespace emutrace::analysis::wcet
