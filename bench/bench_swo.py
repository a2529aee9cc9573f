#!/usr/bin/env python3
"""What the SWO, ETM and PFT writers cost (issue 61), as whole runs of the emutrace command, plain against
with the writer, interleaved, medians of --repeat (default 5) rounds; wall clock and CPU time (user +
system of the process, both threads):
  bench_itm       firmware that prints over ITM every round, with exception trace and PC sampling
                  on: --swo writes every packet (target: at least 85% of the plain run's speed)
  bench_branchy   branch-heavy check firmware without ITM: --swo follows the run and writes nothing;
                  --pft encodes every branch (measured before at +61% wall, 2.5x CPU); --etm an atom
                  per instruction (target: at least 85% of the plain run's speed)
usage: bench_swo.py [--repeat N] BUILD_DIR"""
import os, resource, statistics, subprocess, sys, tempfile, time

import bench_cli

def timed(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.time()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.time() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

def main():
    repeat, build = bench_cli.repeat_and_build(__doc__, 5)
    emutrace = os.path.join(build, "emutrace")
    work = tempfile.mkdtemp(prefix="bench_swo.")
    out = os.path.join(work, "out")
    cases = [("bench_itm", "plain", []), ("bench_itm", "--swo", ["--swo", out]),
             ("bench_branchy", "plain", []), ("bench_branchy", "--swo", ["--swo", out]), ("bench_branchy", "--pft", ["--pft", out]),
             ("bench_branchy", "--etm", ["--etm", out])]
    figures = {(fw, name): ([], []) for fw, name, _ in cases}
    for _ in range(repeat):
        for fw, name, extra in cases:
            wall, cpu = timed([emutrace, "run", os.path.join(build, "firmware", fw + ".elf"), "-q", "--progress", "never"] + extra)
            figures[(fw, name)][0].append(wall)
            figures[(fw, name)][1].append(cpu)
    print(f"bench_swo: medians of {repeat} interleaved rounds (wall clock; CPU = user + system, every thread)")
    for fw, name, _ in cases:
        wall, cpu = (statistics.median(v) for v in figures[(fw, name)])
        base_wall, base_cpu = (statistics.median(v) for v in figures[(fw, "plain")])
        print(f"  {fw:14} {name:6} {wall:7.3f} s wall  {cpu:7.3f} s CPU   speed {base_wall / wall:5.2f}x the plain run's, CPU {cpu / base_cpu:5.2f}x")
    return 0

if __name__ == "__main__":
    sys.exit(main())
