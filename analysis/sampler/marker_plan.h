#pragma once
// Where markers go and what each instrumented block does to them. The monitor reads every marker
// with each sample and zeroes them (a sampling ISR does it in a few instructions), so the state
// a sample shows is what the blocks since the previous sample did.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace emutrace::analysis::sampler {

inline constexpr unsigned kMaxBits = 64;      ///< bit-vector markers: one 64-bit word
inline constexpr unsigned kMaxCounters = 25;  ///< increment markers (the paper's largest scheme uses 25)

struct MarkerOp {
    enum class Kind : std::uint8_t { SetBit, ClearBit, Increment, Assign };
    Kind kind = Kind::SetBit;
    std::uint8_t marker = 0;  ///< the bit, or the counter
    std::uint16_t value = 1;  ///< Increment: by how much; Assign: the value
    std::string text() const;
};

/// The markers' values after some blocks, from zero.
struct MarkerState {
    std::uint64_t bits = 0;
    std::uint16_t assigned = 0;
    std::array<std::uint16_t, kMaxCounters> counters{};
    bool operator==(const MarkerState&) const = default;
};

struct MarkerPlan {
    std::vector<std::vector<MarkerOp>> ops;  ///< per vertex, applied when the block starts
    unsigned bits = 0;                       ///< bits in use
    unsigned counters = 0;                   ///< counters in use
    bool assignment = false;                 ///< the assignment marker is in use
    std::uint16_t next_value = 1;            ///< the next value an assignment takes

    explicit MarkerPlan(std::size_t vertices = 0) : ops(vertices) {}
    void apply(std::uint32_t vertex, MarkerState& state) const;
    /// The state after `path` from zero.
    MarkerState after(const std::vector<std::uint32_t>& path) const;
    /// Bytes of marker memory as the generated header lays it out: a byte per bit (one store sets
    /// or clears it, which a sampling interrupt cannot tear), 2 per counter, 2 for the assignment.
    std::size_t bytes() const;
    std::size_t instrumented_vertices() const;
    /// Cycles the marker operations of `vertex` cost on a Cortex-M3 (TRM 18.3: a load 2, an ALU
    /// operation 1, a store 1): an increment 4 (read-modify-write), a bit or an assignment 2.
    std::uint32_t cost(std::uint32_t vertex) const;
};

}  // namespace emutrace::analysis::sampler
