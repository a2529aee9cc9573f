#pragma once
// What a firmware build instrumented from `emutrace markers --header` tells the monitor: each
// marker operation leaves a record (where it ends in the code, what it does) in a non-allocated
// ELF section, and the sampling interrupt sends each sample as marker-device events. The monitor
// rebuilds the plan from the records of the binary that runs, so that the compiler may move,
// merge or duplicate blocks without the monitor assuming the uninstrumented layout.

#include <cstdint>
#include <vector>

#include "analysis/sampler/marker_plan.h"
#include "analysis/sampler/sampling_graph.h"

namespace emutrace::decode {
class ElfImage;
}

namespace emutrace::analysis::sampler {

inline constexpr const char* kMarkerRecordSection = ".emutrace.markers";

/// A record's operation word: kind << 24 | marker << 16 | value.
std::uint32_t encode_marker_op(const MarkerOp& op);

/// Sample fields, as offsets from the sample id: the interrupt sends the markers, then the
/// elapsed cycles, then the pc, which closes the sample.
enum SampleField : std::uint32_t {
    kSamplePc = 0,
    kSampleBitsLow = 1,  ///< bits 0-31; bits 32-63 at kSampleBitsLow + 1
    kSampleValue = 3,
    kSampleElapsed = 4,
    kSampleCounters = 16,  ///< counter k at kSampleCounters + k
};

struct RecordedPlan {
    MarkerPlan plan;
    /// Per vertex: the address after its last marker operation (0 when it has none). A sample
    /// whose pc lies in the vertex before it has not seen the vertex's operations yet.
    std::vector<std::uint32_t> ops_end;
    std::size_t records = 0;
};

/// The plan of `graph`'s function as the image's records give it. Throws ConfigError naming the
/// image when it has no records, a record is malformed, or an operation lies outside the function.
RecordedPlan plan_from_records(const decode::ElfImage& image, const SamplingGraph& graph, const std::string& function);

}  // namespace emutrace::analysis::sampler
