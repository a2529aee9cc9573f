#include <doctest/doctest.h>

#include "decode/elf_image.h"
#include "emutrace/config_error.h"
#include "support/paths.h"
#include "support/temp_dir.h"

using emutrace::ConfigError;
using emutrace::decode::ElfImage;
using namespace emutrace::test;

TEST_CASE("elf: loads the compute firmware's segments and symbols") {
    ElfImage img = ElfImage::load(firmware("compute"));
    REQUIRE(!img.segments().empty());
    CHECK(img.lowest_load_address() == 0);
    auto reset = img.symbols().address_of("Reset_Handler");
    REQUIRE(reset);
    CHECK(*reset == (img.entry() & ~1u));  // function addresses drop the Thumb bit
    auto main_addr = img.symbols().address_of("main");
    REQUIRE(main_addr);
    CHECK(img.symbols().describe(*main_addr) == "main");
    CHECK(img.symbols().describe(*main_addr + 4) == "main+0x4");
    const auto* f = img.symbols().function_at(*main_addr + 2);
    REQUIRE(f);
    CHECK(f->name == "main");
    // The vector table's first word is the initial stack pointer at the end of SRAM.
    const auto& text = img.segments().front();
    std::uint32_t sp = text.bytes[0] | text.bytes[1] << 8 | text.bytes[2] << 16 | static_cast<std::uint32_t>(text.bytes[3]) << 24;
    CHECK(sp == 0x20400000u);
}

TEST_CASE("elf: the build attributes say which architecture and FPU each build was made for") {
    struct Case {
        const char* firmware;
        int cpu_arch;
        bool fp;
    };
    // Tag_CPU_arch (ARM IHI 0045): 10 ARMv7 (with profile M: ARMv7-M), 12 ARMv6S-M (GCC's Cortex-M0), 13 ARMv7E-M.
    for (const Case& c : {Case{"compute_m0", 12, false}, Case{"compute", 10, false}, Case{"compute_m4", 13, false}, Case{"float_m4", 13, false},
                          Case{"float_m4f", 13, true}}) {
        CAPTURE(c.firmware);
        const ElfImage image = ElfImage::load(firmware(c.firmware));
        const auto& b = image.build();
        CHECK(b.profile == 'M');
        CHECK(b.cpu_arch == c.cpu_arch);
        CHECK(b.fp == c.fp);
    }
    // A raw image says nothing but its profile.
    const auto raw = ElfImage::raw("dump.bin", {0}, std::vector<std::uint8_t>(4));
    CHECK(raw.build().cpu_arch == -1);
}

TEST_CASE("elf: bad input is rejected with the file name and the reason") {
    TempDir dir;
    std::string text = dir.write("notes.txt", "this is not an ELF file\n");
    CHECK_THROWS_WITH_AS(ElfImage::load(text), (text + ": not an ELF file").c_str(), ConfigError);
    CHECK_THROWS_WITH_AS(ElfImage::load("/proc/self/exe"), doctest::Contains("64-bit ELF"), ConfigError);
    CHECK_THROWS_WITH_AS(ElfImage::load(dir.file("missing.elf")), doctest::Contains("cannot open"), ConfigError);

    std::string elf = read_file(firmware("compute"));
    std::string no_segments = elf;
    no_segments[44] = 0;  // e_phnum of an ELF32 header
    no_segments[45] = 0;
    CHECK_THROWS_WITH_AS(ElfImage::load(dir.write("nophdr.elf", no_segments)), doctest::Contains("no loadable (PT_LOAD) segments"), ConfigError);
    CHECK_THROWS_AS(ElfImage::load(dir.write("truncated.elf", elf.substr(0, 200))), ConfigError);
    std::string big_endian = elf;
    big_endian[5] = 2;  // EI_DATA: ELFDATA2MSB, as an armeb toolchain writes
    CHECK_THROWS_WITH_AS(ElfImage::load(dir.write("be.elf", big_endian)), doctest::Contains("big-endian ELF"), ConfigError);
}
