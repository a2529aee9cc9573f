#pragma once
// The CoreSight trace formatter's 16-byte frames (CoreSight Architecture Specification, "Trace
// Formatter"), for one trace source: what an ETB or ETR stores when it captures a PTM's bytes.

#include <cstdint>
#include <span>
#include <vector>

namespace emutrace::decode {

/// Wraps one source's raw trace bytes into 16-byte CoreSight formatter frames (memory-aligned,
/// no frame syncs), as an ETB/ETR would store them. Every frame starts with the source's ID, so a
/// decoder can resynchronise on any frame; the last frame is padded with the null ID (0) and zero
/// data. No data gives no frames. `trace_id` outside 0x01..0x6F throws std::invalid_argument.
std::vector<std::uint8_t> format_frames(std::span<const std::uint8_t> data, std::uint8_t trace_id);

/// The bytes of source `trace_id` in formatted trace (what a TPIU with its formatter on sends, or
/// an ETB holds): 16-byte frames, full-word syncs (FF FF FF 7F) between them skipped. A partial
/// frame at the end is left out.
std::vector<std::uint8_t> deformat_frames(std::span<const std::uint8_t> frames, std::uint8_t trace_id);

/// One source's raw bytes and its trace ID, for a buffer several sources share.
struct FormatterInput {
    std::span<const std::uint8_t> data;
    std::uint8_t trace_id;
};
/// Several sources in one buffer, as a funnel merges them into an ETB: a frame of each source
/// in turn (14 bytes each) until every stream is written, so that their trace interleaves as
/// several cores' does. IDs are checked as format_frames does.
std::vector<std::uint8_t> format_frames(std::span<const FormatterInput> sources);

}  // namespace emutrace::decode
