// Emulated trace written as a DS-5/OpenCSD snapshot and read back with decode_snapshot: raw and
// formatted buffers decode alike, against a tiny hand-assembled Thumb program as the memory dump.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "emutrace/config_error.h"
#include "sources/ptm/capture_decoder.h"
#include "sources/ptm/coresight_formatter.h"
#include "sources/ptm/snapshot_writer.h"
#include "support/temp_dir.h"

using namespace emutrace;
using namespace emutrace::decode;
using Bytes = std::vector<std::uint8_t>;

namespace {

constexpr std::uint32_t code_address = 0x08000000;
// nop; nop; nop; nop; b .; nop  (Thumb, little-endian halfwords; OpenCSD reads 4 bytes per instruction)
const Bytes thumb_code = {0x00, 0xBF, 0x00, 0xBF, 0x00, 0xBF, 0x00, 0xBF, 0xFE, 0xE7, 0x00, 0xBF};

// A-sync, I-sync to 0x08000000 in Thumb ("trace enable"), then atoms for the `b .`.
const Bytes ptm_stream = {0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x08, 0x01, 0x00, 0x00, 0x08, 0x20, 0x84, 0x88, 0x84};

SnapshotSpec spec_for(const Bytes& trace, bool formatted) {
    SnapshotSpec spec;
    spec.ptm.trace_id = 0x13;
    spec.trace = trace;
    spec.formatted = formatted;
    spec.memory = {{code_address, thumb_code}};
    return spec;
}

void check_same_decode(const CaptureSummary& a, const CaptureSummary& b) {
    CHECK(a.trace_ids == b.trace_ids);
    CHECK(a.ranges == b.ranges);
    CHECK(a.instructions == b.instructions);
    CHECK(a.exceptions == b.exceptions);
    CHECK(a.trace_on == b.trace_on);
    CHECK(a.gaps == b.gaps);
    REQUIRE(a.first_ranges.size() == b.first_ranges.size());
    for (std::size_t i = 0; i < a.first_ranges.size(); ++i) {
        CAPTURE(i);
        CHECK(a.first_ranges[i].start == b.first_ranges[i].start);
        CHECK(a.first_ranges[i].end == b.first_ranges[i].end);
        CHECK(a.first_ranges[i].instructions == b.first_ranges[i].instructions);
    }
}

}  // namespace

TEST_CASE("snapshot: a raw PTM stream with its code decodes to the program's instruction ranges") {
    test::TempDir dir;
    std::string path = dir.file("raw");
    write_snapshot(path, spec_for(ptm_stream, false));
    CaptureSummary s = decode_snapshot(path);
    CHECK(s.trace_ids == std::vector<std::uint8_t>{0x13});
    CHECK(s.trace_on == 1);
    CHECK(s.bytes == ptm_stream.size());
    // Four nops and the `b .` (taken), then the `b .` alone for each further atom.
    REQUIRE(s.first_ranges.size() == 4);
    CHECK(s.first_ranges[0].start == code_address);
    CHECK(s.first_ranges[0].end == code_address + 10);
    CHECK(s.first_ranges[0].instructions == 5);
    CHECK(s.first_ranges[1].start == code_address + 8);
    CHECK(s.first_ranges[1].instructions == 1);
    CHECK(s.instructions == 8);
}

TEST_CASE("snapshot: an ETB buffer of formatter frames decodes like the raw stream") {
    test::TempDir dir;
    std::string raw = dir.file("raw"), framed = dir.file("framed");
    write_snapshot(raw, spec_for(ptm_stream, false));
    write_snapshot(framed, spec_for(format_frames(ptm_stream, 0x13), true));
    CaptureSummary from_raw = decode_snapshot(raw);
    CaptureSummary from_frames = decode_snapshot(framed);
    CHECK(from_frames.bytes == 32);  // 15 bytes: two frames
    CHECK(from_frames.instructions == 8);
    check_same_decode(from_frames, from_raw);
    CHECK_THROWS_WITH_AS(decode_snapshot(framed, 0x14), doctest::Contains("--id 20 is not in the capture; its trace IDs are 19"), ConfigError);
}

TEST_CASE("snapshot: a trace of many frames decodes like the raw stream") {
    Bytes long_stream(12 + 200, 0x84);                                            // 200 single E atoms
    std::copy(ptm_stream.begin(), ptm_stream.begin() + 12, long_stream.begin());  // after A-sync, I-sync
    test::TempDir dir;
    std::string raw = dir.file("raw"), framed = dir.file("framed");
    write_snapshot(raw, spec_for(long_stream, false));
    write_snapshot(framed, spec_for(format_frames(long_stream, 0x13), true));
    CaptureSummary from_frames = decode_snapshot(framed);
    CHECK(from_frames.bytes == 16 * 16);  // 212 bytes: 15 full frames and a padded one
    CHECK(from_frames.instructions == 5 + 199);
    check_same_decode(from_frames, decode_snapshot(raw));
}

TEST_CASE("snapshot: the files follow DS-5's layout and key spelling") {
    test::TempDir dir;
    std::string path = dir.file("snap");
    write_snapshot(path, spec_for(format_frames(ptm_stream, 0x13), true));
    CHECK(test::read_file(path + "/snapshot.ini") ==
          "[snapshot]\nversion=1.0\n\n[device_list]\ndevice1=device1.ini\ndevice2=device2.ini\n\n[trace]\nmetadata=trace.ini\n");
    CHECK(test::read_file(path + "/device1.ini") ==
          "[device]\nname=cortex-m3\nclass=core\ntype=Cortex-M3\n\n"
          "[dump1]\nspace=S\naddress=0x08000000\nfile=mem_cortex-m3_0.bin\nlength=0x0000000C\n");
    CHECK(test::read_file(path + "/device2.ini") ==
          "[device]\nname=PTM_0\nclass=trace_source\ntype=PTM1.1\n\n[regs]\n"
          "ETMCR(id:0x0)=0x20000400\nETMIDR(id:0x79)=0x411CF312\nETMCCER(id:0x7A)=0x34C01AC2\nETMTRACEIDR(id:0x80)=0x00000013\n");
    CHECK(test::read_file(path + "/trace.ini") ==
          "[trace_buffers]\nbuffers=buffer0\n\n[buffer0]\nname=ETB_0\nfile=cstrace.bin\nformat=coresight\n\n"
          "[source_buffers]\nPTM_0=ETB_0\n\n[core_trace_sources]\ncortex-m3=PTM_0\n");
    CHECK(test::read_file(path + "/mem_cortex-m3_0.bin") == std::string(thumb_code.begin(), thumb_code.end()));
    CHECK(test::read_file(path + "/cstrace.bin").size() == 32);
}

TEST_CASE("snapshot: a place that cannot be written is an error naming it") {
    test::TempDir dir;
    std::string blocker = dir.write("not-a-dir", "x");
    const std::string message = blocker + "/snap: cannot create";
    CHECK_THROWS_WITH_AS(write_snapshot(blocker + "/snap", spec_for(ptm_stream, false)), doctest::Contains(message.c_str()), ConfigError);
    // A directory in the way of a file.
    std::filesystem::create_directories(dir.path() / "snap" / "trace.ini");
    CHECK_THROWS_WITH_AS(write_snapshot(dir.file("snap"), spec_for(ptm_stream, false)), doctest::Contains("trace.ini: cannot write"), ConfigError);
}

TEST_CASE("snapshot: OpenCSD's trc_pkt_lister reads dumps of every length (padded to whole words)") {
    // OpenCSD 1.3.3 refuses a memory dump of odd length ("Failed to create memory accessor") and
    // then reads every range as OCSD_GEN_TRC_ELEM_ADDR_NACC: a firmware whose code image was 491
    // bytes long decoded to nothing.
    REQUIRE_MESSAGE(std::system("command -v trc_pkt_lister >/dev/null") == 0,
                    "trc_pkt_lister is missing: scripts/install-deps installs libopencsd-bin");
    for (std::size_t length = 10; length <= 13; ++length) {
        CAPTURE(length);
        test::TempDir dir;
        SnapshotSpec spec = spec_for(format_frames(ptm_stream, 0x13), true);
        spec.memory[0].bytes.resize(length, 0xBF);
        write_snapshot(dir.file("snap"), spec);
        CHECK(std::filesystem::file_size(dir.file("snap/mem_cortex-m3_0.bin")) % 4 == 0);
        std::string listing = dir.file("listing.txt");
        // From the snapshot's directory: trc_pkt_lister also writes trc_pkt_lister.ppl where it runs.
        REQUIRE(std::system(("cd " + dir.file("snap") + " && trc_pkt_lister -ss_dir . -decode -logstdout >" + listing + " 2>&1").c_str()) == 0);
        std::string out = test::read_file(listing);
        CHECK(out.find("Failed to create memory accessor") == std::string::npos);
        CHECK(out.find("ADDR_NACC") == std::string::npos);
        CHECK(out.find("exec range=0x8000000:[0x800000a] num_i(5)") != std::string::npos);  // four nops and the b .
    }
}
