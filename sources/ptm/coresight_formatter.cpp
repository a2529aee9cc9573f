#include "sources/ptm/coresight_formatter.h"

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>
#include <string>

namespace emutrace::decode {
namespace {

// Bytes 0..14 carry IDs (even positions, bit 0 set) and data; byte 15 holds bit 0 of the data at
// the even positions, or for an ID there whether the next byte still belongs to the old ID.
using Frame = std::array<std::uint8_t, 16>;
constexpr std::size_t frame_payload = 14;  // data bytes per frame after its leading ID
constexpr std::size_t aux = 15;
constexpr std::uint8_t null_id = 0;

void put_data(Frame& frame, std::size_t position, std::uint8_t byte) {
    if (position % 2 == 1) {
        frame[position] = byte;
        return;
    }
    frame[position] = static_cast<std::uint8_t>(byte & 0xFE);
    frame[aux] = static_cast<std::uint8_t>(frame[aux] | ((byte & 1u) << (position / 2)));
}

void put_id(Frame& frame, std::size_t position, std::uint8_t id, bool next_byte_is_old_id) {
    frame[position] = static_cast<std::uint8_t>((id << 1) | 1u);
    if (next_byte_is_old_id) frame[aux] = static_cast<std::uint8_t>(frame[aux] | (1u << (position / 2)));
}

// One frame of `chunk` (1..14 bytes) from source `trace_id`; a short chunk ends with the switch
// to the null ID, which must sit at an even position: after odd-placed data it applies from the
// next byte, after even-placed data it takes that position and the last data byte moves after it.
Frame make_frame(std::span<const std::uint8_t> chunk, std::uint8_t trace_id) {
    Frame frame{};
    put_id(frame, 0, trace_id, false);
    std::size_t n = chunk.size();
    if (n == frame_payload) {
        for (std::size_t i = 0; i < n; ++i) put_data(frame, i + 1, chunk[i]);
        return frame;
    }
    for (std::size_t i = 0; i + 1 < n; ++i) put_data(frame, i + 1, chunk[i]);
    if (n % 2 == 1) {
        put_data(frame, n, chunk[n - 1]);
        put_id(frame, n + 1, null_id, false);
    } else {
        put_id(frame, n, null_id, true);
        put_data(frame, n + 1, chunk[n - 1]);
    }
    return frame;  // the rest is zero: null-ID data
}

void check_id(std::uint8_t trace_id) {
    if (trace_id < 0x01 || trace_id > 0x6F)
        throw std::invalid_argument("CoreSight trace ID " + std::to_string(trace_id) + " is outside 1..111 (0x01..0x6F)");
}

}  // namespace

std::vector<std::uint8_t> format_frames(std::span<const FormatterInput> sources) {
    std::vector<std::uint8_t> frames;
    for (const auto& s : sources) check_id(s.trace_id);
    for (std::size_t at = 0;; at += frame_payload) {
        bool any = false;
        for (const auto& s : sources) {
            if (at >= s.data.size()) continue;
            Frame frame = make_frame(s.data.subspan(at, std::min(frame_payload, s.data.size() - at)), s.trace_id);
            frames.insert(frames.end(), frame.begin(), frame.end());
            any = true;
        }
        if (!any) return frames;
    }
}

std::vector<std::uint8_t> format_frames(std::span<const std::uint8_t> data, std::uint8_t trace_id) {
    check_id(trace_id);
    std::vector<std::uint8_t> frames;
    frames.reserve((data.size() + frame_payload - 1) / frame_payload * sizeof(Frame));
    for (std::size_t at = 0; at < data.size(); at += frame_payload) {
        Frame frame = make_frame(data.subspan(at, std::min(frame_payload, data.size() - at)), trace_id);
        frames.insert(frames.end(), frame.begin(), frame.end());
    }
    return frames;
}

std::vector<std::uint8_t> deformat_frames(std::span<const std::uint8_t> frames, std::uint8_t trace_id) {
    std::vector<std::uint8_t> out;
    std::uint8_t current = null_id;
    auto emit = [&](std::uint8_t byte) {
        if (current == trace_id) out.push_back(byte);
    };
    std::size_t at = 0;
    while (at + 16 <= frames.size()) {
        const std::uint8_t* f = frames.data() + at;
        if (f[0] == 0xFF && f[1] == 0xFF && f[2] == 0xFF && f[3] == 0x7F) {  // a full-word sync
            at += 4;
            continue;
        }
        for (std::size_t i = 0; i < 15; i += 2) {
            const bool flag = (f[aux] >> (i / 2)) & 1u;
            std::optional<std::uint8_t> delayed;
            if (f[i] & 1u) {  // an ID: now, or after the next byte when its flag says so
                if (flag)
                    delayed = static_cast<std::uint8_t>(f[i] >> 1);
                else
                    current = static_cast<std::uint8_t>(f[i] >> 1);
            } else {
                emit(static_cast<std::uint8_t>(f[i] | (flag ? 1u : 0u)));
            }
            if (i < 14) emit(f[i + 1]);
            if (delayed) current = *delayed;
        }
        at += 16;
    }
    return out;
}

}  // namespace emutrace::decode
