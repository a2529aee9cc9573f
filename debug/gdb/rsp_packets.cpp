#include "debug/gdb/rsp_packets.h"

#include <cstdio>

namespace emutrace::debug::gdb {

namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void put_item(std::string& items, Incoming::Kind kind, std::string_view payload) {
    items.push_back(static_cast<char>(kind));
    const std::uint32_t n = static_cast<std::uint32_t>(payload.size());
    items.append(reinterpret_cast<const char*>(&n), sizeof n);
    items.append(payload);
}

}  // namespace

void PacketReader::feed(std::span<const std::uint8_t> bytes) {
    for (std::uint8_t b : bytes) {
        const char c = static_cast<char>(b);
        switch (state_) {
            case State::Idle:
                if (c == '$') {
                    state_ = State::Payload;
                    payload_.clear();
                    sum_ = 0;
                    too_long_ = false;
                } else if (b == 0x03) {
                    interrupt_ = true;
                    put_item(items_, Incoming::Kind::Interrupt, {});
                } else if (c == '+') {
                    put_item(items_, Incoming::Kind::Ack, {});
                } else if (c == '-') {
                    put_item(items_, Incoming::Kind::Nak, {});
                }  // anything else between packets is noise
                break;
            case State::Payload:
                if (c == '#') {
                    state_ = State::Checksum1;
                    break;
                }
                sum_ = static_cast<std::uint8_t>(sum_ + b);
                if (c == '}') {
                    state_ = State::Escape;
                    break;
                }
                if (payload_.size() < kMostPayload)
                    payload_.push_back(c);
                else
                    too_long_ = true;
                break;
            case State::Escape:
                sum_ = static_cast<std::uint8_t>(sum_ + b);
                if (payload_.size() < kMostPayload)
                    payload_.push_back(static_cast<char>(b ^ 0x20));
                else
                    too_long_ = true;
                state_ = State::Payload;
                break;
            case State::Checksum1: {
                const int d = hex_digit(c);
                given_ = static_cast<std::uint8_t>(d < 0 ? 0 : d << 4);
                state_ = d < 0 ? (finish(false), State::Idle) : State::Checksum2;
                break;
            }
            case State::Checksum2: {
                const int d = hex_digit(c);
                finish(d >= 0 && static_cast<std::uint8_t>(given_ | d) == sum_ && !too_long_);
                state_ = State::Idle;
                break;
            }
        }
    }
}

void PacketReader::finish(bool ok) {
    put_item(items_, ok ? Incoming::Kind::Packet : Incoming::Kind::BadPacket, ok ? std::string_view(payload_) : std::string_view());
    payload_.clear();
}

std::optional<Incoming> PacketReader::next() {
    if (read_ >= items_.size()) {
        items_.clear();
        read_ = 0;
        return std::nullopt;
    }
    Incoming in;
    in.kind = static_cast<Incoming::Kind>(items_[read_]);
    std::uint32_t n = 0;
    items_.copy(reinterpret_cast<char*>(&n), sizeof n, read_ + 1);
    in.payload = items_.substr(read_ + 1 + sizeof n, n);
    read_ += 1 + sizeof n + n;
    return in;
}

bool PacketReader::take_interrupt() {
    const bool was = interrupt_;
    interrupt_ = false;
    return was;
}

std::string frame(std::string_view payload) {
    std::string out = "$";
    std::uint8_t sum = 0;
    for (char c : payload) {
        if (c == '#' || c == '$' || c == '}' || c == '*') {
            out.push_back('}');
            sum = static_cast<std::uint8_t>(sum + '}');
            c = static_cast<char>(c ^ 0x20);
        }
        out.push_back(c);
        sum = static_cast<std::uint8_t>(sum + static_cast<std::uint8_t>(c));
    }
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('#');
    out.push_back(kHex[sum >> 4]);
    out.push_back(kHex[sum & 15]);
    return out;
}

std::string to_hex(std::span<const std::uint8_t> bytes) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (std::uint8_t b : bytes) {
        out.push_back(kHex[b >> 4]);
        out.push_back(kHex[b & 15]);
    }
    return out;
}

std::optional<std::string> from_hex(std::string_view hex) {
    if (hex.size() % 2) return std::nullopt;
    std::string out;
    out.reserve(hex.size() / 2);
    for (std::size_t i = 0; i < hex.size(); i += 2) {
        const int hi = hex_digit(hex[i]), lo = hex_digit(hex[i + 1]);
        if (hi < 0 || lo < 0) return std::nullopt;
        out.push_back(static_cast<char>(hi << 4 | lo));
    }
    return out;
}

std::optional<std::uint64_t> parse_hex(std::string_view text) {
    if (text.empty() || text.size() > 16) return std::nullopt;
    std::uint64_t v = 0;
    for (char c : text) {
        const int d = hex_digit(c);
        if (d < 0) return std::nullopt;
        v = v << 4 | static_cast<std::uint64_t>(d);
    }
    return v;
}

std::string le_hex(std::uint64_t value, unsigned bytes) {
    std::uint8_t b[8];
    for (unsigned i = 0; i < bytes; ++i) b[i] = static_cast<std::uint8_t>(value >> (8 * i));
    return to_hex(std::span<const std::uint8_t>(b, bytes));
}

std::optional<std::uint64_t> le_value(std::string_view hex, unsigned bytes) {
    auto raw = from_hex(hex);
    if (!raw || raw->size() != bytes) return std::nullopt;
    std::uint64_t v = 0;
    for (unsigned i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(static_cast<std::uint8_t>((*raw)[i])) << (8 * i);
    return v;
}

bool address_length(std::string_view text, std::uint32_t& address, std::uint32_t& length, std::string_view* rest) {
    const auto comma = text.find(',');
    if (comma == std::string_view::npos) return false;
    std::string_view len = text.substr(comma + 1);
    if (rest) {
        const auto colon = len.find(':');
        if (colon == std::string_view::npos) return false;
        *rest = len.substr(colon + 1);
        len = len.substr(0, colon);
    }
    auto a = parse_hex(text.substr(0, comma));
    auto l = parse_hex(len);
    if (!a || !l || *a > 0xffffffffu || *l > 0xffffffffu) return false;
    address = static_cast<std::uint32_t>(*a);
    length = static_cast<std::uint32_t>(*l);
    return true;
}

std::string text_hex(std::string_view text) {
    return to_hex(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

std::string hex_id(std::uint32_t id) {
    char text[12];
    std::snprintf(text, sizeof text, "%x", id);
    return text;
}

}  // namespace emutrace::debug::gdb
