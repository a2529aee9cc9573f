#pragma once
// A trace recorded away from the emulator, as a session's source: a probe's PTM capture (an
// OpenCSD snapshot) or a device's memory dump holding the on-target tracer's ring. The analyses
// consume it as they consume an emulated run; the session prints its summary instead of the
// emulator's.

#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "decode/ring_trace.h"
#include "emutrace/source.h"

namespace emutrace::session {

class RecordedSource : public trace::TraceSource {
public:
    /// What the summary's first lines say of the last delivery.
    virtual std::string summary_text() const = 0;
    virtual nlohmann::json summary_json() const = 0;
    /// The file or directory it was read from, for messages.
    virtual const std::string& name() const = 0;
    /// Its own verdict on what it delivered: 0, or an exit status with `why` in one line
    /// (kNothingDecoded, kPartlyDecoded).
    virtual int verdict(std::string& why) const {
        (void)why;
        return 0;
    }
    static constexpr int kNothingDecoded = 2;  ///< an empty, cut to nothing or unreadable capture
    static constexpr int kPartlyDecoded = 7;   ///< OpenCSD errors, or bytes skipped to resynchronise
};

std::unique_ptr<RecordedSource> open_capture(const std::string& snapshot, unsigned trace_id);
std::unique_ptr<RecordedSource> open_ring_dump(const std::string& dump, std::optional<std::uint32_t> base, const decode::ElfImage& elf,
                                               decode::ThreadNames names);

}  // namespace emutrace::session
