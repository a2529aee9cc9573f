// GDB's remote protocol framing (debug/gdb/rsp_packets.h): packets with their checksums and
// escapes, acknowledgements and the interrupt byte among them, and what a broken or overlong
// packet becomes.
#include <doctest/doctest.h>

#include <string>

#include "debug/gdb/rsp_packets.h"

using namespace emutrace::debug::gdb;

namespace {

std::span<const std::uint8_t> bytes(const std::string& s) {
    return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace

TEST_CASE("rsp: packets, acknowledgements and the interrupt byte, in the order they came, across reads") {
    PacketReader r;
    r.feed(bytes("+$qSupported:multiprocess+#c6\x03$m2000000"));
    r.feed(bytes("0,4#4f-"));
    auto a = r.next();
    REQUIRE(a);
    CHECK(a->kind == Incoming::Kind::Ack);
    auto b = r.next();
    REQUIRE(b);
    CHECK(b->kind == Incoming::Kind::Packet);
    CHECK(b->payload == "qSupported:multiprocess+");
    CHECK(r.next()->kind == Incoming::Kind::Interrupt);
    auto m = r.next();
    REQUIRE(m);
    CHECK(m->kind == Incoming::Kind::Packet);
    CHECK(m->payload == "m20000000,4");
    CHECK(r.next()->kind == Incoming::Kind::Nak);
    CHECK_FALSE(r.next());
    CHECK(r.take_interrupt());
    CHECK_FALSE(r.take_interrupt());
}

TEST_CASE("rsp: escapes both ways, and a wrong checksum or an overlong payload is a bad packet") {
    const std::string payload = std::string("X0,4:") + "#$}*";
    const std::string framed = frame(payload);
    CHECK(framed.find("}\x03}\x04}]}\x0a") != std::string::npos);  // each of # $ } * escaped
    PacketReader r;
    r.feed(bytes(framed));
    auto p = r.next();
    REQUIRE(p);
    CHECK(p->kind == Incoming::Kind::Packet);
    CHECK(p->payload == payload);
    r.feed(bytes("$g#00$g#zz"));
    CHECK(r.next()->kind == Incoming::Kind::BadPacket);
    CHECK(r.next()->kind == Incoming::Kind::BadPacket);
    r.feed(bytes(frame(std::string(PacketReader::kMostPayload + 1, 'a'))));
    CHECK(r.next()->kind == Incoming::Kind::BadPacket);
    r.feed(bytes(frame("g")));
    CHECK(r.next()->payload == "g");  // and the reader goes on
}

TEST_CASE("rsp: hex both ways") {
    const std::uint8_t raw[] = {0x00, 0x7f, 0xab, 0xff};
    CHECK(to_hex(raw) == "007fabff");
    CHECK(*from_hex("007FABff") == std::string("\x00\x7f\xab\xff", 4));
    CHECK_FALSE(from_hex("abc"));
    CHECK_FALSE(from_hex("zz"));
    CHECK(*parse_hex("20000000") == 0x20000000u);
    CHECK_FALSE(parse_hex(""));
    CHECK_FALSE(parse_hex("12345678901234567"));
    CHECK_FALSE(parse_hex("12g"));
}
