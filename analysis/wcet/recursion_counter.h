#pragma once
// Recursion measured as a flow fact: per function, the most times it is entered during one
// activation that no other activation of it encloses, the outermost one included. It is the form
// TACLeBench states its recursive kernels' bounds in ("flowrestriction 1*fib <= 177*recursivecall")
// and the one the IPET needs: every entry into a recursion from outside allows at most that many
// entries in all. Kept per call-string context of the outermost entry.

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace emutrace::analysis::wcet {

class RecursionCounter {
public:
    explicit RecursionCounter(std::size_t functions) : open_(functions, 0), running_(functions, 0), context_(functions, 0) {}

    /// Function `f` (Program::functions() index) was entered by a call or a tail call, in call
    /// context `context` (CallContexts id).
    void entered(std::uint32_t f, std::uint32_t context) {
        if (f >= open_.size()) return;
        if (open_[f]++ == 0) {
            running_[f] = 1;
            context_[f] = context;
        } else {
            ++running_[f];
        }
    }
    /// An activation of `f` returned (or an exception return cut it off).
    void left(std::uint32_t f) {
        if (f >= open_.size() || open_[f] == 0) return;
        if (--open_[f] == 0) note(f);
    }

    /// Per context id: the most entries in one outermost activation entered there, for the
    /// activations that recursed (2 or more entries; a context missing here never recursed).
    /// Activations still open count as far as they got.
    std::unordered_map<std::uint32_t, std::uint64_t> most_by_context() const {
        auto out = most_;
        for (std::size_t f = 0; f < open_.size(); ++f)
            if (open_[f] > 0 && running_[f] > 1) {
                std::uint64_t& m = out[context_[f]];
                m = running_[f] > m ? running_[f] : m;
            }
        return out;
    }

private:
    void note(std::uint32_t f) {
        if (running_[f] < 2) return;  // no recursion: nothing to keep (the common case, no lookup)
        std::uint64_t& m = most_[context_[f]];
        m = running_[f] > m ? running_[f] : m;
    }

    std::vector<std::uint32_t> open_;     ///< per function: its open activations
    std::vector<std::uint64_t> running_;  ///< per function: entries since its outermost open activation began
    std::vector<std::uint32_t> context_;  ///< per function: that activation's context
    std::unordered_map<std::uint32_t, std::uint64_t> most_;
};

}  // namespace emutrace::analysis::wcet
