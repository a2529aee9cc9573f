#pragma once
// What code a run executed: the byte ranges of the blocks it ran, and from them the functions and
// basic blocks (decode::Program's) whose first instruction ran. A sink of Block events.

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "decode/program.h"
#include "emutrace/sink.h"

namespace emutrace::analysis {

struct CoverageFigures {
    /// Sorted names; a name two functions share is given as name@0x<address>.
    std::vector<std::string> functions_defined, functions_executed;
    std::size_t blocks_defined = 0;
    std::vector<std::uint32_t> blocks_executed;  ///< start addresses of the basic blocks that ran, sorted
};

class BlockCoverage final : public trace::TraceSink {
public:
    std::uint32_t wants() const override { return trace::WantBlocks; }
    void on_batch(const trace::EventBatch& batch) override;
    /// The program's functions and basic blocks against what ran.
    CoverageFigures figures(const decode::Program& program) const;

private:
    void add(std::uint32_t address, std::uint32_t size);
    // Blocks seen, by start: the longest size seen there. A direct-mapped table in front keeps
    // the common case (a block run before) to one compare.
    std::unordered_map<std::uint32_t, std::uint32_t> blocks_;
    struct Seen {
        std::uint32_t address = 1, size = 0;  ///< odd: no Thumb or ARM block starts there
    };
    std::array<Seen, 4096> recent_{};
};

}  // namespace emutrace::analysis
