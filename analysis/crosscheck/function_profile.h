#pragma once
// Per-function execution counts and code coverage from instruction ranges, the common ground of
// an emulated run and a decoded capture: instructions, ranges, cycles (when stamped) and the
// bytes of each function that executed.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "emutrace/sink.h"

namespace emutrace::decode {
class SymbolTable;
}

namespace emutrace::analysis {

struct FunctionCounts {
    std::string name;
    std::uint32_t address = 0, size = 0;
    std::uint64_t instructions = 0, ranges = 0, cycles = 0;
    std::uint32_t covered_bytes = 0;  ///< of `size`
};

class FunctionProfile final : public trace::TraceSink {
public:
    /// `symbols` must outlive the profile.
    explicit FunctionProfile(const decode::SymbolTable& symbols) : symbols_(symbols) {}
    std::uint32_t wants() const override { return trace::WantBlocks; }
    void on_batch(const trace::EventBatch& batch) override;

    /// Functions that executed, by address; code outside any function is under "(unknown)".
    std::vector<FunctionCounts> functions() const;
    std::uint64_t instructions() const { return instructions_; }

private:
    const decode::SymbolTable& symbols_;
    std::map<std::uint32_t, FunctionCounts> by_address_;
    std::map<std::uint32_t, std::uint32_t> executed_;  ///< [start, end) ranges seen, merged on report
    FunctionCounts* last_ = nullptr;                   ///< the previous block's function, charged its cycles
    std::uint64_t last_cycle_ = 0;
    std::uint64_t instructions_ = 0;
};

}  // namespace emutrace::analysis
