#!/usr/bin/env python3
"""Compile-time benchmark of -gpu-async-region: synthetic functions of 1k,
10k and 100k GPU ops (launches over a pool of buffers, copies, sets, a host
load now and then), timed with upstream's pass (Debian's mlir-opt) and with
the series' pass in its default mode and with max-streams=0, in one run.
Prints seconds and ratios to upstream.

  scripts/async-region-bench.py [--sizes 1000,10000,100000] [--buffers 64]

Ratios come from one run of each on this machine; the input is the same
for all three.
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = os.path.join(ROOT, "build", "bin", "mlir-opt")
UPSTREAM = os.path.join(os.environ.get("LLVM_PREFIX", "/usr/lib/llvm-22"),
                        "bin", "mlir-opt")
MEMREF = "memref<16xf32>"


def module(ops, buffers, seed):
    rng = random.Random(seed)
    lines = [f"    %b{i} = memref.alloc() : {MEMREF}" for i in range(buffers)]
    for i in range(ops):
        kind = rng.random()
        a, b = rng.randrange(buffers), rng.randrange(buffers)
        if kind < 0.7:
            lines.append(f"    gpu.launch_func @kernels::@k blocks in (%c1, %c1,"
                         f" %c1) threads in (%c1, %c1, %c1) args(%b{a} : "
                         f"{MEMREF}, %b{b} : {MEMREF})")
        elif kind < 0.85 and a != b:
            lines.append(f"    gpu.memcpy %b{a}, %b{b} : {MEMREF}, {MEMREF}")
        elif kind < 0.995:
            lines.append(f"    gpu.memset %b{a}, %f : {MEMREF}, f32")
        else:
            lines.append(f"    %v{i} = memref.load %b{a}[%c0] : {MEMREF}")
    return ("module attributes {gpu.container_module} {\n"
            "  gpu.module @kernels {\n"
            f"    gpu.func @k(%x : {MEMREF}, %y : {MEMREF}) kernel {{\n"
            "      %c0 = arith.constant 0 : index\n"
            f"      %v = memref.load %x[%c0] : {MEMREF}\n"
            f"      memref.store %v, %y[%c0] : {MEMREF}\n"
            "      gpu.return\n    }\n  }\n"
            "  func.func @f() {\n"
            "    %c0 = arith.constant 0 : index\n"
            "    %c1 = arith.constant 1 : index\n"
            "    %f = arith.constant 1.0 : f32\n" +
            "\n".join(lines) + "\n    return\n  }\n}\n")


def timed(tool, args, path):
    start = time.perf_counter()
    run = subprocess.run([tool, path, *args, "-o", os.devnull],
                         capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if run.returncode != 0:
        sys.exit(f"error: {tool} {' '.join(args)} failed:\n"
                 f"{run.stderr[-2000:]}")
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--buffers", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for tool in (OURS, UPSTREAM):
        if not os.path.exists(tool):
            sys.exit(f"error: {tool} not found")
    print("ops       parse-only  upstream  series   series(max-streams=0)  "
          "ratios to upstream (pass time, parse subtracted)")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            path = os.path.join(tmp, f"m{n}.mlir")
            with open(path, "w") as f:
                f.write(module(n, args.buffers, args.seed))
            parse = timed(OURS, [], path)
            up = timed(UPSTREAM, ["-gpu-async-region"], path)
            ours = timed(OURS, ["-gpu-async-region"], path)
            dep = timed(OURS, ["-gpu-async-region=max-streams=0"], path)
            base = max(up - parse, 1e-3)
            print(f"{n:<9} {parse:9.2f}s {up:8.2f}s {ours:7.2f}s "
                  f"{dep:12.2f}s            "
                  f"{(ours - parse) / base:5.2f}x  {(dep - parse) / base:5.2f}x")


if __name__ == "__main__":
    main()
