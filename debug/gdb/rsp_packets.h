#pragma once
// GDB's remote serial protocol on the wire (the GDB manual, "Overview" of Remote Protocol):
// bytes from the debugger become packets ("$payload#cs", escapes undone), acknowledgements and
// the interrupt byte; payloads become framed packets. No I/O here: the stub feeds it what the
// socket read, so a hostile stream can only make it say "bad packet".

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace emutrace::debug::gdb {

/// What a run of bytes from the debugger held, one item at a time.
struct Incoming {
    enum class Kind : std::uint8_t { Packet, BadPacket, Interrupt, Ack, Nak };
    Kind kind = Kind::Packet;
    std::string payload;  ///< Packet: the command, unescaped
};

class PacketReader {
public:
    /// The largest payload taken; a longer one is a BadPacket (and the stub says so).
    static constexpr std::size_t kMostPayload = 64 * 1024;

    /// Takes bytes as they came; items are then read with next().
    void feed(std::span<const std::uint8_t> bytes);
    std::optional<Incoming> next();
    /// Whether a 0x03 arrived (Ctrl-C), while the machine runs: taken, so it is seen once.
    bool take_interrupt();

private:
    enum class State : std::uint8_t { Idle, Payload, Escape, Checksum1, Checksum2 };
    void finish(bool ok);
    State state_ = State::Idle;
    std::string payload_;
    std::uint8_t sum_ = 0;
    std::uint8_t given_ = 0;
    bool too_long_ = false;
    std::string items_;  ///< finished items as kind byte + length-prefixed payload, in order
    std::size_t read_ = 0;
    bool interrupt_ = false;
};

/// "$payload#cs" with '#', '$', '}' and '*' escaped.
std::string frame(std::string_view payload);
/// Lower-case hex of bytes, and back (nullopt on an odd length or a non-hex digit).
std::string to_hex(std::span<const std::uint8_t> bytes);
std::optional<std::string> from_hex(std::string_view hex);
/// A hex number ("20000000"), nullopt if it is none or does not fit 64 bits.
std::optional<std::uint64_t> parse_hex(std::string_view text);

// The fields of the commands and replies.
/// A register's value as its `bytes` in target (little-endian) order, in hex; and back.
std::string le_hex(std::uint64_t value, unsigned bytes);
std::optional<std::uint64_t> le_value(std::string_view hex, unsigned bytes);
/// Text as hex (console output, thread names).
std::string text_hex(std::string_view text);
/// A thread id as GDB writes it.
std::string hex_id(std::uint32_t id);
/// "addr,length" (and what follows a ':' when `rest` is given).
bool address_length(std::string_view text, std::uint32_t& address, std::uint32_t& length, std::string_view* rest = nullptr);

}  // namespace emutrace::debug::gdb
