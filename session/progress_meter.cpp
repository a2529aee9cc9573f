#include "session/progress_meter.h"

#include <algorithm>
#include <cinttypes>

namespace emutrace::session {
namespace {

// `n` with thousands separators into `buf`; returns the characters written.
int grouped(char* buf, std::size_t size, std::uint64_t n) {
    char digits[24];
    int len = std::snprintf(digits, sizeof digits, "%" PRIu64, n);
    std::size_t at = 0;
    for (int i = 0; i < len && at + 1 < size; ++i) {
        if (i > 0 && (len - i) % 3 == 0 && at + 2 < size) buf[at++] = ',';
        buf[at++] = digits[i];
    }
    buf[at] = '\0';
    return static_cast<int>(at);
}

}  // namespace

void ProgressMeter::on_start(const trace::RunInfo& info) {
    if (info.clock_hz) clock_hz_ = info.clock_hz;
    started_ = Clock::now();
    next_draw_ = started_ + kQuiet;
}

void ProgressMeter::on_batch(const trace::EventBatch& batch) {
    if (batch.events.empty()) return;
    events_ += batch.events.size();
    cycles_ = std::max(cycles_, batch.events.back().cycle);
    if (!source_counts_)
        for (const trace::Event& e : batch.events)
            if (e.kind == trace::EventKind::Block) block_instructions_ += e.extra;
    maybe_draw();
}

void ProgressMeter::counts(std::uint64_t cycles, std::uint64_t instructions) {
    source_counts_ = true;
    cycles_ = std::max(cycles_, cycles);
    instructions_ = instructions;
    maybe_draw();
}

void ProgressMeter::maybe_draw() {
    Clock::time_point now = Clock::now();  // once per batch or count at most
    if (now < next_draw_) return;
    draw(now);
    next_draw_ = now + kInterval;
}

void ProgressMeter::draw(Clock::time_point now) {
    char line[200];
    std::size_t n = 0;
    auto add = [&](int written) { n = std::min(n + static_cast<std::size_t>(std::max(written, 0)), sizeof line - 1); };
    auto room = [&] { return sizeof line - n; };
    add(std::snprintf(line, room(), "\remutrace: "));
    if (clock_hz_) {
        add(std::snprintf(line + n, room(), "%.3f s emulated", static_cast<double>(cycles_) / static_cast<double>(clock_hz_)));
    } else {
        add(grouped(line + n, room(), cycles_));
        add(std::snprintf(line + n, room(), " cycles"));
    }
    if (std::uint64_t instructions = source_counts_ ? instructions_ : block_instructions_) {
        double seconds = std::chrono::duration<double>(now - started_).count();
        add(std::snprintf(line + n, room(), ", "));
        add(grouped(line + n, room(), instructions));
        add(std::snprintf(line + n, room(), " instructions, %.1f MIPS", seconds > 0 ? static_cast<double>(instructions) / seconds / 1e6 : 0.0));
    }
    add(std::snprintf(line + n, room(), ", "));
    add(grouped(line + n, room(), events_));
    add(std::snprintf(line + n, room(), " events\x1b[K"));
    std::fwrite(line, 1, n, out_);
    std::fflush(out_);
    drawn_ = true;
    ++redraws_;
}

void ProgressMeter::on_end() {
    if (!drawn_) return;
    std::fputs("\r\x1b[K", out_);
    std::fflush(out_);
    drawn_ = false;
}

}  // namespace emutrace::session
