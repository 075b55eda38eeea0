"""An interpreter for the programs of scripts/verify/async-region-oracle.py.

It executes one function of a module in MLIR's generic form (parsed by
scripts/verify/mlir_generic_form.py) with concrete values for its scalar
arguments, and records the dynamic trace: every GPU op instance with the set of
GPU op instances that happen before it, and every host access. It reads the
pass output as a program and trusts nothing the pass says about itself:

  - scf.for is unrolled (constant bounds), and so is an scf.parallel
    without reductions (its iterations in order, as -convert-scf-to-cf
    lowers it), scf.while runs its regions until
    its condition is false, scf.if and scf.index_switch take the branch
    that their operand selects, scf.execute_region runs its region,
    func.call runs the callee's body; a region of several blocks (a
    function body with cf.br / cf.cond_br) runs from its entry block and
    follows the branches (cf.cond_br on its condition's value), binding the
    successor's block arguments to the branch operands, until a terminator
    that ends the region (func.return, ...); the printer numbers the blocks
    of a region ^bb0, ^bb1, ... in order, which is how a successor is found
    (a loop of blocks does not count in the loop counters of the Trace);
    values flow through block arguments (iter_args, branch operands),
    scf.yield, op results;
  - a memref value is the buffer it points to: function arguments and each
    execution of gpu.alloc / memref.alloc / memref.alloca are buffers; a view
    (memref.subview, cast, reinterpret_cast, expand_shape, collapse_shape,
    view, ...) is its source buffer;
  - a pointer is the buffer it comes from (provenance):
    memref.extract_aligned_pointer_as_index, the integer casts of arith
    (index_cast, extui, ...) and llvm.inttoptr / ptrtoint / getelementptr /
    bitcast / addrspacecast carry the buffer of their operand, so an index,
    i64 or !llvm.ptr kernel operand accesses that buffer;
  - a token value is the set of GPU op instances that have completed when it
    is ready (a bit mask over instance numbers, closed under happens-before):
    an async GPU op's token is its own instance plus everything before it; a
    `gpu.wait async` joins its operands;
  - a GPU op instance happens after its token operands and after everything
    the host has waited for when it is issued; a synchronous GPU op (no
    token result) completes before the host goes on; a synchronous gpu.wait
    makes the host wait for its operands' sets;
  - a sparse handle (gpu.create_dn_tensor, gpu.create_csr / coo / csc) is the
    buffers it was created over plus a descriptor of its own: create and
    destroy write the descriptor and access no buffer data; the buffer-size
    queries read the descriptors; gpu.spmv, gpu.spmm and gpu.sddmm read the
    descriptors and buffers of their operands, and read and write the
    buffer of their output (cuSPARSE computes Y = A X + Y; for gpu.sddmm,
    the values of the sparse matrix C) and their scratch buffers;
  - async.execute runs its body when it is reached, on a host thread of its
    own: the body starts with what the host had completed plus the
    completion sets of its dependencies and body operands; its synchronous
    gpu.waits complete GPU work for that thread only. Its !async.token is
    the set the body's thread had completed at its end, each
    !async.value the yielded value with that set; the body operands are
    the values. A thread's set grows only at async.await (of a token or a
    value: by that set; a value's await returns the value), so a body that
    awaits another body (made outside it or in it) sees that body's
    completed work, and so does whoever awaits it in turn;
  - `gpu.on_stream <%s>` (a caller's stream) runs its body with the entry
    token bound to the stream's set; every GPU op lexically nested in the
    body happens after that set (the op's entry rule, which -gpu-to-llvm
    enforces: not only the ops that depend on the entry token); the tokens
    its `gpu.on_stream.yield` lists are handed over to the stream, its
    values are the op's results;
  - `gpu.launch_func <%s>` (a launch on a caller's stream) happens after
    what the host had completed and the stream's set, and joins the
    stream's set; the host's set does not grow;
  - `llvm.call @mgpuStreamCreate()` makes a stream of the function's own,
    `llvm.call @mgpuStreamSynchronize(%s)` completes the stream's set for
    the host, and `llvm.call @mgpuStreamDestroy(%s)` ends the stream: a
    later gpu.on_stream or launch on it (or runtime call of it) is an
    invalid program (Unsupported).

The ops do not move (the pass only adds tokens and waits), so the order of
the trace is program order; Trace.signature() lets a caller check that the
pass output executes the same accesses, in the same order, as its input.
check_trace() then checks every conflicting pair of accesses and counts the
GPU pairs that the output orders without need; compare_traces() counts the
conflicting pairs that another output of the same program orders and this
one does not.

Accesses: a kernel's per-argument reads and writes come from its gpu.func body,
or its llvm.func body for an llvm.func kernel in a gpu.module (memref.load and
llvm.load read, memref.store and llvm.store write, linalg.copy reads its input
and writes its output, linalg.fill writes its output, through views,
llvm.inttoptr, llvm.getelementptr and casts; any other use of an argument reads
and writes it; workgroup and private attributions, gpu.dynamic_shared_memory
and gpu.barrier are the kernel's own); a kernel whose body is not in the module
(a gpu.binary's) has the effects the caller gives (Interpreter's
`opaque_kernels`), and an unknown kernel is not modelled; gpu.memcpy writes its
destination and reads its source, gpu.memset, gpu.alloc and gpu.dealloc write
their buffer; memref.load reads, memref.store, memref.alloc and memref.dealloc
write; memref.copy and linalg.copy read their input and write their output,
linalg.fill writes its output (structured ops with recursive memory effects
that declare their own: only these two are modelled, in a kernel body too,
where they give the kernel's effect on the arguments they reach; their regions
are not run); the return of the function reads and writes its memref arguments
(the caller may use them, so GPU work on them must be complete) once it has
waited for the host's set plus the sets handed to its stream arguments; each
memref.alloca buffer dies (a host write with the host's set alone) where its
automatic allocation scope ends, as MLIR defines it: at the end of the function
call, the async.execute body, the scf.for iteration or the memref.alloca_scope
that made it (for the function, before its return's access). Aliasing: function
arguments may alias each other unless marked {llvm.noalias}; each allocation is
a buffer of its own.

What it does not model raises Unsupported: an op it does not know that has
regions, touches memrefs, pointers, tokens, handles or async values, or is not
of a dialect without memory effects (math, index, ub, vector, complex, tensor);
a region not ended by a terminator it knows (or, in a region of several blocks,
by cf.br / cf.cond_br); a branch on an unknown condition, or to a block label
other than ^bbN; other linalg ops, and linalg ops with results (tensors);
arithmetic on pointers other than casts; a stream's own token (`gpu.wait async
<%s>`), a launch on a value that is not a stream; a call of a declaration given
a token, handle or stream; other llvm.call ops; other sparse ops.
"""

import itertools
import re

from mlir_generic_form import split_types

TOKEN = "!gpu.async.token"
VIEW_OPS = {
    "memref.cast", "memref.subview", "memref.reinterpret_cast",
    "memref.expand_shape", "memref.collapse_shape", "memref.view",
    "memref.transpose", "memref.assume_alignment", "memref.memory_space_cast",
}
# Ops that neither access memory nor produce values the interpreter needs.
METADATA_OPS = {"memref.dim", "memref.extract_strided_metadata", "memref.rank"}
CMPI = {0: lambda a, b: a == b, 1: lambda a, b: a != b,
        2: lambda a, b: a < b, 3: lambda a, b: a <= b,
        4: lambda a, b: a > b, 5: lambda a, b: a >= b,
        6: lambda a, b: a < b, 7: lambda a, b: a <= b,
        8: lambda a, b: a > b, 9: lambda a, b: a >= b}
BINARY = {"arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b,
          "arith.muli": lambda a, b: a * b, "arith.andi": lambda a, b: a & b,
          "arith.ori": lambda a, b: a | b, "arith.xori": lambda a, b: a ^ b,
          "arith.maxsi": max, "arith.minsi": min}
# Integer casts: they carry a pointer's buffer (provenance).
INT_CASTS = {"arith.index_cast", "arith.index_castui", "arith.extui",
             "arith.extsi", "arith.trunci"}
# LLVM ops that compute a pointer (or its integer) from their first operand:
# the same buffer.
POINTER_OPS = {"llvm.inttoptr", "llvm.ptrtoint", "llvm.bitcast",
               "llvm.addrspacecast", "llvm.getelementptr"}
# Sparse ops: those creating a handle over their memref operands, those
# destroying one, the buffer-size queries, and the operations with the
# position of their output handle.
SPARSE_CREATE = {"gpu.create_dn_tensor", "gpu.create_csr", "gpu.create_coo",
                 "gpu.create_csc", "gpu.create_coo_aos"}
SPARSE_DESTROY = {"gpu.destroy_dn_tensor", "gpu.destroy_sp_mat"}
SPARSE_SIZE = {"gpu.spmv_buffer_size", "gpu.spmm_buffer_size",
               "gpu.sddmm_buffer_size"}
SPARSE_COMPUTE = {"gpu.spmv": 2, "gpu.spmm": 2, "gpu.sddmm": 2}
# Dialects whose ops touch no memory unless given memrefs or pointers (which
# the interpreter checks for): the other ops it does not know are not
# modelled.
PURE_DIALECTS = {"math", "index", "ub", "vector", "complex", "tensor"}
# The terminators a region may end with (those of the regions modelled).
TERMINATORS = {"scf.yield", "func.return", "scf.condition", "async.yield",
               "memref.alloca_scope.return", "gpu.on_stream.yield",
               "scf.reduce"}
# The branches between the blocks of a region of several blocks (their
# successors are read from the op's line: '"cf.br"(%x)[^bb3] : ...').
BRANCHES = {"cf.br", "cf.cond_br"}
_SUCCESSORS_RE = re.compile(
    r'^\s*(?:%[^"=]*? = )?"[^"]+"\([^)]*\)\[([^\]]*)\]')
# Structured ops with memory effects of their own that are modelled: their
# operands are split into inputs (read) and outputs (written).
LINALG_OPS = {"linalg.fill", "linalg.copy"}
MAX_STEPS = 100000
MAX_WHILE_ITERATIONS = 100


class Unsupported(Exception):
    """The program does something the interpreter does not model (or that is
    not a valid program: an unknown value, a loop without constant bounds)."""


class Buffer:
    """A buffer: `root` numbers the buffers of one execution in creation
    order (arguments first); `alias_class` is shared by buffers that may
    alias; `name` describes it."""

    __slots__ = ("root", "alias_class", "name")

    def __init__(self, root, alias_class, name):
        self.root = root
        self.alias_class = alias_class
        self.name = name


class Token:
    """A token value: the bit mask of the GPU op instances complete when it
    is ready."""

    __slots__ = ("mask",)

    def __init__(self, mask):
        self.mask = mask


class Handle:
    """A sparse handle: the buffers it was created over (for a sparse matrix,
    its values last), whether it is a sparse matrix, and its descriptor (a
    buffer of its own, written by create and destroy)."""

    __slots__ = ("buffers", "sparse", "descriptor")

    def __init__(self, buffers, sparse, descriptor):
        self.buffers = buffers
        self.sparse = sparse
        self.descriptor = descriptor


class Stream:
    """A caller's stream (a !llvm.ptr function argument) or one the function
    made (mgpuStreamCreate); `handed` is the mask of the GPU work handed over
    to it (by gpu.on_stream exits and launches on it); `destroyed`, whether
    mgpuStreamDestroy ended it."""

    __slots__ = ("name", "handed", "destroyed")

    def __init__(self, name):
        self.name = name
        self.handed = 0
        self.destroyed = False


class AsyncToken:
    """An !async.token: the mask of the GPU work complete for the host thread
    of its async.execute body when the body ended."""

    __slots__ = ("mask",)

    def __init__(self, mask):
        self.mask = mask


class AsyncValue:
    """An !async.value: the value its body yielded, and the mask of its
    AsyncToken."""

    __slots__ = ("value", "mask")

    def __init__(self, value, mask):
        self.value = value
        self.mask = mask


# Values that are not scalars: the ops that do not model them must not get
# them.
OPAQUE_VALUES = (Buffer, Token, Handle, Stream, AsyncToken, AsyncValue)


class Instance:
    """One executed op that accesses memory.

    kind: "gpu" or "host"; op: the generic-form Op; accesses: tuple of
    (Buffer, mode), mode "R", "W" or "RW"; before: bit mask of the GPU
    instances that happen before it (for a host access: what the host has
    waited for); path: where it ran ("for@L12 i=1", "if@L14 then", ...);
    regions: the streams of the gpu.on_stream bodies it ran in; caller: for
    the caller's earlier work on a stream (Interpreter.caller_work), that
    stream: only what runs in a body on it is ordered after that work."""

    __slots__ = ("kind", "op", "accesses", "before", "path", "regions",
                 "caller")

    def __init__(self, kind, op, accesses, before, path, regions=frozenset(),
                 caller=None):
        self.kind = kind
        self.op = op
        self.accesses = accesses
        self.before = before
        self.path = path
        self.regions = regions
        self.caller = caller

    def describe(self):
        """'gpu.memset of %arg1 (line 12, for@L10 i=2)'."""
        what = "return" if self.op.name == "func.func" else self.op.name
        callee = self.op.attr("kernel") if what == "gpu.launch_func" else None
        if callee:
            what += " " + callee
        bufs = ", ".join(f"{m} {b.name}" for b, m in self.accesses)
        where = []
        if self.op.line_number():
            where.append(f"line {self.op.line_number()}")
        where += self.path
        return f"{what} [{bufs}]" + (f" ({', '.join(where)})" if where else "")


class Trace:
    """The dynamic trace of one execution, with its counters."""

    def __init__(self):
        self.instances = []
        self.host_syncs = 0        # synchronous gpu.wait executed
        self.loop_syncs = 0        # ... of them inside a loop body
        self.loop_iterations = 0   # loop bodies executed

    def signature(self):
        """What must not change between the pass input and output: each
        access op in order, with its buffers (by creation number) and modes.
        """
        out = []
        for inst in self.instances:
            callee = (inst.op.attr("kernel") or inst.op.attr("callee") or "")
            out.append((inst.kind, inst.op.name, callee,
                        tuple((b.root, m) for b, m in inst.accesses)))
        return out


def _input_count(function_type):
    """The number of inputs of a function type: '(T, U) -> ()' (gpu.func) or
    '!llvm.func<void (ptr, ptr)>' (llvm.func)."""
    start = (function_type or "").find("(")
    if start < 0:
        return None
    depth = 0
    for end in range(start, len(function_type)):
        depth += {"(": 1, ")": -1}.get(function_type[end], 0)
        if depth == 0:
            return len(split_types(function_type[start + 1:end]))
    return None


def kernel_effects(func):
    """Per argument of a gpu.func (or an llvm.func kernel), its access mode
    ("", "R", "W", "RW"), from the memref.load/store and llvm.load/store ops
    on it (through views, pointer casts and llvm.getelementptr). Workgroup
    and private attributions are the kernel's own memory."""
    args = func.regions[0][0].arg_names if func.regions and \
        func.regions[0] else []
    count = _input_count(func.attr("function_type"))
    if count is not None:
        args = args[:count]
    origin = {name: i for i, name in enumerate(args)}
    modes = [set() for _ in args]
    for op in func.walk():
        if op is func:
            continue
        if (op.name in VIEW_OPS or op.name in POINTER_OPS or
                op.name in INT_CASTS) and op.operands and \
                op.operands[0] in origin:
            for r in op.results:
                origin[r] = origin[op.operands[0]]
        elif op.name in ("memref.load", "llvm.load") and \
                op.operands[0] in origin:
            modes[origin[op.operands[0]]].add("R")
        elif op.name in ("memref.store", "llvm.store") and \
                op.operands[1] in origin and op.operands[0] not in origin:
            modes[origin[op.operands[1]]].add("W")
        elif op.name in LINALG_OPS and not op.results and \
                len(op.segments() or []) == 2:
            # linalg.fill / linalg.copy: the inputs are read, the outputs
            # written (not read).
            ins, outs = op.segments()
            for v in ins:
                if v in origin:
                    modes[origin[v]].add("R")
            for v in outs:
                if v in origin:
                    modes[origin[v]].add("W")
        else:
            for v in op.operands:
                if v in origin:
                    modes[origin[v]] |= {"R", "W"}
    return ["".join(sorted(m)) for m in modes]


def _scalar_constant(text):
    """The value of an arith.constant's 'value' attribute: int, bool, or None
    (floats and others are not needed)."""
    if text is None:
        return None
    if text in ("true", "false"):
        return text == "true"
    m = re.match(r"^(-?\d+)(?:\s*:\s*\S+)?$", text)
    return int(m.group(1)) if m else None


class Interpreter:
    """Executes the functions of one parsed module (the ops that
    mlir_generic_form.parse_generic returns). `opaque_kernels` maps kernels
    whose bodies are not in the module ('@blobs::@name', in a gpu.binary) to
    their per-argument modes."""

    def __init__(self, top_ops, opaque_kernels=None):
        self.functions = {}
        self.kernels = dict(opaque_kernels or {})
        for top in top_ops:
            for op in top.walk():
                if op.name == "func.func":
                    self.functions["@" + op.attr("sym_name").strip('"')] = op
                elif op.name == "gpu.module":
                    module = op.attr("sym_name").strip('"')
                    for inner in op.walk():
                        if inner.name in ("gpu.func", "llvm.func") and \
                                inner.regions and inner.regions[0]:
                            name = inner.attr("sym_name").strip('"')
                            self.kernels[f"@{module}::@{name}"] = \
                                kernel_effects(inner)

    # -- running -----------------------------------------------------------

    def run(self, func_name, scalars, drop_host_waits=False,
            drop_token_deps=False, reference=False, caller_work=False):
        """Executes `func_name` with each memref argument bound to a buffer
        of its own (of one alias class for all, or one each where marked
        {llvm.noalias}), each !llvm.ptr argument to a caller's stream, and its
        other arguments to `scalars` (in order); returns the Trace.
        drop_host_waits ignores synchronous gpu.waits, drop_token_deps the
        token operands of GPU ops (both to show that the checks fail without
        them). `reference` runs a pass's input: a launch on a caller's stream
        also completes for the host, as every statement does in program
        order (the pass orders later conflicting work after it).
        `caller_work`: each stream argument starts with the caller's earlier
        work on it pending (see caller_work); for a function whose whole
        body is a gpu.on_stream region on it (code outside such a region is
        not ordered with the stream's work, by the op's definition)."""
        func = self.functions.get(func_name)
        if func is None:
            raise Unsupported(f"no function {func_name}")
        self.trace = Trace()
        self.host_done = 0
        self.next_root = 0
        self.path = []
        self.loop_depth = 0
        self.steps = 0
        # The memref.alloca buffers of each live automatic allocation scope
        # (function call, async.execute body, scf.for iteration,
        # memref.alloca_scope), innermost last.
        self.frames = []
        self.drop_host_waits = drop_host_waits
        self.drop_token_deps = drop_token_deps
        self.reference = reference
        # The sets of the streams of the gpu.on_stream ops whose bodies the
        # current function is in (per call: the rule is lexical), and those
        # streams.
        self.stream_entries = []
        self.region_streams = []
        block = func.regions[0][0]
        arg_attrs = split_arg_attrs(func.attr("arg_attrs"), len(
            block.arg_names))
        values, scalars = [], list(scalars)
        for i, (name, ty) in enumerate(zip(block.arg_names, block.arg_types)):
            if ty.startswith("memref"):
                alias = f"noalias{i}" if "llvm.noalias" in arg_attrs[i] \
                    else "args"
                values.append(self.new_buffer(alias, f"argument {i}"))
            elif ty == "!llvm.ptr":
                values.append(Stream(name))
            else:
                if not scalars:
                    raise Unsupported(f"no value for argument {name}: {ty}")
                values.append(scalars.pop(0))
        self.frames.append([])
        if caller_work:
            self.caller_work(func, values)
        self.call(func, values)
        # The frame dies: its stack buffers are gone.
        self.path = ["return"]
        self.end_frame(func)
        # The caller may use the arguments once the function returns and it
        # has synchronized the streams the function handed work to: the
        # return is a host access that reads and writes each of them.
        handed = 0
        for v in values:
            if isinstance(v, Stream):
                handed |= v.handed
        self.record("host", func, [(v, "RW") for v in values
                                   if isinstance(v, Buffer)],
                    self.host_done | handed)
        return self.trace

    def caller_work(self, func, values):
        """The caller's earlier work on each stream argument: GPU work, still
        pending, that reads and writes each buffer argument. In a pass's
        input (`reference`), it completes before the function. Only what
        runs in a gpu.on_stream body on that stream must be ordered after it
        (check_trace): code outside such a body is not ordered with the
        stream's work, by the op's definition."""
        for stream in values:
            if not isinstance(stream, Stream):
                continue
            bit = self.record("gpu", func, [
                (v, "RW") for v in values if isinstance(v, Buffer)], 0)
            self.trace.instances[-1].caller = stream
            stream.handed |= bit
            if self.reference:
                self.host_done |= bit

    def end_frame(self, op):
        """Ends the innermost frame: a host write, by `op`'s end, of each of
        its stack buffers (made with what this host thread has waited
        for)."""
        stack = self.frames.pop()
        if stack:
            self.record("host", op, [(b, "W") for b in stack], self.host_done)

    def new_buffer(self, alias_class, name):
        buf = Buffer(self.next_root, alias_class or self.next_root, name)
        self.next_root += 1
        return buf

    def alloc_name(self, op):
        """'gpu.alloc@L12' (the allocating op and its line), or with the
        buffer number where there is no line."""
        line = op.line_number()
        return f"{op.name}@L{line}" if line else f"{op.name}#{self.next_root}"

    def call(self, func, values):
        if not func.regions or not func.regions[0]:
            raise Unsupported("call of a function without a body")
        if len(self.path) > 50:
            raise Unsupported("call depth over 50")
        entries, self.stream_entries = self.stream_entries, []
        streams, self.region_streams = self.region_streams, []
        try:
            return self.region(func.regions[0], values, {})
        finally:
            self.stream_entries = entries
            self.region_streams = streams

    def region(self, region, args, env):
        """Runs a region with its entry block's arguments bound to `args`;
        in a region of several blocks, follows the branches (cf.br,
        cf.cond_br) from block to block. Returns the operands of the
        terminator that ends the region."""
        if not region:
            return []
        several = len(region) > 1
        index, visits = 0, {}
        while True:
            block = region[index]
            if len(block.arg_names) != len(args):
                raise Unsupported(f"{len(args)} values for "
                                  f"{len(block.arg_names)} block arguments")
            env.update(zip(block.arg_names, args))
            last = block.ops[-1].name if block.ops else None
            if last is not None and last not in TERMINATORS and not (
                    several and last in BRANCHES):
                raise Unsupported(f"region ending with {last}")
            if several:
                visits[index] = visits.get(index, 0) + 1
                self.path.append(f"^bb{index}" + (
                    f" visit {visits[index]}" if visits[index] > 1 else ""))
            target = None
            for op in block.ops:
                self.steps += 1
                if self.steps > MAX_STEPS:
                    raise Unsupported(f"more than {MAX_STEPS} ops executed")
                if op.name in TERMINATORS:
                    if several:
                        self.path.pop()
                    return [self.value(env, v) for v in op.operands]
                if op.name in BRANCHES:
                    target, args = self.branch(op, env, len(region))
                    break
                self.execute(op, env)
            if several:
                self.path.pop()
            if target is None:
                return []
            index = target

    def branch(self, op, env, count):
        """The successor (block number) that branch `op` takes, and the
        values it passes to the successor's arguments."""
        m = _SUCCESSORS_RE.match(op.line)
        targets = []
        for label in (m.group(1).split(",") if m else []):
            number = re.fullmatch(r"\s*\^bb(\d+)\s*", label)
            if not number or int(number.group(1)) >= count:
                raise Unsupported(f"{op.name} to {label.strip()}, not a block "
                                  "of this region")
            targets.append(int(number.group(1)))
        if op.name == "cf.br" and len(targets) == 1:
            return targets[0], [self.value(env, v) for v in op.operands]
        segments = op.segments()
        if op.name != "cf.cond_br" or len(targets) != 2 or \
                segments is None or len(segments) != 3 or \
                len(segments[0]) != 1:
            raise Unsupported(f"{op.name} with successors {targets}: not "
                              "modelled")
        cond = self.value(env, segments[0][0])
        if cond is None or isinstance(cond, OPAQUE_VALUES):
            raise Unsupported("cf.cond_br on an unknown condition")
        taken = 1 if cond else 2
        return targets[taken - 1], [self.value(env, v)
                                    for v in segments[taken]]

    def value(self, env, name):
        if name not in env:
            raise Unsupported(f"value {name} used but not defined here")
        return env[name]

    def buffer(self, env, name):
        v = self.value(env, name)
        if not isinstance(v, Buffer):
            raise Unsupported(f"{name} is not a known buffer")
        return v

    def record(self, kind, op, accesses, before):
        inst = Instance(kind, op, tuple(accesses), before, tuple(self.path),
                        frozenset(self.region_streams))
        self.trace.instances.append(inst)
        return 1 << (len(self.trace.instances) - 1)

    def where(self, op, what):
        line = op.line_number()
        return f"{what}@L{line}" if line else what

    # -- ops ---------------------------------------------------------------

    def execute(self, op, env):
        name = op.name
        if name == "gpu.on_stream":
            return self.on_stream(op, env)
        if name.startswith("gpu."):
            return self.gpu_op(op, env)
        if name == "scf.for":
            return self.scf_for(op, env)
        if name == "scf.while":
            return self.scf_while(op, env)
        if name == "scf.parallel":
            return self.scf_parallel(op, env)
        if name == "scf.if":
            return self.scf_if(op, env)
        if name == "scf.index_switch":
            return self.scf_switch(op, env)
        if name == "scf.execute_region":
            return self.bind(op, env, self.region(op.regions[0], [], env))
        if name == "func.call":
            return self.func_call(op, env)
        if name == "llvm.call":
            return self.runtime_call(op, env)
        if name.startswith("memref."):
            return self.memref_op(op, env)
        if name.startswith("arith."):
            return self.arith_op(op, env)
        if name.startswith("async."):
            return self.async_op(op, env)
        if name.startswith("linalg."):
            return self.linalg_op(op, env)
        if name in POINTER_OPS:
            return self.bind(op, env, [self.pointer(env, op)] *
                             len(op.results))
        # Other ops: only those of dialects without memory effects, on
        # values that are not memrefs, pointers, tokens or handles.
        types = op.operand_types + op.result_types
        if op.regions or name.split(".")[0] not in PURE_DIALECTS or any(
                t.startswith(("memref", "!gpu.", "!async.", "!llvm.ptr"))
                for t in types) or any(
                isinstance(env.get(v), OPAQUE_VALUES) for v in op.operands):
            raise Unsupported(f"op {name} is not modelled")
        self.bind(op, env, [None] * len(op.results))

    def on_stream(self, op, env):
        stream = self.stream(env, op.operands[0], "gpu.on_stream")
        self.stream_entries.append(stream.handed)
        self.region_streams.append(stream)
        try:
            returned = self.region(op.regions[0], [Token(stream.handed)], env)
        finally:
            self.stream_entries.pop()
            self.region_streams.pop()
        # The terminator's tokens are handed over; its other operands are
        # the results (which are never tokens).
        for v in returned:
            if isinstance(v, Token) and not self.drop_token_deps:
                stream.handed |= v.mask
        self.bind(op, env, [v for v in returned if not isinstance(v, Token)])

    def entry_mask(self):
        """The union of the sets of the streams whose gpu.on_stream bodies
        the current op is in."""
        mask = 0
        for entry in self.stream_entries:
            mask |= entry
        return mask

    def pointer(self, env, op):
        """The buffer (or None) of the pointer or pointer integer that op
        computes from its first operand."""
        v = self.value(env, op.operands[0])
        if isinstance(v, OPAQUE_VALUES) and not isinstance(v, Buffer):
            raise Unsupported(f"{op.name} on a token, handle or stream")
        return v if isinstance(v, Buffer) else None

    def bind(self, op, env, values):
        if len(values) != len(op.results):
            raise Unsupported(f"{op.name}: {len(values)} values for "
                              f"{len(op.results)} results")
        env.update(zip(op.results, values))

    def arith_op(self, op, env):
        name = op.name
        args = [env.get(v) for v in op.operands]
        if name == "arith.constant":
            result = _scalar_constant(op.attr("value"))
        elif name == "arith.cmpi":
            pred = _scalar_constant(op.attr("predicate"))
            result = None if None in args else CMPI[pred](*args)
        elif name in BINARY:
            result = None if None in args else BINARY[name](*args)
        elif name == "arith.select":
            result = None if args[0] is None else \
                (args[1] if args[0] else args[2])
        elif name in INT_CASTS:
            result = args[0]
        else:
            result = None
        # A pointer integer keeps its buffer through casts; other arithmetic
        # on it (or on tokens, handles...) is not modelled.
        pointer_cast = name in INT_CASTS and isinstance(args[0], Buffer)
        if isinstance(result, OPAQUE_VALUES) or any(
                isinstance(a, OPAQUE_VALUES) for a in args):
            if name != "arith.select" and not pointer_cast:
                raise Unsupported(f"{name} on a buffer or token")
        self.bind(op, env, [result] * len(op.results))

    def memref_op(self, op, env):
        name = op.name
        if name in VIEW_OPS:
            self.bind(op, env, [self.buffer(env, op.operands[0])])
        elif name in ("memref.alloc", "memref.alloca"):
            buf = self.new_buffer(None, self.alloc_name(op))
            self.record("host", op, [(buf, "W")], self.host_done)
            if name == "memref.alloca":
                self.frames[-1].append(buf)
            self.bind(op, env, [buf])
        elif name == "memref.alloca_scope":
            self.frames.append([])
            results = self.region(op.regions[0], [], env)
            self.end_frame(op)
            self.bind(op, env, results)
        elif name == "memref.extract_aligned_pointer_as_index":
            self.bind(op, env, [self.buffer(env, op.operands[0])])
        elif name == "memref.load":
            self.record("host", op, [(self.buffer(env, op.operands[0]), "R")],
                        self.host_done)
            self.bind(op, env, [None])
        elif name == "memref.store":
            self.record("host", op, [(self.buffer(env, op.operands[1]), "W")],
                        self.host_done)
        elif name == "memref.dealloc":
            self.record("host", op, [(self.buffer(env, op.operands[0]), "W")],
                        self.host_done)
        elif name == "memref.copy":
            self.record("host", op, [(self.buffer(env, op.operands[0]), "R"),
                                     (self.buffer(env, op.operands[1]), "W")],
                        self.host_done)
        elif name in METADATA_OPS:
            self.bind(op, env, [None] * len(op.results))
        else:
            raise Unsupported(f"op {name} is not modelled")

    def linalg_op(self, op, env):
        """linalg.fill and linalg.copy on memrefs (on the host): a host
        access that reads the inputs and writes the outputs."""
        segments = op.segments()
        if op.name not in LINALG_OPS or op.results or segments is None or \
                len(segments) != 2:
            raise Unsupported(f"op {op.name} is not modelled")
        types = dict(zip(op.operands, op.operand_types))
        accesses = []
        for mode, values in zip("RW", segments):
            for v in values:
                if types.get(v, "").startswith("memref"):
                    accesses.append((self.buffer(env, v), mode))
                elif isinstance(self.value(env, v), OPAQUE_VALUES):
                    raise Unsupported(f"{op.name} on {v}, not a memref")
                elif mode == "W":
                    raise Unsupported(f"{op.name} into {v}, not a memref")
        self.record("host", op, accesses, self.host_done)

    def stream(self, env, v, what):
        """The live stream `v`, or Unsupported."""
        stream = self.value(env, v)
        if not isinstance(stream, Stream):
            raise Unsupported(f"{what} on a value that is not a stream")
        if stream.destroyed:
            raise Unsupported(f"{what} on a destroyed stream")
        return stream

    def runtime_call(self, op, env):
        """The stream functions of the GPU runtime (see the module doc)."""
        callee = op.attr("callee")
        if callee == "@mgpuStreamCreate" and not op.operands:
            return self.bind(op, env, [Stream(op.results[0])])
        if callee == "@mgpuStreamSynchronize" and len(op.operands) == 1:
            stream = self.stream(env, op.operands[0], callee)
            self.host_done |= stream.handed
            return self.bind(op, env, [])
        if callee == "@mgpuStreamDestroy" and len(op.operands) == 1:
            self.stream(env, op.operands[0], callee).destroyed = True
            return self.bind(op, env, [])
        raise Unsupported(f"llvm.call of {callee} is not modelled")

    def func_call(self, op, env):
        callee = op.attr("callee")
        func = self.functions.get(callee)
        args = [self.value(env, v) for v in op.operands]
        if func is None or not func.regions or not func.regions[0]:
            # A declaration: it may read and write every buffer it is given
            # (what it does with tokens, handles or streams is not known).
            if any(isinstance(a, OPAQUE_VALUES) and not isinstance(a, Buffer)
                   for a in args):
                raise Unsupported(f"call of {callee} with a token, handle or "
                                  "stream")
            accesses = [(a, "RW") for a in args if isinstance(a, Buffer)]
            self.record("host", op, accesses, self.host_done)
            self.bind(op, env, [None] * len(op.results))
            return
        self.path.append(f"call {callee}")
        self.frames.append([])
        results = self.call(func, args)
        self.end_frame(func)
        self.path.pop()
        self.bind(op, env, results)

    def loop_bounds(self, op, env, operands, steps):
        """The values of a loop's bound operands, integers with positive
        `steps` (indices into them), or Unsupported."""
        bounds = [self.value(env, v) for v in operands]
        if not all(isinstance(x, int) and not isinstance(x, bool)
                   for x in bounds) or any(bounds[i] <= 0 for i in steps):
            raise Unsupported(f"{op.name} without constant bounds")
        return bounds

    def scf_for(self, op, env):
        lb, ub, step = self.loop_bounds(op, env, op.operands[:3], [2])
        values = [self.value(env, v) for v in op.operands[3:]]
        label = self.where(op, "for")
        self.loop_depth += 1
        for iv in range(lb, ub, step):
            self.path.append(f"{label} i={iv}")
            # scf.for is an automatic allocation scope: the stack buffers of
            # an iteration die at its end.
            self.frames.append([])
            values = self.region(op.regions[0], [iv] + values, env)
            self.end_frame(op)
            self.path.pop()
            self.trace.loop_iterations += 1
        self.loop_depth -= 1
        self.bind(op, env, values)

    def scf_parallel(self, op, env):
        """An scf.parallel without reductions (-canonicalize merges nested
        ones into one of several dimensions): its iterations run one after
        the other, as -convert-scf-to-cf lowers it (the last dimension
        innermost)."""
        dims = len(op.regions[0][0].arg_names) if op.regions[0] else 0
        if op.results or len(op.operands) != 3 * dims:
            raise Unsupported("scf.parallel with reductions")
        bounds = self.loop_bounds(op, env, op.operands,
                                  range(2 * dims, 3 * dims))
        ranges = [range(bounds[d], bounds[dims + d], bounds[2 * dims + d])
                  for d in range(dims)]
        label = self.where(op, "parallel")
        self.loop_depth += 1
        for ivs in itertools.product(*ranges):
            self.path.append(f"{label} i={','.join(map(str, ivs))}")
            self.region(op.regions[0], list(ivs), env)
            self.path.pop()
            self.trace.loop_iterations += 1
        self.loop_depth -= 1
        self.bind(op, env, [])

    def scf_while(self, op, env):
        values = [self.value(env, v) for v in op.operands]
        label = self.where(op, "while")
        self.loop_depth += 1
        iteration = 0
        while True:
            self.path.append(f"{label} i={iteration}")
            cond, *values = self.region(op.regions[0], values, env)
            if cond is None:
                raise Unsupported("scf.while on an unknown condition")
            if not cond:
                self.path.pop()
                break
            values = self.region(op.regions[1], values, env)
            self.path.pop()
            self.trace.loop_iterations += 1
            iteration += 1
            if iteration > MAX_WHILE_ITERATIONS:
                raise Unsupported(f"scf.while over {MAX_WHILE_ITERATIONS} "
                                  "iterations")
        self.loop_depth -= 1
        self.bind(op, env, values)

    def scf_if(self, op, env):
        cond = self.value(env, op.operands[0])
        if cond is None:
            raise Unsupported("scf.if on an unknown condition")
        branch = 0 if cond else 1
        self.path.append(self.where(op, "if") + (" then" if cond else " else"))
        results = self.region(op.regions[branch], [], env) \
            if branch < len(op.regions) else []
        self.path.pop()
        self.bind(op, env, results)

    def scf_switch(self, op, env):
        arg = self.value(env, op.operands[0])
        if arg is None:
            raise Unsupported("scf.index_switch on an unknown value")
        text = (op.attr("cases") or "").partition(":")[2]
        cases = [int(x) for x in re.findall(r"-?\d+", text)]
        index = cases.index(arg) + 1 if arg in cases else 0
        self.path.append(self.where(op, "switch") +
                         (f" case {arg}" if index else " default"))
        results = self.region(op.regions[index], [], env)
        self.path.pop()
        self.bind(op, env, results)

    def async_op(self, op, env):
        name = op.name
        if name == "async.execute":
            return self.async_execute(op, env)
        if name != "async.await":
            raise Unsupported(f"op {name} is not modelled")
        v = self.value(env, op.operands[0])
        if not isinstance(v, (AsyncToken, AsyncValue)):
            raise Unsupported(f"async.await of {op.operands[0]}, not an async "
                              "token or value")
        # The body's thread has ended: what it completed is complete here.
        self.host_done |= v.mask
        self.bind(op, env, [v.value] if isinstance(v, AsyncValue) else [])

    def async_execute(self, op, env):
        """Runs the body now, on a host thread of its own (see the module
        docstring); binds the !async.token and !async.value results."""
        segments = op.segments()
        if segments is None or len(segments) != 2:
            raise Unsupported("async.execute without operand segments")
        start = self.host_done
        for v in segments[0]:
            tok = self.value(env, v)
            if not isinstance(tok, AsyncToken):
                raise Unsupported(f"async.execute depends on {v}, not an "
                                  "async token")
            start |= tok.mask
        args = []
        for v in segments[1]:
            val = self.value(env, v)
            if not isinstance(val, AsyncValue):
                raise Unsupported(f"async.execute operand {v} is not an async "
                                  "value")
            start |= val.mask
            args.append(val.value)
        saved = self.host_done
        self.host_done = start
        self.path.append(self.where(op, "execute"))
        self.frames.append([])
        results = self.region(op.regions[0], args, env)
        self.end_frame(op)
        self.path.pop()
        end = self.host_done
        self.host_done = saved
        if len(op.results) != 1 + len(results):
            raise Unsupported(f"async.execute: {len(results)} values yielded "
                              f"for {len(op.results) - 1} results")
        self.bind(op, env, [AsyncToken(end)] +
                  [AsyncValue(v, end) for v in results])

    def handle(self, env, name):
        v = self.value(env, name)
        if not isinstance(v, Handle):
            raise Unsupported(f"{name} is not a known sparse handle")
        return v

    def sparse_accesses(self, op, env, others):
        """The accesses of sparse op `op` (operands `others`, tokens
        excluded) and its results (a new handle for a create)."""
        name = op.name
        types = [t for t in op.operand_types if t != TOKEN]
        handles = [self.handle(env, v) for v, t in zip(others, types)
                   if t.startswith("!gpu.sparse")]
        memrefs = [self.buffer(env, v) for v, t in zip(others, types)
                   if t.startswith("memref")]
        results = [None] * len(op.results)
        if name in SPARSE_CREATE:
            handle = Handle(memrefs, name != "gpu.create_dn_tensor",
                            self.new_buffer(
                                None, self.alloc_name(op) + " descriptor"))
            results = [handle if t.startswith("!gpu.sparse") else None
                       for t in op.result_types]
            return [(handle.descriptor, "W")], results
        if name in SPARSE_DESTROY:
            return [(h.descriptor, "W") for h in handles], results
        if name in SPARSE_SIZE:
            return [(h.descriptor, "R") for h in handles], results
        if name in SPARSE_COMPUTE and len(handles) == 3:
            out = SPARSE_COMPUTE[name]
            accesses = []
            for i, h in enumerate(handles):
                accesses.append((h.descriptor, "R"))
                # The output: a dense one is read and written, a sparse one
                # (gpu.sddmm) has its values read and written.
                written = (h.buffers[-1:] if h.sparse else h.buffers) \
                    if i == out else []
                accesses += [(b, "RW" if b in written else "R")
                             for b in h.buffers]
            accesses += [(b, "RW") for b in memrefs]
            return accesses, results
        raise Unsupported(f"op {name} is not modelled")

    def gpu_op(self, op, env):
        name = op.name
        tokens, others = [], []
        for v, t in zip(op.operands, op.operand_types):
            if t == TOKEN:
                tok = self.value(env, v)
                if not isinstance(tok, Token):
                    raise Unsupported(f"{name}: {v} is not a token")
                tokens.append(tok.mask)
            else:
                others.append(v)
        deps = 0
        for mask in tokens:
            deps |= mask
        token_result = [i for i, t in enumerate(op.result_types)
                        if t == TOKEN]
        if name == "gpu.wait":
            if others:
                raise Unsupported("gpu.wait with a non-token operand")
            if token_result:
                entry = 0 if self.drop_token_deps else self.entry_mask()
                self.bind(op, env, [Token(deps | entry)])
            elif not self.drop_host_waits:
                self.host_done |= deps
                self.trace.host_syncs += 1
                if self.loop_depth:
                    self.trace.loop_syncs += 1
            return
        results = [None] * len(op.results)
        if name == "gpu.launch_func":
            kernel = op.attr("kernel")
            segments = op.segments()
            if not segments:
                raise Unsupported("gpu.launch_func without segment sizes")
            if segments[-1]:
                stream = self.stream(env, segments[-1][0], "gpu.launch_func")
            kernel_operands = segments[-2]
            modes = self.kernels.get(kernel)
            if modes is None:
                raise Unsupported(f"kernel {kernel}: effects not known")
            accesses = []
            for i, v in enumerate(kernel_operands):
                val = self.value(env, v)
                mode = modes[i] if i < len(modes) else "RW"
                if isinstance(val, Buffer):
                    if mode:
                        accesses.append((val, mode))
                elif mode:
                    # A pointer of unknown provenance, or not a pointer.
                    raise Unsupported(f"kernel {kernel} accesses memory "
                                      f"through {v}, not a known buffer")
        elif name == "gpu.memcpy":
            accesses = [(self.buffer(env, others[0]), "W"),
                        (self.buffer(env, others[1]), "R")]
        elif name in ("gpu.memset", "gpu.dealloc"):
            accesses = [(self.buffer(env, others[0]), "W")]
        elif name == "gpu.alloc":
            buf = self.new_buffer(None, self.alloc_name(op))
            accesses = [(buf, "W")]
            results = [buf if t.startswith("memref") else None
                       for t in op.result_types]
        else:
            accesses, results = self.sparse_accesses(op, env, others)
        if name == "gpu.launch_func" and op.segments()[-1]:
            # On the caller's stream: after what the host completed and the
            # stream's earlier work; the stream's work from then on.
            before = self.host_done | stream.handed
            bit = self.record("gpu", op, accesses, before)
            stream.handed |= before | bit
            if self.reference:
                self.host_done |= before | bit
            self.bind(op, env, results)
            return
        before = self.host_done | (
            0 if self.drop_token_deps else deps | self.entry_mask())
        bit = self.record("gpu", op, accesses, before)
        if token_result:
            results[token_result[0]] = Token(before | bit)
        else:
            self.host_done |= before | bit
        self.bind(op, env, results)


def split_arg_attrs(text, count):
    """'[{llvm.noalias}, {}]' -> ['llvm.noalias', ''] (count entries)."""
    if not text:
        return [""] * count
    entries = split_types(text.strip()[1:-1])
    return [e.strip()[1:-1] for e in entries] + [""] * (count - len(entries))


def assignments(types, limit, rng):
    """Values for scalar arguments of these types: every combination (i1:
    false/true; index: 0..3) if there are at most `limit`, else `limit`
    random distinct ones."""
    domains = [[False, True] if t == "i1" else [0, 1, 2, 3] for t in types]
    combos = list(itertools.product(*domains))
    if len(combos) <= limit:
        return combos
    return sorted(rng.sample(combos, limit))


class TraceCheck:
    """The result of check_trace for one trace."""

    def __init__(self):
        self.violations = []   # (earlier instance, later instance) indices
        self.violation_count = 0
        self.gpu = 0           # GPU instances
        self.extra = 0         # GPU pairs ordered without a conflict chain
        self.unneeded = 0      # GPU pairs without a conflict chain
        self.extra_host = 0    # the same, host order counting as a chain
        self.unneeded_host = 0


class _Chains:
    """For each access, the instances that chains of dependences order
    before it: conflicting accesses (through GPU or host ops) and, with
    `host_order`, a host access and everything after it."""

    def __init__(self, host_order):
        self.host_order = host_order
        self.need_w, self.need_a = {}, {}  # alias class -> needed closure mask
        self.host = 0                      # what the host has had to wait for

    def add(self, inst, bit):
        """Records instance `inst` (mask `bit`); returns the mask of the
        instances the chains order before it."""
        needed = self.host
        for buf, mode in inst.accesses:
            closure = self.need_a if "W" in mode else self.need_w
            needed |= closure.get(buf.alias_class, 0)
        for buf, mode in inst.accesses:
            c = buf.alias_class
            self.need_a[c] = self.need_a.get(c, 0) | bit | needed
            if "W" in mode:
                self.need_w[c] = self.need_w.get(c, 0) | bit | needed
        if inst.kind != "gpu" and self.host_order:
            self.host |= needed
        return needed


def _unordered_callers(callers, inst):
    """The mask of the caller's earlier work (`callers`: (mask, stream)) that
    `inst` need not be ordered after: on a stream whose gpu.on_stream body
    it did not run in (code outside such a body is not ordered with the
    stream's work, by the op's definition)."""
    mask = 0
    for bit, stream in callers:
        if stream not in inst.regions:
            mask |= bit
    return mask


def check_trace(trace, keep=3):
    """Checks every conflicting pair of a trace: each earlier GPU access must
    happen before the later access it conflicts with (same alias class, at
    least one write); earlier host accesses are ordered by construction (the
    host runs in program order and issues the GPU work).

    Also counts, over the GPU instance pairs (x before y in program order)
    that no chain of dependences orders ("unneeded"), those that the output
    orders anyway ("extra"); concurrency is 1 - extra / unneeded. A chain
    links conflicting accesses (through GPU or host ops). The "_host" counts
    also let a host access link to everything after it: the host must wait
    for the GPU work its access conflicts with before it makes the access,
    and issues later work only after that, so no schedule can run that later
    work before the GPU work waited for. Without host order (the figure of
    the earlier oracle) such pairs count as unneeded, and the ordering that
    every correct output has counts as lost concurrency.
    """
    result = TraceCheck()
    writers, accessors = {}, {}          # alias class -> instance mask
    chains, host_chains = _Chains(False), _Chains(True)
    gpu_mask = 0
    callers = []                         # (mask, stream) of caller work
    for y, inst in enumerate(trace.instances):
        bit = 1 << y
        conflicts = 0
        for buf, mode in inst.accesses:
            earlier = accessors if "W" in mode else writers
            conflicts |= earlier.get(buf.alias_class, 0)
        conflicts &= ~_unordered_callers(callers, inst)
        if inst.caller is not None:
            callers.append((bit, inst.caller))
        missing = conflicts & gpu_mask & ~inst.before
        if missing:
            result.violation_count += missing.bit_count()
            x = 0
            while missing and len(result.violations) < keep:
                if missing & 1:
                    result.violations.append((x, y))
                missing >>= 1
                x += 1
        for buf, mode in inst.accesses:
            c = buf.alias_class
            accessors[c] = accessors.get(c, 0) | bit
            if "W" in mode:
                writers[c] = writers.get(c, 0) | bit
        needed = chains.add(inst, bit)
        needed_host = host_chains.add(inst, bit)
        if inst.kind == "gpu":
            free = gpu_mask & ~needed
            result.unneeded += free.bit_count()
            result.extra += (free & inst.before).bit_count()
            free = gpu_mask & ~needed_host
            result.unneeded_host += free.bit_count()
            result.extra_host += (free & inst.before).bit_count()
            result.gpu += 1
            gpu_mask |= bit
    return result


def compare_traces(trace, reference, keep=3):
    """Counts the conflicting pairs (an earlier GPU access, a later access it
    conflicts with) that `reference` (the trace of another output of the
    same program, with the same signature) orders and `trace` does not.
    Returns (count, up to `keep` (earlier, later) instance indices)."""
    count, pairs = 0, []
    writers, accessors = {}, {}
    gpu_mask = 0
    callers = []
    for y, (inst, ref) in enumerate(zip(trace.instances,
                                        reference.instances)):
        bit = 1 << y
        conflicts = 0
        for buf, mode in inst.accesses:
            earlier = accessors if "W" in mode else writers
            conflicts |= earlier.get(buf.alias_class, 0)
        conflicts &= ~_unordered_callers(callers, inst)
        if inst.caller is not None:
            callers.append((bit, inst.caller))
        lost = conflicts & gpu_mask & ~inst.before & ref.before
        if lost:
            count += lost.bit_count()
            x = 0
            while lost and len(pairs) < keep:
                if lost & 1:
                    pairs.append((x, y))
                lost >>= 1
                x += 1
        for buf, mode in inst.accesses:
            c = buf.alias_class
            accessors[c] = accessors.get(c, 0) | bit
            if "W" in mode:
                writers[c] = writers.get(c, 0) | bit
        if inst.kind == "gpu":
            gpu_mask |= bit
    return count, pairs
