#!/usr/bin/env python3
"""Compile-time benchmark of -gpu-async-region: synthetic functions of 1k,
10k and 100k GPU ops (launches over a pool of buffers, copies, sets, a host
load now and then), timed with upstream's pass (Debian's mlir-opt) and with
the series' pass in its default mode and with max-streams=0, in one run.
Prints the pass's own time (`-mlir-timing`, the best of --repeat runs, so
that parsing and printing are not counted) and the ratios to upstream: of
the best times, and the median over the rounds of each round's ratio (a
round runs every configuration once, one after the other, which a load
changing between rounds affects less).

  scripts/verify/async-region-bench.py [--sizes 1000,10000,100000] [--buffers 64]
                                [--repeat 5] [--regions] [--tool PATH]
                                [--baseline PATH] [--loop K] [--host-calls N]
                                [--instructions]

The input is the same for all three; the runs alternate between them.

With --instructions, it also counts the instructions that the pass executes
in one run of each configuration at each size, under valgrind's callgrind
(the pass alone: parsing, verifying and printing are not counted), and
prints their ratios to upstream's. Unlike the times, the counts are the same
in every run, on a loaded machine too (about two minutes per configuration
at 100k ops). Our build has assertions enabled, Debian's has not: the
interface lookups and the checks of the assertions count on our side only.

With --loop K, it also runs the passes on a loop of K GPU ops per iteration
(launches, some of them conflicting with the previous iteration, none with
the host) and prints the host waits per iteration: the synchronous
`gpu.wait` ops inside the loop body (0 is the goal where the host does not
touch the data).

With --baseline PATH, another build of the series' mlir-opt (an earlier
patch's) is timed in the same runs with max-streams=0, in a column of its
own, to compare a change with what came before it in one run; --tool names
the build under test (default: build/bin/mlir-opt).

With --regions, it also times the same functions with every tenth launch
in an scf.if and, apart, in an scf.for of one iteration, and prints the pass
time per 1,000 ops at each size: a column that grows with the size is a
pass that is not linear in the length of the function.

With --reads, it also times two functions of many copies that read one
buffer, per 1,000 ops at each size: in the first, a host store to that
buffer waits for all the copies; in the second, the host waits for them,
and many memsets with an scf.if every tenth op follow (the reads completed
long before each scf.if).

With --host-calls N, it also lowers the N-op function (after the pass in
both modes) with -gpu-lower-to-nvvm-pipeline and counts the runtime calls
in the host code, next to what the token graph implies: joins (an op with
k dependencies, sum of k-1) and forks (a token used by u ops, sum of u-1).
"""

import argparse
import collections
import os
import re
import random
import subprocess
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import in_sysroot  # noqa: E402 (scripts/in_sysroot.py)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OURS = os.path.join(ROOT, "build", "bin", "mlir-opt")
UPSTREAM = os.path.join(os.environ.get("LLVM_PREFIX", "/usr/lib/llvm-23"),
                        "bin", "mlir-opt")
MEMREF = "memref<16xf32>"


def module(ops, buffers, seed, wrap=None):
    """A function of `ops` GPU ops; with `wrap` ("if" or "for"), every tenth
    launch is in an scf.if or an scf.for."""
    rng = random.Random(seed)
    launches = 0
    lines = [f"    %b{i} = memref.alloc() : {MEMREF}" for i in range(buffers)]
    for i in range(ops):
        kind = rng.random()
        a, b = rng.randrange(buffers), rng.randrange(buffers)
        if kind < 0.7:
            launch = (f"gpu.launch_func @kernels::@k blocks in (%c1, %c1,"
                      f" %c1) threads in (%c1, %c1, %c1) args(%b{a} : "
                      f"{MEMREF}, %b{b} : {MEMREF})")
            launches += 1
            if wrap and launches % 10 == 0:
                head = {"if": "scf.if %cond {",
                        "for": "scf.for %i = %c0 to %c1 step %c1 {"}[wrap]
                lines.append(f"    {head}\n      {launch}\n    }}")
            else:
                lines.append(f"    {launch}")
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
            f"  func.func @f({'%cond: i1' if wrap else ''}) {{\n"
            "    %c0 = arith.constant 0 : index\n"
            "    %c1 = arith.constant 1 : index\n"
            "    %f = arith.constant 1.0 : f32\n" +
            "\n".join(lines) + "\n    return\n  }\n}\n")


def reads_module(ops, regions):
    """`ops` copies that read %a (each writes %d). Without `regions`, a host
    store to %a follows. With it, a host load of %d (which waits for all the
    copies), then `ops` memsets of %e with an scf.if every tenth op."""
    lines = ["    gpu.memcpy %d, %a : memref<16xf32>, memref<16xf32>"] * ops
    if not regions:
        lines.append("    memref.store %f, %a[%c0] : memref<16xf32>")
    else:
        lines.append("    %v = memref.load %d[%c0] : memref<16xf32>")
        for i in range(ops):
            lines.append("    gpu.memset %e, %f : memref<16xf32>, f32")
            if i % 10 == 9:
                lines.append("    scf.if %c {\n      memref.store %f, "
                             "%h[%c0] : memref<16xf32>\n    }")
    args = ", ".join(f"%{name} : memref<16xf32> {{llvm.noalias}}"
                     for name in "adeh")
    return ("module attributes {gpu.container_module} {\n"
            f"  func.func @f({args}, %c : i1, %f : f32) {{\n"
            "    %c0 = arith.constant 0 : index\n" +
            "\n".join(lines) + "\n    return\n  }\n}\n")


def loop_module(ops, buffers, seed):
    """A function with one scf.for whose body launches `ops` kernels over
    `buffers` function arguments (a kernel reads one and writes the other)."""
    rng = random.Random(seed)
    lines = []
    for _ in range(ops):
        a, b = rng.randrange(buffers), rng.randrange(buffers)
        lines.append(f"      gpu.launch_func @kernels::@k blocks in (%c1, %c1,"
                     f" %c1) threads in (%c1, %c1, %c1) args(%b{a} : "
                     f"{MEMREF}, %b{b} : {MEMREF})")
    args = ", ".join(f"%b{i} : {MEMREF} {{llvm.noalias}}"
                     for i in range(buffers))
    return ("module attributes {gpu.container_module} {\n"
            "  gpu.module @kernels {\n"
            f"    gpu.func @k(%x : {MEMREF}, %y : {MEMREF}) kernel {{\n"
            "      %c0 = arith.constant 0 : index\n"
            f"      %v = memref.load %x[%c0] : {MEMREF}\n"
            f"      memref.store %v, %y[%c0] : {MEMREF}\n"
            "      gpu.return\n    }\n  }\n"
            f"  func.func @f({args}, %n : index) {{\n"
            "    %c0 = arith.constant 0 : index\n"
            "    %c1 = arith.constant 1 : index\n"
            "    scf.for %i = %c0 to %n step %c1 {\n" +
            "\n".join(lines) + "\n    }\n    return\n  }\n}\n")


def loop_host_waits(tool, pass_args, path):
    """Synchronous gpu.wait ops inside scf.for bodies of the pass output."""
    out = run_tool([tool, path, pass_args])
    waits = depth = 0
    loop_depths = []
    for line in out.splitlines():
        if re.search(r"\bscf\.for\b", line):
            loop_depths.append(depth)
        if loop_depths and re.match(r"\s*gpu\.wait\b(?! async)", line):
            waits += 1
        depth += line.count("{") - line.count("}")
        while loop_depths and depth <= loop_depths[-1]:
            loop_depths.pop()
    return waits


def pass_instructions(tool, args, path, tmp):
    """The instructions that GpuAsyncRegionPass executes in one run, counted
    by callgrind between the entry to and the exit from the pass adaptor
    (a shell wrapper such as build/bin/mlir-opt is followed into the binary
    it runs; it executes no instruction in the pass)."""
    out = os.path.join(tmp, "callgrind.%p")
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--trace-children=yes",
         f"--callgrind-out-file={out}", "--collect-atstart=no",
         "--toggle-collect=mlir::detail::OpToOpPassAdaptor::run(*",
         tool, path, *args, "-mlir-disable-threading", "-verify-each=false",
         "-o", os.devnull], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"error: valgrind {tool} {' '.join(args)} failed:\n"
                 f"{run.stderr[-2000:]}")
    total = 0
    for name in os.listdir(tmp):
        if not name.startswith("callgrind."):
            continue
        with open(os.path.join(tmp, name)) as f:
            for line in f:
                if line.startswith(("summary:", "totals:")):
                    total += int(line.split()[1])
                    break
        os.remove(os.path.join(tmp, name))
    return total


def pass_time(tool, args, path):
    """The wall time of GpuAsyncRegionPass in one run, from -mlir-timing."""
    run = subprocess.run([tool, path, *args, "-mlir-timing", "-o", os.devnull],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"error: {tool} {' '.join(args)} failed:\n"
                 f"{run.stderr[-2000:]}")
    for line in run.stderr.splitlines():
        if line.strip().endswith("GpuAsyncRegionPass"):
            return float(line.split()[0])
    sys.exit(f"error: no GpuAsyncRegionPass line in the -mlir-timing report "
             f"of {tool}:\n{run.stderr[-2000:]}")


RUNTIME_CALLS = ("mgpuStreamCreate", "mgpuStreamDestroy", "mgpuEventCreate",
                 "mgpuEventRecord", "mgpuStreamWaitEvent", "mgpuEventDestroy",
                 "mgpuStreamSynchronize")
ASYNC_OP = re.compile(r"gpu\.(launch_func|memcpy|memset|alloc|dealloc|wait)"
                      r" (async)?(?: ?\[([^\]]*)\])?")


def run_tool(cmd, stdin=None):
    run = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)} failed:\n{run.stderr[-2000:]}")
    return run.stdout


def host_calls(tool, path, pass_args):
    """Token-graph figures after the pass, and runtime calls after lowering."""
    graph = run_tool([tool, path, pass_args])
    ops = joins = 0
    uses = collections.Counter()
    for match in ASYNC_OP.finditer(graph):
        deps = [d.strip() for d in match.group(3).split(",")] \
            if match.group(3) else []
        if match.group(2):
            ops += match.group(1) != "wait"
            joins += max(len(deps) - 1, 0)
        uses.update(deps)
    forks = sum(u - 1 for u in uses.values())
    lowered = run_tool([tool, "-gpu-lower-to-nvvm-pipeline=cubin-format=isa"],
                       stdin=graph)
    calls = {name: len(re.findall(rf"call @{name}\b", lowered))
             for name in RUNTIME_CALLS}
    return ops, joins, forks, calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--buffers", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--loop", type=int, default=0, metavar="K",
                        help="host waits per iteration of a loop of K GPU "
                        "ops (0: skip)")
    parser.add_argument("--regions", action="store_true",
                        help="also time functions with scf.if and scf.for "
                        "ops, per 1,000 ops")
    parser.add_argument("--reads", action="store_true",
                        help="also time functions of many reads of one "
                        "buffer, per 1,000 ops")
    parser.add_argument("--host-calls", type=int, default=0, metavar="N",
                        help="count host runtime calls for N ops (0: skip)")
    parser.add_argument("--instructions", action="store_true",
                        help="also count the instructions of the pass in "
                        "one run of each configuration, with valgrind")
    parser.add_argument("--tool", default=OURS,
                        help="the series' mlir-opt (default: %(default)s), "
                        "for instance a build of an earlier patch")
    parser.add_argument("--baseline", metavar="PATH",
                        help="another build of the series' mlir-opt (an "
                        "earlier patch), timed with max-streams=0 in the "
                        "same runs, in a column of its own")
    args = parser.parse_args()
    # Debian's LLVM 23 tools may be in the sysroot only: run there.
    in_sysroot.reexec_if_needed()
    ours = args.tool
    tools = [ours, UPSTREAM] + ([args.baseline] if args.baseline else [])
    for tool in tools:
        if not os.path.exists(tool):
            sys.exit(f"error: {tool} not found")
    if args.instructions and shutil.which("valgrind") is None:
        sys.exit("error: --instructions needs valgrind, which "
                 "scripts/install-deps.sh installs")
    configs = [(UPSTREAM, ["-gpu-async-region"]),
               (ours, ["-gpu-async-region"]),
               (ours, ["-gpu-async-region=max-streams=0"])]
    header = "upstream  series  series(max-streams=0)"
    if args.baseline:
        configs.append((args.baseline, ["-gpu-async-region=max-streams=0"]))
        header += "  baseline(max-streams=0)"

    def round_times(path):
        """The pass time of each config in each round, the runs alternating
        within a round."""
        return [[pass_time(tool, pass_args, path) for tool, pass_args in configs]
                for _ in range(args.repeat)]

    def best_of(rounds):
        """The best pass time of each config in `rounds`."""
        return [min(column) for column in zip(*rounds)]

    def best_times(path):
        """The best pass time of each config."""
        return best_of(round_times(path))

    print(f"ops       {header}  ratios to upstream (pass time): best of "
          f"{args.repeat} | median of the rounds' ratios")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            path = os.path.join(tmp, f"m{n}.mlir")
            with open(path, "w") as f:
                f.write(module(n, args.buffers, args.seed))
            rounds = round_times(path)
            best = best_of(rounds)
            up = max(best[0], 1e-4)
            # A round's configs run one after the other: their ratio is less
            # exposed to the machine's load changing between rounds.
            medians = [statistics.median(r[i] / max(r[0], 1e-4) for r in rounds)
                       for i in range(1, len(configs))]
            print(f"{n:<9} " + " ".join(f"{t:7.4f}s" for t in best) +
                  "    " + "  ".join(f"{t / up:5.2f}x" for t in best[1:]) +
                  "  | " + "  ".join(f"{m:5.2f}x" for m in medians))
        if args.instructions:
            print("\ninstructions in the pass (callgrind, one run each)")
            print(f"ops       {header}  ratios to upstream")
            for n in (int(s) for s in args.sizes.split(",")):
                path = os.path.join(tmp, f"m{n}.mlir")
                counts = [pass_instructions(tool, pass_args, path, tmp)
                          for tool, pass_args in configs]
                up = max(counts[0], 1)
                print(f"{n:<9} " + " ".join(f"{c / 1e6:7.1f}M" for c in counts)
                      + "    " + "  ".join(f"{c / up:5.2f}x"
                                           for c in counts[1:]))
        if args.regions:
            print("\nwith every tenth launch in a region op: pass time per "
                  "1,000 ops (constant if linear)")
            print(f"ops       region  {header}")
            for wrap in ("if", "for"):
                for n in (int(s) for s in args.sizes.split(",")):
                    path = os.path.join(tmp, f"{wrap}{n}.mlir")
                    with open(path, "w") as f:
                        f.write(module(n, args.buffers, args.seed, wrap))
                    print(f"{n:<9} scf.{wrap:<4} " +
                          " ".join(f"{t * 1000 / n:7.4f}s"
                                   for t in best_times(path)))
        if args.reads:
            print("\nmany copies reading one buffer: pass time per 1,000 "
                  "ops (constant if linear)")
            print(f"ops       function         {header}")
            for regions in (False, True):
                name = "waited, scf.if" if regions else "host store"
                for n in (int(s) for s in args.sizes.split(",")):
                    path = os.path.join(tmp, f"reads{int(regions)}-{n}.mlir")
                    with open(path, "w") as f:
                        f.write(reads_module(n, regions))
                    total = 2 * n if regions else n
                    print(f"{n:<9} {name:<16} " +
                          " ".join(f"{t * 1000 / total:7.4f}s"
                                   for t in best_times(path)))
        if args.loop:
            path = os.path.join(tmp, "loop.mlir")
            with open(path, "w") as f:
                f.write(loop_module(args.loop, 8, args.seed))
            print(f"\nloop of {args.loop} launches over 8 noalias buffers: "
                  "host waits per iteration")
            for name, (tool, pass_args) in zip(
                    ("upstream", "series", "series(max-streams=0)"), configs):
                print(f"  {name:<22} "
                      f"{loop_host_waits(tool, pass_args[0], path)}")
        if args.host_calls:
            path = os.path.join(tmp, "calls.mlir")
            with open(path, "w") as f:
                f.write(module(args.host_calls, args.buffers, args.seed))
            for pass_args in ("-gpu-async-region",
                              "-gpu-async-region=max-streams=0"):
                ops, joins, forks, calls = host_calls(ours, path, pass_args)
                print(f"\n{pass_args}, {args.host_calls} ops: {ops} async GPU "
                      f"ops, joins sum(k-1) = {joins}, forks sum(u-1) = "
                      f"{forks}")
                print("  " + ", ".join(f"{name} {count}"
                                       for name, count in calls.items()))
                print(f"  per GPU op: streams "
                      f"{calls['mgpuStreamCreate'] / ops:.3f}, events "
                      f"{calls['mgpuEventCreate'] / ops:.3f}; events per "
                      f"join edge (k-1): "
                      f"{calls['mgpuEventCreate'] / max(joins, 1):.3f}")


if __name__ == "__main__":
    main()
