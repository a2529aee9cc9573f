#pragma once
// Writes an emulated trace as an OpenCSD/DS-5 snapshot directory (snapshot.ini, device .ini files
// with registers and memory dumps, trace.ini naming the buffer), the layout a board capture has,
// so OpenCSD's tools and decode_snapshot read it as if captured.

#include <cstdint>
#include <string>
#include <vector>

#include "sources/ptm/capture_decoder.h"

namespace emutrace::decode {

/// A stretch of the traced core's memory (a code image), stored as one dump file.
struct SnapshotMemory {
    std::uint32_t address = 0;
    std::vector<std::uint8_t> bytes;
};

/// One core traced by one trace unit (a PTM, or an ETMv3) into one trace buffer.
struct SnapshotSpec {
    std::string unit_name = "PTM_0";      ///< the trace unit's device name
    std::string unit_type = "PTM1.1";     ///< its [device] type: "PTM1.1", "ETM3"
    std::string core_name = "cortex-m3";  ///< the core device's name
    std::string core_type = "Cortex-M3";  ///< [device] type of the core
    PtmRegisters ptm;                     ///< ETMIDR, ETMCR, ETMCCER, ETMTRACEIDR of the trace unit
    std::vector<std::uint8_t> trace;      ///< the trace bytes as captured (already formatted when `formatted`)
    bool formatted = true;                ///< CoreSight formatter frames (an ETB's "coresight"), else raw "source_data"
    std::vector<SnapshotMemory> memory;   ///< code images, one dump file each
};

class ElfImage;
/// The executable segments of `image`, as a snapshot's code dumps (each with two bytes to spare:
/// OpenCSD reads four bytes for the last Thumb instruction too).
std::vector<SnapshotMemory> code_images(const ElfImage& image);

/// Writes snapshot.ini, the core's device .ini (with its memory dumps), the PTM's device .ini
/// (ETMIDR, ETMCR, ETMCCER, ETMTRACEIDR), trace.ini and the trace buffer into `dir` (created if
/// missing). Throws ConfigError (emutrace/config_error.h) naming the file that cannot be written.
void write_snapshot(const std::string& dir, const SnapshotSpec& spec);

}  // namespace emutrace::decode
