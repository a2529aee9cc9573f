// The CoreSight formatter's frames, byte for byte, and OpenCSD's deformatter recovering from them
// exactly the PTM packets of the raw stream.
#include <doctest/doctest.h>

#include <opencsd/c_api/opencsd_c_api.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "sources/ptm/capture_decoder.h"
#include "sources/ptm/coresight_formatter.h"

using namespace emutrace::decode;
using Bytes = std::vector<std::uint8_t>;

namespace {

// A-sync, I-sync to 0x08000000 in Thumb ("trace enable"), atoms, a branch address, more atoms.
const Bytes ptm_stream = {0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x08, 0x01, 0x00, 0x00, 0x08, 0x20, 0x84, 0x88, 0x81,
                          0x80, 0x80, 0x80, 0x10, 0x84, 0x88, 0x8C, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80};

ocsd_datapath_resp_t on_packet(const void* context, const ocsd_datapath_op_t op, const ocsd_trc_index_t, const void* packet) {
    if (op != OCSD_OP_DATA) return OCSD_RESP_CONT;
    char text[512] = {};
    ocsd_pkt_str(OCSD_PROTOCOL_PTM, packet, text, sizeof text);
    static_cast<std::vector<std::string>*>(const_cast<void*>(context))->push_back(text);
    return OCSD_RESP_CONT;
}

// The PTM packets OpenCSD's packet processor finds in `bytes`, read as frames or as a raw stream.
std::vector<std::string> ptm_packets(const Bytes& bytes, bool formatted, std::uint8_t trace_id) {
    std::vector<std::string> packets;
    dcd_tree_handle_t tree =
        ocsd_create_dcd_tree(formatted ? OCSD_TRC_SRC_FRAME_FORMATTED : OCSD_TRC_SRC_SINGLE, formatted ? OCSD_DFRMTR_FRAME_MEM_ALIGN : 0);
    REQUIRE(tree != C_API_INVALID_TREE_HANDLE);
    ocsd_ptm_cfg cfg{0x411CF312, 0x20000400, 0x34C01AC2, trace_id, ARCH_V7, profile_CortexA};
    unsigned char csid = 0;
    REQUIRE(ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_PTM, OCSD_CREATE_FLG_PACKET_PROC, &cfg, &csid) == OCSD_OK);
    REQUIRE(ocsd_dt_attach_packet_callback(tree, csid, OCSD_C_API_CB_PKT_SINK, reinterpret_cast<void*>(&on_packet), &packets) == OCSD_OK);
    std::uint32_t done = 0;
    while (done < bytes.size()) {
        std::uint32_t used = 0;
        ocsd_datapath_resp_t r =
            ocsd_dt_process_data(tree, OCSD_OP_DATA, done, static_cast<std::uint32_t>(bytes.size() - done), bytes.data() + done, &used);
        REQUIRE_FALSE(OCSD_DATA_RESP_IS_FATAL(r));
        done += used;
    }
    std::uint32_t ignored = 0;
    ocsd_dt_process_data(tree, OCSD_OP_EOT, 0, 0, nullptr, &ignored);
    ocsd_destroy_dcd_tree(tree);
    return packets;
}

}  // namespace

TEST_CASE("formatter: a short chunk is one frame led by the source ID and padded with the null ID") {
    // Odd count: the last byte sits at odd position 3, the null ID (0x01) follows at 4.
    // 0x23 at even position 2 keeps its bit 0 in aux bit 1.
    CHECK(format_frames(Bytes{0x11, 0x23, 0x35}, 2) == Bytes{0x05, 0x11, 0x22, 0x35, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02});
    // Even count: the null ID takes even position 2 with aux bit 1 set (the next byte is still
    // ID 2's), and the last byte moves to position 3.
    CHECK(format_frames(Bytes{0x11, 0x23}, 2) == Bytes{0x05, 0x11, 0x01, 0x23, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02});
}

TEST_CASE("formatter: 14 bytes fill a frame, the 15th starts the next") {
    Bytes data;
    for (std::uint8_t i = 0; i < 15; ++i) data.push_back(i);
    Bytes frames = format_frames(data, 0x13);
    REQUIRE(frames.size() == 32);
    // Odd values land on even positions 2..14: written without bit 0, which goes to aux bits 1..7.
    CHECK(Bytes(frames.begin(), frames.begin() + 16) ==
          Bytes{0x27, 0x00, 0x00, 0x02, 0x02, 0x04, 0x04, 0x06, 0x06, 0x08, 0x08, 0x0A, 0x0A, 0x0C, 0x0C, 0xFE});
    CHECK(Bytes(frames.begin() + 16, frames.end()) == Bytes{0x27, 0x0E, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00});
    CHECK(format_frames(Bytes(data.begin(), data.begin() + 14), 0x13).size() == 16);  // no padding frame
    CHECK(format_frames(Bytes{}, 0x13).empty());
}

TEST_CASE("formatter: trace IDs outside 0x01..0x6F are rejected") {
    const Bytes data{0x80};
    CHECK_THROWS_AS(format_frames(data, 0x00), std::invalid_argument);
    CHECK_THROWS_AS(format_frames(data, 0x70), std::invalid_argument);
    CHECK_THROWS_AS(format_frames(data, 0x7F), std::invalid_argument);
    CHECK(format_frames(data, 0x01).size() == 16);
    CHECK(format_frames(data, 0x6F)[0] == 0xDF);
}

TEST_CASE("formatter: OpenCSD's deformatter gives the raw stream's PTM packets at every length") {
    std::vector<std::string> whole = ptm_packets(ptm_stream, false, 2);
    REQUIRE(whole.size() >= 8);
    CHECK(whole[0].find("ASYNC") != std::string::npos);
    CHECK(whole[1].find("ISYNC") != std::string::npos);
    // Every length ends a frame at a different place: odd and even tails, full frames.
    for (std::size_t size = 1; size <= ptm_stream.size(); ++size) {
        CAPTURE(size);
        Bytes raw(ptm_stream.begin(), ptm_stream.begin() + static_cast<std::ptrdiff_t>(size));
        for (std::uint8_t id : {std::uint8_t{0x02}, std::uint8_t{0x13}, std::uint8_t{0x6F}}) {
            CAPTURE(int(id));
            CHECK(ptm_packets(format_frames(raw, id), true, id) == ptm_packets(raw, false, id));
        }
    }
}

TEST_CASE("formatter: a decoder for another trace ID sees none of the source's bytes") {
    CHECK(ptm_packets(format_frames(ptm_stream, 0x13), true, 0x14).empty());
}
