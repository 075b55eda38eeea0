#!/usr/bin/env python3
"""Checks -gpu-async-region against the memory accesses of random programs.

Each program is a function over buffers (function arguments, which may alias
each other unless marked {llvm.noalias}; gpu.alloc and memref.alloc buffers,
which do not) that launches kernels whose per-argument reads and writes are
known by construction (the generator writes their gpu.func bodies), copies,
sets, loads and stores from the host, and allocates. All GPU ops are
synchronous in the input, so program order is the specification.

With --control-flow the programs also have scf.for loops (constant trip
counts 0-3, bodies with and without loop-carried conflicts, buffers swapped
through iter_args), scf.while loops (0-3 iterations, GPU work in both
regions), scf.execute_region, scf.if on i1 arguments and on the loop counter
(with and without else, some yielding a buffer), scf.index_switch, nesting,
calls of a
private function that reads or writes a buffer on the host, and views
(memref.subview, cast, reinterpret_cast, expand_shape/collapse_shape, and
memref.view of an i8 buffer) used by kernels, copies and the host.

The checker does not trust the pass: it interprets the pass output as a
program (scripts/async_region_interp.py) with concrete values for its i1 and
index arguments (every combination, or --assignments random ones when there
are more), unrolling loops, taking branches, and following tokens through
iter_args, scf.yield, results and `gpu.wait async` joins. That gives a
dynamic trace: GPU op instances with their happens-before sets, host syncs,
host accesses. For every conflicting pair of accesses in that trace (same or
may-alias buffer, at least one write):

  GPU -> GPU    the second instance happens after the first (its tokens, or
                a synchronous gpu.wait issued between them, reach the first);
  GPU -> host   a synchronous gpu.wait between them reaches the GPU op;
  host -> any   always (the host runs in program order and issues GPU work).

The function's return counts as a host access that reads and writes every
memref argument (the caller may use them). Buffers: arguments may alias each
other unless marked {llvm.noalias}, each execution of an allocation is a
buffer of its own, and a view is its source buffer.

The input program is interpreted the same way and must make the same
accesses in the same order as the output (the pass adds tokens and waits; it
does not drop, add or move accesses). Every output must verify again
(mlir-opt with no pass) and the pass must exit 0.

Counted (over all executions): dynamic GPU op instances; GPU instance pairs
that the output orders although no chain of conflicts (through GPU or host
accesses) orders them ("extra ordered pairs": concurrency left unused);
concurrency = the share of the GPU pairs needing no order that the output
leaves unordered (the figure to watch with --noalias); the same figure
"with host order", where a host access that must wait for GPU work also
orders everything the host issues after it (no output that keeps the
program's order of ops can run that later work first, so only what this
figure misses is concurrency a pass could still gain); host syncs, and host
syncs inside scf.for bodies per loop iteration. Without --control-flow and
--noalias, a seed generates the same programs as before control flow was
added (same extra ordered pairs and host syncs).

  scripts/async-region-oracle.py [-n 1000] [--seed 1] [--control-flow]
      [--noalias] [--assignments 16] [--pass-args=PIPELINE] [--run]
      [--keep FILE] [--drop-host-waits] [--drop-token-deps]

--drop-host-waits ignores the synchronous waits of the output, and
--drop-token-deps the token operands of its GPU ops (a GPU op then waits
only for what the host has waited for), to show that the oracle does report
missing orderings. --run also lowers the output with
-gpu-lower-to-nvvm-pipeline and runs it with mlir-runner and the checking GPU
runtime (build/lib/libmlir_gpu_check_runtime.so), calling each program with
each checked assignment (50 programs per process): no stream or
event may leak or be misused. --keep writes the generated module to FILE,
and each program that fails alone to FILE.pN.mlir.

Exits 1 on a violation, an invalid output, or a tool failure. Uses
build/bin/mlir-opt, or $MLIR_OPT (e.g. Debian's, for the upstream pass).
"""

import argparse
import os
import random
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from async_region_interp import (Interpreter, Unsupported, assignments,
                                 check_trace)
from mlir_generic_form import parse_generic

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MLIR_OPT = os.environ.get("MLIR_OPT",
                          os.path.join(ROOT, "build", "bin", "mlir-opt"))
RUNTIME = os.path.join(ROOT, "build", "lib", "libmlir_gpu_check_runtime.so")
MEMREF = "memref<16xf32>"
BYTES = "memref<64xi8>"
# Programs per mlir-runner process with --run.
RUN_BATCH = 50
# Failing programs isolated (by bisection) before the rest is given up.
MAX_ISOLATED = 10

# Kernel argument effects: R (reads), W (writes), RW.
KERNELS = [("R", "W"), ("W", "R"), ("RW", "R"), ("R", "R"), ("W", "W"),
           ("RW", "RW")]

# Host functions that the pass cannot see into (it treats calls as touching
# everything); the oracle knows what they do.
HOST_FUNCTIONS = f"""  func.func private @touch(%m : {MEMREF}) {{
    %c0 = arith.constant 0 : index
    %f = arith.constant 2.0 : f32
    memref.store %f, %m[%c0] : {MEMREF}
    return
  }}
  func.func private @peek(%m : {MEMREF}) {{
    %c0 = arith.constant 0 : index
    %v = memref.load %m[%c0] : {MEMREF}
    return
  }}
"""


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


def launch_text(k, a, b):
    return (f"gpu.launch_func @kernels::@k{k} blocks in (%c1, %c1, %c1) "
            f"threads in (%c1, %c1, %c1) args({a} : {MEMREF}, {b} : {MEMREF})")


# ---------------------------------------------------------------------------
# Generators
# ---------------------------------------------------------------------------

class Program:
    """A straight-line program: one function over 1-3 memref arguments
    (marked {llvm.noalias} with `noalias`) and the buffers it allocates.
    (Kept as it was before control flow, so that a seed gives the same
    programs and figures as before.)"""

    def __init__(self, rng, index, noalias=False):
        self.rng = rng
        self.index = index
        self.noalias = noalias
        self.lines = []
        self.nargs = rng.randint(1, 3)
        self.args = [f"%arg{i}" for i in range(self.nargs)]
        self.gpu_buffers = []
        self.host_buffers = []
        self.counter = 0
        # Scalar (i1, index) arguments and the values they are checked with.
        self.scalars = []
        self.assignments = [()]

    def fresh(self):
        self.counter += 1
        return f"%b{self.counter}"

    def op(self, line):
        self.lines.append("    " + line)

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
            self.op(f"{b} = gpu.alloc () : {MEMREF}")
            self.gpu_buffers.append(b)
        for _ in range(rng.randint(4, 16)):
            kind = rng.choices(
                ["launch", "memcpy", "memset", "load", "store", "host_alloc",
                 "gpu_alloc"], weights=[6, 3, 2, 2, 2, 2, 1])[0]
            if kind == "launch":
                k = rng.randrange(len(KERNELS))
                a, b = self.device_buffer(), self.device_buffer()
                self.op(launch_text(k, a, b))
            elif kind == "memcpy":
                dst, src = self.any_buffer(), self.any_buffer()
                if dst == src:
                    continue
                self.op(f"gpu.memcpy {dst}, {src} : {MEMREF}, {MEMREF}")
            elif kind == "memset":
                dst = self.device_buffer()
                self.op(f"gpu.memset {dst}, %f : {MEMREF}, f32")
            elif kind == "load":
                b = self.host_buffer()
                self.op(f"%{self.fresh()[1:]} = memref.load {b}[%c0] : "
                        f"{MEMREF}")
            elif kind == "store":
                b = self.host_buffer()
                self.op(f"memref.store %f, {b}[%c0] : {MEMREF}")
            elif kind == "host_alloc":
                b = self.fresh()
                self.op(f"{b} = memref.alloc() : {MEMREF}")
                self.host_buffers.append(b)
            elif kind == "gpu_alloc":
                b = self.fresh()
                self.op(f"{b} = gpu.alloc () : {MEMREF}")
                self.gpu_buffers.append(b)
        for b in self.gpu_buffers:
            if rng.random() < 0.5:
                self.op(f"gpu.dealloc {b} : {MEMREF}")

    def memref_args(self):
        """(name, type) of the memref arguments."""
        return [(a, MEMREF) for a in self.args]

    def signature(self):
        attr = " {llvm.noalias}" if self.noalias else ""
        args = [f"{a} : {t}{attr}" for a, t in self.memref_args()]
        args += [f"{a} : {t}" for a, t in self.scalars]
        return ", ".join(args)

    def prologue(self):
        return ("    %c0 = arith.constant 0 : index\n"
                "    %c1 = arith.constant 1 : index\n"
                "    %f = arith.constant 1.0 : f32\n")

    def text(self):
        return (f"  func.func @p{self.index}({self.signature()}) {{\n" +
                self.prologue() + "\n".join(self.lines) +
                "\n    return\n  }\n")


class Entry:
    """A memref value the control-flow generator may use: whether the GPU
    and the host may access it, whether the current region may write it
    (loop bodies without loop-carried conflicts write only what they
    allocate), and whether it is an i8 buffer (used through memref.view)."""

    def __init__(self, name, dev, host, writable=True, raw=False):
        self.name = name
        self.dev = dev
        self.host = host
        self.writable = writable
        self.raw = raw


class Scope:
    """The values visible in a region: memref entries, i1 conditions, and
    index values to switch on."""

    def __init__(self, entries, conds, indices, depth, read_only=False):
        self.entries = [Entry(e.name, e.dev, e.host,
                              e.writable and not read_only, e.raw)
                        for e in entries]
        self.conds = list(conds)
        self.indices = list(indices)
        self.depth = depth
        # The newest view or selected buffer: picked more often, so that
        # most of them are used.
        self.prefer = None

    def child(self, read_only=False):
        return Scope(self.entries, self.conds, self.indices, self.depth + 1,
                     read_only)

    def add(self, entry, prefer=False):
        self.entries.append(entry)
        if prefer:
            self.prefer = entry

    def pick(self, rng, dev=False, host=False, write=False, raw=False):
        def fits(e):
            return (e.raw == raw and (not dev or e.dev) and
                    (not host or e.host) and (not write or e.writable))
        if self.prefer and fits(self.prefer) and rng.random() < 0.5:
            return self.prefer
        choices = [e for e in self.entries if fits(e)]
        return rng.choice(choices) if choices else None


class ControlFlowProgram(Program):
    """A program with scf.for / scf.if / scf.index_switch, calls and views.

    Arguments: 1-3 memref<16xf32>, maybe a memref<64xi8> (used through
    memref.view), 1-2 i1 conditions, maybe an index to switch on. Nesting
    depth at most 2 below the function body."""

    MAX_DEPTH = 2

    def __init__(self, rng, index, noalias=False):
        super().__init__(rng, index, noalias)
        self.raw_arg = "%bytes" if rng.random() < 0.3 else None
        self.scalars = [(f"%cond{i}", "i1")
                        for i in range(rng.randint(1, 2))]
        if rng.random() < 0.4:
            self.scalars.append(("%sel", "index"))
        self.indent = 2

    def memref_args(self):
        return super().memref_args() + (
            [(self.raw_arg, BYTES)] if self.raw_arg else [])

    def prologue(self):
        return ("    %c0 = arith.constant 0 : index\n"
                "    %c1 = arith.constant 1 : index\n"
                "    %c2 = arith.constant 2 : index\n"
                "    %c3 = arith.constant 3 : index\n"
                "    %f = arith.constant 1.0 : f32\n")

    def op(self, line):
        self.lines.append("  " * self.indent + line)

    def generate(self):
        rng = self.rng
        entries = [Entry(a, True, True) for a in self.args]
        if self.raw_arg:
            entries.append(Entry(self.raw_arg, True, True, raw=True))
        scope = Scope(entries, [s for s, t in self.scalars if t == "i1"],
                      [s for s, t in self.scalars if t == "index"], 0)
        allocated = []
        for _ in range(rng.randint(0, 2)):
            allocated.append(self.alloc(scope, gpu=True))
        self.block(scope, rng.randint(4, 10), allocated)

    def block(self, scope, count, allocated=None):
        """Appends `count` random statements in `scope`; at the end frees
        about half of the GPU buffers allocated in it."""
        rng = self.rng
        allocated = allocated if allocated is not None else []
        nested = scope.depth < self.MAX_DEPTH
        kinds = {"launch": 6, "memcpy": 3, "memset": 2, "load": 2, "store": 2,
                 "host_alloc": 1, "gpu_alloc": 1, "view": 2, "call": 1,
                 "for": 2 * nested, "if": 2 * nested,
                 "switch": nested * bool(scope.indices), "select": 1,
                 "swap_loop": nested, "while": nested,
                 "execute_region": nested}
        names = list(kinds)
        for _ in range(count):
            kind = rng.choices(names, weights=[kinds[k] for k in names])[0]
            if kind == "gpu_alloc":
                allocated.append(self.alloc(scope, gpu=True))
            elif kind == "host_alloc":
                self.alloc(scope, gpu=False)
            else:
                getattr(self, "gen_" + kind)(scope)
        for name in allocated:
            if name and rng.random() < 0.5:
                raw = any(e.raw for e in scope.entries if e.name == name)
                self.op(f"gpu.dealloc {name} : {BYTES if raw else MEMREF}")

    # Statements -----------------------------------------------------------

    def alloc(self, scope, gpu):
        raw = self.rng.random() < 0.2
        b = self.fresh()
        ty = BYTES if raw else MEMREF
        self.op(f"{b} = gpu.alloc () : {ty}" if gpu
                else f"{b} = memref.alloc() : {ty}")
        scope.add(Entry(b, gpu, not gpu, raw=raw))
        return b if gpu else None

    def gen_launch(self, scope):
        k = self.rng.randrange(len(KERNELS))
        a = scope.pick(self.rng, dev=True, write="W" in KERNELS[k][0])
        b = scope.pick(self.rng, dev=True, write="W" in KERNELS[k][1])
        if a and b:
            self.op(launch_text(k, a.name, b.name))

    def gen_memcpy(self, scope):
        dst = scope.pick(self.rng, write=True)
        src = scope.pick(self.rng)
        if dst and src and dst.name != src.name:
            self.op(f"gpu.memcpy {dst.name}, {src.name} : {MEMREF}, {MEMREF}")

    def gen_memset(self, scope):
        dst = scope.pick(self.rng, dev=True, write=True)
        if dst:
            self.op(f"gpu.memset {dst.name}, %f : {MEMREF}, f32")

    def gen_load(self, scope):
        b = scope.pick(self.rng, host=True)
        if b:
            self.op(f"{self.fresh()} = memref.load {b.name}[%c0] : {MEMREF}")

    def gen_store(self, scope):
        b = scope.pick(self.rng, host=True, write=True)
        if b:
            self.op(f"memref.store %f, {b.name}[%c0] : {MEMREF}")

    def gen_call(self, scope):
        write = self.rng.random() < 0.6
        b = scope.pick(self.rng, host=True, write=write)
        if b:
            self.op(f"func.call @{'touch' if write else 'peek'}({b.name}) : "
                    f"({MEMREF}) -> ()")

    def gen_view(self, scope):
        """A view (chain) of a buffer, of type memref<16xf32>, covering the
        elements the kernels and the host access."""
        rng = self.rng
        src = scope.pick(rng, raw=rng.random() < 0.3) or scope.pick(rng)
        if not src:
            return
        v, s = self.fresh(), src.name
        if src.raw:
            self.op(f"{v} = memref.view {s}[%c0][] : {BYTES} to {MEMREF}")
        else:
            form = rng.choice(["cast", "subview", "reinterpret", "reshape"])
            t = self.fresh()
            if form == "cast":
                self.op(f"{t} = memref.cast {s} : {MEMREF} to memref<?xf32>")
                self.op(f"{v} = memref.cast {t} : memref<?xf32> to {MEMREF}")
            elif form == "subview":
                strided = "memref<16xf32, strided<[1]>>"
                self.op(f"{t} = memref.subview {s}[0] [16] [1] : {MEMREF} to "
                        f"{strided}")
                self.op(f"{v} = memref.cast {t} : {strided} to {MEMREF}")
            elif form == "reinterpret":
                self.op(f"{v} = memref.reinterpret_cast {s} to offset: [0], "
                        f"sizes: [16], strides: [1] : {MEMREF} to {MEMREF}")
            else:
                self.op(f"{t} = memref.expand_shape {s} [[0, 1]] output_shape "
                        f"[4, 4] : {MEMREF} into memref<4x4xf32>")
                self.op(f"{v} = memref.collapse_shape {t} [[0, 1]] : "
                        f"memref<4x4xf32> into {MEMREF}")
        scope.add(Entry(v, src.dev, src.host, src.writable), prefer=True)

    def gen_for(self, scope):
        """A loop with 0-3 iterations. Either its body writes a buffer from
        outside (a conflict between iterations) or it only reads outside
        buffers and writes what it allocates (no loop-carried conflict)."""
        rng = self.rng
        trips = rng.randrange(4)
        iv = f"%i{self.fresh()[2:]}"
        carried = rng.random() < 0.6
        self.op(f"scf.for {iv} = %c0 to %c{trips} step %c1 {{")
        self.indent += 1
        body = scope.child(read_only=not carried)
        body.indices.append(iv)
        if rng.random() < 0.5:
            p = self.fresh()
            self.op(f"{p} = arith.cmpi eq, {iv}, %c1 : index")
            body.conds.append(p)
        allocated = []
        if carried:
            # A write to an outside buffer: conflicts with itself in the next
            # iteration.
            b = body.pick(rng, dev=True, write=True)
            if b:
                self.op(f"gpu.memset {b.name}, %f : {MEMREF}, f32")
        else:
            for _ in range(rng.randint(1, 2)):
                allocated.append(self.alloc(body, gpu=rng.random() < 0.6))
        self.block(body, rng.randint(1, 4), [a for a in allocated if a])
        self.indent -= 1
        self.op("}")

    def gen_while(self, scope):
        """An scf.while that counts to a constant (0-3 iterations), with GPU
        work in its `before` region (run once more than the body) and in
        its body."""
        rng = self.rng
        n = self.fresh()[2:]
        i, j, c, r = f"%w{n}", f"%v{n}", f"%wc{n}", f"%wr{n}"
        self.op(f"{r} = scf.while ({i} = %c0) : (index) -> index {{")
        self.indent += 1
        before = scope.child()
        before.indices.append(i)
        self.block(before, rng.randint(0, 2))
        self.op(f"{c} = arith.cmpi slt, {i}, %c{rng.randrange(4)} : index")
        self.op(f"scf.condition({c}) {i} : index")
        self.indent -= 1
        self.op("} do {")
        self.op(f"^bb0({j}: index):")
        self.indent += 1
        body = scope.child()
        body.indices.append(j)
        self.block(body, rng.randint(1, 3))
        k = self.fresh()
        self.op(f"{k} = arith.addi {j}, %c1 : index")
        self.op(f"scf.yield {k} : index")
        self.indent -= 1
        self.op("}")

    def gen_execute_region(self, scope):
        self.op("scf.execute_region {")
        self.indent += 1
        self.block(scope.child(), self.rng.randint(1, 3))
        self.op("scf.yield")
        self.indent -= 1
        self.op("}")

    def gen_swap_loop(self, scope):
        """A loop that swaps two buffers through iter_args each iteration
        (ping-pong): which buffer an op touches depends on the iteration."""
        rng = self.rng
        a = scope.pick(rng, dev=True, write=True)
        b = scope.pick(rng, dev=True, write=True)
        if not a or not b or a.name == b.name:
            return
        n = self.fresh()[2:]
        iv, x, y, r = f"%i{n}", f"%x{n}", f"%y{n}", f"%r{n}"
        self.op(f"{r}:2 = scf.for {iv} = %c0 to %c{rng.randrange(4)} step "
                f"%c1 iter_args({x} = {a.name}, {y} = {b.name}) -> "
                f"({MEMREF}, {MEMREF}) {{")
        self.indent += 1
        body = scope.child()
        body.indices.append(iv)
        body.entries += [Entry(x, True, a.host and b.host),
                         Entry(y, True, a.host and b.host)]
        self.op(launch_text(0, x, y))
        self.block(body, rng.randint(0, 2))
        self.op(f"scf.yield {y}, {x} : {MEMREF}, {MEMREF}")
        self.indent -= 1
        self.op("}")
        for i in range(2):
            scope.add(Entry(f"{r}#{i}", True, a.host and b.host), prefer=True)

    def gen_if(self, scope):
        rng = self.rng
        cond = rng.choice(scope.conds)
        self.op(f"scf.if {cond} {{")
        self.indent += 1
        self.block(scope.child(), rng.randint(1, 3))
        self.indent -= 1
        if rng.random() < 0.5:
            self.op("} else {")
            self.indent += 1
            self.block(scope.child(), rng.randint(1, 3))
            self.indent -= 1
        self.op("}")

    def gen_switch(self, scope):
        rng = self.rng
        value = rng.choice(scope.indices)
        self.op(f"scf.index_switch {value}")
        for case in sorted(rng.sample(range(3), rng.randint(1, 2))):
            self.op(f"case {case} {{")
            self.indent += 1
            self.block(scope.child(), rng.randint(1, 2))
            self.op("scf.yield")
            self.indent -= 1
            self.op("}")
        self.op("default {")
        self.indent += 1
        self.block(scope.child(), rng.randint(0, 1))
        self.op("scf.yield")
        self.indent -= 1
        self.op("}")

    def gen_select(self, scope):
        """An scf.if that yields one of two buffers (of the same kind)."""
        rng = self.rng
        a = scope.pick(rng)
        if not a:
            return
        others = [e for e in scope.entries if not e.raw and
                  e.dev == a.dev and e.host == a.host and e.name != a.name]
        if not others:
            return
        b = rng.choice(others)
        m = self.fresh()
        self.op(f"{m} = scf.if {rng.choice(scope.conds)} -> ({MEMREF}) {{")
        self.indent += 1
        if rng.random() < 0.5:
            self.block(scope.child(), 1)
        self.op(f"scf.yield {a.name} : {MEMREF}")
        self.indent -= 1
        self.op("} else {")
        self.indent += 1
        self.op(f"scf.yield {b.name} : {MEMREF}")
        self.indent -= 1
        self.op("}")
        scope.add(Entry(m, a.dev, a.host, a.writable and b.writable),
                  prefer=True)


def main_function(programs):
    """@main: calls each program with each of its checked assignments, on
    distinct buffers."""
    lines = ["  func.func @main() {"]
    lines += [f"    %buf{i} = memref.alloc() : {MEMREF}" for i in range(3)]
    if any(p.scalars or len(p.memref_args()) > p.nargs for p in programs):
        lines += [f"    %bytes = memref.alloc() : {BYTES}",
                  "    %false = arith.constant false",
                  "    %true = arith.constant true"]
        lines += [f"    %i{v} = arith.constant {v} : index" for v in range(4)]
    for p in programs:
        operands = [f"%buf{i}" for i in range(p.nargs)]
        types = [MEMREF] * p.nargs + [t for _, t in p.memref_args()[p.nargs:]]
        operands += ["%bytes"] * (len(types) - p.nargs)
        types += [t for _, t in p.scalars]
        for values in p.assignments:
            scalars = [("%true" if v else "%false") if isinstance(v, bool)
                       else f"%i{v}" for v in values]
            lines.append(f"    func.call @p{p.index}("
                         f"{', '.join(operands + scalars)}) : "
                         f"({', '.join(types)}) -> ()")
    return "\n".join(lines) + "\n    return\n  }\n"


def module_text(programs, control_flow):
    kernels = "".join(kernel_text(i, e) for i, e in enumerate(KERNELS))
    return ("module attributes {gpu.container_module} {\n"
            "  gpu.module @kernels {\n" + kernels + "  }\n" +
            (HOST_FUNCTIONS if control_flow else "") +
            "".join(p.text() for p in programs) + main_function(programs) +
            "}\n")


# ---------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------

def tool(cmd, text):
    """Runs cmd on `text`; returns (ok, stdout, message). Not ok: exit
    status other than 0, a crash, or an error diagnostic."""
    try:
        run = subprocess.run(cmd, input=text, capture_output=True, text=True)
    except OSError as e:
        return False, "", f"cannot run {cmd[0]}: {e}"
    if run.returncode != 0 or "error:" in run.stderr:
        status = (f"killed by signal {-run.returncode}" if run.returncode < 0
                  else f"exit {run.returncode}")
        return False, run.stdout, f"{os.path.basename(cmd[0])} {status}:\n" \
            f"{run.stderr.strip()[-1500:]}"
    return True, run.stdout, run.stderr


def transform(programs, args):
    """Runs the pass on a module of `programs` and verifies its output again.
    Returns (ok, generic output, message)."""
    text = module_text(programs, args.control_flow)
    ok, out, msg = tool([MLIR_OPT, *args.pass_args.split(),
                         "-mlir-print-op-generic"], text)
    if not ok:
        return False, "", f"the pass failed: {msg}"
    ok, _, vmsg = tool([MLIR_OPT], out)
    if not ok:
        return False, "", f"the output does not verify: {vmsg}"
    return True, out, msg


def bisect(programs, attempt, state):
    """Runs attempt(programs) -> (ok, value, message); on failure splits the
    programs to find the ones that fail alone. Returns [(programs, value)]
    for the parts that passed; appends (program, message) to state["failed"]
    and counts programs left unchecked (after MAX_ISOLATED failures) in
    state["unchecked"]."""
    if len(state["failed"]) >= MAX_ISOLATED:
        state["unchecked"] += len(programs)
        return []
    ok, value, message = attempt(programs)
    if ok:
        return [(programs, value)]
    if len(programs) == 1:
        state["failed"].append((programs[0],
                                f"@p{programs[0].index}: {message}"))
        return []
    mid = len(programs) // 2
    return (bisect(programs[:mid], attempt, state) +
            bisect(programs[mid:], attempt, state))


def run_checked(programs, args):
    """Runs the pass on `programs`, lowers the output and runs it with the
    checking runtime. Returns (ok, (exit status, violations, streams
    created) or None, message)."""
    runner = os.path.join(os.environ.get("LLVM_PREFIX", "/usr/lib/llvm-23"),
                          "bin", "mlir-runner")
    ok, out, msg = transform(programs, args)
    if not ok:
        return False, None, msg
    ok, lowered, msg = tool(
        [MLIR_OPT, "-gpu-lower-to-nvvm-pipeline=cubin-format=isa"], out)
    if not ok:
        return False, None, f"lowering failed: {msg}"
    try:
        run = subprocess.run([runner, "--entry-point-result=void",
                              f"--shared-libs={RUNTIME}"], input=lowered,
                             capture_output=True, text=True)
    except OSError as e:
        return False, None, f"cannot run {runner}: {e}"
    match = re.search(r"gpu-check: (\d+) violation", run.stderr)
    streams = re.search(r"calls mgpuStreamCreate (\d+)", run.stderr)
    stats = (run.returncode, int(match.group(1)) if match else None,
             int(streams.group(1)) if streams else 0)
    if run.returncode != 0 or not match or stats[1]:
        errors = "\n".join(l for l in run.stderr.splitlines()
                           if "error" in l)
        return False, stats, (f"checking runtime: exit {run.returncode}, "
                              f"{stats[1] if match else '?'} violation(s)\n"
                              f"{errors[-1500:]}")
    return True, stats, ""


def run_all(programs, args, totals):
    """--run: runs the programs in batches of RUN_BATCH (one mlir-runner
    process each, os.cpu_count() at a time: the JIT's time and memory grow
    faster than the module), then isolates the programs of failing batches.
    Returns (summary line, whether something failed)."""
    batches = [programs[i:i + RUN_BATCH]
               for i in range(0, len(programs), RUN_BATCH)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = list(pool.map(lambda b: run_checked(b, args), batches))
    exits = violations = streams = 0
    state = {"failed": [], "unchecked": 0}
    failed = False
    for batch, (ok, stats, msg) in zip(batches, results):
        if stats:
            exits += stats[0] != 0
            violations += stats[1] or 0
            streams += stats[2]
        if not ok:
            failed = True
            print(f"--run: programs @p{batch[0].index}-@p{batch[-1].index}: "
                  f"{msg}")
            bisect(batch, lambda ps: run_checked(ps, args), state)
    for p, m in state["failed"]:
        totals.bad_programs.append((p, "run", f"--run: {m}"))
    summary = (f"checking runtime: {len(batches)} run(s), {exits} with exit "
               f"status other than 0, {violations} violation(s), {streams} "
               f"stream(s) created")
    if state["unchecked"]:
        summary += f"; {state['unchecked']} program(s) not isolated"
    return summary, failed


# ---------------------------------------------------------------------------
# Checking
# ---------------------------------------------------------------------------

class Totals:
    """The figures of a run."""

    def __init__(self):
        self.executions = 0
        self.gpu = 0
        self.violations = 0
        self.invalid = 0
        self.extra = 0
        self.unneeded = 0
        # The same with host program order as a dependence (check_trace).
        self.extra_host = 0
        self.unneeded_host = 0
        self.syncs = 0
        self.loop_syncs = 0
        self.iterations = 0
        # (program, "invalid" / "violation" / "run", message): reported,
        # and kept with --keep.
        self.bad_programs = []


def check_program(p, before, after, args, totals):
    """Checks program p: interprets its input (`before`) and the pass output
    (`after`) for each assignment, compares their accesses, and checks the
    output's trace."""
    name = f"@p{p.index}"
    messages = []
    for values in p.assignments:
        label = ", ".join(f"{s}={str(v).lower()}"
                          for (s, _), v in zip(p.scalars, values))
        where = f"{name}" + (f" [{label}]" if label else "")
        try:
            spec = before.run(name, values)
        except Unsupported as e:
            sys.exit(f"error: {where}: cannot interpret the generated input "
                     f"(a bug of the oracle): {e}")
        try:
            trace = after.run(name, values, args.drop_host_waits,
                              args.drop_token_deps)
        except Unsupported as e:
            totals.invalid += 1
            totals.bad_programs.append(
                (p, "invalid",
                 f"invalid output: {where}: cannot interpret it: {e}"))
            return
        expected, got = spec.signature(), trace.signature()
        if expected != got:
            k = next((i for i, (x, y) in enumerate(zip(expected, got))
                      if x != y), min(len(expected), len(got)))
            want = (spec.instances[k].describe() if k < len(expected)
                    else "nothing more")
            have = (trace.instances[k].describe() if k < len(got)
                    else "nothing more")
            totals.invalid += 1
            totals.bad_programs.append(
                (p, "invalid",
                 f"invalid output: {where}: the output does not make the "
                 f"input's accesses: access {k} is {have} instead of "
                 f"{want}"))
            return
        result = check_trace(trace)
        totals.executions += 1
        totals.gpu += result.gpu
        totals.extra += result.extra
        totals.unneeded += result.unneeded
        totals.extra_host += result.extra_host
        totals.unneeded_host += result.unneeded_host
        totals.syncs += trace.host_syncs
        totals.loop_syncs += trace.loop_syncs
        totals.iterations += trace.loop_iterations
        totals.violations += result.violation_count
        for x, y in result.violations:
            # Describe the accesses by the input's ops (with source lines).
            messages.append(
                f"violation: {where}: {spec.instances[x].describe()} is not "
                f"ordered before {spec.instances[y].describe()}")
    if messages:
        totals.bad_programs.append((p, "violation", "\n".join(messages[:3])))


def keep_program(p, args):
    """Writes a module with program p alone next to --keep's file."""
    path = f"{args.keep}.p{p.index}.mlir"
    with open(path, "w") as f:
        f.write(module_text([p], args.control_flow))
    return path


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.splitlines()[1:]))
    parser.add_argument("-n", type=int, default=1000,
                        help="programs (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--control-flow", action="store_true",
                        help="loops, branches, calls and views")
    parser.add_argument("--noalias", action="store_true",
                        help="function arguments are {llvm.noalias}")
    parser.add_argument("--assignments", type=int, default=16,
                        help="most scalar-argument combinations checked per "
                        "program (default: %(default)s)")
    parser.add_argument("--keep", metavar="FILE",
                        help="write the generated module here, and each "
                        "failing program to FILE.pN.mlir")
    parser.add_argument("--emit", action="store_true",
                        help="print the generated module and stop (no check)")
    parser.add_argument("--pass-args", default="-gpu-async-region",
                        help="the pipeline to check (default: %(default)s)")
    parser.add_argument("--drop-host-waits", action="store_true",
                        help="ignore the output's synchronous gpu.waits")
    parser.add_argument("--drop-token-deps", action="store_true",
                        help="ignore the token operands of the output's GPU "
                        "ops")
    parser.add_argument("--run", action="store_true",
                        help="also lower and run with the checking runtime")
    args = parser.parse_args()
    if not os.path.exists(MLIR_OPT):
        sys.exit(f"error: {MLIR_OPT} not found; run scripts/build.sh first")
    if args.run and not os.path.exists(RUNTIME):
        sys.exit(f"error: {RUNTIME} not found; run scripts/build.sh first")
    start = time.time()
    rng = random.Random(args.seed)
    kind = ControlFlowProgram if args.control_flow else Program
    programs = [kind(rng, i, args.noalias) for i in range(args.n)]
    for p in programs:
        p.generate()
        p.assignments = assignments([t for _, t in p.scalars],
                                    args.assignments, rng)
    module = module_text(programs, args.control_flow)
    if args.keep:
        with open(args.keep, "w") as f:
            f.write(module)
    if args.emit:
        sys.stdout.write(module)
        return

    # The input, with source locations (lines of the generated module).
    ok, text, msg = tool([MLIR_OPT, "-mlir-print-op-generic",
                          "-mlir-print-debuginfo"], module)
    if not ok:
        sys.exit(f"error: the generated module is invalid (generator bug): "
                 f"{msg}")
    before = Interpreter(parse_generic(text))

    # A pipeline that fails on a module without programs fails for a
    # reason of its own (options, the tool): not the programs' business.
    ok, _, msg = transform([], args)
    if not ok:
        sys.exit(f"error: {msg}")
    state = {"failed": [], "unchecked": 0}
    parts = bisect(programs, lambda ps: transform(ps, args), state)
    totals = Totals()
    for p, msg in state["failed"]:
        totals.invalid += 1
        totals.bad_programs.append((p, "invalid", msg))
    for part, out in parts:
        try:
            after = Interpreter(parse_generic(out))
        except ValueError as e:
            sys.exit(f"error: cannot parse the pass output: {e}")
        for p in part:
            check_program(p, before, after, args, totals)

    run_summary, run_failed = None, False
    if args.run:
        run_summary, run_failed = run_all(
            [p for part, _ in parts for p in part], args, totals)

    # At most 10 programs of each kind of failure (invalid output, ordering
    # violation, --run).
    shown = {}
    for p, kind, msg in totals.bad_programs:
        shown[kind] = shown.get(kind, 0) + 1
        if shown[kind] > 10:
            continue
        print(msg)
        if args.keep:
            print(f"  (@p{p.index} kept in {keep_program(p, args)})")
    if totals.bad_programs and not args.keep:
        print("(rerun with --keep FILE to write the failing programs)")
    if state["unchecked"]:
        print(f"error: {state['unchecked']} program(s) not checked after "
              f"{MAX_ISOLATED} failing ones")
    if run_summary:
        print(run_summary)
    mode = ", ".join(["control flow"] * args.control_flow +
                     ["noalias"] * args.noalias) or "straight-line"
    conc = (f"{1 - totals.extra / totals.unneeded:.3f}" if totals.unneeded
            else "-")
    per_iter = (f"{totals.loop_syncs / totals.iterations:.3f}"
                if totals.iterations else "-")
    print(f"oracle: {args.n} programs (seed {args.seed}, {mode}), "
          f"{totals.executions} execution(s), {totals.gpu} dynamic GPU "
          f"op(s): {totals.violations} violation(s), {totals.invalid} invalid "
          f"output(s)")
    conc_host = (f"{1 - totals.extra_host / totals.unneeded_host:.3f}"
                 if totals.unneeded_host else "-")
    print(f"  {totals.extra} extra ordered GPU pair(s); concurrency {conc} "
          f"({totals.unneeded - totals.extra} of {totals.unneeded} GPU pairs "
          f"needing no order left unordered); {totals.syncs} host sync(s), "
          f"{per_iter} per loop iteration ({totals.loop_syncs} in "
          f"{totals.iterations} iterations); {time.time() - start:.1f} s")
    print(f"  with host order: {totals.extra_host} extra ordered GPU pair(s); "
          f"concurrency {conc_host} ({totals.unneeded_host - totals.extra_host}"
          f" of {totals.unneeded_host} GPU pairs that neither conflicts nor "
          f"host waits order left unordered)")
    failed = (totals.violations or totals.invalid or state["unchecked"] or
              run_failed)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
