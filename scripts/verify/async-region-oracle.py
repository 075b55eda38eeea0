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

With --shapes (a comma list, or all) the programs also have these statement
kinds (small weights: the old kinds stay the most frequent), straight-line
and with --control-flow (where they also go into loops, branches,
execute_region and async.execute bodies):

  pointer   kernels taking !llvm.ptr and i64 arguments that they load and
            store through (llvm.load/llvm.store; i64 through llvm.inttoptr
            and llvm.getelementptr); the host makes the pointer from a buffer
            (memref.extract_aligned_pointer_as_index, arith.index_cast,
            llvm.inttoptr), sometimes statements before the launch; with
            --control-flow, a call of @kick, which launches one on its
            argument;
  opaque    kernels of a gpu.binary (@blobs), whose effects the pass cannot
            see (the oracle has them from OPAQUE_TABLE), on memrefs and i64
            pointers; llvm.func kernels in the gpu.module (gpu.kernel,
            nvvm.kernel) on pointers;
  sparse    cuSPARSE handles: a CSR or COO matrix A over fresh index
            buffers (gpu.alloc, gpu.memset) and a values buffer, dense
            vectors X and Y over buffers; gpu.spmv_buffer_size, a
            gpu.alloc'ed scratch buffer and gpu.spmv (Y = A X + Y) right
            away or statements later (with --control-flow, also inside
            loops and branches below the block that made the handles); a
            third of the handle sets have 4x4 dense matrices X and Y
            instead, for gpu.spmm (Y = A X + Y) and gpu.sddmm (into A's
            values), with their buffer-size queries; the handles are
            destroyed at the end of their block;
  async     `%t = async.execute { statements; async.yield }` (or a chain of
            two, the second depending on the first) then `async.await %t`
            of the last one, with at most fresh allocations in between (the
            input stays free of races); later statements use the buffers of
            the bodies. With --control-flow the ops go into loops and
            branches, but their bodies hold no loops or branches
            (-gpu-lower-to-nvvm-pipeline would make blocks of them, and the
            region of async.execute has one block);
  stack     memref.alloca buffers, used by copies, kernels and the host
            (also made in async.execute bodies and, with --control-flow,
            loop bodies); with --control-flow, a call of @stack_copy, which
            copies its argument into a stack buffer of its own;
  stream    (4 programs in 10) a caller's stream: an !llvm.ptr argument
            %stream, and the function's statements in a
            `gpu.on_stream <%stream : !llvm.ptr>` region: all of them, or
            those from a statement on (the ones before run outside it); after
            the region, none, a host load of an argument, a kernel on one,
            or a launch on %stream (then maybe a host load); launches on
            %stream and calls of @launch_on(%stream, buffer), which launches
            on it and returns, or of @launch_via(buffer, %stream), which
            passes it on to @launch_on, among the statements too (in loops and
            branches with --control-flow; not in async.execute bodies). The
            region and the launches hand their work to the stream, the host
            does not wait for it at the return; the pass's input is read in
            program order (a launch on the stream complete for the next
            statement). With --control-flow, half of them are written to be
            captured (CAPTURE_EXCLUDED: the whole body in the region, no
            host access to GPU data, device memory freed in the block that
            allocates it, no call; nothing or a launch on %stream after
            it), which --run then captures; a quarter are launchers, as
            frontends emit them: no region, all GPU work launched on
            %stream (runs of 2-3 launches among them) or by calls. Three in
            ten of those not written to be captured have a second caller's
            stream, %stream2: launches, regions and calls of @launch_on and
            @launch_via on it (maybe its only use), a stream chosen by an i1
            (arith.select of the two), and loops that carry streams
            through iter_args (the two swapped each iteration, or one
            replaced by %stream2 in the second), with work on them in the
            body and maybe on a result after the loop;
  barrier   kernels with gpu.barrier and workgroup memory (an attribution,
            or gpu.dynamic_shared_memory through memref.view, launched with
            dynamic_shared_memory_size) besides their argument effects;
  await     async.execute ops that others wait for: a first body writes a
            target buffer on the GPU (and makes 0-2 more statements), then
            either a second async.execute awaits it first thing in its body
            (its !async.token, or its !async.value<index> where it has one;
            then 0-2 statements, which may conflict with the first body),
            or a second one makes it in its own body and awaits it there,
            or a second one takes its value as a body operand
            (`async.execute (%v as %x : !async.value<index>)`, the body
            maybe accessing the target at index %x at once); the function
            awaits the second one (value or token). Or the function awaits
            the first one's value (`%e, %v = async.execute ->
            !async.value<index> {...; async.yield %c0 : index}`), the token
            later or never. Then the function accesses the target (host
            load or store, GPU memset or kernel). As with async, at most
            fresh allocations come between an async.execute and the await
            that covers it, and with the blocks shape, where it may branch,
            sometimes a cf.br to a new block (its token and value passed as
            block arguments half of the time);
  linalg    linalg.fill and linalg.copy (structured ops with recursive memory
            effects that declare their own) on memrefs on the host (not in
            async.execute bodies: --run's lowering would make blocks of
            them), and kernels whose effects on their arguments come from
            linalg.fill / linalg.copy in their gpu.func bodies (directly,
            through memref.cast, between subviews);
  blocks    branches between blocks of the
            function body: cf.cond_br to two blocks that cf.br to a join, or
            to a block or past it; a loop of blocks (a header with a counter
            argument counting to a constant, 0-3 iterations, maybe swapping
            two buffers through its block arguments, a kernel on them in the
            body); a plain cf.br to a new block. Buffers flow through block
            arguments half of the time, the blocks hold statements of every
            kind (with --control-flow: scf ops too; in straight-line
            programs: nested branches, and i1 arguments %cond0, %cond1 made
            for them). With --control-flow, only in the function body (the
            regions of scf ops, async.execute and callees keep one block);
            with a caller's stream (--control-flow only), the whole body is
            then in the region: a gpu.on_stream body of several blocks (in
            programs written to be captured too; not in launchers).
  calls     (--control-flow only) a function of the program's own, @pN_f,
            over 1-2 memref arguments (never {llvm.noalias}: a call may pass
            one buffer twice) and the program's first condition, with
            statements of every kind and of the other enabled shapes but
            the caller's streams (GPU work, loops, branches, async.execute,
            several blocks); the program calls it, in loops and branches
            too, on buffers that both the GPU and the host may access. The
            pass, run on the module, summarizes what the function accesses
            through its arguments; the interpreter runs its body at each
            call. Not in launchers or programs written to be captured.
  parallel  (--control-flow only) scf.parallel over 0-3 iterations, in
            loops and branches too: the body allocates 1-2 buffers, writes
            only those and reads buffers from outside (no race between its
            iterations); the interpreter runs the iterations in order, as
            -convert-scf-to-cf lowers them. Not in async.execute bodies,
            launchers or programs written to be captured.
  owned     (3 functions in 10, not those on a caller's stream) a stream
            the function makes, first thing: `%own = llvm.call
            @mgpuStreamCreate()`, 1-2 launches on it, maybe a host load of
            what they access, maybe mgpuStreamSynchronize(%own), then
            mgpuStreamDestroy(%own); the function's other statements come
            after it (ops of unknown effects, host accesses, GPU work). The
            interpreter takes the synchronization as a host wait for the
            stream's work, and a gpu.on_stream or launch on the destroyed
            stream as an invalid output; --run's checking runtime reports a
            use of it.

The checker does not trust the pass: it interprets the pass output as a program
(scripts/verify/async_region_interp.py) with concrete values for its i1 and
index arguments (every combination, or --assignments random ones when there are
more), unrolling loops, taking branches, and following tokens through
iter_args, scf.yield, results and `gpu.wait async` joins. That gives a dynamic
trace: GPU op instances with their happens-before sets, host syncs, host
accesses. For every conflicting pair of accesses in that trace (same or
may-alias buffer, at least one write):

  GPU -> GPU    the second instance happens after the first (its tokens, or
                a synchronous gpu.wait issued between them, reach the first);
  GPU -> host   a synchronous gpu.wait between them reaches the GPU op;
  host -> any   always (the host runs in program order and issues GPU work).

The function's return counts as a host access that reads and writes every
memref argument (the caller may use them), made once the caller has
synchronized the streams the function handed work to (what the host has
waited for, plus what gpu.on_stream handed over); before it,
the stack buffers die: a host write of each memref.alloca buffer with what
the host has waited for alone (handing work to a stream does not keep the
frame alive). A stack buffer made in an scf.for body or an async.execute
body dies at the end of its iteration or body (both are automatic
allocation scopes). Buffers: arguments may alias each other unless marked
{llvm.noalias}, each execution of an allocation is a buffer of its own, and
a view, or a pointer made from a buffer, is its source buffer. The bodies
of async.execute run on host threads of their own: their host waits
complete GPU work for that thread, which another thread sees only at an
async.await (of the !async.token, or of any !async.value of the body: the
program's, or an !async.value<!gpu.async.token> that the pass adds) or when
the body is a dependency of its async.execute or gives it a body operand
(the thread of a body that awaits another body sees what that one
completed, and so does a thread that awaits it in turn); sparse ops access
the buffers of their handles; function bodies of several blocks follow
their cf.br / cf.cond_br; linalg.fill writes its output, linalg.copy reads
its input and writes its output (see scripts/verify/async_region_interp.py
for the model).

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
added (same extra ordered pairs and host syncs); without --shapes, the same
programs as before the shapes were added; with the shapes of before await,
linalg and blocks (pointer, opaque, sparse, async, stack, stream, barrier),
the same programs as before those were added (`all` includes them). The
input itself is checked the same way (no async.execute body may race with
the function's thread): a violation there is a bug of the oracle and stops
it. The shapes run in every mode of
the pass (--pass-args=-gpu-async-region=max-streams=N: 1, the default, one
chain; 2 and 0, the dependence mode).

  scripts/verify/async-region-oracle.py [-n 1000] [--seed 1] [--control-flow]
      [--noalias] [--assignments 16] [--pass-args=PIPELINE] [--run]
      [--keep FILE] [--canonicalize] [--drop-host-waits] [--drop-token-deps]
      [--shapes LIST|all] [--compare-upstream [MLIR_OPT]]
  scripts/verify/async-region-oracle.py --check FILE... [--pass-args=PIPELINE]

--canonicalize makes the pass's input the generated module after
-canonicalize (which folds loops of 0 or 1 iteration, branches into
selects, and drops unused loads), and interprets that as the input.

--drop-host-waits ignores the synchronous waits of the output, and
--drop-token-deps the token operands of its GPU ops (a GPU op then waits
only for what the host has waited for), to show that the oracle does report
missing orderings. --run also lowers the output with
-gpu-lower-to-nvvm-pipeline and runs it with mlir-runner and the checking GPU
runtime (build/lib/libmlir_gpu_check_runtime.so), calling each program with
each checked assignment (50 programs per process): no stream or
event may leak or be misused. Modules with linalg ops get
-convert-linalg-to-loops first. Modules with async.execute are lowered further
with the async dialect's passes (ASYNC_LOWERING) and run with the async
runtime at -O0 (mlir-runner's default -O2 does not survive the coroutines);
each of their async.execute ops gets an attribute of its own first, so that
the CSE of the GPU pipeline does not merge two whose bodies are left without
effects (distinct_executes);
programs on a caller's stream get one from @main (mgpuStreamCreate,
synchronized after each call, destroyed at the end, declared as llvm.func).
Such a program whose lowered function (and the functions it calls) neither
synchronizes the host nor allocates or frees device memory without a stream
(with one, the wrappers do it in stream order), and whose GPU work after the
pass is all in gpu.on_stream bodies or launched on a stream (work outside
runs on a stream the function makes, see outside_token_work), is
capturable: it
is called once more, for its first assignment, while @main captures the
stream into a graph (mgpuStreamBeginCapture/EndCapture, the pools filled
ahead by mgpuStreamPoolReserve/mgpuEventPoolReserve), and the graph is
launched on the stream; the checking runtime's capture mode then reports
work left out of the capture, work on streams outside it, and what a
capture forbids. A program written to be captured (see `stream`) that is
not capturable fails. The summary counts the programs captured.
--keep writes the generated module to FILE, and each program that fails
alone to FILE.pN.mlir.

--compare-upstream also runs upstream's -gpu-async-region (Debian's mlir-opt:
$UPSTREAM_MLIR_OPT or /usr/lib/llvm-23/bin/mlir-opt, or the one given) on
the programs it can handle (not those on a caller's stream: upstream has no
gpu.on_stream; nor those with gpu.spmm: upstream's pass makes an invalid
gpu.spmm_buffer_size), isolating those its pass fails on, interprets its
output the same way and prints one more line: programs compared and skipped
(with the reasons), the violations of upstream's output under this model,
and the conflicting pairs that upstream's output orders and the output
checked does not, which must be 0.

--check FILE... checks hand-written modules instead (reduced examples,
regression tests): the pass runs on each file, and each public function but
@main is checked like a generated program (i1 and index arguments take
their values as in generated programs, !llvm.ptr arguments are caller
streams; kernels of @blobs have the effects of OPAQUE_TABLE); one line per
file.

Exits 1 on a violation, an invalid output, a tool failure, or (with
--compare-upstream) a pair that upstream orders and the output does not.
Uses build/bin/mlir-opt, or $MLIR_OPT (e.g. Debian's, for the upstream pass).
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
                                 check_trace, compare_traces)
from mlir_generic_form import parse_generic
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import in_sysroot  # noqa: E402 (scripts/in_sysroot.py)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MLIR_OPT = os.environ.get("MLIR_OPT",
                          os.path.join(ROOT, "build", "bin", "mlir-opt"))
RUNTIME = os.path.join(ROOT, "build", "lib", "libmlir_gpu_check_runtime.so")
LLVM_PREFIX = os.environ.get("LLVM_PREFIX", "/usr/lib/llvm-23")
# Upstream's mlir-opt (Debian's), for --compare-upstream.
UPSTREAM_MLIR_OPT = os.environ.get(
    "UPSTREAM_MLIR_OPT", os.path.join(LLVM_PREFIX, "bin", "mlir-opt"))
# The async dialect's lowering, after -gpu-lower-to-nvvm-pipeline, for
# programs with async.execute (--run).
ASYNC_LOWERING = ["-async-to-async-runtime", "-async-runtime-ref-counting",
                  "-async-runtime-ref-counting-opt", "-convert-async-to-llvm",
                  "-convert-to-llvm", "-reconcile-unrealized-casts"]
MEMREF = "memref<16xf32>"
BYTES = "memref<64xi8>"
# Programs per mlir-runner process with --run.
RUN_BATCH = 50
# Failing programs isolated (by bisection) before the rest is given up.
MAX_ISOLATED = 10

# Kernel argument effects: R (reads), W (writes), RW.
KERNELS = [("R", "W"), ("W", "R"), ("RW", "R"), ("R", "R"), ("W", "W"),
           ("RW", "RW")]

# Host functions with bodies: the pass, run on the module, summarizes what
# they access through their arguments; the interpreter runs their bodies.
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


def stream_launch_text(k, a, b, stream="%stream"):
    """A launch on the caller's stream `stream` (stream-based: no tokens)."""
    return f"gpu.launch_func <{stream} : !llvm.ptr> " + launch_text(k, a, b)[
        len("gpu.launch_func "):]


# ---------------------------------------------------------------------------
# Shapes (--shapes): more kinds of kernels and GPU ops.
# ---------------------------------------------------------------------------

SHAPES = ["pointer", "opaque", "sparse", "async", "stack", "stream",
          "barrier", "await", "linalg", "blocks", "calls", "parallel",
          "owned"]
INDICES = "memref<16xi32>"
SCRATCH = "memref<?xi8>"
# The type of each kind of kernel operand.
OPERAND_TYPES = {"memref": MEMREF, "i64": "i64", "ptr": "!llvm.ptr"}

# Pointer kernels (@kernels::@pkN): per argument, its kind and effect; i64
# arguments are turned into pointers in the kernel (and offset by
# llvm.getelementptr).
POINTER_KERNELS = [(("ptr", "R"), ("ptr", "W")), (("ptr", "RW"),),
                   (("i64", "W"), ("memref", "R")),
                   (("i64", "R"), ("ptr", "RW")),
                   (("memref", "W"), ("i64", "RW"))]
# llvm.func kernels in the gpu.module (@kernels::@lkN): pointer arguments.
LLVM_KERNELS = [(("ptr", "R"), ("ptr", "W")), (("ptr", "RW"),),
                (("ptr", "W"), ("ptr", "R"))]
# Kernels of a gpu.binary (@blobs::@okN): the pass cannot see their bodies;
# the oracle knows their effects (OPAQUE_TABLE, given to the interpreter).
BINARY_KERNELS = [(("memref", "R"), ("memref", "W")), (("i64", "RW"),),
                  (("i64", "W"), ("memref", "R")),
                  (("memref", "RW"), ("i64", "R"))]
OPAQUE_TABLE = {f"@blobs::@ok{i}": [e for _, e in spec]
                for i, spec in enumerate(BINARY_KERNELS)}
# Kernels with gpu.barrier and workgroup memory (@kernels::@bkN): memref
# arguments, and whether the kernel uses a workgroup attribution ("attr") or
# dynamic shared memory ("dynamic", launched with
# dynamic_shared_memory_size).
BARRIER_KERNELS = [(("R", "W"), "attr"), (("RW",), "dynamic"),
                   (("R", "RW"), "dynamic"), (("W", "R"), "attr")]
WORKGROUP = "memref<16xf32, #gpu.address_space<workgroup>>"
# Kernels whose effects on their memref arguments come from linalg.fill and
# linalg.copy (@kernels::@fkN): per argument, its effect (LINALG_BODIES has
# their bodies: a fill; a copy; a copy then a fill of its input; a fill
# through memref.cast and a load; a copy between subviews).
LINALG_KERNELS = [("W",), ("R", "W"), ("RW", "W"), ("W", "R"), ("R", "W")]
STRIDED = "memref<8xf32, strided<[1]>>"
STRIDED8 = "memref<8xf32, strided<[1], offset: 8>>"
LINALG_BODIES = [
    [f"linalg.fill ins(%f : f32) outs(%a0 : {MEMREF})"],
    [f"linalg.copy ins(%a0 : {MEMREF}) outs(%a1 : {MEMREF})"],
    [f"linalg.copy ins(%a0 : {MEMREF}) outs(%a1 : {MEMREF})",
     f"linalg.fill ins(%f : f32) outs(%a0 : {MEMREF})"],
    [f"%d = memref.cast %a0 : {MEMREF} to memref<?xf32>",
     "linalg.fill ins(%f : f32) outs(%d : memref<?xf32>)",
     f"%v = memref.load %a1[%c0] : {MEMREF}"],
    [f"%s = memref.subview %a0[0] [8] [1] : {MEMREF} to {STRIDED}",
     f"%d = memref.subview %a1[8] [8] [1] : {MEMREF} to {STRIDED8}",
     f"linalg.copy ins(%s : {STRIDED}) outs(%d : {STRIDED8})"]]
# A gpu.binary whose object the checking runtime loads without reading it.
BINARY_TEXT = ('  gpu.binary @blobs [#gpu.object<#nvvm.target, '
               '"opaque kernels">]\n')
# The runtime functions @main calls for programs on a caller's stream.
STREAM_DECLS = """  llvm.func @mgpuStreamCreate() -> !llvm.ptr
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  llvm.func @mgpuStreamBeginCapture(!llvm.ptr)
  llvm.func @mgpuStreamEndCapture(!llvm.ptr) -> !llvm.ptr
  llvm.func @mgpuGraphLaunch(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuGraphDestroy(!llvm.ptr)
  llvm.func @mgpuStreamPoolReserve(i32)
  llvm.func @mgpuEventPoolReserve(i32)
"""
# The first line of a stream a function makes (see the owned shape).
OWNED_STREAM = "%own = llvm.call @mgpuStreamCreate()"
# The streams and events the pools hold before a capture: a capture takes
# a new stream for each one its function acquires (one released in the
# capture is still part of it).
CAPTURE_RESERVE = 512
# Runtime functions that a capture forbids: they synchronize the host.
CAPTURE_FORBIDDEN = re.compile(
    r"^mgpu\w*(Synchronize|HostRegister|HostUnregister)")
# Runtime functions that a capture forbids without a stream (the wrappers
# then allocate or free synchronously), by the index of their stream operand.
# With one they allocate and free in stream order, which a capture allows
# where the memory is freed in it: only in programs written to be captured,
# which free each buffer in the block that allocates it.
CAPTURE_STREAM_OPERAND = {"mgpuMemAlloc": 1, "mgpuMemFree": 1}
# Host functions that a captured program may call.
CAPTURE_HOST_CALLS = {"malloc", "free", "aligned_alloc"}

# The statement kinds left out of a program on a caller's stream written to
# be captured: host accesses to GPU data, host allocation, calls (of unknown
# effects to the pass: the host waits before them), branches between blocks
# (the host waits at the end of each block of a body of several), and shapes
# that synchronize the host or use the async runtime. Device memory is allocated
# and freed in the region, in stream order.
# The statement kinds left out of a launcher (see ControlFlowProgram): GPU
# work that is not a launch on the caller's stream, and calls that launch on
# it (a launcher may then use %stream only as a call operand, and the pass
# does not take a pointer it does not use as a stream for one).
LAUNCHER_EXCLUDED = ["launch", "memcpy", "memset", "gpu_alloc", "sparse",
                     "async", "await", "pointer_launch", "opaque_launch",
                     "barrier_launch", "linalg_launch", "linalg_host",
                     "shape_call", "alloca", "blocks", "callee_call",
                     "parallel"]
CAPTURE_EXCLUDED = ["load", "store", "host_alloc", "call",
                    "stream_call", "sparse", "async", "alloca", "shape_call",
                    "await", "linalg_host", "callee_call", "parallel"]

# A function that gets a caller's stream and launches on it, leaving the
# work on the stream when it returns, and one that passes it on to that one
# (the pass, run on the module, finds their stream arguments first).
STREAM_FUNCTIONS = f"""  func.func private @launch_on(%s : !llvm.ptr, %m : {MEMREF}) {{
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@k{len(KERNELS) - 1} blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : {MEMREF}, %m : {MEMREF})
    return
  }}
  func.func private @launch_via(%m : {MEMREF}, %s : !llvm.ptr) {{
    func.call @launch_on(%s, %m) : (!llvm.ptr, {MEMREF}) -> ()
    return
  }}
"""


def stream_call_text(buffer, stream="%stream", via=False):
    """A call that hands a caller's stream to @launch_on with `buffer`, or
    to @launch_via, which passes it on to @launch_on."""
    if via:
        return (f"func.call @launch_via({buffer}, {stream}) : "
                f"({MEMREF}, !llvm.ptr) -> ()")
    return (f"func.call @launch_on({stream}, {buffer}) : "
            f"(!llvm.ptr, {MEMREF}) -> ()")


def pointer_kernel_text(index, spec):
    body = ["      %c0 = arith.constant 0 : index",
            "      %f = arith.constant 1.0 : f32"]
    for arg, (kind, effect) in enumerate(spec):
        a = f"%a{arg}"
        if kind == "memref":
            if "R" in effect:
                body.append(f"      %v{arg} = memref.load {a}[%c0] : {MEMREF}")
            if "W" in effect:
                body.append(f"      memref.store %f, {a}[%c0] : {MEMREF}")
            continue
        if kind == "i64":
            body.append(f"      %p{arg} = llvm.inttoptr {a} : i64 to "
                        "!llvm.ptr")
            body.append(f"      %q{arg} = llvm.getelementptr %p{arg}[1] : "
                        "(!llvm.ptr) -> !llvm.ptr, f32")
            a = f"%q{arg}"
        if "R" in effect:
            body.append(f"      %v{arg} = llvm.load {a} : !llvm.ptr -> f32")
        if "W" in effect:
            body.append(f"      llvm.store %f, {a} : f32, !llvm.ptr")
    args = ", ".join(f"%a{i} : {OPERAND_TYPES[k]}"
                     for i, (k, _) in enumerate(spec))
    return (f"    gpu.func @pk{index}({args}) kernel {{\n" +
            "\n".join(body) + "\n      gpu.return\n    }\n")


def llvm_kernel_text(index, spec):
    body = ["      %f = llvm.mlir.constant(1.0 : f32) : f32"]
    for arg, (_, effect) in enumerate(spec):
        if "R" in effect:
            body.append(f"      %v{arg} = llvm.load %a{arg} : !llvm.ptr -> "
                        "f32")
        if "W" in effect:
            body.append(f"      llvm.store %f, %a{arg} : f32, !llvm.ptr")
    args = ", ".join(f"%a{i} : !llvm.ptr" for i in range(len(spec)))
    return (f"    llvm.func @lk{index}({args}) attributes {{gpu.kernel, "
            f"nvvm.kernel}} {{\n" + "\n".join(body) +
            "\n      llvm.return\n    }\n")


def barrier_kernel_text(index, effects, memory):
    """A kernel that stages its first argument through workgroup memory
    (stored, gpu.barrier, loaded back) besides its argument effects."""
    body = ["      %c0 = arith.constant 0 : index",
            "      %f = arith.constant 1.0 : f32"]
    attribution = ""
    if memory == "attr":
        attribution = f" workgroup(%w : {WORKGROUP})"
    else:
        body += ["      %d = gpu.dynamic_shared_memory : memref<?xi8, "
                 "#gpu.address_space<workgroup>>",
                 "      %w = memref.view %d[%c0][] : memref<?xi8, "
                 f"#gpu.address_space<workgroup>> to {WORKGROUP}"]
    body += [f"      memref.store %f, %w[%c0] : {WORKGROUP}",
             "      gpu.barrier",
             f"      %s = memref.load %w[%c0] : {WORKGROUP}"]
    for arg, effect in enumerate(effects):
        if "R" in effect:
            body.append(f"      %v{arg} = memref.load %a{arg}[%c0] : {MEMREF}")
        if "W" in effect:
            body.append(f"      memref.store %s, %a{arg}[%c0] : {MEMREF}")
    body.append("      gpu.barrier")
    args = ", ".join(f"%a{i} : {MEMREF}" for i in range(len(effects)))
    return (f"    gpu.func @bk{index}({args}){attribution} kernel {{\n" +
            "\n".join(body) + "\n      gpu.return\n    }\n")


def linalg_kernel_text(index, effects):
    body = ["      %c0 = arith.constant 0 : index",
            "      %f = arith.constant 1.0 : f32"]
    body += ["      " + line for line in LINALG_BODIES[index]]
    args = ", ".join(f"%a{i} : {MEMREF}" for i in range(len(effects)))
    return (f"    gpu.func @fk{index}({args}) kernel {{\n" +
            "\n".join(body) + "\n      gpu.return\n    }\n")


def shape_kernels_text(shapes=()):
    """The kernels of the shapes, for the gpu.module @kernels (those of the
    linalg shape only with it)."""
    return ("".join(pointer_kernel_text(i, s)
                    for i, s in enumerate(POINTER_KERNELS)) +
            "".join(llvm_kernel_text(i, s)
                    for i, s in enumerate(LLVM_KERNELS)) +
            "".join(barrier_kernel_text(i, e, m)
                    for i, (e, m) in enumerate(BARRIER_KERNELS)) +
            ("".join(linalg_kernel_text(i, e)
                     for i, e in enumerate(LINALG_KERNELS))
             if "linalg" in shapes else ""))


def kernel_launch(kernel, operands, smem=False):
    """gpu.launch_func of `kernel` ('@kernels::@pk0') with (value, type)
    operands."""
    args = ", ".join(f"{v} : {t}" for v, t in operands)
    size = " dynamic_shared_memory_size %ksmem" if smem else ""
    return (f"gpu.launch_func {kernel} blocks in (%c1, %c1, %c1) threads in "
            f"(%c1, %c1, %c1){size} args({args})")


# ---------------------------------------------------------------------------
# Generators
# ---------------------------------------------------------------------------

class Program:
    """A straight-line program: one function over 1-3 memref arguments
    (marked {llvm.noalias} with `noalias`) and the buffers it allocates.
    (Kept as it was before control flow, so that a seed gives the same
    programs and figures as before; `shapes` adds statement kinds, see
    SHAPES, and with "stream" a caller's stream argument.)"""

    def __init__(self, rng, index, noalias=False, shapes=()):
        self.rng = rng
        self.index = index
        self.name = f"@p{index}"
        self.noalias = noalias
        self.shapes = set(shapes)
        self.lines = []
        self.nargs = rng.randint(1, 3)
        self.args = [f"%arg{i}" for i in range(self.nargs)]
        self.gpu_buffers = []
        self.host_buffers = []
        self.stack_buffers = []
        self.counter = 0
        # Scalar (i1, index) arguments and the values they are checked with.
        self.scalars = []
        self.assignments = [()]
        # A caller's stream: an !llvm.ptr argument, and the statements from
        # one of `boundaries` (the starts of the top-level statements) on in
        # a gpu.on_stream region on it, followed by `stream_after`.
        self.stream = "stream" in self.shapes and rng.random() < 0.4
        # Whether the program is written to be captured, and whether it is a
        # launcher (ControlFlowProgram), and whether the caller's earlier
        # work on %stream is pending at the entry (stream_region).
        self.capture_clean = False
        self.launcher = False
        self.two_streams = False
        self.caller_work = False
        self.boundaries = []
        # Pointers made from buffers: (buffer, "i64"/"ptr") -> value.
        self.pointers = {}
        # Sparse handle sets created and not destroyed yet.
        self.sparse = []
        self.extra_indent = ""
        # Whether statements run in an async.execute body.
        self.in_async = False
        # The blocks shape: block arguments that carry buffers (merged at a
        # join, swapped through a loop header), by where they may be used
        # (GPU and host, GPU only, host only); the nesting of its branches.
        self.joined = {"both": [], "dev": [], "host": []}
        self.cfg_depth = 0

    def fresh(self):
        self.counter += 1
        return f"%b{self.counter}"

    def op(self, line):
        self.lines.append("    " + self.extra_indent + line)

    # (The joined lists are empty without the blocks shape: the choices stay
    # those of old seeds.)
    def device_pool(self):
        return (self.args + self.gpu_buffers + self.stack_buffers +
                self.joined["both"] + self.joined["dev"])

    def host_pool(self):
        return (self.args + self.host_buffers + self.stack_buffers +
                self.joined["both"] + self.joined["host"])

    def device_buffer(self):
        return self.rng.choice(self.device_pool())

    def any_buffer(self):
        return self.rng.choice(self.args + self.gpu_buffers +
                               self.host_buffers + self.stack_buffers +
                               self.joined["both"] + self.joined["dev"] +
                               self.joined["host"])

    def host_buffer(self):
        return self.rng.choice(self.host_pool())

    def statement_kinds(self):
        """The names of the statement kinds to draw from, and their weights:
        the old kinds, then those of the enabled shapes."""
        names = ["launch", "memcpy", "memset", "load", "store", "host_alloc",
                 "gpu_alloc"]
        weights = [6, 3, 2, 2, 2, 2, 1]
        for kind, weight in self.shape_kinds():
            names.append(kind)
            weights.append(weight)
        return names, weights

    def shape_kinds(self):
        """The statement kinds of the enabled shapes, with their weights
        (small: the old kinds dominate)."""
        kinds = {"pointer_launch": 1.5 * ("pointer" in self.shapes),
                 "opaque_launch": 1.5 * ("opaque" in self.shapes),
                 "sparse": 1.5 * ("sparse" in self.shapes),
                 "async": 1.5 * ("async" in self.shapes and
                                 not self.in_async),
                 "alloca": 1 * ("stack" in self.shapes),
                 "barrier_launch": 1 * ("barrier" in self.shapes),
                 "await": 1.5 * ("await" in self.shapes and
                                 not self.in_async),
                 # Not in async.execute bodies: the lowering of --run makes
                 # loops, then blocks, of it.
                 "linalg_host": 1 * ("linalg" in self.shapes and
                                     not self.in_async),
                 "linalg_launch": 1 * ("linalg" in self.shapes),
                 "blocks": 1.5 * ("blocks" in self.shapes and
                                  not self.in_async and not self.stream and
                                  self.cfg_depth < 2),
                 # A launch on the caller's stream, inside the region on it
                 # or before it, and a call that launches on it.
                 "stream_launch": 1.5 * (self.stream and not self.in_async),
                 "stream_call": 0.75 * (self.stream and not self.in_async)}
        return [(k, w) for k, w in kinds.items() if w]

    def generate(self):
        rng = self.rng
        for _ in range(rng.randint(0, 2)):
            b = self.fresh()
            self.op(f"{b} = gpu.alloc () : {MEMREF}")
            self.gpu_buffers.append(b)
        names, weights = self.statement_kinds()
        for _ in range(rng.randint(4, 16)):
            kind = rng.choices(names, weights=weights)[0]
            self.boundaries.append(len(self.lines))
            self.statement(kind)
        while self.sparse:
            self.sparse_flush(self.sparse.pop(0))
        for b in self.gpu_buffers:
            if rng.random() < 0.5:
                self.op(f"gpu.dealloc {b} : {MEMREF}")

    def statement(self, kind):
        """Appends a statement of `kind` (a name of generate's list)."""
        rng = self.rng
        if kind == "launch":
            k = rng.randrange(len(KERNELS))
            a, b = self.device_buffer(), self.device_buffer()
            self.op(launch_text(k, a, b))
        elif kind == "stream_launch":
            k = rng.randrange(len(KERNELS))
            a, b = self.device_buffer(), self.device_buffer()
            self.op(stream_launch_text(k, a, b))
        elif kind == "stream_call":
            self.op(stream_call_text(self.device_buffer(),
                                     via=rng.random() < 0.3))
        elif kind == "memcpy":
            dst, src = self.any_buffer(), self.any_buffer()
            if dst == src:
                return
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
        elif kind == "alloca":
            b = self.fresh()
            self.op(f"{b} = memref.alloca() : {MEMREF}")
            self.stack_buffers.append(b)
        elif kind in ("pointer_launch", "opaque_launch", "barrier_launch"):
            self.shape_launch(kind, lambda write: self.device_buffer(),
                              self.pointers)
        elif kind == "sparse":
            if self.sparse and rng.random() < 0.6:
                self.spmv(rng.choice(self.sparse))
            else:
                handles = self.sparse_create(
                    lambda write: self.device_buffer())
                if handles:
                    self.sparse.append(handles)
                    if rng.random() < 0.4:
                        self.spmv(handles)
        elif kind == "async":
            self.gen_async_straight()
        elif kind in ("await", "linalg_host", "linalg_launch", "blocks"):
            getattr(self, "gen_" + kind)(None)

    # Shapes, shared with ControlFlowProgram ------------------------------

    def pointer(self, buffer, kind, cache):
        """The value of kind "memref", "i64" or "ptr" that points to
        `buffer`: the buffer itself, or a pointer made from it (reused from
        `cache` half of the time). Returns (value, type)."""
        if kind == "memref":
            return buffer, MEMREF
        if (buffer, kind) in cache and self.rng.random() < 0.5:
            return cache[(buffer, kind)], OPERAND_TYPES[kind]
        n = self.fresh()[2:]
        if kind == "ptr" and (buffer, "i64") in cache and \
                self.rng.random() < 0.5:
            self.op(f"%pp{n} = llvm.inttoptr {cache[(buffer, 'i64')]} : i64 "
                    "to !llvm.ptr")
            cache[(buffer, "ptr")] = f"%pp{n}"
            return f"%pp{n}", "!llvm.ptr"
        self.op(f"%pi{n} = memref.extract_aligned_pointer_as_index {buffer} : "
                f"{MEMREF} -> index")
        self.op(f"%pl{n} = arith.index_cast %pi{n} : index to i64")
        cache[(buffer, "i64")] = f"%pl{n}"
        if kind == "i64":
            return f"%pl{n}", "i64"
        self.op(f"%pp{n} = llvm.inttoptr %pl{n} : i64 to !llvm.ptr")
        cache[(buffer, "ptr")] = f"%pp{n}"
        return f"%pp{n}", "!llvm.ptr"

    def shape_launch(self, kind, pick, cache):
        """A launch of a pointer kernel, an opaque kernel (of the gpu.binary
        or an llvm.func) or a barrier kernel; pick(write) returns a buffer
        the GPU may access (and write), or None."""
        rng = self.rng
        smem = False
        if kind == "pointer_launch":
            k = rng.randrange(len(POINTER_KERNELS))
            kernel, spec = f"@kernels::@pk{k}", POINTER_KERNELS[k]
        elif kind == "opaque_launch" and rng.random() < 0.5:
            k = rng.randrange(len(BINARY_KERNELS))
            kernel, spec = f"@blobs::@ok{k}", BINARY_KERNELS[k]
        elif kind == "opaque_launch":
            k = rng.randrange(len(LLVM_KERNELS))
            kernel, spec = f"@kernels::@lk{k}", LLVM_KERNELS[k]
        elif kind == "linalg_launch":
            k = rng.randrange(len(LINALG_KERNELS))
            kernel = f"@kernels::@fk{k}"
            spec = [("memref", e) for e in LINALG_KERNELS[k]]
        else:
            k = rng.randrange(len(BARRIER_KERNELS))
            effects, memory = BARRIER_KERNELS[k]
            kernel = f"@kernels::@bk{k}"
            spec = [("memref", e) for e in effects]
            smem = memory == "dynamic"
        buffers = [pick("W" in effect) for _, effect in spec]
        if None in buffers:
            return
        operands = [self.pointer(b, k, cache)
                    for b, (k, _) in zip(buffers, spec)]
        self.op(kernel_launch(kernel, operands, smem))

    def sparse_create(self, pick):
        """Sparse handles: a CSR or COO matrix A over fresh index buffers and
        a values buffer, and X and Y over buffers: dense vectors (for
        gpu.spmv) or, a third of the time, 4x4 dense matrices (for gpu.spmm
        and gpu.sddmm). Returns a dict, or None if there are no buffers to
        use."""
        rng = self.rng
        values, x, y = pick(False), pick(False), pick(True)
        if not (values and x and y):
            return None
        n = self.fresh()[2:]
        h = {"n": n, "indices": f"%ix{n}", "A": f"%sa{n}", "X": f"%sx{n}",
             "Y": f"%sy{n}", "values": values, "y": y, "used": False,
             "matrix": rng.random() < 0.35}
        self.op(f"{h['indices']} = gpu.alloc () : {INDICES}")
        self.op(f"gpu.memset {h['indices']}, %k1i : {INDICES}, i32")
        form = rng.choice(["csr", "coo"])
        self.op(f"{h['A']} = gpu.create_{form} %k4, %k4, %k4, "
                f"{h['indices']}, {h['indices']}, {values} : {INDICES}, "
                f"{INDICES}, {MEMREF}")
        dims = ("%k4, %k4 : index, index" if h["matrix"]
                else "%k16 : index")
        for handle, buffer in (("X", x), ("Y", y)):
            self.op(f"{h[handle]} = gpu.create_dn_tensor {buffer}, {dims} "
                    f"into {MEMREF}")
        return h

    @staticmethod
    def sparse_ops(h, writable):
        """The operations handle set h allows where writable(buffer) says
        which buffers may be written: "spmv" or "spmm" (write Y), "sddmm"
        (writes A's values)."""
        if not h:
            return []
        ops = [("spmm" if h["matrix"] else "spmv")] * writable(h["y"])
        return ops + ["sddmm"] * (h["matrix"] and writable(h["values"]))

    def spmv(self, h, writable=lambda buffer: True):
        """An operation on handle set h (Y = A X + Y, or for matrices
        sometimes C = X Y restricted to A's pattern, into A's values), with a
        scratch buffer of the size cuSPARSE asks for."""
        ops = self.sparse_ops(h, writable)
        if not ops:
            return
        op = self.rng.choice(ops)
        n = self.fresh()[2:]
        operands = (f"{h['X']}, {h['Y']}, {h['A']}" if op == "sddmm"
                    else f"{h['A']}, {h['X']}, {h['Y']}")
        size_type = " : index" if op == "spmm" else ""
        self.op(f"%sz{n} = gpu.{op}_buffer_size {operands}{size_type} into "
                "f32")
        self.op(f"%scr{n} = gpu.alloc (%sz{n}) : {SCRATCH}")
        self.op(f"gpu.{op} {operands}, %scr{n} : {SCRATCH} into f32")
        self.op(f"gpu.dealloc %scr{n} : {SCRATCH}")
        h["used"] = True

    def sparse_flush(self, h):
        """Destroys a handle set (after one operation if it had none)."""
        if not h:
            return
        if not h["used"]:
            self.spmv(h)
        self.op(f"gpu.destroy_dn_tensor {h['X']}")
        self.op(f"gpu.destroy_dn_tensor {h['Y']}")
        self.op(f"gpu.destroy_sp_mat {h['A']}")
        self.op(f"gpu.dealloc {h['indices']} : {INDICES}")

    def gen_async_straight(self):
        """One or two async.execute ops (the second depending on the first)
        whose bodies make 1-3 GPU or host accesses, then maybe fresh
        allocations, then an await of the last one."""
        rng = self.rng
        tokens = []
        for _ in range(1 if rng.random() < 0.7 else 2):
            t = f"%at{self.fresh()[2:]}"
            deps = f" [{tokens[-1]}]" if tokens else ""
            self.op(f"{t} = async.execute{deps} {{")
            body, state = self.enter_body(None)
            self.body_block(body, rng.randint(1, 3))
            self.leave_body(body, state)
            self.op("}")
            tokens.append(t)
        # Nothing that conflicts with the bodies until the await.
        self.fresh_allocs(None)
        self.op(f"async.await {tokens[-1]} : !async.token")

    # Hooks of the shared generators (gen_await, gen_blocks, gen_linalg_*):
    # here for straight-line programs (ctx is None), overridden by
    # ControlFlowProgram (ctx is the Scope).

    def enter_body(self, ctx):
        """Starts the body of an async.execute (after its first line).
        Returns (the body's ctx, what leave_body restores)."""
        state = (self.pointers, self.sparse, self.stack_buffers,
                 self.in_async)
        self.extra_indent += "  "
        self.in_async = True
        # Values made in the body are not visible after it.
        self.pointers = dict(state[0])
        self.sparse = list(state[1])
        self.stack_buffers = list(state[2])
        return None, state

    def leave_body(self, ctx, state, yield_line="async.yield"):
        """Ends an async.execute body with `yield_line` (the caller writes
        the closing brace): destroys the sparse handles made in it."""
        pointers, sparse, stack, in_async = state
        for h in self.sparse:
            if h not in sparse:
                self.sparse_flush(h)
        self.sparse = sparse
        self.stack_buffers = stack
        self.op(yield_line)
        self.in_async = in_async
        self.extra_indent = self.extra_indent[:-2]
        self.pointers = pointers

    def body_block(self, ctx, count):
        """`count` statements of an async.execute body, on the buffers so
        far (allocations other than stack ones would be visible only in the
        body)."""
        rng = self.rng
        names = ["launch", "memcpy", "memset", "load", "store"]
        weights = [6, 3, 2, 2, 2]
        for kind, weight in self.shape_kinds():
            names.append(kind)
            weights.append(weight)
        for _ in range(count):
            self.statement(rng.choices(names, weights=weights)[0])

    def fresh_allocs(self, ctx):
        """0-2 fresh allocations (all an await may have before it)."""
        rng = self.rng
        for _ in range(rng.choice([0, 0, 1, 2])):
            self.statement(rng.choice(["host_alloc", "gpu_alloc"]))

    def pick_buffer(self, ctx, dev=False, host=False, write=False):
        """A buffer the GPU (dev) and/or the host may access (and write), or
        None."""
        if dev and host:
            pool = self.args + self.stack_buffers + self.joined["both"]
        elif dev:
            pool = self.device_pool()
        elif host:
            pool = self.host_pool()
        else:
            pool = self.device_pool() + self.host_buffers + \
                self.joined["host"]
        return self.rng.choice(pool) if pool else None

    def host_ok(self, ctx, name):
        return name in self.host_pool()

    def branches_here(self, ctx):
        """Whether the blocks shape may branch here."""
        return ("blocks" in self.shapes and not self.in_async and
                not self.stream)

    def cache(self, ctx):
        return self.pointers

    def label(self, text):
        """A block label line ('^bm3(%j3 : memref<16xf32>)')."""
        self.lines.append("  " + self.extra_indent + text + ":")

    def cond(self, ctx):
        """An i1 value to branch on: the function's i1 arguments (made on
        first use in straight-line programs)."""
        conds = [s for s, t in self.scalars if t == "i1"]
        if not conds or (len(conds) < 2 and self.rng.random() < 0.2):
            conds.append(f"%cond{len(conds)}")
            self.scalars.append((conds[-1], "i1"))
        return self.rng.choice(conds)

    def arm(self, ctx, count):
        """`count` statements in a block that does not dominate what
        follows (a branch of the blocks shape): what they make is not
        visible after them; the sparse handles made are destroyed."""
        rng = self.rng
        saved = (self.gpu_buffers, self.host_buffers, self.stack_buffers,
                 self.joined, self.pointers, self.sparse)
        self.gpu_buffers = list(saved[0])
        self.host_buffers = list(saved[1])
        self.stack_buffers = list(saved[2])
        self.joined = {k: list(v) for k, v in saved[3].items()}
        self.pointers = dict(saved[4])
        self.sparse = list(saved[5])
        names, weights = self.statement_kinds()
        for _ in range(count):
            self.statement(rng.choices(names, weights=weights)[0])
        for h in self.sparse:
            if h not in saved[5]:
                self.sparse_flush(h)
        (self.gpu_buffers, self.host_buffers, self.stack_buffers,
         self.joined, self.pointers, self.sparse) = saved

    def pair(self, ctx, dev=False):
        """Two distinct buffers of one kind (for a block argument that is
        either), with that kind; None if there are none."""
        rng = self.rng
        pools = {"both": self.args + self.stack_buffers + self.joined["both"],
                 "dev": self.gpu_buffers + self.joined["dev"],
                 "host": self.host_buffers + self.joined["host"]}
        kinds = [k for k, v in pools.items()
                 if len(set(v)) >= 2 and not (dev and k == "host")]
        if not kinds:
            return None
        kind = rng.choice(kinds)
        a, b = rng.sample(sorted(set(pools[kind])), 2)
        return a, b, kind

    def join(self, ctx, name, pair):
        """Makes block argument `name` (one of `pair`) usable."""
        self.joined[pair[2]].append(name)

    # Shared generators of the await, linalg and blocks shapes ------------

    def gen_linalg_host(self, ctx):
        """linalg.fill or linalg.copy on the host."""
        if self.rng.random() < 0.5:
            b = self.pick_buffer(ctx, host=True, write=True)
            if b:
                self.op(f"linalg.fill ins(%f : f32) outs({b} : {MEMREF})")
            return
        dst = self.pick_buffer(ctx, host=True, write=True)
        src = self.pick_buffer(ctx, host=True)
        if dst and src and dst != src:
            self.op(f"linalg.copy ins({src} : {MEMREF}) outs({dst} : "
                    f"{MEMREF})")

    def gen_linalg_launch(self, ctx):
        self.shape_launch(
            "linalg_launch",
            lambda write: self.pick_buffer(ctx, dev=True, write=write),
            self.cache(ctx))

    def execute(self, ctx, fill, value=False, operand=None):
        """`%wtN[, %wvN] = async.execute [(operand as %wxN)] [->
        !async.value<index>] {...}` with fill(body ctx, %wxN) making its
        body (yielding %c0 or %c1 with a value). Returns (token, value or
        None)."""
        n = self.fresh()[2:]
        t, v, x = f"%wt{n}", f"%wv{n}", f"%wx{n}"
        results = f"{t}, {v}" if value else t
        operands = f" ({operand} as {x} : !async.value<index>)" \
            if operand else ""
        types = " -> !async.value<index>" if value else ""
        self.op(f"{results} = async.execute{operands}{types} {{")
        body, state = self.enter_body(ctx)
        fill(body, x)
        yielded = (f"async.yield %c{self.rng.randrange(2)} : index" if value
                   else "async.yield")
        self.leave_body(body, state, yielded)
        self.op("}")
        return t, (v if value else None)

    def wait_for(self, token, value):
        """An async.await of the value (most of the time, if there is one)
        or of the token."""
        if value and self.rng.random() < 0.7:
            self.op(f"%wa{self.fresh()[2:]} = async.await {value} : "
                    "!async.value<index>")
        else:
            self.op(f"async.await {token} : !async.token")

    def between(self, ctx, token, value):
        """What may come between an async.execute and the await that
        covers it: 0-2 fresh allocations, and with the blocks shape, where
        it may branch, sometimes a cf.br to a new block (passing the token
        and value, or not). Returns the token and value to use after."""
        self.fresh_allocs(ctx)
        if not self.branches_here(ctx) or self.rng.random() >= 0.3:
            return token, value
        n = self.fresh()[2:]
        if self.rng.random() < 0.5:
            self.op(f"cf.br ^bw{n}")
            self.label(f"^bw{n}")
            return token, value
        passed = [(token, f"%wbt{n}", "!async.token")] + (
            [(value, f"%wbv{n}", "!async.value<index>")] if value else [])
        self.op(f"cf.br ^bw{n}({', '.join(v for v, _, _ in passed)} : "
                f"{', '.join(t for _, _, t in passed)})")
        self.label(f"^bw{n}(" + ", ".join(f"{a} : {t}" for _, a, t in passed)
                   + ")")
        return f"%wbt{n}", (f"%wbv{n}" if value else None)

    def gpu_target(self, ctx, target):
        """GPU work that writes `target` (a memset, or a kernel writing its
        first argument)."""
        if target is None:
            return
        rng = self.rng
        if rng.random() < 0.4:
            self.op(f"gpu.memset {target}, %f : {MEMREF}, f32")
            return
        k = rng.choice([1, 2, 4, 5])
        other = self.pick_buffer(ctx, dev=True,
                                 write="W" in KERNELS[k][1]) or target
        self.op(launch_text(k, target, other))

    def touch(self, ctx, target, index="%c0"):
        """An access of `target` by the host (a load or store at `index`) or
        the GPU (a memset, or a kernel reading it)."""
        if target is None:
            return
        rng = self.rng
        if self.host_ok(ctx, target) and rng.random() < 0.6:
            if rng.random() < 0.5:
                self.op(f"{self.fresh()} = memref.load {target}[{index}] : "
                        f"{MEMREF}")
            else:
                self.op(f"memref.store %f, {target}[{index}] : {MEMREF}")
        elif rng.random() < 0.5:
            self.op(f"gpu.memset {target}, %f : {MEMREF}, f32")
        else:
            self.op(launch_text(3, target, target))

    def gen_await(self, ctx):
        """async.execute ops that other ones wait for (see the await shape
        in the module docstring): a first body writes a target buffer on the
        GPU; then a second async.execute awaits it (its token or value)
        first thing in its body ("in_body"), or makes it in its body and
        awaits it there ("nested"), or takes its value as a body operand
        ("operand", the body may access the target at once); or the function
        awaits the first one's value ("value", the token later or never).
        The function awaits the last one (value or token) and accesses the
        target. Between an async.execute and the await that covers it there
        are fresh allocations at most, and with the blocks shape maybe a
        branch to a new block (between)."""
        rng = self.rng
        form = rng.choice(["in_body", "in_body", "nested", "value",
                           "operand"])
        target = self.pick_buffer(ctx, dev=True, write=True)

        def first(body, _):
            self.gpu_target(body, target)
            self.body_block(body, rng.randint(0, 2))

        if form == "in_body":
            ta, va = self.between(ctx, *self.execute(ctx, first,
                                                     rng.random() < 0.5))

            def second(body, _):
                self.wait_for(ta, va if rng.random() < 0.8 else None)
                self.body_block(body, rng.randint(0, 2))
            self.wait_for(*self.between(
                ctx, *self.execute(ctx, second, rng.random() < 0.3)))
        elif form == "nested":
            def outer(body, _):
                self.wait_for(*self.execute(body, first,
                                            rng.random() < 0.5))
                self.body_block(body, rng.randint(0, 2))
            self.wait_for(*self.between(
                ctx, *self.execute(ctx, outer, rng.random() < 0.3)))
        elif form == "value":
            t, v = self.between(ctx, *self.execute(ctx, first, True))
            self.op(f"%wa{self.fresh()[2:]} = async.await {v} : "
                    "!async.value<index>")
            self.touch(ctx, target)
            if rng.random() < 0.5:
                self.op(f"async.await {t} : !async.token")
            return
        else:
            t1, v1 = self.between(ctx, *self.execute(ctx, first, True))

            def second(body, x):
                if rng.random() < 0.6:
                    self.touch(body, target, x)
                self.body_block(body, rng.randint(0, 2))
            self.wait_for(*self.between(
                ctx, *self.execute(ctx, second, rng.random() < 0.3, v1)))
            self.touch(ctx, target)
            if rng.random() < 0.3:
                self.wait_for(t1, v1)
            return
        self.touch(ctx, target)

    def gen_blocks(self, ctx):
        """Branches between blocks of the function body (see the blocks
        shape in the module docstring): a diamond (cf.cond_br to two
        blocks that branch to a join), a skip (cf.cond_br to a block or
        past it), a loop (a header block counting to a constant, 0-3
        iterations, maybe swapping two buffers through its arguments), or a
        plain cf.br to the next block. Buffers flow through block arguments
        half of the time."""
        rng = self.rng
        n = self.fresh()[2:]
        form = rng.choice(["diamond", "diamond", "skip", "loop", "loop",
                           "jump"])
        self.cfg_depth += 1
        if form == "jump":
            self.op(f"cf.br ^bj{n}")
            self.label(f"^bj{n}")
        elif form in ("diamond", "skip"):
            cond = self.cond(ctx)
            pair = self.pair(ctx) if rng.random() < 0.5 else None

            def to(x):
                return f"({x} : {MEMREF})" if pair else ""
            a, b = pair[:2] if pair else (None, None)
            if form == "diamond":
                self.op(f"cf.cond_br {cond}, ^bt{n}, ^bf{n}")
                self.label(f"^bt{n}")
                self.arm(ctx, rng.randint(1, 3))
                self.op(f"cf.br ^bm{n}{to(a)}")
                self.label(f"^bf{n}")
                self.arm(ctx, rng.randint(0, 2))
                self.op(f"cf.br ^bm{n}{to(b)}")
            else:
                self.op(f"cf.cond_br {cond}, ^bt{n}, ^bm{n}{to(b)}")
                self.label(f"^bt{n}")
                self.arm(ctx, rng.randint(1, 3))
                self.op(f"cf.br ^bm{n}{to(a)}")
            self.label(f"^bm{n}" + (f"(%j{n} : {MEMREF})" if pair else ""))
            if pair:
                self.join(ctx, f"%j{n}", pair)
        else:
            pair = self.pair(ctx, dev=True) if rng.random() < 0.5 else None
            self.op(f"%lk{n} = arith.constant {rng.randrange(4)} : index")
            i, x, y = f"%li{n}", f"%lx{n}", f"%ly{n}"
            if pair:
                self.op(f"cf.br ^bh{n}(%c0, {pair[0]}, {pair[1]} : index, "
                        f"{MEMREF}, {MEMREF})")
                self.label(f"^bh{n}({i} : index, {x} : {MEMREF}, {y} : "
                           f"{MEMREF})")
                self.join(ctx, x, pair)
                self.join(ctx, y, pair)
            else:
                self.op(f"cf.br ^bh{n}(%c0 : index)")
                self.label(f"^bh{n}({i} : index)")
            self.op(f"%lc{n} = arith.cmpi slt, {i}, %lk{n} : index")
            self.op(f"cf.cond_br %lc{n}, ^bl{n}, ^bx{n}")
            self.label(f"^bl{n}")
            if pair:
                self.op(launch_text(0, x, y))
            self.arm(ctx, rng.randint(1, 3))
            self.op(f"%ln{n} = arith.addi {i}, %c1 : index")
            if pair:
                self.op(f"cf.br ^bh{n}(%ln{n}, {y}, {x} : index, {MEMREF}, "
                        f"{MEMREF})")
            else:
                self.op(f"cf.br ^bh{n}(%ln{n} : index)")
            self.label(f"^bx{n}")
        self.cfg_depth -= 1

    def memref_args(self):
        """(name, type) of the memref arguments."""
        return [(a, MEMREF) for a in self.args]

    def signature(self):
        attr = " {llvm.noalias}" if self.noalias else ""
        args = [f"{a} : {t}{attr}" for a, t in self.memref_args()]
        args += [f"{a} : {t}" for a, t in self.scalars]
        if self.stream:
            args.append("%stream : !llvm.ptr")
        if self.two_streams:
            args.append("%stream2 : !llvm.ptr")
        return ", ".join(args)

    def prologue(self):
        return ("    %c0 = arith.constant 0 : index\n"
                "    %c1 = arith.constant 1 : index\n"
                "    %f = arith.constant 1.0 : f32\n") + self.shape_prologue()

    def shape_prologue(self):
        """The constants the shapes use."""
        if not self.shapes:
            return ""
        return ("    %k4 = arith.constant 4 : index\n"
                "    %k16 = arith.constant 16 : index\n"
                "    %k1i = arith.constant 1 : i32\n"
                "    %ksmem = arith.constant 64 : i32\n")

    def stream_region(self):
        """The lines of the function body with the statements from a random
        top-level statement on in a gpu.on_stream region on %stream, and
        what runs after the region (a launcher's as they are)."""
        if self.launcher:
            return self.lines
        rng = random.Random(f"{self.index}-stream")
        start = rng.choice([0] + self.boundaries) if rng.random() < 0.5 \
            else 0
        a = self.args[rng.randrange(len(self.args))]
        after = rng.choice(["", "load", "launch", "stream_launch"])
        if self.capture_clean:
            # All of it in the region; then nothing or a launch on the
            # stream.
            start, after = 0, rng.choice(["", "stream_launch"])
        if any(line.lstrip().startswith("^") for line in self.lines):
            # Blocks: all of them in the region (a body of several blocks).
            start = 0
        # With all of it in the region, the caller's earlier work on the
        # stream is pending at the entry (Interpreter.caller_work; with a
        # second stream, whose earlier work the region does not wait for,
        # none is assumed).
        self.caller_work = start == 0 and not self.two_streams
        lines = self.lines[:start] + [
            "    gpu.on_stream <%stream : !llvm.ptr> {",
            "    ^bb0(%t0: !gpu.async.token):"] + [
            "  " + line for line in self.lines[start:]] + [
            "      gpu.on_stream.yield", "    }"]
        if after == "load":
            lines.append(f"    %after = memref.load {a}[%c0] : {MEMREF}")
        elif after == "launch":
            lines.append("    " + launch_text(0, a, a))
        elif after == "stream_launch":
            lines.append("    " + stream_launch_text(0, a, a))
            if rng.random() < 0.5 and not self.capture_clean:
                lines.append(f"    %after = memref.load {a}[%c0] : {MEMREF}")
        return lines

    def owned_stream(self):
        """The lines that make, use and destroy a stream of the function's
        own (see the owned shape), or none. Drawn from a generator of their
        own: the other statements stay those of the seed."""
        rng = random.Random(f"{self.index}-owned")
        if "owned" not in self.shapes or self.stream or rng.random() >= 0.3:
            return []
        lines = [f"    {OWNED_STREAM} : () -> !llvm.ptr"]
        for _ in range(rng.randint(1, 2)):
            a, b = rng.choice(self.args), rng.choice(self.args)
            lines.append("    " + stream_launch_text(
                rng.randrange(len(KERNELS)), a, b, stream="%own"))
        if rng.random() < 0.5:
            a = rng.choice(self.args)
            lines.append(f"    %ownv = memref.load {a}[%c0] : {MEMREF}")
        if rng.random() < 0.5:
            lines.append("    llvm.call @mgpuStreamSynchronize(%own) : "
                         "(!llvm.ptr) -> ()")
        lines.append("    llvm.call @mgpuStreamDestroy(%own) : (!llvm.ptr) "
                     "-> ()")
        return lines

    def text(self):
        lines = self.stream_region() if self.stream else self.lines
        return (f"  func.func @p{self.index}({self.signature()}) {{\n" +
                self.prologue() + "\n".join(self.owned_stream() + lines) +
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
        # Shapes: whether the region is (in) an async.execute body; the
        # pointers made from buffers; the sparse handle sets visible here
        # and those created here (destroyed at the end of the block); the
        # GPU buffers allocated in the block (freed at its end).
        self.in_async = False
        self.pointers = {}
        self.sparse = []
        self.own_sparse = []
        self.allocated = []

    def child(self, read_only=False):
        scope = Scope(self.entries, self.conds, self.indices, self.depth + 1,
                      read_only)
        scope.in_async = self.in_async
        scope.pointers = dict(self.pointers)
        scope.sparse = list(self.sparse)
        return scope

    def writable(self, name):
        return any(e.name == name and e.writable for e in self.entries)

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

    def __init__(self, rng, index, noalias=False, shapes=()):
        super().__init__(rng, index, noalias, shapes)
        self.raw_arg = "%bytes" if rng.random() < 0.3 else None
        self.scalars = [(f"%cond{i}", "i1")
                        for i in range(rng.randint(1, 2))]
        if rng.random() < 0.4:
            self.scalars.append(("%sel", "index"))
        self.indent = 2
        # Half the programs on a caller's stream are written to be
        # captured: the whole body in the region, no host access to GPU
        # data, device memory freed where it is allocated (see
        # CAPTURE_EXCLUDED).
        self.capture_clean = self.stream and \
            random.Random(f"{index}-capture").random() < 0.5
        # A quarter of the programs on a caller's stream are launchers, as
        # frontends emit them: all GPU work launched on the stream, no
        # region.
        self.launcher = self.stream and \
            random.Random(f"{index}-launcher").random() < 0.25
        # Some of those not written to be captured get a second caller's
        # stream, %stream2: launches and regions on it among the statements.
        self.two_streams = self.stream and not self.capture_clean and \
            random.Random(f"{index}-two").random() < 0.3
        # The calls shape: a function of the program's own, which it calls
        # (see generate).
        self.callee = None

    def memref_args(self):
        return super().memref_args() + (
            [(self.raw_arg, BYTES)] if self.raw_arg else [])

    def prologue(self):
        return ("    %c0 = arith.constant 0 : index\n"
                "    %c1 = arith.constant 1 : index\n"
                "    %c2 = arith.constant 2 : index\n"
                "    %c3 = arith.constant 3 : index\n"
                "    %f = arith.constant 1.0 : f32\n") + self.shape_prologue()

    def op(self, line):
        self.lines.append("  " * self.indent + line)

    def text(self):
        return super().text() + (self.callee.text() if self.callee else "")

    def generate(self):
        rng = self.rng
        if "calls" in self.shapes and not self.launcher and \
                not self.capture_clean:
            self.callee = CalleeProgram(self.index, self.shapes)
            self.callee.generate()
        entries = [Entry(a, True, True) for a in self.args]
        if self.raw_arg:
            entries.append(Entry(self.raw_arg, True, True, raw=True))
        scope = Scope(entries, [s for s, t in self.scalars if t == "i1"],
                      [s for s, t in self.scalars if t == "index"], 0)
        allocated = []
        for _ in range(rng.randint(0, 2)):
            allocated.append(self.alloc(scope, gpu=not self.launcher))
        self.block(scope, rng.randint(4, 10), allocated)

    def block(self, scope, count, allocated=None):
        """Appends `count` random statements in `scope`; at the end frees
        about half of the GPU buffers allocated in it (all of them in a
        program written to be captured: a graph that keeps its memory
        cannot be launched again)."""
        rng = self.rng
        allocated = allocated if allocated is not None else []
        nested = scope.depth < self.MAX_DEPTH
        kinds = {"launch": 6, "memcpy": 3, "memset": 2, "load": 2, "store": 2,
                 "host_alloc": 1, "gpu_alloc": 1, "view": 2, "call": 1,
                 "for": 2 * nested, "if": 2 * nested,
                 "switch": nested * bool(scope.indices), "select": 1,
                 "swap_loop": nested, "while": nested,
                 "execute_region": nested}
        if self.shapes:
            shape_kinds = {
                "pointer_launch": 1.5 * ("pointer" in self.shapes),
                "opaque_launch": 1.5 * ("opaque" in self.shapes),
                "sparse": 1.5 * ("sparse" in self.shapes),
                "async": 1.5 * ("async" in self.shapes and nested and
                                not scope.in_async),
                "alloca": 1 * ("stack" in self.shapes),
                "barrier_launch": 1 * ("barrier" in self.shapes),
                "shape_call": 0.5 * bool(self.shapes & {"pointer", "stack"}),
                "await": 1.5 * ("await" in self.shapes and nested and
                                not scope.in_async),
                "linalg_host": 1 * ("linalg" in self.shapes and
                                    not scope.in_async),
                "linalg_launch": 1 * ("linalg" in self.shapes),
                # Branches between blocks of the function body only (the
                # regions of scf ops have one block); on a caller's stream,
                # the whole body is then in the region (stream_region).
                "blocks": 1.5 * ("blocks" in self.shapes and
                                 scope.depth == 0 and not scope.in_async),
                # A launch on the caller's stream, in loops and branches too,
                # and a call that launches on it.
                "stream_launch": 1.5 * (self.stream and not scope.in_async),
                "stream_call": 0.75 * (self.stream and not scope.in_async),
                # Launches on the caller's stream one after the other.
                "stream_launches": 1 * (self.stream and not scope.in_async),
                # A region on the second stream.
                "stream2_region": 0.75 * (self.two_streams and nested and
                                          not scope.in_async),
                # A stream chosen at run time, and loops that carry streams.
                "stream_select": 1.5 * (self.two_streams and
                                        not scope.in_async),
                "stream_loop": 1.5 * (self.two_streams and nested and
                                      not scope.in_async),
                # A call of the program's own function (calls shape).
                "callee_call": 1.5 * (self.callee is not None),
                "parallel": 1.5 * ("parallel" in self.shapes and nested and
                                   not scope.in_async)}
            kinds.update((k, w) for k, w in shape_kinds.items() if w)
            if self.launcher:
                for kind in LAUNCHER_EXCLUDED:
                    kinds.pop(kind, None)
                kinds["stream_launch"] = 4
                kinds["stream_launches"] = 3
            if scope.in_async:
                kinds["select"] = 0
        if self.capture_clean:
            for kind in CAPTURE_EXCLUDED:
                kinds.pop(kind, None)
        names = list(kinds)
        scope.allocated = allocated
        for _ in range(count):
            kind = rng.choices(names, weights=[kinds[k] for k in names])[0]
            if scope.depth == 0 and not scope.in_async:
                self.boundaries.append(len(self.lines))
            if kind == "gpu_alloc":
                allocated.append(self.alloc(scope, gpu=True))
            elif kind == "host_alloc":
                self.alloc(scope, gpu=False)
            else:
                getattr(self, "gen_" + kind)(scope)
        for h in scope.own_sparse:
            self.sparse_flush(h)
        for name in allocated:
            if name and (rng.random() < 0.5 or self.capture_clean):
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

    def picker(self, scope):
        """pick(write) for the shapes: a buffer the GPU may access (and
        write) in `scope`, or None."""
        def pick(write):
            e = scope.pick(self.rng, dev=True, write=write)
            return e.name if e else None
        return pick

    def gen_pointer_launch(self, scope):
        self.shape_launch("pointer_launch", self.picker(scope), scope.pointers)

    def gen_opaque_launch(self, scope):
        self.shape_launch("opaque_launch", self.picker(scope), scope.pointers)

    def gen_barrier_launch(self, scope):
        self.shape_launch("barrier_launch", self.picker(scope), scope.pointers)

    def gen_alloca(self, scope):
        b = self.fresh()
        self.op(f"{b} = memref.alloca() : {MEMREF}")
        scope.add(Entry(b, True, True))

    def gen_sparse(self, scope):
        """An operation on sparse handles made earlier (maybe outside the
        region), or new handles (destroyed at the end of the block)."""
        usable = [h for h in scope.sparse
                  if self.sparse_ops(h, scope.writable)]
        if usable and self.rng.random() < 0.6:
            self.spmv(self.rng.choice(usable), scope.writable)
            return
        h = self.sparse_create(self.picker(scope))
        if h:
            scope.sparse.append(h)
            scope.own_sparse.append(h)
            if self.rng.random() < 0.4:
                self.spmv(h)

    def gen_callee_call(self, scope):
        """A call of the program's function (see CalleeProgram) on buffers
        that the GPU and the host may access and the region may write (one
        of them maybe twice), with the program's first condition."""
        operands = []
        for _ in self.callee.args:
            e = scope.pick(self.rng, dev=True, host=True, write=True)
            if not e:
                return
            operands.append(e.name)
        operands += [s for s, t in self.scalars if t == "i1"][:1]
        types = [MEMREF] * len(self.callee.args) + ["i1"]
        self.op(f"func.call @p{self.callee.index}({', '.join(operands)}) : "
                f"({', '.join(types)}) -> ()")

    def gen_shape_call(self, scope):
        """A call of a function that launches a pointer kernel on its
        argument, or copies it into a stack buffer of its own."""
        names = ([("kick", True)] if "pointer" in self.shapes else []) + \
            ([("stack_copy", False)] if "stack" in self.shapes else [])
        name, write = self.rng.choice(names)
        b = scope.pick(self.rng, dev=True, write=write)
        if b:
            self.op(f"func.call @{name}({b.name}) : ({MEMREF}) -> ()")

    # Hooks of the shared generators (see Program): ctx is the Scope.

    def enter_body(self, ctx):
        # No loops or branches in the body (see gen_async).
        body = ctx.child()
        body.in_async = True
        body.depth = self.MAX_DEPTH
        self.indent += 1
        return body, None

    def leave_body(self, ctx, state, yield_line="async.yield"):
        self.op(yield_line)
        self.indent -= 1

    def body_block(self, ctx, count):
        self.block(ctx, count)

    def fresh_allocs(self, ctx):
        for _ in range(self.rng.choice([0, 0, 1, 2])):
            gpu = self.rng.random() < 0.5
            b = self.alloc(ctx, gpu=gpu)
            if gpu:
                ctx.allocated.append(b)

    def pick_buffer(self, ctx, dev=False, host=False, write=False):
        e = ctx.pick(self.rng, dev=dev, host=host, write=write)
        return e.name if e else None

    def host_ok(self, ctx, name):
        return any(e.name == name and e.host for e in ctx.entries)

    def branches_here(self, ctx):
        return ("blocks" in self.shapes and ctx.depth == 0 and
                not ctx.in_async and not self.launcher)

    def cache(self, ctx):
        return ctx.pointers

    def label(self, text):
        self.lines.append("  " * (self.indent - 1) + text + ":")

    def cond(self, ctx):
        return self.rng.choice(ctx.conds)

    def arm(self, ctx, count):
        self.block(ctx.child(), count)

    def pair(self, ctx, dev=False):
        rng = self.rng
        a = ctx.pick(rng, dev=dev, write=dev)
        if not a:
            return None
        others = [e for e in ctx.entries if not e.raw and e.dev == a.dev and
                  e.host == a.host and e.name != a.name and
                  (e.writable or not dev)]
        if not others:
            return None
        b = rng.choice(others)
        return a.name, b.name, Entry(None, a.dev, a.host,
                                     a.writable and b.writable)

    def join(self, ctx, name, pair):
        e = pair[2]
        ctx.add(Entry(name, e.dev, e.host, e.writable), prefer=True)

    def gen_async(self, scope):
        """One or two async.execute ops (the second depending on the first)
        with a block of statements each, then maybe fresh allocations, then
        an await of the last one."""
        rng = self.rng
        tokens = []
        for _ in range(1 if rng.random() < 0.7 else 2):
            t = f"%at{self.fresh()[2:]}"
            deps = f" [{tokens[-1]}]" if tokens else ""
            self.op(f"{t} = async.execute{deps} {{")
            self.indent += 1
            # No loops or branches in the body: -gpu-lower-to-nvvm-pipeline
            # lowers them to blocks before the async lowering, and the
            # region of async.execute has one block.
            body = scope.child()
            body.in_async = True
            body.depth = self.MAX_DEPTH
            self.block(body, rng.randint(1, 3))
            self.op("async.yield")
            self.indent -= 1
            self.op("}")
            tokens.append(t)
        # Nothing that conflicts with the bodies until the await.
        for _ in range(rng.choice([0, 0, 1, 2])):
            gpu = rng.random() < 0.5
            b = self.alloc(scope, gpu=gpu)
            if gpu:
                scope.allocated.append(b)
        self.op(f"async.await {tokens[-1]} : !async.token")

    def gen_launch(self, scope, text=launch_text):
        k = self.rng.randrange(len(KERNELS))
        a = scope.pick(self.rng, dev=True, write="W" in KERNELS[k][0])
        b = scope.pick(self.rng, dev=True, write="W" in KERNELS[k][1])
        if a and b:
            self.op(text(k, a.name, b.name))

    def pick_stream(self):
        """%stream, or in a program with two streams sometimes %stream2."""
        if self.two_streams and self.rng.random() < 0.4:
            return "%stream2"
        return "%stream"

    def gen_stream_launch(self, scope, stream=None):
        """A launch on `stream` (or a picked one)."""
        stream = stream or self.pick_stream()
        self.gen_launch(scope,
                        lambda k, a, b: stream_launch_text(k, a, b, stream))

    def gen_stream2_region(self, scope, stream="%stream2"):
        t = f"%t{self.fresh()[2:]}"
        self.region_op(scope, [f"gpu.on_stream <{stream} : !llvm.ptr> {{",
                               f"^bb0({t}: !gpu.async.token):"],
                       "gpu.on_stream.yield")

    def stream_work(self, scope, stream):
        """GPU work on `stream`, a value that may name either caller's
        stream: a launch, a region (not in launchers) or 2-3 launches, then
        sometimes a call that hands it to @launch_on or @launch_via."""
        rng = self.rng
        kind = rng.choice(["launch", "launches"] +
                          ["region"] * (not self.launcher and
                                        scope.depth < self.MAX_DEPTH))
        if kind == "region":
            self.gen_stream2_region(scope, stream)
        else:
            for _ in range(1 if kind == "launch" else rng.randint(2, 3)):
                self.gen_stream_launch(scope, stream)
        b = scope.pick(rng, dev=True, write=True)
        if b and rng.random() < 0.3:
            self.op(stream_call_text(b.name, stream, via=rng.random() < 0.3))

    def gen_stream_select(self, scope):
        """A stream chosen at run time: %stream or %stream2 by an i1, and
        work on it."""
        s = f"%s{self.fresh()[2:]}"
        self.op(f"{s} = arith.select {self.rng.choice(scope.conds)}, "
                "%stream, %stream2 : !llvm.ptr")
        self.stream_work(scope, s)

    def gen_stream_loop(self, scope):
        """A loop (0-3 iterations) that carries streams through iter_args:
        either %stream and %stream2 swapped each iteration, or one stream
        that each iteration replaces by a choice between it and %stream2.
        Its body works on them, and maybe the code after it on a result."""
        rng = self.rng
        n = self.fresh()[2:]
        iv, x, y, r = f"%i{n}", f"%sx{n}", f"%sy{n}", f"%sr{n}"
        trips = rng.randrange(4)
        swap = rng.random() < 0.5
        if swap:
            self.op(f"{r}:2 = scf.for {iv} = %c0 to %c{trips} step %c1 "
                    f"iter_args({x} = %stream, {y} = %stream2) -> "
                    "(!llvm.ptr, !llvm.ptr) {")
        else:
            self.op(f"{r} = scf.for {iv} = %c0 to %c{trips} step %c1 "
                    f"iter_args({x} = %stream) -> (!llvm.ptr) {{")
        self.indent += 1
        body = scope.child()
        body.indices.append(iv)
        for _ in range(rng.randint(1, 2)):
            self.stream_work(body, rng.choice([x, y] if swap else [x]))
        # One block: its end destroys the handles and frees the memory made
        # in it.
        self.block(body, rng.randint(0, 2))
        if swap:
            self.op(f"scf.yield {y}, {x} : !llvm.ptr, !llvm.ptr")
        else:
            c = self.fresh()
            self.op(f"{c} = arith.cmpi eq, {iv}, %c1 : index")
            self.op(f"{y} = arith.select {c}, %stream2, {x} : !llvm.ptr")
            self.op(f"scf.yield {y} : !llvm.ptr")
        self.indent -= 1
        self.op("}")
        if rng.random() < 0.5:
            self.stream_work(scope, f"{r}#0" if swap else r)

    def gen_stream_launches(self, scope):
        """2-3 launches on the caller's stream, maybe with an op without
        memory effects between two of them."""
        stream = self.pick_stream()
        for i in range(self.rng.randint(2, 3)):
            if i and self.rng.random() < 0.3:
                self.op(f"{self.fresh()} = arith.addi %c1, %c2 : index")
            self.gen_stream_launch(scope, stream)

    def gen_stream_call(self, scope):
        """A call that hands %stream or %stream2 to @launch_on or
        @launch_via: the function may use no other op on that stream."""
        b = scope.pick(self.rng, dev=True, write=True)
        stream = self.pick_stream()
        if b:
            self.op(stream_call_text(b.name, stream,
                                     via=self.rng.random() < 0.3))

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
            if b and self.launcher:
                self.op(stream_launch_text(0, b.name, b.name))
            elif b:
                self.op(f"gpu.memset {b.name}, %f : {MEMREF}, f32")
        else:
            for _ in range(rng.randint(1, 2)):
                allocated.append(self.alloc(
                    body, gpu=rng.random() < 0.6 and not self.launcher))
        self.block(body, rng.randint(1, 4), [a for a in allocated if a])
        self.indent -= 1
        self.op("}")

    def gen_parallel(self, scope):
        """An scf.parallel with 0-3 iterations (the parallel shape). Its
        iterations may run in any order: the body only reads buffers from
        outside and writes what it allocates, so that the input has no race
        between them."""
        rng = self.rng
        iv = f"%q{self.fresh()[2:]}"
        self.op(f"scf.parallel ({iv}) = (%c0) to (%c{rng.randrange(4)}) step "
                "(%c1) {")
        self.indent += 1
        body = scope.child(read_only=True)
        body.indices.append(iv)
        allocated = [self.alloc(body, gpu=rng.random() < 0.6)
                     for _ in range(rng.randint(1, 2))]
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
        self.region_op(scope, ["scf.execute_region {"], "scf.yield")

    def region_op(self, scope, head, terminator):
        """An op of one region: the `head` lines, a block of 1-3 statements
        in a child of `scope`, `terminator` and the closing brace."""
        for line in head:
            self.op(line)
        self.indent += 1
        self.block(scope.child(), self.rng.randint(1, 3))
        self.op(terminator)
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
        self.op((stream_launch_text if self.launcher else launch_text)(0, x, y))
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


class CalleeProgram(ControlFlowProgram):
    """The function of a program of the calls shape, @p<index>_f: 1-2
    memref arguments (never {llvm.noalias}: a call may pass one buffer
    twice) and an i1 condition (the caller's first), statements of every
    kind and shape but the caller's streams and calls of such functions
    (its body may have several blocks). The pass summarizes what it
    accesses; the interpreter runs its body at each call. Drawn from a
    random generator of its own, so that the caller's choices stay those
    of the seed."""

    def __init__(self, index, shapes):
        rng = random.Random(f"{index}-callee")
        super().__init__(rng, f"{index}_f", False,
                         [x for x in shapes if x not in ("stream", "calls")])
        self.nargs = rng.randint(1, 2)
        self.args = [f"%arg{i}" for i in range(self.nargs)]
        self.raw_arg = None
        self.scalars = [("%cond0", "i1")]


def main_function(programs, captured=()):
    """@main: calls each program with each of its checked assignments, on
    distinct buffers; a program whose index is in `captured` once more,
    for its first assignment, in a capture of the caller's stream."""
    lines = ["  func.func @main() {"]
    lines += [f"    %buf{i} = memref.alloc() : {MEMREF}" for i in range(3)]
    if any(p.scalars or len(p.memref_args()) > p.nargs for p in programs):
        lines += [f"    %bytes = memref.alloc() : {BYTES}",
                  "    %false = arith.constant false",
                  "    %true = arith.constant true"]
        lines += [f"    %i{v} = arith.constant {v} : index" for v in range(4)]
    # A caller's stream for the programs that hand work over to one: each
    # call is followed by a synchronization of the stream (the caller's
    # side of the hand-over).
    streams = any(p.stream for p in programs)
    if streams:
        lines.append("    %stream = llvm.call @mgpuStreamCreate() : () -> "
                     "!llvm.ptr")
    two_streams = any(p.two_streams for p in programs)
    if two_streams:
        lines.append("    %stream2 = llvm.call @mgpuStreamCreate() : () -> "
                     "!llvm.ptr")
    if captured:
        lines += [f"    %reserve = arith.constant {CAPTURE_RESERVE} : i32",
                  "    llvm.call @mgpuStreamPoolReserve(%reserve) : (i32) "
                  "-> ()",
                  "    llvm.call @mgpuEventPoolReserve(%reserve) : (i32) "
                  "-> ()"]
    for p in programs:
        operands = [f"%buf{i}" for i in range(p.nargs)]
        types = [MEMREF] * p.nargs + [t for _, t in p.memref_args()[p.nargs:]]
        operands += ["%bytes"] * (len(types) - p.nargs)
        types += [t for _, t in p.scalars]
        for k, values in enumerate(p.assignments):
            scalars = [("%true" if v else "%false") if isinstance(v, bool)
                       else f"%i{v}" for v in values]
            stream = (["%stream"] if p.stream else []) + (
                ["%stream2"] if p.two_streams else [])
            call = (f"    func.call @p{p.index}("
                    f"{', '.join(operands + scalars + stream)}) : "
                    f"({', '.join(types + ['!llvm.ptr'] * len(stream))}) -> ()")
            sync = "\n".join(f"    llvm.call @mgpuStreamSynchronize({s}) : "
                             "(!llvm.ptr) -> ()" for s in stream)
            lines.append(call)
            if p.stream:
                lines.append(sync)
            if k == 0 and p.index in captured:
                graph = f"%graph{p.index}"
                lines += ["    llvm.call @mgpuStreamBeginCapture(%stream) : "
                          "(!llvm.ptr) -> ()", call,
                          f"    {graph} = llvm.call @mgpuStreamEndCapture("
                          "%stream) : (!llvm.ptr) -> !llvm.ptr",
                          f"    llvm.call @mgpuGraphLaunch({graph}, %stream) "
                          ": (!llvm.ptr, !llvm.ptr) -> ()", sync,
                          f"    llvm.call @mgpuGraphDestroy({graph}) : "
                          "(!llvm.ptr) -> ()"]
    if two_streams:
        lines.append("    llvm.call @mgpuStreamDestroy(%stream2) : "
                     "(!llvm.ptr) -> ()")
    if streams:
        lines.append("    llvm.call @mgpuStreamDestroy(%stream) : "
                     "(!llvm.ptr) -> ()")
    return "\n".join(lines) + "\n    return\n  }\n"


# Host functions with shapes: a pointer kernel launched on the argument, a
# copy of the argument into a stack buffer of the callee.
SHAPE_FUNCTIONS = f"""  func.func private @kick(%m : {MEMREF}) {{
    %c1 = arith.constant 1 : index
    %x = memref.extract_aligned_pointer_as_index %m : {MEMREF} -> index
    %i = arith.index_cast %x : index to i64
    %p = llvm.inttoptr %i : i64 to !llvm.ptr
    {kernel_launch("@kernels::@pk1", [("%p", "!llvm.ptr")])}
    return
  }}
  func.func private @stack_copy(%m : {MEMREF}) {{
    %s = memref.alloca() : {MEMREF}
    gpu.memcpy %s, %m : {MEMREF}, {MEMREF}
    return
  }}
"""


def module_text(programs, control_flow, shapes=(), captured=()):
    kernels = "".join(kernel_text(i, e) for i, e in enumerate(KERNELS))
    if shapes:
        kernels += shape_kernels_text(shapes)
    texts = [p.text() for p in programs]
    return ("module attributes {gpu.container_module} {\n"
            "  gpu.module @kernels {\n" + kernels + "  }\n" +
            (BINARY_TEXT if shapes else "") +
            (STREAM_DECLS if any(p.stream for p in programs) or
             any(OWNED_STREAM in t for t in texts) else "") +
            (STREAM_FUNCTIONS if any(p.stream for p in programs) else "") +
            (HOST_FUNCTIONS if control_flow else "") +
            (SHAPE_FUNCTIONS if control_flow and shapes else "") +
            "".join(texts) +
            main_function(programs, captured) +
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


def canonicalize(args):
    """The passes that make the pass's input from a generated module."""
    return ["-canonicalize"] if args.canonicalize else []


def transform(programs, args, opt=None, pass_args=None, captured=()):
    """Runs the pass on a module of `programs` (whose @main captures those
    in `captured`; the pass rewrites @main too) and verifies its output
    again (with `opt` and `pass_args`: another mlir-opt, e.g. upstream's,
    and its pipeline). Returns (ok, generic output, message)."""
    opt = opt or MLIR_OPT
    text = module_text(programs, args.control_flow, args.shapes, captured)
    ok, out, msg = tool([opt, *canonicalize(args),
                         *(pass_args or args.pass_args).split(),
                         "-mlir-print-op-generic"], text)
    if not ok:
        return False, "", f"the pass failed: {msg}"
    ok, _, vmsg = tool([opt], out)
    if not ok:
        return False, "", f"the output does not verify: {vmsg}"
    return True, out, msg


def bisect(programs, attempt, state):
    """Runs attempt(programs) -> (ok, value, message); on failure splits the
    programs to find the ones that fail alone. Returns [(programs, value)]
    for the parts that passed; appends (program, message) to state["failed"]
    and counts programs left unchecked (after MAX_ISOLATED failures) in
    state["unchecked"]."""
    if len(state["failed"]) >= state.get("max", MAX_ISOLATED):
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


def distinct_executes(text):
    """Gives each async.execute of a module in generic form an attribute of
    its own. Two async.execute ops whose bodies have no memory effects left
    after canonicalization (views only) are equal, and the CSE of
    -gpu-lower-to-nvvm-pipeline merges them: one made before a loop then
    stands for one in the loop body, its token lives into one successor of
    the loop's llvm.cond_br only, and -async-runtime-ref-counting fails
    ("successor have different `liveIn` property"; it only handles
    cf.cond_br)."""
    lines = text.split("\n")
    opened = []      # (indentation, number) of the async.execute ops open
    count = 0
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if '"async.execute"(' in line and line.rstrip().endswith("({"):
            opened.append((indent, count))
            count += 1
        elif opened and stripped.startswith("})") and \
                indent == opened[-1][0]:
            attr = f"oracle.execute = {opened.pop()[1]} : i64"
            rest = stripped[2:].lstrip()
            rest = ("{" + attr + ", " + rest[1:] if rest.startswith("{")
                    else "{" + attr + "} " + rest)
            lines[i] = line[:indent] + "}) " + rest
    return "\n".join(lines)


def outside_token_work(text):
    """The names of the functions of `text` (the pass's output, in generic
    form) with GPU work outside gpu.on_stream bodies: an op with a token
    result there runs on a stream the function makes, not forked from the
    caller's, which a capture of the caller's stream leaves out."""
    names = set()
    stack = []  # per open region: whether it is a gpu.on_stream body
    function = None
    for line in text.splitlines():
        stripped = line.strip()
        match = re.match(r'"func\.func"\(\).*sym_name = "([\w$.]+)"', stripped)
        if match:
            function = match.group(1)
        if stripped.startswith("})"):
            stack.pop()
        op = re.match(r'(%[\w]+(?::\d+)? = )?"([\w.]+)"', stripped)
        name = op.group(2) if op else ""
        # An op with results (a token among them) outside the bodies.
        if (function and not any(stack) and op and op.group(1) and
                name.startswith("gpu.") and name != "gpu.on_stream"):
            names.add(function)
        if stripped.endswith("({"):
            stack.append(name == "gpu.on_stream")
    return names


def lower_checked(programs, args, captured=()):
    """Runs the pass on `programs` and lowers its output for the checking
    runtime. Returns (ok, lowered module, mlir-runner options, message,
    the names of the functions with GPU work outside gpu.on_stream bodies:
    see outside_token_work)."""
    ok, out, msg = transform(programs, args, captured=captured)
    if not ok:
        return False, "", [], msg, set()
    outside = outside_token_work(out)
    if '"async.execute"' in out:
        # Keep the CSE of -gpu-lower-to-nvvm-pipeline from merging
        # async.execute ops (see distinct_executes).
        out = distinct_executes(out)
    # linalg.fill and linalg.copy (the linalg shape) become loops first.
    linalg = ["-convert-linalg-to-loops"] if '"linalg.' in out else []
    ok, lowered, msg = tool(
        [MLIR_OPT, *linalg, "-gpu-lower-to-nvvm-pipeline=cubin-format=isa"],
        out)
    if not ok:
        return False, "", [], f"lowering failed: {msg}", outside
    options = []
    if '"async.' in out:
        # async.execute bodies become coroutines run by the async runtime
        # (as in Integration/GPU/Check/region-tokens.mlir); -O0 as
        # upstream's async integration tests: the coroutine lowering does
        # not survive mlir-runner's default optimization.
        ok, lowered, msg = tool([MLIR_OPT, *ASYNC_LOWERING], lowered)
        if not ok:
            return False, "", [], f"lowering async failed: {msg}", outside
        options = ["-O0", f"--shared-libs={async_runtime()}"]
    return True, lowered, options, "", outside


def capturable_programs(programs, lowered, outside=()):
    """The indices of the programs on a caller's stream whose lowered
    function, and each function it calls, calls no runtime function that a
    capture forbids (CAPTURE_FORBIDDEN; CAPTURE_STREAM_OPERAND with a null
    stream, or at all in a program not written to be captured, which may
    keep memory it allocates) and no host function other than
    CAPTURE_HOST_CALLS, and whose function has no GPU work outside
    gpu.on_stream bodies (`outside`, see outside_token_work)."""
    bodies = {}
    for part in re.split(r"\n  (?=llvm\.func )", lowered):
        match = re.match(r"llvm\.func (?:\w+ )*@([\w$.]+)\(", part)
        if match:
            bodies[match.group(1)] = part
    memo = {}

    def capturable(name, clean):
        if (name, clean) not in memo:
            # A recursive call is not looked into twice.
            memo[name, clean] = False
            body = bodies.get(name, "")
            if not body.split("\n")[0].rstrip().endswith("{"):
                # A declaration: a runtime or host function.
                memo[name, clean] = (name in CAPTURE_HOST_CALLS or
                                     (name.startswith("mgpu") and
                                      not CAPTURE_FORBIDDEN.match(name)))
            else:
                calls = re.findall(r"llvm\.call @([\w$.]+)\(([^)]*)\)", body)
                nulls = set(re.findall(r"(%[\w.]+) = llvm\.mlir\.zero ", body))
                memo[name, clean] = all(
                    capturable(callee, clean) and
                    (callee not in CAPTURE_STREAM_OPERAND or
                     (clean and operands.split(", ")[
                         CAPTURE_STREAM_OPERAND[callee]] not in nulls))
                    for callee, operands in calls)
        return memo[name, clean]

    # A capture of %stream leaves out the work on a second stream.
    return {p.index for p in programs
            if p.stream and not p.two_streams and
            f"p{p.index}" not in outside and
            capturable(f"p{p.index}", p.capture_clean)}


def run_checked(programs, args):
    """Runs the pass on `programs`, lowers the output and runs it with the
    checking runtime, capturing the capturable programs on a caller's stream
    (see capturable_programs). Returns (ok, (exit status, violations,
    streams created, programs captured) or None, message)."""
    runner = os.path.join(LLVM_PREFIX, "bin", "mlir-runner")
    ok, lowered, options, msg, outside = lower_checked(programs, args)
    if not ok:
        return False, None, msg
    captured = capturable_programs(programs, lowered, outside)
    # A program written to be captured (capture_clean) that the host
    # synchronizes or allocates device memory for is a failure.
    uncapturable = [p for p in programs if p.capture_clean
                    and p.index not in captured]
    if uncapturable:
        return False, None, ("not capturable (written to be captured): " +
                             ", ".join(f"@p{p.index}" for p in uncapturable))
    if captured:
        ok, lowered, options, msg, _ = lower_checked(programs, args, captured)
        if not ok:
            return False, None, msg
    try:
        run = subprocess.run([runner, "--entry-point-result=void",
                              f"--shared-libs={RUNTIME}", *options],
                             input=lowered, capture_output=True, text=True)
    except OSError as e:
        return False, None, f"cannot run {runner}: {e}"
    match = re.search(r"gpu-check: (\d+) violation", run.stderr)
    streams = re.search(r"calls mgpuStreamCreate (\d+)", run.stderr)
    stats = (run.returncode, int(match.group(1)) if match else None,
             int(streams.group(1)) if streams else 0, len(captured))
    if run.returncode != 0 or not match or stats[1]:
        errors = "\n".join(l for l in run.stderr.splitlines()
                           if "error" in l)
        return False, stats, (f"checking runtime: exit {run.returncode}, "
                              f"{stats[1] if match else '?'} violation(s)\n"
                              f"{errors[-1500:]}")
    return True, stats, ""


def async_runtime():
    """libmlir_async_runtime.so: the build's, or the packages'."""
    built = os.path.join(ROOT, "build", "lib", "libmlir_async_runtime.so")
    return built if os.path.exists(built) else os.path.join(
        LLVM_PREFIX, "lib", "libmlir_async_runtime.so")


def run_all(programs, args, totals):
    """--run: runs the programs in batches of RUN_BATCH (one mlir-runner
    process each, os.cpu_count() at a time: the JIT's time and memory grow
    faster than the module), then isolates the programs of failing batches.
    Returns (summary line, whether something failed)."""
    batches = [programs[i:i + RUN_BATCH]
               for i in range(0, len(programs), RUN_BATCH)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = list(pool.map(lambda b: run_checked(b, args), batches))
    exits = violations = streams = captured = 0
    state = {"failed": [], "unchecked": 0}
    failed = False
    for batch, (ok, stats, msg) in zip(batches, results):
        if stats:
            exits += stats[0] != 0
            violations += stats[1] or 0
            streams += stats[2]
            captured += stats[3]
        if not ok:
            failed = True
            print(f"--run: programs @p{batch[0].index}-@p{batch[-1].index}: "
                  f"{msg}")
            bisect(batch, lambda ps: run_checked(ps, args), state)
    for p, m in state["failed"]:
        totals.bad_programs.append((p, "run", f"--run: {m}"))
    summary = (f"checking runtime: {len(batches)} run(s), {exits} with exit "
               f"status other than 0, {violations} violation(s), {streams} "
               f"stream(s) created; {captured} of "
               f"{sum(p.stream for p in programs)} program(s) on a caller's "
               "stream captured")
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
        # (program, "invalid" / "violation" / "run" / "upstream",
        # message): reported, and kept with --keep.
        self.bad_programs = []
        # --compare-upstream: programs compared, skipped (upstream cannot
        # parse them; upstream's pass or verifier failed; its output is not
        # interpretable or makes other accesses), executions compared,
        # upstream's violations, required pairs upstream orders and the
        # series does not.
        self.up_programs = 0
        self.up_skipped = {}
        self.up_executions = 0
        self.up_violations = 0
        self.up_lost = 0


def check_program(p, before, after, args, totals, upstream=None):
    """Checks program p: interprets its input (`before`) and the pass output
    (`after`) for each assignment, compares their accesses, and checks the
    output's trace. With `upstream` (an Interpreter of upstream's output),
    also checks upstream's trace and compares it with the output's
    (compare_upstream)."""
    name = p.name
    messages = []
    up_messages = []
    for values in p.assignments:
        label = ", ".join(f"{s}={str(v).lower()}"
                          for (s, _), v in zip(p.scalars, values))
        where = f"{name}" + (f" [{label}]" if label else "")
        try:
            spec = before.run(name, values, reference=True,
                              caller_work=p.caller_work)
        except Unsupported as e:
            sys.exit(f"error: {where}: cannot interpret the generated input "
                     f"(a bug of the oracle): {e}")
        if isinstance(p, Program):
            # The input must be free of races (async.execute bodies run on
            # threads of their own): else a violation need not be the
            # pass's.
            races = check_trace(spec, 1)
            if races.violation_count:
                x, y = races.violations[0]
                sys.exit(f"error: {where}: the generated input races (a bug "
                         f"of the oracle): {spec.instances[x].describe()} is "
                         f"not ordered before {spec.instances[y].describe()}")
        try:
            trace = after.run(name, values, args.drop_host_waits,
                              args.drop_token_deps,
                              caller_work=p.caller_work)
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
        if upstream is not None:
            if not compare_upstream(p, values, where, spec, trace, upstream,
                                    totals, up_messages):
                upstream = None
    if upstream is not None:
        totals.up_programs += 1
    if messages:
        totals.bad_programs.append((p, "violation", "\n".join(messages[:3])))
    if up_messages:
        totals.bad_programs.append((p, "upstream",
                                    "\n".join(up_messages[:3])))


def compare_upstream(p, values, where, spec, trace, upstream, totals,
                     messages):
    """Interprets upstream's output of program p for one assignment, counts
    its violations and the conflicting pairs that it orders and `trace` (the
    series' output) does not; appends a message for each such pair, and for
    each of upstream's violations, to `messages`. Returns False if upstream's
    output cannot be compared (the program is then counted as skipped)."""
    name = p.name

    def skip(reason):
        totals.up_skipped[reason] = totals.up_skipped.get(reason, 0) + 1
        return False
    try:
        up = upstream.run(name, values)
    except Unsupported:
        return skip("upstream output not interpretable")
    if up.signature() != spec.signature():
        return skip("upstream output makes other accesses")
    totals.up_executions += 1
    result = check_trace(up)
    totals.up_violations += result.violation_count
    for x, y in result.violations:
        messages.append(
            f"upstream's violation: {where}: {spec.instances[x].describe()} "
            f"is not ordered before {spec.instances[y].describe()}")
    lost, pairs = compare_traces(trace, up)
    totals.up_lost += lost
    for x, y in pairs:
        messages.append(
            f"upstream orders, the series does not: {where}: "
            f"{spec.instances[x].describe()} before "
            f"{spec.instances[y].describe()}")
    return True


def keep_program(p, args):
    """Writes a module with program p alone next to --keep's file."""
    path = f"{args.keep}.p{p.index}.mlir"
    with open(path, "w") as f:
        f.write(module_text([p], args.control_flow, args.shapes))
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
    parser.add_argument("--canonicalize", action="store_true",
                        help="the pass's input is the generated module after "
                        "-canonicalize")
    parser.add_argument("--run", action="store_true",
                        help="also lower and run with the checking runtime")
    parser.add_argument("--shapes", default="", metavar="LIST",
                        help="also generate these shapes (comma list of "
                        f"{', '.join(SHAPES)}; or all; default: none)")
    parser.add_argument("--check", nargs="+", metavar="FILE",
                        help="check these modules instead of generated "
                        "programs: each public function but @main")
    parser.add_argument("--compare-upstream", nargs="?", metavar="MLIR_OPT",
                        const=UPSTREAM_MLIR_OPT,
                        help="also check upstream's pass (this mlir-opt; "
                        "default: $UPSTREAM_MLIR_OPT or %(const)s) and count "
                        "the pairs it orders that the output does not")
    args = parser.parse_args()
    # Debian's LLVM 23 tools may be in the sysroot only: run there.
    in_sysroot.reexec_if_needed()
    shapes = [x.strip() for x in args.shapes.split(",") if x.strip()]
    if shapes == ["all"]:
        shapes = list(SHAPES)
    unknown = [x for x in shapes if x not in SHAPES]
    if unknown:
        parser.error(f"unknown shape(s) {', '.join(unknown)}; known: "
                     f"{', '.join(SHAPES)}, all")
    args.shapes = tuple(x for x in SHAPES if x in shapes)
    if not os.path.exists(MLIR_OPT):
        sys.exit(f"error: {MLIR_OPT} not found; run scripts/build.sh first")
    if args.run and not os.path.exists(RUNTIME):
        sys.exit(f"error: {RUNTIME} not found; run scripts/build.sh first")
    if args.compare_upstream and not os.path.exists(args.compare_upstream):
        sys.exit(f"error: {args.compare_upstream} not found (upstream's "
                 "mlir-opt for --compare-upstream)")
    start = time.time()
    rng = random.Random(args.seed)
    if args.check:
        sys.exit(check_files(args, rng))
    kind = ControlFlowProgram if args.control_flow else Program
    programs = [kind(rng, i, args.noalias, args.shapes)
                for i in range(args.n)]
    for p in programs:
        p.generate()
        p.assignments = assignments([t for _, t in p.scalars],
                                    args.assignments, rng)
    module = module_text(programs, args.control_flow, args.shapes)
    if args.keep:
        with open(args.keep, "w") as f:
            f.write(module)
    if args.emit:
        sys.stdout.write(module)
        return

    # The input, with source locations (lines of the generated module).
    ok, text, msg = tool([MLIR_OPT, *canonicalize(args),
                          "-mlir-print-op-generic", "-mlir-print-debuginfo"],
                         module)
    if not ok:
        sys.exit(f"error: the generated module is invalid (generator bug): "
                 f"{msg}")
    before = Interpreter(parse_generic(text), OPAQUE_TABLE)

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
    upstream = upstream_outputs(parts, args, totals)
    for part, out in parts:
        try:
            after = Interpreter(parse_generic(out), OPAQUE_TABLE)
        except ValueError as e:
            sys.exit(f"error: cannot parse the pass output: {e}")
        for p in part:
            check_program(p, before, after, args, totals,
                          upstream.get(p.index))

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
        print("(rerun with --keep FILE to write these programs)")
    if state["unchecked"]:
        print(f"error: {state['unchecked']} program(s) not checked after "
              f"{MAX_ISOLATED} failing ones")
    if run_summary:
        print(run_summary)
    mode = ", ".join(["control flow"] * args.control_flow +
                     ["noalias"] * args.noalias) or "straight-line"
    if args.shapes:
        mode += f"; shapes {','.join(args.shapes)}"
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
    if args.compare_upstream:
        skipped = sum(totals.up_skipped.values())
        reasons = ", ".join(f"{n} {r}" for r, n in
                            sorted(totals.up_skipped.items()))
        print(f"upstream: {totals.up_programs} program(s) compared "
              f"({totals.up_executions} execution(s)), {skipped} skipped"
              f"{': ' + reasons if reasons else ''}; upstream's output: "
              f"{totals.up_violations} violation(s); {totals.up_lost} "
              "required pair(s) ordered by upstream but not by the output")
    failed = (totals.violations or totals.invalid or state["unchecked"] or
              run_failed or totals.up_lost)
    sys.exit(1 if failed else 0)


class FileFunction:
    """A public function of a module given with --check, checked like a
    generated program."""

    def __init__(self, op, rng, limit):
        self.name = "@" + op.attr("sym_name").strip('"')
        block = op.regions[0][0]
        self.scalars = [(n, t) for n, t in zip(block.arg_names,
                                                block.arg_types)
                        if t in ("i1", "index")]
        self.assignments = assignments([t for _, t in self.scalars], limit,
                                       rng)
        self.stream = "!llvm.ptr" in block.arg_types
        # Not written to be captured, not a launcher; no caller's work
        # assumed on a stream.
        self.capture_clean = False
        self.launcher = False
        self.caller_work = False


def check_files(args, rng):
    """--check: runs the pass on each module and checks each of its public
    functions but @main (scalar arguments: i1 and index, as generated
    programs). Prints the violations and one line per file; returns the
    exit status."""
    failed = False
    for path in args.check:
        with open(path) as f:
            module = f.read()
        ok, text, msg = tool([MLIR_OPT, "-mlir-print-op-generic",
                              "-mlir-print-debuginfo"], module)
        if not ok:
            sys.exit(f"error: {path} is invalid: {msg}")
        before = Interpreter(parse_generic(text), OPAQUE_TABLE)
        ok, out, msg = tool([MLIR_OPT, *args.pass_args.split(),
                             "-mlir-print-op-generic"], module)
        if ok:
            ok, _, msg = tool([MLIR_OPT], out)
        totals = Totals()
        if not ok:
            print(f"{path}: the pass failed or its output does not verify: "
                  f"{msg}")
            failed = True
            continue
        after = Interpreter(parse_generic(out), OPAQUE_TABLE)
        upstream = None
        if args.compare_upstream:
            ok, up, _ = tool([args.compare_upstream, "-gpu-async-region",
                              "-mlir-print-op-generic"], module)
            upstream = Interpreter(parse_generic(up), OPAQUE_TABLE) \
                if ok else None
        tops = parse_generic(text)
        functions = [op for top in tops for op in top.walk()
                     if op.name == "func.func" and op.regions and
                     op.regions[0] and op.attr("sym_visibility") is None and
                     op.attr("sym_name").strip('"') != "main"]
        for op in functions:
            check_program(FileFunction(op, rng, args.assignments), before,
                          after, args, totals, upstream)
        for _, _, message in totals.bad_programs:
            print(message)
        print(f"{path}: {len(functions)} function(s), {totals.executions} "
              f"execution(s), {totals.gpu} dynamic GPU op(s): "
              f"{totals.violations} violation(s), {totals.invalid} invalid "
              f"output(s)" + (f"; upstream: {totals.up_violations} "
                              f"violation(s), {totals.up_lost} pair(s) it "
                              "orders and the output does not"
                              if upstream else ""))
        failed |= bool(totals.violations or totals.invalid or
                       totals.up_lost)
    return 1 if failed else 0


def upstream_outputs(parts, args, totals):
    """--compare-upstream: runs upstream's -gpu-async-region on the programs
    it can handle (not those handing work to a caller's stream, nor those
    with gpu.spmm), isolating the ones it fails on like transform does.
    Returns {program index: Interpreter of upstream's output}."""
    result = {}
    if not args.compare_upstream:
        return result
    programs = []
    for part, _ in parts:
        for p in part:
            if p.stream:
                reason = "caller stream (upstream has no gpu.on_stream)"
            elif OWNED_STREAM in p.text():
                reason = ("a stream of its own (upstream's pass takes no "
                          "launch on a stream)")
            elif "gpu.spmm_buffer_size" in p.text():
                reason = ("gpu.spmm (upstream's pass makes an invalid "
                          "gpu.spmm_buffer_size)")
            else:
                programs.append(p)
                continue
            totals.up_skipped[reason] = totals.up_skipped.get(reason, 0) + 1
    state = {"failed": [], "unchecked": 0, "max": len(programs)}
    upstream = bisect(programs, lambda ps: transform(
        ps, args, args.compare_upstream, "-gpu-async-region"), state)
    for p, msg in state["failed"]:
        reason = ("upstream's pass or verifier failed" if "pass failed" in msg
                  or "does not verify" in msg else "upstream failed")
        totals.up_skipped[reason] = totals.up_skipped.get(reason, 0) + 1
    if state["unchecked"]:
        totals.up_skipped["not isolated"] = state["unchecked"]
    for part, out in upstream:
        interp = Interpreter(parse_generic(out), OPAQUE_TABLE)
        for p in part:
            result[p.index] = interp
    return result


if __name__ == "__main__":
    main()
