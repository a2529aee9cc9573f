#include "sources/itm/itm_packets.h"

namespace emutrace::decode::itm {
namespace {

constexpr std::uint8_t kOverflow = 0x70, kGts1 = 0x94, kGts2 = 0xB4;
constexpr unsigned kLongest = 7;  // GTS2: header and six bytes

std::uint8_t size_bits(unsigned size) {
    return size == 1 ? 1 : size == 2 ? 2 : 3;
}

// The payload of a packet whose bytes after the header carry 7 bits each.
std::uint64_t continued(const std::uint8_t* bytes, unsigned count) {
    std::uint64_t v = 0;
    for (unsigned i = 1; i < count; ++i) v |= std::uint64_t{bytes[i] & 0x7Fu} << (7 * (i - 1));
    return v;
}

}  // namespace

void Encoder::sync() {
    out_.insert(out_.end(), {0x00, 0x00, 0x00, 0x00, 0x00, 0x80});
}

void Encoder::payload(std::uint8_t header, unsigned size, std::uint32_t value) {
    out_.push_back(header);
    for (unsigned i = 0; i < size; ++i) out_.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

void Encoder::software(unsigned port, unsigned size, std::uint32_t value) {
    payload(static_cast<std::uint8_t>((port & 31) << 3 | size_bits(size)), size, value);
}

void Encoder::exception(unsigned number, ExceptionFunction fn) {
    payload(0x0E, 2, (number & 0x1FF) | static_cast<std::uint32_t>(fn) << 12);  // discriminator 1, two bytes
}

void Encoder::pc_sample(std::uint32_t pc) {
    payload(0x17, 4, pc);  // discriminator 2, four bytes
}

void Encoder::sleep_sample() {
    payload(0x15, 1, 0);  // discriminator 2, one zero byte: the core slept
}

// A hardware source packet: discriminator, then its payload's size.
void Encoder::data_pc(unsigned n, std::uint32_t pc) {
    payload(static_cast<std::uint8_t>((8 + 2 * (n & 3)) << 3 | 0x04 | size_bits(4)), 4, pc);
}

void Encoder::data_offset(unsigned n, std::uint32_t address) {
    payload(static_cast<std::uint8_t>((9 + 2 * (n & 3)) << 3 | 0x04 | size_bits(2)), 2, address & 0xFFFF);
}

void Encoder::data_value(unsigned n, bool write, unsigned size, std::uint32_t value) {
    payload(static_cast<std::uint8_t>((16 + 2 * (n & 3) + (write ? 1 : 0)) << 3 | 0x04 | size_bits(size)), size, value);
}

void Encoder::local_timestamp(std::uint64_t delta, bool delayed) {
    constexpr std::uint64_t kMost = (1u << 28) - 1;
    while (delta > kMost) {  // one counter overflow's worth at a time: a decoder sums them
        local_timestamp(kMost, delayed);
        delta -= kMost;
    }
    if (!delayed && delta >= 1 && delta <= 6) {
        out_.push_back(static_cast<std::uint8_t>(delta << 4));  // format 2: one byte
        return;
    }
    out_.push_back(static_cast<std::uint8_t>(0xC0 | (delayed ? 0x10 : 0x00)));
    do {
        std::uint8_t b = delta & 0x7F;
        delta >>= 7;
        out_.push_back(delta ? b | 0x80 : b);
    } while (delta);
}

// Seven bits a byte, the last of four without bit 7 (ARMv7-M ARM D4.2.5).
void Encoder::global_timestamp1(std::uint64_t timestamp, bool wrap) {
    out_.push_back(kGts1);
    for (unsigned i = 0; i < 3; ++i) out_.push_back(static_cast<std::uint8_t>(0x80 | ((timestamp >> (7 * i)) & 0x7F)));
    out_.push_back(static_cast<std::uint8_t>(((timestamp >> 21) & 0x1F) | (wrap ? 0x40 : 0)));
}

void Encoder::global_timestamp2(std::uint64_t timestamp) {
    out_.push_back(kGts2);
    for (unsigned i = 0; i < 3; ++i) out_.push_back(static_cast<std::uint8_t>(0x80 | ((timestamp >> (26 + 7 * i)) & 0x7F)));
    out_.push_back(static_cast<std::uint8_t>((timestamp >> 47) & 0x01));
}

void Decoder::finish(std::vector<Packet>& out) {
    Packet p;
    p.offset = start_;
    const std::uint8_t h = buf_[0];
    if (h == kOverflow) {
        p.kind = Packet::Kind::Overflow;
    } else if ((h & 0x0F) == 0) {
        p.kind = Packet::Kind::LocalTimestamp;
        p.control = h & 0x80 ? (h >> 4) & 3 : 0;
        p.value = h & 0x80 ? continued(buf_, have_) : h >> 4;
    } else if (h == kGts1 || h == kGts2) {
        p.kind = Packet::Kind::GlobalTimestamp;
        p.id = h == kGts1 ? 1 : 2;
        p.value = continued(buf_, have_);
    } else if ((h & 0x0B) == 0x08) {
        p.kind = Packet::Kind::Extension;
        p.value = continued(buf_, have_);
    } else if (h & 3) {
        p.kind = h & 4 ? Packet::Kind::Hardware : Packet::Kind::Software;
        p.id = h >> 3;
        p.size = static_cast<std::uint8_t>(have_ - 1);
        for (unsigned i = 1; i < have_; ++i) p.value |= std::uint64_t{buf_[i]} << (8 * (i - 1));
    }
    out.push_back(p);
    have_ = need_ = 0;
}

void Decoder::feed(std::span<const std::uint8_t> bytes, std::vector<Packet>& out) {
    for (std::uint8_t b : bytes) {
        const std::uint64_t at = offset_++;
        if (have_ == 0) {
            if (b == 0x00) {  // idle, or a sync on its way
                ++zeros_;
                continue;
            }
            if (b == 0x80 && zeros_ >= 5) {
                zeros_ = 0;
                out.push_back({Packet::Kind::Sync, 0, 0, 0, 0, at});
                continue;
            }
            zeros_ = 0;
            start_ = at;
            buf_[have_++] = b;
            if (b == kOverflow || ((b & 0x0F) == 0 && !(b & 0x80)) || ((b & 0x0B) == 0x08 && !(b & 0x80))) {
                finish(out);  // one byte: overflow, a short timestamp, a short extension
            } else if ((b & 0x0F) == 0 || b == kGts1 || b == kGts2 || (b & 0x0B) == 0x08) {
                need_ = 0;  // continuation bytes until one without bit 7
            } else if (b & 3) {
                need_ = 1 + (b & 3 ? (1u << ((b & 3) - 1)) : 0);
            } else {
                finish(out);  // 0bxxxxx100 outside a global timestamp: reserved
            }
            continue;
        }
        buf_[have_++] = b;
        if (need_ ? have_ == need_ : (!(b & 0x80) || have_ == kLongest)) finish(out);
    }
}

}  // namespace emutrace::decode::itm
