#!/usr/bin/env python3
"""Reverse execution's cost (replay --gdb, issue 59), end to end with Debian's gdb-multiarch, on
the compute firmware (sort + CRC, 2000 iterations, 1.8e8 instructions), recorded once and replayed.
Wall-clock medians of --repeat (default 3) runs, each a replay attached to GDB in batch mode:
  forward        break at the end, continue: the replay with every instruction counted and a copy
                 of the process kept every 1M instructions (doubling after 32), against the same
                 replay without GDB in the same round (the speed ratio)
  last write     watch values[255], reverse-continue: back to its last write (near the end)
  whole history  watch a word nothing writes, reverse-continue: every instruction run again,
                 back to the start (the worst case; target: answers within 2 s per 1e8)
usage: bench_reverse.py [--repeat N] BUILD_DIR"""
import os, re, statistics, subprocess, sys, tempfile, time

import bench_cli

def main():
    repeat, build = bench_cli.repeat_and_build(__doc__, 3)
    emutrace = os.path.join(build, "emutrace")
    elf = os.path.join(build, "firmware", "bench_compute.elf")
    board = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compute_replay.yaml")
    work = tempfile.mkdtemp(prefix="bench_reverse.")
    log = os.path.join(work, "c.log")
    subprocess.run([emutrace, "run", elf, "-s", board, "--record", log, "-q"], check=True, stdout=subprocess.DEVNULL)
    script = os.path.join(work, "t.gdb")
    with open(script, "w") as f:
        f.write("python import time\nbreak print_to_semihosting\n"
                "python t = time.time()\ncontinue\npython print('forward %.3f' % (time.time() - t))\n"
                "watch values[255]\npython t = time.time()\nreverse-continue\npython print('last %.3f' % (time.time() - t))\n"
                "delete\nwatch *(int *)0x203ff000\npython t = time.time()\nreverse-continue\n"
                "python print('whole %.3f' % (time.time() - t))\ndelete\ncontinue\n")
    figures = {"alone": [], "forward": [], "last": [], "whole": []}
    instructions = 0
    for _ in range(repeat):
        t = time.time()
        alone = subprocess.run([emutrace, "replay", log, elf, "-s", board], capture_output=True, text=True)
        figures["alone"].append(time.time() - t)
        instructions = int(re.search(r"instructions +([0-9,]+)", alone.stderr).group(1).replace(",", ""))
        err = open(os.path.join(work, "err"), "w")
        run = subprocess.Popen([emutrace, "replay", log, elf, "-s", board, "--gdb", "0"], stdout=subprocess.DEVNULL, stderr=err)
        address = None
        for _ in range(400):
            m = re.search(r"waiting for GDB on (127\.0\.0\.1:[0-9]+)", open(err.name).read())
            if m:
                address = m.group(1)
                break
            time.sleep(0.025)
        if not address:
            run.kill()
            sys.exit("bench_reverse: emutrace did not wait for GDB")
        g = subprocess.run(["gdb-multiarch", "-q", "-batch", "-nx", elf, "-ex", "target remote " + address, "-x", script],
                           capture_output=True, text=True, timeout=600)
        if run.wait(timeout=600) != 0 or "No more reverse-execution history" not in g.stdout:
            sys.exit("bench_reverse: the attached replay failed:\n" + g.stdout + g.stderr)
        for key in ("forward", "last", "whole"):
            figures[key].append(float(re.search(key + r" ([0-9.]+)", g.stdout).group(1)))
    med = {k: statistics.median(v) for k, v in figures.items()}
    print(f"bench_reverse: {elf}, {instructions:,} instructions, medians of {repeat} rounds (wall clock)")
    print(f"  replay without GDB      {med['alone']:7.3f} s (the whole process)")
    print(f"  forward to the end      {med['forward']:7.3f} s  {med['alone'] / med['forward']:5.2f}x the speed of the replay without GDB")
    print(f"  reverse-continue, last write      {med['last']:7.3f} s")
    print(f"  reverse-continue, whole history   {med['whole']:7.3f} s  ({med['whole'] / instructions * 1e8:.2f} s per 1e8 instructions; target <= 2 s)")
    return 0

if __name__ == "__main__":
    sys.exit(main())
