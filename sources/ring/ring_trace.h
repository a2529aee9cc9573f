#pragma once
// A device's memory dump holding the on-target tracer's RAM ring (firmware/ontarget) as a
// recorded source: the same events as an emulated run, so the call tracer, profile, constraints and every
// writer run on a board's trace unchanged. Bytes -> ring (found by its header) -> 21-byte events
// -> the event model: entries and exits become calls and returns, custom events markers, thread
// ids thread switches and handler contexts. A torn event at the ring's head, a wrapped ring and
// corrupt records decode what they can and say what was skipped.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "decode/memory_dump.h"
#include "decode/rtos_preset.h"
#include "emutrace/source.h"

namespace emutrace::decode {

class ElfImage;

struct RingSummary {
    std::string dump, format;            ///< the file, and "ELF", "Intel HEX" or "raw binary"
    std::uint32_t address = 0;           ///< where the ring's header is
    std::uint32_t capacity = 0;          ///< events the ring holds
    std::uint32_t wraps = 0;             ///< times the device's writer went past the last slot
    std::uint64_t events = 0;            ///< decoded
    std::uint64_t torn = 0;              ///< the slot being written when the dump was taken
    std::uint64_t corrupt = 0;           ///< records with an unknown kind or an address in no function
    std::uint64_t shadow_overflows = 0;  ///< calls whose exit the device could not record
    bool exits_by_return_address = false;
    bool timestamps = false;       ///< events carry DWT_CYCCNT
    std::uint64_t last_cycle = 0;  ///< the newest event's stamp, counted from the oldest's
};

class RingTrace final : public trace::RecordedSource {
public:
    /// `elf`: the traced firmware (function addresses are checked against it).
    RingTrace(std::string dump, std::optional<std::uint32_t> base, const ElfImage& elf, ThreadNames names)
        : dump_(std::move(dump)), base_(base), elf_(elf), names_(names) {}
    void add_sink(trace::TraceSink& sink) override { sinks_.push_back(&sink); }
    /// Reads the dump and decodes the ring; a dump without a ring, a damaged header or a ring of
    /// another firmware throw ConfigError naming the file.
    SourceTotals deliver() override;
    /// What the last deliver() decoded.
    const RingSummary& totals() const { return summary_; }
    std::string summary() const override;
    std::string json() const override;

private:
    std::string dump_;
    std::optional<std::uint32_t> base_;
    const ElfImage& elf_;
    ThreadNames names_;
    std::vector<trace::TraceSink*> sinks_;
    RingSummary summary_;
};

}  // namespace emutrace::decode
