// libFuzzer target: arbitrary bytes from a GDB connection (run --gdb): the packet reader frames
// them, and every packet it takes is answered by the stub's parsing of hex, numbers and
// addresses, which must never crash or allocate without bound.
#include <cstdint>

#include "debug/gdb/rsp_packets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    emutrace::debug::gdb::PacketReader reader;
    reader.feed(std::span<const std::uint8_t>(data, size));
    while (auto in = reader.next()) {
        (void)emutrace::debug::gdb::from_hex(in->payload);
        (void)emutrace::debug::gdb::parse_hex(in->payload);
        (void)emutrace::debug::gdb::frame(in->payload);
    }
    return 0;
}
