#!/usr/bin/env python3
"""Checks -gpu-async-region against the memory accesses of random programs.

Each program is a function over buffers (function arguments, which may alias
each other; gpu.alloc and memref.alloc buffers, which do not) that launches
kernels whose per-argument reads and writes are known by construction (the
generator writes their gpu.func bodies), copies, sets, loads and stores from
the host, and allocates. All GPU ops are synchronous in the input, so program
order is the specification. The pass output is parsed (generic form) into a
token graph plus host waits, and for every pair of conflicting accesses (same
or may-alias buffer, at least one write) the oracle checks that the first
happens before the second:

  GPU -> GPU    the second op's tokens reach the first op's token, or a
                synchronous gpu.wait between them does;
  GPU -> host   a synchronous gpu.wait between them reaches the GPU op;
  host -> any   always (the host runs in program order and issues GPU work).

It also counts GPU-GPU pairs that the output orders although no chain of
conflicts orders them ("extra ordered pairs": the concurrency the pass leaves
unused; 0 is the goal of dependence-driven async), and host syncs.

  scripts/async-region-oracle.py [-n 1000] [--seed 1] [--keep FILE]
                                 [--drop-host-waits]

--drop-host-waits ignores the synchronous waits of the output, to show that
the oracle does report missing orderings. --run also lowers the output with
-gpu-lower-to-nvvm-pipeline and runs it with mlir-runner and the checking GPU
runtime (build/lib/libmlir_gpu_check_runtime.so): no stream or event may leak
or be misused.

Exits 1 on a violation or a tool failure. Uses build/bin/mlir-opt, or
$MLIR_OPT (e.g. Debian's, for the upstream pass).
"""

import argparse
import os
import random
import re
import subprocess
import sys

from mlir_generic_form import OP_RE, result_names, split_types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MLIR_OPT = os.environ.get("MLIR_OPT",
                          os.path.join(ROOT, "build", "bin", "mlir-opt"))
MEMREF = "memref<16xf32>"

# Kernel argument effects: R (reads), W (writes), RW.
KERNELS = [("R", "W"), ("W", "R"), ("RW", "R"), ("R", "R"), ("W", "W"),
           ("RW", "RW")]


def kernel_text(index, effects):
    body = ["      %c0 = arith.constant 0 : index",
            "      %f = arith.constant 1.0 : f32"]
    for arg, effect in enumerate(effects):
        if "R" in effect:
            body.append(f"      %v{arg} = memref.load %a{arg}[%c0] : {MEMREF}")
        if "W" in effect:
            body.append(f"      memref.store %f, %a{arg}[%c0] : {MEMREF}")
    args = ", ".join(f"%a{i} : {MEMREF}" for i in range(len(effects)))
    return (f"    gpu.func @k{index}({args}) kernel {{\n" + "\n".join(body) +
            "\n      gpu.return\n    }\n")


class Program:
    """One function and, for each op the pass keeps, its accesses."""

    def __init__(self, rng, index):
        self.rng = rng
        self.index = index
        self.lines = []
        # Per kept op in program order: (kind, [(buffer, mode)]), kind is
        # "gpu" or "host".
        self.ops = []
        self.nargs = rng.randint(1, 3)
        self.args = [f"%arg{i}" for i in range(self.nargs)]
        self.gpu_buffers = []
        self.host_buffers = []
        self.counter = 0

    def fresh(self):
        self.counter += 1
        return f"%b{self.counter}"

    def op(self, kind, accesses, line):
        self.lines.append("    " + line)
        self.ops.append((kind, accesses))

    def device_buffer(self):
        return self.rng.choice(self.args + self.gpu_buffers)

    def any_buffer(self):
        return self.rng.choice(self.args + self.gpu_buffers +
                               self.host_buffers)

    def host_buffer(self):
        return self.rng.choice(self.args + self.host_buffers)

    def generate(self):
        rng = self.rng
        for _ in range(rng.randint(0, 2)):
            b = self.fresh()
            self.op("gpu", [(b, "W")], f"{b} = gpu.alloc () : {MEMREF}")
            self.gpu_buffers.append(b)
        for _ in range(rng.randint(4, 16)):
            kind = rng.choices(
                ["launch", "memcpy", "memset", "load", "store", "host_alloc",
                 "gpu_alloc"], weights=[6, 3, 2, 2, 2, 2, 1])[0]
            if kind == "launch":
                k = rng.randrange(len(KERNELS))
                a, b = self.device_buffer(), self.device_buffer()
                accesses = [(a, KERNELS[k][0]), (b, KERNELS[k][1])]
                self.op("gpu", accesses,
                        f"gpu.launch_func @kernels::@k{k} blocks in (%c1, %c1, "
                        f"%c1) threads in (%c1, %c1, %c1) args({a} : {MEMREF}, "
                        f"{b} : {MEMREF})")
            elif kind == "memcpy":
                dst, src = self.any_buffer(), self.any_buffer()
                if dst == src:
                    continue
                self.op("gpu", [(dst, "W"), (src, "R")],
                        f"gpu.memcpy {dst}, {src} : {MEMREF}, {MEMREF}")
            elif kind == "memset":
                dst = self.device_buffer()
                self.op("gpu", [(dst, "W")],
                        f"gpu.memset {dst}, %f : {MEMREF}, f32")
            elif kind == "load":
                b = self.host_buffer()
                self.op("host", [(b, "R")],
                        f"%{self.fresh()[1:]} = memref.load {b}[%c0] : {MEMREF}")
            elif kind == "store":
                b = self.host_buffer()
                self.op("host", [(b, "W")],
                        f"memref.store %f, {b}[%c0] : {MEMREF}")
            elif kind == "host_alloc":
                b = self.fresh()
                self.op("host", [(b, "W")], f"{b} = memref.alloc() : {MEMREF}")
                self.host_buffers.append(b)
            elif kind == "gpu_alloc":
                b = self.fresh()
                self.op("gpu", [(b, "W")], f"{b} = gpu.alloc () : {MEMREF}")
                self.gpu_buffers.append(b)
        for b in self.gpu_buffers:
            if rng.random() < 0.5:
                self.op("gpu", [(b, "W")], f"gpu.dealloc {b} : {MEMREF}")

    def text(self):
        args = ", ".join(f"{a} : {MEMREF}" for a in self.args)
        return (f"  func.func @p{self.index}({args}) {{\n"
                "    %c0 = arith.constant 0 : index\n"
                "    %c1 = arith.constant 1 : index\n"
                "    %f = arith.constant 1.0 : f32\n" +
                "\n".join(self.lines) + "\n    return\n  }\n")

    def may_alias(self, a, b):
        if a == b:
            return True
        return a in self.args and b in self.args


def parse_function(lines):
    """Returns the ops of one function body: (name, operands, operand types,
    results, result types)."""
    ops = []
    for line in lines:
        m = OP_RE.match(line)
        if not m or m.group("name") in ("arith.constant", "func.return"):
            continue
        operands = [o.strip() for o in m.group("operands").split(",")
                    if o.strip()]
        sig = line.rsplit(" : ", 1)[1] if " : " in line else ""
        ins, outs = "", ""
        sm = re.match(r"\((.*)\) -> (.*)$", sig.strip())
        if sm:
            ins, outs = sm.group(1), sm.group(2)
            if outs.startswith("("):
                outs = outs[1:-1]
        results = result_names(m.group("results")) if m.group("results") \
            else []
        ops.append((m.group("name"), operands, split_types(ins),
                    results, split_types(outs)))
    return ops


def check(program, ops, drop_host_waits=False):
    """Returns (violations, extra ordered pairs, host syncs, GPU ops)."""
    token_of = {}   # op position -> its token name
    deps_of = {}    # op position -> token names it depends on
    producer = {}   # token name -> op position
    kept = []       # positions of the ops the generator wrote, in order
    syncs = []      # (position, token names) of synchronous waits
    for pos, (name, operands, in_types, results, out_types) in enumerate(ops):
        tokens = [o for o, t in zip(operands, in_types)
                  if t == "!gpu.async.token"]
        token = next((r for r, t in zip(results, out_types)
                      if t == "!gpu.async.token"), None)
        deps_of[pos] = tokens
        if token:
            token_of[pos] = token
            producer[token] = pos
        if name == "gpu.wait":
            if not token and not drop_host_waits:
                syncs.append((pos, tokens))
            continue
        kept.append(pos)
    if len(kept) != len(program.ops):
        raise RuntimeError(f"@p{program.index}: {len(kept)} ops in the output,"
                           f" {len(program.ops)} generated")

    reach_cache = {}

    def reached(pos):
        """Positions of the GPU ops that must complete before op `pos`."""
        if pos in reach_cache:
            return reach_cache[pos]
        out = set()
        for t in deps_of[pos]:
            p = producer.get(t)
            if p is not None:
                out.add(p)
                out |= reached(p)
        reach_cache[pos] = out
        return out

    def ordered(x, y):
        px, py = kept[x], kept[y]
        kx, ky = program.ops[x][0], program.ops[y][0]
        # Host ops, and GPU ops left synchronous, are complete when the next
        # op is issued.
        if kx == "host" or px not in token_of:
            return True
        # Through tokens, or through a host wait between them (the host issues
        # or runs the second op after the wait).
        if ky == "gpu" and px in reached(py):
            return True
        return any(px < s < py and px in reached(s) for s, _ in syncs)

    def conflict(x, y):
        for bx, mx in program.ops[x][1]:
            for by, my in program.ops[y][1]:
                if ("W" in mx or "W" in my) and program.may_alias(bx, by):
                    return True
        return False

    n = len(program.ops)
    needed = [set() for _ in range(n)]
    violations = []
    for y in range(n):
        for x in range(y):
            if conflict(x, y):
                needed[y].add(x)
                needed[y] |= needed[x]
                if not ordered(x, y):
                    violations.append((x, y))
    gpu = [i for i in range(n) if program.ops[i][0] == "gpu"]
    extra = sum(1 for y in gpu for x in gpu
                if x < y and x not in needed[y] and ordered(x, y))
    return violations, extra, len(syncs), len(gpu)


def run_checked(output):
    """Lowers the pass output and runs it with the checking runtime; returns
    the number of violations it reports (1 if a tool fails)."""
    runtime = os.path.join(ROOT, "build", "lib", "libmlir_gpu_check_runtime.so")
    runner = os.path.join(os.environ.get("LLVM_PREFIX", "/usr/lib/llvm-22"),
                          "bin", "mlir-runner")
    lowered = subprocess.run(
        [MLIR_OPT, "-gpu-lower-to-nvvm-pipeline=cubin-format=isa"],
        input=output, capture_output=True, text=True)
    if lowered.returncode != 0:
        print(f"error: lowering failed:\n{lowered.stderr[-2000:]}")
        return 1
    run = subprocess.run([runner, "--entry-point-result=void",
                          f"--shared-libs={runtime}"],
                         input=lowered.stdout, capture_output=True, text=True)
    match = re.search(r"gpu-check: (\d+) violation", run.stderr)
    streams = re.search(r"calls mgpuStreamCreate (\d+)", run.stderr)
    print(f"checking runtime: exit {run.returncode}, "
          f"{match.group(1) if match else '?'} violation(s), "
          f"{streams.group(1) if streams else 0} stream(s) created")
    if run.returncode != 0 or not match:
        print("\n".join(l for l in run.stderr.splitlines()
                        if "error" in l)[-2000:])
        return int(match.group(1)) if match and int(match.group(1)) else 1
    return int(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", help="write the generated module here")
    parser.add_argument("--pass-args", default="-gpu-async-region",
                        help="the pipeline to check (default: %(default)s)")
    parser.add_argument("--drop-host-waits", action="store_true")
    parser.add_argument("--run", action="store_true")
    args = parser.parse_args()
    if not os.path.exists(MLIR_OPT):
        sys.exit(f"error: {MLIR_OPT} not found; run scripts/build.sh first")
    rng = random.Random(args.seed)
    programs = [Program(rng, i) for i in range(args.n)]
    for p in programs:
        p.generate()
    kernels = "".join(kernel_text(i, e) for i, e in enumerate(KERNELS))
    calls = []
    for p in programs:
        operands = ", ".join(f"%buf{i}" for i in range(p.nargs))
        types = ", ".join([MEMREF] * p.nargs)
        calls.append(f"    func.call @p{p.index}({operands}) : ({types}) -> ()")
    main = ("  func.func @main() {\n" +
            "".join(f"    %buf{i} = memref.alloc() : {MEMREF}\n"
                    for i in range(3)) +
            "\n".join(calls) + "\n    return\n  }\n")
    module = ("module attributes {gpu.container_module} {\n"
              "  gpu.module @kernels {\n" + kernels + "  }\n" +
              "".join(p.text() for p in programs) + main + "}\n")
    if args.keep:
        with open(args.keep, "w") as f:
            f.write(module)
    run = subprocess.run([MLIR_OPT, *args.pass_args.split(),
                          "-mlir-print-op-generic"],
                         input=module, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"error: mlir-opt {args.pass_args} failed:\n"
                 f"{run.stderr[-3000:]}")
    # In the generic form each function starts with its header line, which
    # holds its name.
    funcs = re.split(r'^\s*"func.func"\(\) <\{', run.stdout, flags=re.M)[1:]
    bodies = {}
    for chunk in funcs:
        m = re.search(r'sym_name = "p(\d+)"', chunk)
        if m:
            bodies[int(m.group(1))] = chunk.splitlines()
    total_v = total_extra = total_syncs = total_gpu = 0
    for p in programs:
        ops = parse_function(bodies[p.index])
        violations, extra, syncs, gpu = check(p, ops, args.drop_host_waits)
        total_extra += extra
        total_syncs += syncs
        total_gpu += gpu
        for x, y in violations[:3]:
            print(f"violation: @p{p.index}: op {x} ({p.lines[x].strip()}) is "
                  f"not ordered before op {y} ({p.lines[y].strip()})")
        total_v += len(violations)
    if args.run:
        total_v += run_checked(run.stdout)
    print(f"oracle: {args.n} programs (seed {args.seed}), {total_gpu} GPU ops: "
          f"{total_v} violation(s), {total_extra} extra ordered GPU pair(s), "
          f"{total_syncs} host sync(s)")
    sys.exit(1 if total_v else 0)


if __name__ == "__main__":
    main()
