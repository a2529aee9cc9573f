#pragma once
// The ITM and DWT packet protocol (ARMv7-M ARM, Appendix D4) both ways: the encoder the swo writer
// builds a probe's byte stream with, and the decoder that reads one back, bytes -> packets. The
// SWO source (swo_capture.h) takes the packets on to events.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace emutrace::decode::itm {

/// Exception trace functions (DWT exception trace packet, FN).
enum class ExceptionFunction : std::uint8_t { Entered = 1, Exited = 2, Returned = 3 };

/// Appends packets to a byte stream.
class Encoder {
public:
    explicit Encoder(std::vector<std::uint8_t>& out) : out_(out) {}
    /// Five zero bytes and 0x80: a decoder aligns on it.
    void sync();
    void overflow() { out_.push_back(0x70); }
    /// A stimulus port write of `size` bytes (1, 2 or 4).
    void software(unsigned port, unsigned size, std::uint32_t value);
    void exception(unsigned number, ExceptionFunction fn);
    void pc_sample(std::uint32_t pc);
    void sleep_sample();
    /// DWT data trace of comparator `n` (0-3): the pc of the access (a data trace PC value packet),
    /// the low 16 bits of its address (an address offset packet), its data, `size` bytes (a data
    /// value packet).
    void data_pc(unsigned n, std::uint32_t pc);
    void data_offset(unsigned n, std::uint32_t address);
    void data_value(unsigned n, bool write, unsigned size, std::uint32_t value);
    /// A local timestamp `delta` timestamp clocks after the previous one; `delayed`: the packets
    /// it follows waited in the FIFO (TC 1). Deltas past 28 bits go as several packets.
    void local_timestamp(std::uint64_t delta, bool delayed);
    /// A global timestamp: GTS1 with bits [25:0] of `timestamp` (`wrap`: its bits [47:26] changed
    /// since the last GTS2), GTS2 with bits [47:26].
    void global_timestamp1(std::uint64_t timestamp, bool wrap);
    void global_timestamp2(std::uint64_t timestamp);
    /// Bytes of the packets above, for a FIFO's accounting.
    static unsigned software_bytes(unsigned size) { return 1 + size; }

private:
    void payload(std::uint8_t header, unsigned size, std::uint32_t value);
    std::vector<std::uint8_t>& out_;
};

/// One decoded packet.
struct Packet {
    enum class Kind : std::uint8_t { Sync, Overflow, LocalTimestamp, GlobalTimestamp, Software, Hardware, Extension, Unknown };
    Kind kind = Kind::Unknown;
    std::uint8_t id = 0;  ///< Software: the port; Hardware: the discriminator (1 exception, 2 PC sample, ...)
    std::uint8_t size = 0;
    std::uint8_t control = 0;  ///< LocalTimestamp: TC (0 exact, 1-3 delayed)
    std::uint64_t value = 0;   ///< payload, little-endian; LocalTimestamp: the delta
    std::uint64_t offset = 0;  ///< of its first byte in the stream
};

/// Bytes to packets, resumable across chunks. Before the first sync a decoder still reads packets
/// (an SWO capture usually starts mid-stream with the ITM idle); a byte that starts no packet is
/// an Unknown packet of its own.
class Decoder {
public:
    /// Appends the packets `bytes` completes to `out`.
    void feed(std::span<const std::uint8_t> bytes, std::vector<Packet>& out);
    /// A packet cut off at the end of the stream, if any: its offset.
    bool truncated() const { return have_ > 0; }
    std::uint64_t truncated_at() const { return start_; }

private:
    void finish(std::vector<Packet>& out);
    std::uint8_t buf_[8] = {};
    unsigned have_ = 0, need_ = 0;  ///< bytes of the packet so far, and its length when known (0: until a byte without bit 7)
    unsigned zeros_ = 0;            ///< zero bytes in a row: a sync in progress
    std::uint64_t offset_ = 0, start_ = 0;
};

}  // namespace emutrace::decode::itm
