#pragma once
// The scenario section of a trace unit the run is encoded for (`pft:`, `etm:`): cycle accuracy,
// trace ID and sync period, each checked against what CoreSight allows, the file and line named.

#include <cstdint>

#include "emutrace/config.h"

namespace emutrace::analysis {

/// `Options` has `cycle_accurate`, `trace_id` and `sync_period` (decode::PftOptions,
/// decode::EtmOptions); what `n` leaves out keeps `defaults`.
template <typename Options>
Options parse_trace_unit_options(const config::Node& n, Options defaults) {
    Options o = defaults;
    n.allow_only({"cycle_accurate", "trace_id", "sync_period"});
    if (n.has("cycle_accurate")) o.cycle_accurate = n["cycle_accurate"].boolean();
    if (n.has("trace_id")) {
        std::uint64_t id = n["trace_id"].integer();
        if (id < 1 || id > 0x6F) n["trace_id"].fail("a CoreSight trace ID is 1..0x6F (0x00 and 0x70-0x7F are reserved)");
        o.trace_id = static_cast<std::uint8_t>(id);
    }
    if (n.has("sync_period")) {
        std::uint64_t period = n["sync_period"].size();
        if (period < 16 || period > (1u << 24)) n["sync_period"].fail("a sync period is 16 bytes .. 16MiB");
        o.sync_period = static_cast<std::uint32_t>(period);
    }
    return o;
}

}  // namespace emutrace::analysis
