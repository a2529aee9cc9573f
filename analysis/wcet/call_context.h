#pragma once
// Call-string contexts (the VIVU idea of OTAWA and aiT, with the call-string length k as a
// parameter): a function's run is told apart by the last k call sites that led to it, so a library
// routine called from two places is measured, and bounded, once per place. A context is interned
// once and named by a dense id from then on; the common step, a call from a context already seen
// at a site already seen, is one hash lookup.

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace emutrace::analysis::wcet {

struct CallContext {
    std::vector<std::uint32_t> sites;  ///< calling trace points, outermost first, at most k
    std::uint32_t function = 0;        ///< the function that runs in the context (Program::functions() index)
};

class CallContexts {
public:
    /// `depth` is k (0: one context per function, no call-site distinction). Past `most` contexts
    /// new ones are no longer told apart: they fold into the function's context of length 0 and
    /// overflowed() says so.
    explicit CallContexts(unsigned depth, std::size_t most = std::size_t{1} << 14);

    /// A function entered from nowhere: reset, an exception handler, a return with no call open.
    std::uint32_t root(std::uint32_t function);
    /// `callee` called from trace point `site` of context `from`.
    std::uint32_t call(std::uint32_t from, std::uint32_t site, std::uint32_t callee) {
        const Key key{from, site, callee};
        if (auto it = transitions_.find(key); it != transitions_.end()) [[likely]]
            return it->second;
        return call_slow(key);
    }
    /// A tail call from context `from`: `callee` replaces its function under the same call string.
    std::uint32_t tail(std::uint32_t from, std::uint32_t callee) { return call(from, kTail, callee); }

    const CallContext& at(std::uint32_t id) const { return contexts_[id]; }
    std::size_t size() const { return contexts_.size(); }
    unsigned depth() const { return depth_; }
    bool overflowed() const { return overflowed_; }

private:
    static constexpr std::uint32_t kTail = UINT32_MAX;
    struct Key {
        std::uint32_t from, site, callee;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        std::size_t operator()(const Key& k) const {
            return (std::uint64_t{k.from} * 0x9E3779B97F4A7C15ull) ^ (std::uint64_t{k.site} << 20) ^ k.callee;
        }
    };
    struct StringHash {
        std::size_t operator()(const CallContext& c) const;
    };
    struct StringEqual {
        bool operator()(const CallContext& a, const CallContext& b) const { return a.function == b.function && a.sites == b.sites; }
    };
    std::uint32_t call_slow(const Key& key);
    std::uint32_t intern(CallContext c);

    unsigned depth_;
    std::size_t most_;
    bool overflowed_ = false;
    std::vector<CallContext> contexts_;
    std::unordered_map<CallContext, std::uint32_t, StringHash, StringEqual> ids_;
    std::unordered_map<Key, std::uint32_t, KeyHash> transitions_;
};

}  // namespace emutrace::analysis::wcet
