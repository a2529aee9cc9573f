#include "session/recorded_source.h"

#include "config/units.h"
#include "decode/ptm_capture.h"
#include "session/run_report.h"

namespace emutrace::session {
namespace {

class CaptureSource final : public RecordedSource {
public:
    CaptureSource(const std::string& dir, unsigned id) : dir_(dir), capture_(dir, static_cast<std::uint8_t>(id)) {}
    void add_sink(trace::TraceSink& sink) override { capture_.add_sink(sink); }
    SourceTotals deliver() override { return capture_.deliver(); }
    std::string summary_text() const override { return format_capture(capture_.summary()); }
    nlohmann::json summary_json() const override { return capture_json(capture_.summary()); }
    const std::string& name() const override { return dir_; }
    int verdict(std::string& why) const override {
        const decode::CaptureSummary& s = capture_.summary();
        std::string first = s.errors.empty() ? std::string() : "; first at byte " + std::to_string(s.errors[0].offset) + ": " + s.errors[0].reason;
        if (!s.instructions) {
            why = dir_ + ": no instruction decoded from " + std::to_string(s.bytes) + " trace bytes (" + std::to_string(s.error_count) +
                  " OpenCSD errors" + first + ")";
            return kNothingDecoded;
        }
        if (s.damaged()) {
            why = dir_ + ": part of the capture could not be decoded: " + std::to_string(s.error_count) + " OpenCSD errors, " +
                  std::to_string(s.lost_bytes) + " bytes skipped to resynchronise" + first;
            return kPartlyDecoded;
        }
        return 0;
    }

private:
    std::string dir_;
    decode::PtmCapture capture_;
};

class RingSource final : public RecordedSource {
public:
    RingSource(const std::string& dump, std::optional<std::uint32_t> base, const decode::ElfImage& elf, decode::ThreadNames names)
        : dump_(dump), ring_(dump, base, elf, names) {}
    void add_sink(trace::TraceSink& sink) override { ring_.add_sink(sink); }
    SourceTotals deliver() override { return ring_.deliver(); }
    std::string summary_text() const override {
        const decode::RingSummary& s = ring_.summary();
        std::string t = "emutrace: on-target trace ring in " + s.dump + " (" + s.format + ") at " + config::hex32(s.address) + "\n";
        t += "  events        " + config::grouped(s.events) + " of a ring of " + config::grouped(s.capacity) +
             (s.wraps ? " (wrapped " + config::grouped(s.wraps) + "x: the oldest were overwritten)" : "") + "\n";
        if (s.torn || s.corrupt) t += "  skipped       " + std::to_string(s.torn) + " torn at the head, " + std::to_string(s.corrupt) + " corrupt\n";
        if (s.shadow_overflows) t += "  exits lost    " + config::grouped(s.shadow_overflows) + " (a full shadow stack)\n";
        t += "  time          " +
             (s.timestamps ? config::grouped(s.last_cycle) + " cycles (DWT_CYCCNT)" : std::string("no timestamps: event order only")) +
             "\n  exits         " + (s.exits_by_return_address ? "by return-address manipulation" : "by the compiler's exit hook") + "\n";
        return t;
    }
    nlohmann::json summary_json() const override {
        const decode::RingSummary& s = ring_.summary();
        return {{"dump", s.dump},
                {"format", s.format},
                {"ring", config::hex32(s.address)},
                {"capacity", s.capacity},
                {"wraps", s.wraps},
                {"events", s.events},
                {"torn", s.torn},
                {"corrupt", s.corrupt},
                {"timestamps", s.timestamps},
                {"cycles", s.last_cycle},
                {"shadow_overflows", s.shadow_overflows},
                {"exits_by_return_address", s.exits_by_return_address}};
    }
    const std::string& name() const override { return dump_; }

private:
    std::string dump_;
    decode::RingTrace ring_;
};

}  // namespace

std::unique_ptr<RecordedSource> open_capture(const std::string& snapshot, unsigned trace_id) {
    return std::make_unique<CaptureSource>(snapshot, trace_id);
}

std::unique_ptr<RecordedSource> open_ring_dump(const std::string& dump, std::optional<std::uint32_t> base, const decode::ElfImage& elf,
                                               decode::ThreadNames names) {
    return std::make_unique<RingSource>(dump, base, elf, names);
}

}  // namespace emutrace::session
