#pragma once
// What the program-flow trace writers (PFT, ETMv3) share: the snapshot directory made and the raw
// file opened before the first byte, the bytes written as the encoder drains, and the snapshot
// written at the end. Each failure is a ConfigError naming the file.

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "sources/ptm/snapshot_writer.h"

namespace emutrace::decode {
class ElfImage;
}

namespace emutrace::analysis {

/// Makes `snapshot` (when given) and opens `file` for writing (when given; null otherwise).
/// `what` names the trace in the message ("PFT trace").
std::FILE* open_trace_outputs(const std::string& file, const std::string& snapshot, const std::string& what);
/// Writes `bytes` to `file` (when open), named `path` in the message.
void write_trace_bytes(std::FILE* file, const std::string& path, std::span<const std::uint8_t> bytes, const std::string& what);
/// Closes `file` (when open) and nulls it; a close that fails (the last buffered bytes not written) throws.
void close_trace_file(std::FILE*& file, const std::string& path, const std::string& what);
/// Writes the snapshot of a run's flow trace into `dir`: `unit` names the trace unit and holds its
/// registers; the core (`cpu`, when known), `stream` in formatter frames under the unit's trace ID
/// and the firmware's code are added.
void write_flow_snapshot(const std::string& dir, decode::SnapshotSpec unit, const std::string& cpu, const std::vector<std::uint8_t>& stream,
                         const decode::ElfImage& image);

}  // namespace emutrace::analysis
