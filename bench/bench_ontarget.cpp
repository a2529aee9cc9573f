// On-target tracing figures (docs/ontarget.md):
//   1. patch time: every hook call of an ELF to a NOP and back (the paper: 3.4 s on its case
//      study), on franking_traced and on a synthetic ELF of 25,000 instrumented functions that
//      this benchmark generates and builds with arm-none-eabi-gcc;
//   2. ringdump decode rate: the franking_traced board's dump decoded into the event model
//      (events/s and MB/s of ring), medians of several runs;
//   3. probe effect, the paper's configurations a/b/c: franking's print image time and the run's
//      cycles for the original build, the instrumented one with every hook disabled, with the
//      print image's functions enabled, and with everything enabled.
//   build/bench/bench_ontarget [--repeat N] [--functions N]
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_paths.h"
#include "bench_timing.h"
#include "decode/elf_image.h"
#include "emutrace/registry.h"
#include "emutrace/session.h"
#include "sources/ring/hook_patcher.h"

namespace {

using emutrace::bench::median;
using emutrace::bench::wall_now;

struct Run {
    double print_image_ms = 0;
    std::uint64_t cycles = 0;
    nlohmann::json json;
};

Run run(const emutrace::AnalysisRegistry& registry, const std::string& elf, const std::string& dump = "") {
    emutrace::RunRequest r;
    r.firmware = elf;
    r.scenario = emutrace::bench::source_dir() + "/scenarios/franking/franking.yaml";
    r.machine.echo_output = false;
    r.scenario_outputs = false;
    r.options["calltrace"] = "";
    if (!dump.empty()) r.options["dump-ram"] = dump;
    emutrace::Session session(registry, r);
    emutrace::RunReport report = session.run();
    Run out;
    out.json = nlohmann::json::parse(report.json);
    out.cycles = report.totals.cycles;
    for (const auto& c : out.json["calltrace"]["constraints"])
        if (c["name"] == "print_image_in_time") out.print_image_ms = c["mean_cycles"].get<double>() / 48e3;  // 48 MHz
    return out;
}

double patch_seconds(const std::string& elf, const std::string& out, int repeat, std::size_t& sites) {
    std::vector<double> t;
    for (int i = 0; i < repeat; ++i) {
        const double t0 = wall_now();
        emutrace::decode::HookPatcher off(elf);
        off.set("*", false);
        off.write(out);
        emutrace::decode::HookPatcher on(out);
        on.set("*", true);
        on.write(out);
        t.push_back(wall_now() - t0);
        sites = off.sites().size();
    }
    return median(t);
}

// A C file of `n` small functions, each instrumented, called from main in a chain.
std::string synthetic(const std::string& dir, int n) {
    const std::string c = dir + "/many.c", elf = dir + "/many.elf";
    std::ofstream out(c);
    out << "#include <stdint.h>\nvolatile uint32_t sink;\nvoid __cyg_profile_func_enter(void *f, void *s) __attribute__((no_instrument_function));\n"
           "void __cyg_profile_func_exit(void *f, void *s) __attribute__((no_instrument_function));\n"
           "void __cyg_profile_func_enter(void *f, void *s) { sink = (uint32_t)f; (void)s; }\n"
           "void __cyg_profile_func_exit(void *f, void *s) { sink = (uint32_t)f; (void)s; }\n";
    for (int i = 0; i < n; ++i)
        out << "__attribute__((noinline)) uint32_t f" << i << "(uint32_t x) { return x * " << (i % 7 + 3) << "u + " << i << "u; }\n";
    out << "int main(void) { uint32_t x = 1;\n";
    for (int i = 0; i < n; ++i) out << "x = f" << i << "(x);\n";
    out << "return (int)x; }\nvoid _start(void) { main(); for (;;) {} }\n";
    out.close();
    const std::string cmd = "arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -O1 -finstrument-functions -nostdlib -Wl,--emit-relocs -Wl,-e,_start -o " +
                            elf + " " + c + " 2>&1";
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("building the synthetic ELF failed: " + cmd);
    return elf;
}

}  // namespace

int main(int argc, char** argv) try {
    int repeat = 5, functions = 25000;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--functions") && i + 1 < argc)
            functions = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: bench_ontarget [--repeat N] [--functions N]\n");
            return 2;
        }
    }
    char dir_template[] = "/tmp/bench_ontarget.XXXXXX";
    const char* dir = mkdtemp(dir_template);
    if (!dir) return 1;
    const std::string traced = emutrace::bench::firmware_dir() + "/franking_traced.elf", tmp = dir;
    emutrace::AnalysisRegistry registry = emutrace::AnalysisRegistry::builtin();

    std::printf("bench_ontarget: patch time (every hook call to a NOP and back; the paper: 3.4 s), median of %d\n", repeat);
    std::size_t sites = 0;
    double t = patch_seconds(traced, tmp + "/p.elf", repeat, sites);
    std::printf("  %-44s %7zu hook calls %9.4f s\n", "franking_traced.elf", sites, t);
    const double b0 = wall_now();
    const std::string many = synthetic(tmp, functions);
    const double built = wall_now() - b0;
    t = patch_seconds(many, tmp + "/p.elf", repeat, sites);
    std::printf("  %-44s %7zu hook calls %9.4f s  (built in %.1f s)\n", ("synthetic, " + std::to_string(functions) + " functions").c_str(), sites, t,
                built);

    // The board: franking_traced's RAM at exit.
    const std::string core = tmp + "/board.core";
    run(registry, traced, core);
    std::vector<double> decode;
    std::uint64_t events = 0;
    for (int i = 0; i < repeat; ++i) {
        emutrace::RunRequest r;
        r.firmware = traced;
        r.source = "ring";
        r.source_input = core;
        r.options["calltrace"] = "";
        emutrace::Session s(registry, r);
        const double t0 = wall_now();
        emutrace::RunReport report = s.run();
        decode.push_back(wall_now() - t0);
        events = nlohmann::json::parse(report.json)["events"];
    }
    const double d = median(decode);
    std::printf("bench_ontarget: ringdump of the franking_traced board (ELF core of 4 MiB RAM, ring of 512 KiB), median of %d\n", repeat);
    std::printf("  %llu events in %.4f s: %.0f events/s, %.1f MB/s of ring (load, find, decode, call tracer)\n",
                static_cast<unsigned long long>(events), d, static_cast<double>(events) / d, static_cast<double>(events) * 21 / d / 1e6);

    // The paper's a, b, c (and everything on), on the build a product would ship (inlining on).
    const std::string shipped = emutrace::bench::firmware_dir() + "/franking_instrumented.elf";
    emutrace::decode::HookPatcher off(shipped);
    off.set("*", false);
    off.write(tmp + "/b.elf");
    emutrace::decode::HookPatcher sel(tmp + "/b.elf");
    sel.set("render_*", true);
    sel.set("build_print_image", true);
    sel.write(tmp + "/c.elf");
    const Run a = run(registry, emutrace::bench::firmware_dir() + "/franking.elf"), b = run(registry, tmp + "/b.elf"),
              c = run(registry, tmp + "/c.elf"), all = run(registry, shipped);
    std::printf("bench_ontarget: probe effect on franking (print image, mean of 8 letters; the whole run)\n");
    auto row = [&](const char* name, const Run& r) {
        std::printf("  %-48s %9.3f ms %+8.1f%%   %12llu cycles %+8.1f%%\n", name, r.print_image_ms, 100.0 * (r.print_image_ms / a.print_image_ms - 1),
                    static_cast<unsigned long long>(r.cycles), 100.0 * (static_cast<double>(r.cycles) / static_cast<double>(a.cycles) - 1));
    };
    row("a  original (franking.elf)", a);
    row("b  instrumented (franking_instrumented), hooks disabled", b);
    row("c  instrumented, print image functions enabled", c);
    row("   instrumented, every hook enabled", all);
    std::system(("rm -rf " + tmp).c_str());
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "bench_ontarget: %s\n", e.what());
    return 2;
}
