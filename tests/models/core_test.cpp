#include <doctest/doctest.h>

#include "models/core.h"

using namespace emutrace;

TEST_CASE("core: the catalogue and its names") {
    CHECK(models::find_core("cortex-m0")->arch == "ARMv6-M");
    CHECK(models::find_core("cortex-m4f"));
    CHECK_FALSE(models::find_core("cortex-m7"));
    CHECK(models::core_names() == "cortex-m0, cortex-m3, cortex-m4, cortex-m4f");
}

TEST_CASE("core: each core rejects what its architecture lacks") {
    decode::Instruction sdiv{0x100, 4, decode::IsaThumb2 | decode::IsaDivide, 0, "sdiv r0, r0, r1"};
    decode::Instruction sadd8{0x100, 4, decode::IsaThumb2 | decode::IsaDsp, 0, "sadd8 r0, r0, r0"};
    decode::Instruction vadd{0x100, 4, decode::IsaThumb2 | decode::IsaFpSingle, 0, "vadd.f32 s0, s0, s0"};
    auto m0 = *models::find_core("cortex-m0"), m3 = *models::find_core("cortex-m3");
    auto m4 = *models::find_core("cortex-m4"), m4f = *models::find_core("cortex-m4f");
    CHECK(models::unsupported(m0, sdiv)->find("hardware divide") != std::string::npos);
    CHECK_FALSE(models::unsupported(m3, sdiv));
    CHECK(models::unsupported(m3, sadd8)->find("DSP") != std::string::npos);
    CHECK_FALSE(models::unsupported(m4, sadd8));
    CHECK(models::unsupported(m4, vadd)->find("FPU") != std::string::npos);
    CHECK_FALSE(models::unsupported(m4f, vadd));
}
