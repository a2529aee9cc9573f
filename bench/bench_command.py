#!/usr/bin/env python3
"""The emutrace command against bare Unicorn, each a process of its own, as a user meets them:
`emutrace run` (with its allocator) against bench_bare_unicorn (Unicorn alone with the C library's
allocator, the runner anyone would write), interleaved, medians of --repeat (default 7) rounds of
CPU time (user + system of the whole process, start-up included):
  bench_compute   the tight loop (sort + CRC); target: the pipeline at least 78% of bare Unicorn's speed
  bench_branchy   CoreMark-like branchy code; target: the pipeline at least 0.9x the per-block model's speed
  bench_branchy_stm32f100   the same on the STM32F100 preset, whose memories differ in timing: every
                  data access is hooked (by both models: unaligned accesses are timed); no bare-Unicorn
                  row, its memory map is not the bare runner's
  bench_branchy_cc2652   the same on the CC2652 preset (Cortex-M4F): every data access hooked, and
                  the VIMS cache's tags looked up for every block and every read from the flash
bench_mips measures the same machine inside one process, where both sides share the allocator: its
ratios are emutrace's own cost; this one's include what the allocator gives back (README.md, Benchmark).
usage: bench_command.py [--repeat N] BUILD_DIR"""
import os, resource, statistics, subprocess, sys

import bench_cli

def cpu_seconds(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

def main():
    repeat, build = bench_cli.repeat_and_build(__doc__, 7)
    scenario = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compute_bench.yaml")
    emutrace = [os.path.join(build, "emutrace"), "run", "-q", "--progress", "never", "--wall-clock", "0"]
    bare = os.path.join(build, "bench", "bench_bare_unicorn")
    workloads = [("bench_compute", scenario, True), ("bench_branchy", scenario, True), ("bench_branchy_stm32f100", "stm32f100", False),
                 ("bench_branchy_cc2652", "cc2652", False)]
    print(f"bench_command: medians of {repeat} interleaved rounds, CPU seconds of each process")
    for firmware, board, with_bare in workloads:
        elf = os.path.join(build, "firmware", firmware + ".elf")
        configs = [("bare Unicorn", [bare, elf])] if with_bare else []
        configs += [("emutrace, per-block model", emutrace + ["-s", board, "--timing", "trm", elf]),
                    ("emutrace, pipeline (default)", emutrace + ["-s", board, elf])]
        times = {name: [] for name, _ in configs}
        for _ in range(repeat):
            for name, cmd in configs:
                times[name].append(cpu_seconds(cmd))
        base = statistics.median(times["bare Unicorn"]) if with_bare else None
        per_block = statistics.median(times["emutrace, per-block model"])
        for name, _ in configs:
            t = statistics.median(times[name])
            share = f"{100 * base / t:5.1f}% of bare Unicorn's speed" if base else " " * 30
            print(f"  {firmware:24} {name:30} {t:6.3f} s   {share}   {per_block / t:5.3f}x the per-block model's")
    return 0

if __name__ == "__main__":
    sys.exit(main())
