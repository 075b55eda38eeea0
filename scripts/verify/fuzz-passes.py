#!/usr/bin/env python3
"""Mutation fuzzing of the series' passes: valid IR in, no crash or invalid IR out.

  scripts/verify/fuzz-passes.py [-n 5000] [--seed 1] [--jobs 2] [--passes P,P,...]
                         [--out build/fuzz-passes] [--mlir-opt build/bin/mlir-opt]
                         [--base-mlir-opt /usr/lib/llvm-23/bin/mlir-opt]
                         [--tests build/llvm-project/mlir/test] [--no-minimize]
                         [--no-kernel-lowering] [--batch 100] [-v] [-q]

Default pipelines: -gpu-async-region, -gpu-async-region=max-streams=0,
-gpu-async-region=max-streams=2, -gpu-to-llvm and
-gpu-async-region=max-streams=0 -gpu-to-llvm (--passes takes a
comma-separated list of such mlir-opt argument strings). -v also lists the
most frequent diagnostics per pipeline.

Inputs: the series' tests (Dialect/GPU/async-region*.mlir, the series'
Conversion/GPUCommon/lower-*.mlir, Integration/GPU/Check/*.mlir) and
upstream's Conversion/GPUCommon/lower-*-to-gpu-runtime-calls.mlir, split at
`// -----` and printed in generic form by the base (unpatched, Debian's)
mlir-opt. Each split is parsed into ops, blocks and regions; a mutant applies
one to three random IR-level mutations to one split:

  delete       an op (uses re-wired to an earlier value of the same type, or
               dropped from async dependency lists)
  duplicate    an op (later uses may move to the copy)
  swap         two adjacent ops
  rewire       a token operand to another token in scope
  async        add or remove `async` (the token result) of a GPU op
  dep          add or remove an async dependency; insert a gpu.wait
  wrap         a run of ops in scf.if / scf.for (constant bounds, tokens as
               iter_args) / scf.execute_region / scf.parallel / scf.while /
               scf.index_switch / async.execute (results awaited) /
               gpu.on_stream (on a pointer in scope or the null stream)
  alloc        a synchronous gpu.alloc + gpu.memset before an op with
               regions, the buffer used inside (operand, load, store, memset)
  yield        a token yielded from the regions of an scf/async op as a new
               result, which a later op may wait on

Only mutants that the base mlir-opt verifies are kept (the first N, in
candidate order, so a seed gives the same mutants whatever --jobs is);
inputs and mutants with ops that only the series has (gpu.on_stream,
gpu.conditional_execution) are parsed and verified by the patched mlir-opt
instead, and `wrap` also makes gpu.on_stream regions (on a pointer of the
function, or the null stream). Each
pass pipeline then runs on every mutant with the patched mlir-opt
(--verify-each=false, so that the pass's own output is what gets checked;
gpu.func kernels are lowered by -convert-gpu-to-nvvm right before
-gpu-to-llvm, as in -gpu-lower-to-nvvm-pipeline, unless
--no-kernel-lowering), and its output is parsed again by the same mlir-opt:

  ok           exit 0, the output parses and verifies
  diagnostic   the pass failed with an error (acceptable)
  crash        a signal, "Assertion", "LLVM ERROR", "PLEASE submit a bug
               report", or no answer within the time limit
  invalid      exit 0 but the output does not parse or verify (or the pass
               failed without an error)

Mutants run many at a time (one mlir-opt per batch with --split-input-file;
a batch that crashes is halved until the crashing mutant is alone). Every
crash and invalid mutant is written to --out/<pass>/ (crash-K.mlir, with the
RUN line that reproduces it, and crash-K.stderr); --out is cleared of the
reproducers of an earlier run first. Failures are grouped: one crash is one
assertion or fatal error message, else the same functions at the top of the
symbolized stack; one invalid output is one verifier message (types and
numbers left out). The first mutant of each is minimized by deleting ops
while the failure persists (*.min.mlir) and run through the base mlir-opt
as well (does upstream fail the same way?). --out/summary.txt lists them.
Prints a table (pass, mutants, ok, diagnostic, crash, invalid) and exits 1
if there is any crash or invalid output. Use-after-free crashes may come and
go with unrelated changes to the input: the counts of such a bug can vary a
little between runs of the same seed.

Smoke run for CI: scripts/verify/fuzz-passes.py -n 200.
"""

import argparse
import concurrent.futures
import copy
import glob
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import in_sysroot  # noqa: E402 (scripts/in_sysroot.py)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LLVM_PREFIX = os.environ.get("LLVM_PREFIX", "/usr/lib/llvm-23")
DEFAULT_PASSES = [
    "-gpu-async-region",
    "-gpu-async-region=max-streams=0",
    "-gpu-async-region=max-streams=2",
    "-gpu-to-llvm",
    "-gpu-async-region=max-streams=0 -gpu-to-llvm",
]
# Relative to mlir/test. SERIES_LOWER: only the lower-*.mlir that the series
# adds or changes (those in the overlay, mlir/test of this repository).
INPUT_GLOBS = [
    "Dialect/GPU/async-region*.mlir",
    "Integration/GPU/Check/*.mlir",
    "Conversion/GPUCommon/lower-*-to-gpu-runtime-calls.mlir",
]
SERIES_LOWER = "Conversion/GPUCommon/lower-*.mlir"
SPLIT_RE = re.compile(r"^// -----.*$", re.M)
CRASH_MARKERS = ("Assertion", "LLVM ERROR", "PLEASE submit a bug report")
GPU_TOKEN = "!gpu.async.token"
ASYNC_TOKEN = "!async.token"

# ---------------------------------------------------------------------------
# The generic form as a tree of ops, blocks and regions.


class Value:
    __slots__ = ("type",)

    def __init__(self, type_):
        self.type = type_


class Op:
    def __init__(self, name, operands=(), result_types=(), props="",
                 regions=(), attrs="", succ=""):
        self.name = name
        self.operands = list(operands)
        self.results = [Value(t) for t in result_types]
        self.props = props      # '<{...}>' or ''
        self.attrs = attrs      # '{...}' or ''
        self.succ = succ        # '[^bb1, ^bb2]' or ''
        self.regions = []
        self.parent = None      # Block
        for r in regions:
            self.add_region(r)

    def add_region(self, region):
        region.parent = self
        self.regions.append(region)
        return region


class Block:
    def __init__(self, ops=(), args=(), label=None):
        self.label = label
        self.args = [Value(t) for t in args]
        self.ops = []
        self.parent = None      # Region
        for op in ops:
            self.append(op)

    def append(self, op):
        self.insert(len(self.ops), op)

    def insert(self, index, op):
        op.parent = self
        self.ops.insert(index, op)


class Region:
    def __init__(self, blocks=()):
        self.blocks = []
        self.parent = None      # Op
        for b in blocks:
            self.add_block(b)

    def add_block(self, block):
        block.parent = self
        self.blocks.append(block)
        return block


class ParseError(Exception):
    pass


def scan_balanced(text, i):
    """Index after the bracket group that starts at text[i] ('(', '<', '[',
    '{'); strings are skipped and '->', '>=' are not brackets."""
    depth = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif ch in "(<[{":
            depth += 1
        elif ch in ")]}" or (ch == ">" and text[i - 1] not in "-"):
            if ch == ">" and i + 1 < n and text[i + 1] == "=":
                pass
            else:
                depth -= 1
                if depth == 0:
                    return i + 1
        i += 1
    raise ParseError(f"unbalanced: {text[:80]}")


def split_top(text, sep=","):
    """Splits at depth-0 occurrences of sep (a one-character separator)."""
    parts, depth, cur, i = [], 0, [], 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            cur.append(text[i:j + 1])
            i = j + 1
            continue
        if ch in "(<[{":
            depth += 1
        elif ch in ")]}" or (ch == ">" and i > 0 and text[i - 1] != "-"):
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def split_function_type(text):
    """'(A, B) -> C' / '-> (C, D)' / '-> ()' into ([A, B], [C, ...])."""
    text = text.strip()
    if not text.startswith("("):
        raise ParseError(f"not a function type: {text}")
    end = scan_balanced(text, 0)
    inputs = split_top(text[1:end - 1])
    rest = text[end:].strip()
    if not rest.startswith("->"):
        raise ParseError(f"not a function type: {text}")
    rest = rest[2:].strip()
    if rest.startswith("("):
        rend = scan_balanced(rest, 0)
        if rend == len(rest):
            return inputs, split_top(rest[1:-1])
    return inputs, [rest]


HEADER_RE = re.compile(r'^(?:(?P<res>%[^"]*?) = )?"(?P<name>[^"]+)"\((?P<ops>[^)]*)\)')
LABEL_RE = re.compile(
    r"^(?P<label>\^[\w$.-]+)(?:\((?P<args>.*)\))?:(?:\s*//.*)?$")  # "// pred: ..."
RESULT_GROUP_RE = re.compile(r"^(%[\w$.-]+)(?::(\d+))?$")


def result_names(text):
    names = []
    for group in text.split(","):
        m = RESULT_GROUP_RE.match(group.strip())
        if not m:
            raise ParseError(f"bad result list: {text}")
        if m.group(2):
            names += [f"{m.group(1)}#{i}" for i in range(int(m.group(2)))]
        else:
            names.append(m.group(1))
    return names


def parse_tail(tail):
    """' {attrs} : (T) -> T' into (attrs, operand types, result types)."""
    tail = tail.strip()
    attrs = ""
    if tail.startswith("{"):
        end = scan_balanced(tail, 0)
        attrs, tail = tail[:end], tail[end:].strip()
    if not tail.startswith(":"):
        raise ParseError(f"expected ':' in '{tail[:60]}'")
    return (attrs,) + split_function_type(tail[1:])


class Parser:
    """Parses mlir-opt --mlir-print-op-generic output (one op per line,
    regions opened by '({', separated by '}, {', closed by '})')."""

    def __init__(self, text):
        self.lines = [l.strip() for l in text.splitlines()
                      if l.strip() and not l.strip().startswith("//")]
        self.pos = 0
        self.raw_operands = {}   # Op -> operand names
        self.names = {}          # Value -> name it had in the text

    def parse(self):
        if not self.lines:
            raise ParseError("empty")
        op = self.parse_op()
        if self.pos != len(self.lines):
            raise ParseError(f"trailing text: {self.lines[self.pos][:60]}")
        self.resolve(op, [])
        return op

    def parse_op(self):
        line = self.lines[self.pos]
        m = HEADER_RE.match(line)
        if not m:
            raise ParseError(f"not an op: {line[:80]}")
        self.pos += 1
        op = Op(m.group("name"))
        names = result_names(m.group("res")) if m.group("res") else []
        self.raw_operands[op] = [o.strip() for o in m.group("ops").split(",")
                                 if o.strip()]
        rest = line[m.end():].lstrip()
        if rest.startswith("["):
            end = scan_balanced(rest, 0)
            op.succ, rest = rest[:end], rest[end:].lstrip()
        if rest.startswith("<{"):
            end = scan_balanced(rest, 0)
            op.props, rest = rest[:end], rest[end:].lstrip()
        if rest == "({":
            while True:
                region = op.add_region(self.parse_region())
                closer = self.lines[self.pos]
                self.pos += 1
                if closer == "}, {":
                    continue
                if not closer.startswith("})"):
                    raise ParseError(f"bad region end: {closer[:60]}")
                rest = closer[2:]
                break
        op.attrs, in_types, out_types = parse_tail(rest)
        if len(in_types) != len(self.raw_operands[op]):
            raise ParseError(f"operand count mismatch in {line[:80]}")
        if len(out_types) != len(names):
            raise ParseError(f"result count mismatch in {line[:80]}")
        op.in_types = in_types
        op.results = [Value(t) for t in out_types]
        for v, n in zip(op.results, names):
            self.names[v] = n
        return op

    def parse_region(self):
        region = Region()
        block = None
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            if line == "}, {" or line.startswith("})"):
                return region
            m = LABEL_RE.match(line)
            if m:
                self.pos += 1
                args = split_top(m.group("args") or "")
                block = region.add_block(Block(label=m.group("label")))
                for a in args:
                    name, _, type_ = a.partition(":")
                    v = Value(type_.strip())
                    block.args.append(v)
                    self.names[v] = name.strip()
                continue
            if block is None:
                block = region.add_block(Block())
            block.append(self.parse_op())
        raise ParseError("unterminated region")

    def resolve(self, op, scopes):
        """Operand names to Values: each region is a scope that sees its
        own definitions (forward references included) and its parents'."""
        for region in op.regions:
            scope = {}
            for block in region.blocks:
                for a in block.args:
                    scope[self.names[a]] = a
                for inner in block.ops:
                    for r in inner.results:
                        scope[self.names[r]] = r
            inner_scopes = [scope] + scopes
            for block in region.blocks:
                for inner in block.ops:
                    self.resolve(inner, inner_scopes)
        operands = []
        for name, type_ in zip(self.raw_operands[op], op.in_types):
            for scope in scopes:
                if name in scope:
                    v = scope[name]
                    break
            else:
                raise ParseError(f"unknown value {name}")
            if v.type != type_:
                raise ParseError(f"type mismatch for {name}")
            operands.append(v)
        op.operands = operands
        del op.in_types


def render(root):
    """The tree as generic-form text, with fresh value names."""
    names = {}
    counter = [0]

    def define_results(op):
        if not op.results:
            return ""
        counter[0] += 1
        base = f"%v{counter[0]}"
        if len(op.results) == 1:
            names[op.results[0]] = base
            return base + " = "
        for i, r in enumerate(op.results):
            names[r] = f"{base}#{i}"
        return f"{base}:{len(op.results)} = "

    # Names first (uses may precede definitions across blocks).
    def name_all(op):
        op._head = define_results(op)
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    counter[0] += 1
                    names[a] = f"%a{counter[0]}"
                for inner in block.ops:
                    name_all(inner)

    name_all(root)
    out = []

    def types(vals):
        return ", ".join(v.type for v in vals)

    def emit(op, indent):
        pad = "  " * indent
        head = (f'{pad}{op._head}"{op.name}"('
                + ", ".join(names[v] for v in op.operands) + ")")
        if op.succ:
            head += op.succ
        if op.props:
            head += " " + op.props
        res = types(op.results)
        if len(op.results) != 1 or res.startswith("("):
            res = f"({res})"
        tail = (f" {op.attrs}" if op.attrs else "") + \
            f" : ({types(op.operands)}) -> {res}"
        if not op.regions:
            out.append(head + tail)
            return
        out.append(head + " ({")
        for ri, region in enumerate(op.regions):
            if ri:
                out.append(pad + "}, {")
            used_labels = {b.label for b in region.blocks if b.label}
            for bi, block in enumerate(region.blocks):
                label = block.label
                if label is None and (bi or block.args):
                    label = next(f"^bb{i}" for i in range(10**6)
                                 if f"^bb{i}" not in used_labels)
                    used_labels.add(label)
                if label is not None:
                    args = ", ".join(f"{names[a]}: {a.type}" for a in block.args)
                    out.append(f"{pad}{label}" + (f"({args})" if args else "") + ":")
                for inner in block.ops:
                    emit(inner, indent + 1)
        out.append(pad + "})" + tail)

    emit(root, 0)
    return "\n".join(out) + "\n"


def walk(op):
    yield op
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                yield from walk(inner)


def parent_op(op):
    return op.parent.parent.parent if op.parent else None


def clone_op(op):
    """Deep copy of op; values defined inside get fresh copies, values from
    outside stay shared."""
    vmap = {}

    def rec(o):
        new = Op(o.name, o.operands, [r.type for r in o.results], o.props,
                 attrs=o.attrs, succ=o.succ)
        vmap.update(zip(o.results, new.results))
        for region in o.regions:
            nr = new.add_region(Region())
            for block in region.blocks:
                nb = nr.add_block(Block(args=[a.type for a in block.args],
                                        label=block.label))
                vmap.update(zip(block.args, nb.args))
                for inner in block.ops:
                    nb.append(rec(inner))
        return new

    new = rec(op)
    for o in walk(new):
        o.operands = [vmap.get(v, v) for v in o.operands]
    return new


# ---------------------------------------------------------------------------
# Mutations.

ISOLATED = {"builtin.module", "func.func", "gpu.module", "gpu.func",
            "llvm.func", "gpu.binary", "spirv.module", "spirv.func"}
DEVICE = {"gpu.module", "gpu.func", "gpu.launch", "gpu.binary", "llvm.func"}
# GPU ops that take async dependencies and may have a token result (plus any
# op the inputs show with a token result, see Fuzzer.__init__).
ASYNC_OPS = {"gpu.alloc", "gpu.dealloc", "gpu.memcpy", "gpu.memset",
             "gpu.wait", "gpu.launch_func", "gpu.launch"}
REGION_KINDS = ["scf.if", "scf.for", "scf.execute_region", "scf.parallel",
                "scf.while", "scf.index_switch", "async.execute",
                "gpu.on_stream"]
# Ops that only the series' mlir-opt knows: inputs and mutants with them are
# verified by it instead of the base mlir-opt.
SERIES_OPS = re.compile(r"\bgpu\.(on_stream|conditional_execution)\b")
SEG_RE = re.compile(r"operandSegmentSizes = array<i32(?:: ([\d, ]*))?>")
ELEMENT_CONSTANTS = {"f16": "1.0", "bf16": "1.0", "f32": "1.0", "f64": "1.0",
                     "i8": "1", "i16": "1", "i32": "1", "i64": "1",
                     "index": "1"}


class Failed(Exception):
    """The mutation does not apply here."""


def segments(op):
    m = SEG_RE.search(op.props)
    if not m:
        return None
    return [int(x) for x in (m.group(1) or "").split(",") if x.strip()]


def set_segments(op, segs):
    op.props = SEG_RE.sub("operandSegmentSizes = array<i32: "
                          + ", ".join(map(str, segs)) + ">", op.props, count=1)


def dep_count(op):
    """Number of leading async dependency operands of a GPU op."""
    segs = segments(op)
    if segs is not None:
        return segs[0]
    n = 0
    # (None: a dependency being removed.)
    while n < len(op.operands) and (op.operands[n] is None
                                    or op.operands[n].type == GPU_TOKEN):
        n += 1
    return n


def add_dep(op, value):
    n = dep_count(op)
    op.operands.insert(n, value)
    segs = segments(op)
    if segs is not None:
        segs[0] += 1
        set_segments(op, segs)


def remove_operand_dep(op, index):
    del op.operands[index]
    segs = segments(op)
    if segs is not None:
        segs[0] -= 1
        set_segments(op, segs)


def const_op(type_, value):
    if type_ == "i1":
        return Op("arith.constant", [], ["i1"], f"<{{value = {value}}}>")
    return Op("arith.constant", [], [type_], f"<{{value = {value} : {type_}}}>")


def memref_info(type_):
    """'memref<16x4xf32>' -> ([16, 4], 'f32'); None unless static, simple."""
    m = re.match(r"^memref<([^,<>]*)(?:,.*)?>$", type_)
    if not m:
        return None
    dims = m.group(1).split("x")
    elem = dims.pop()
    if elem not in ELEMENT_CONSTANTS or any(not d.isdigit() for d in dims):
        return None
    return [int(d) for d in dims], elem


class Mutator:
    def __init__(self, rng, root, async_ops):
        self.rng = rng
        self.root = root
        self.async_ops = async_ops

    # -- queries ------------------------------------------------------------

    def host_blocks(self):
        """Blocks of host code: inside a function, not in device code."""
        out = []

        def rec(op, in_func):
            if op.name in DEVICE:
                return
            for region in op.regions:
                for block in region.blocks:
                    if in_func or op.name == "func.func":
                        out.append(block)
                    for inner in block.ops:
                        rec(inner, in_func or op.name == "func.func")

        rec(self.root, False)
        return out

    def host_ops(self, pred=lambda op: True):
        return [(b, i) for b in self.host_blocks()
                for i, op in enumerate(b.ops) if pred(op)]

    def visible(self, block, index):
        """Values usable before block.ops[index]."""
        vals = list(block.args)
        for op in block.ops[:index]:
            vals += op.results
        owner = block.parent.parent
        if owner.parent is not None and owner.name not in ISOLATED:
            ob = owner.parent
            vals = self.visible(ob, ob.ops.index(owner)) + vals
        return vals

    def uses(self):
        table = {}
        for op in walk(self.root):
            for i, v in enumerate(op.operands):
                table.setdefault(v, []).append((op, i))
        return table

    def pick(self, seq):
        if not seq:
            raise Failed()
        return seq[self.rng.randrange(len(seq))]

    @staticmethod
    def is_terminator(block, index):
        return index == len(block.ops) - 1 and block.parent.parent.name != "builtin.module"

    def movable(self, block, index):
        op = block.ops[index]
        return not self.is_terminator(block, index) and op.name not in ISOLATED

    @staticmethod
    def inside(op, ops):
        """Whether op is one of ops or nested in one of them."""
        ids = {id(o) for o in ops}
        while op is not None:
            if id(op) in ids:
                return True
            op = parent_op(op)
        return False

    def is_dep_use(self, user, index):
        return (user.name.startswith("gpu.") and index < dep_count(user)
                and user.operands[index].type == GPU_TOKEN)

    def token_filler(self, block, index, type_):
        """Ops that make a value of type_ at block.ops[index] (inserted)."""
        if type_ == GPU_TOKEN:
            deps = [v for v in self.visible(block, index) if v.type == GPU_TOKEN]
            op = Op("gpu.wait", self.rng.sample(deps, min(len(deps), self.rng.randrange(2))),
                    [GPU_TOKEN])
        else:
            op = Op("ub.poison", [], [type_], "<{value = #ub.poison}>")
        block.insert(index, op)
        return op.results[0]

    def replace_uses(self, old, new, where=lambda user: True):
        for user, i in self.uses().get(old, []):
            if where(user):
                user.operands[i] = new

    # -- mutations ----------------------------------------------------------

    def m_delete(self):
        block, i = self.pick(self.host_ops())
        if not self.movable(block, i):
            raise Failed()
        op = block.ops[i]
        scope = self.visible(block, i)
        uses = self.uses()
        for r in op.results:
            for user, j in uses.get(r, []):
                same = [v for v in scope if v.type == r.type]
                if same and (not self.is_dep_use(user, j) or self.rng.random() < 0.5):
                    user.operands[j] = self.pick(same)
                elif self.is_dep_use(user, j):
                    user.operands[j] = None
                else:
                    raise Failed()
        for user in {id(u): u for r in op.results for u, _ in uses.get(r, [])}.values():
            while None in user.operands:
                remove_operand_dep(user, user.operands.index(None))
        del block.ops[i]
        return f"delete {op.name}"

    def m_duplicate(self):
        block, i = self.pick(self.host_ops())
        if not self.movable(block, i):
            raise Failed()
        op = block.ops[i]
        new = clone_op(op)
        block.insert(i + 1, new)
        if self.rng.random() < 0.5:
            later = block.ops[i + 2:]
            for old, nv in zip(op.results, new.results):
                self.replace_uses(old, nv, lambda u: self.inside(u, later))
        return f"duplicate {op.name}"

    def m_swap(self):
        block, i = self.pick(self.host_ops())
        if i + 1 >= len(block.ops) or not self.movable(block, i) \
                or not self.movable(block, i + 1):
            raise Failed()
        a, b = block.ops[i], block.ops[i + 1]
        results = set(a.results)
        if any(v in results for o in walk(b) for v in o.operands):
            raise Failed()
        block.ops[i], block.ops[i + 1] = b, a
        return f"swap {a.name} {b.name}"

    def m_rewire(self):
        cands = [(b, i, j) for b, i in self.host_ops()
                 for j, v in enumerate(b.ops[i].operands)
                 if v.type in (GPU_TOKEN, ASYNC_TOKEN)]
        block, i, j = self.pick(cands)
        op = block.ops[i]
        old = op.operands[j]
        others = [v for v in self.visible(block, i) if v.type == old.type and v is not old]
        op.operands[j] = self.pick(others)
        return f"rewire {op.name}"

    def m_async(self):
        if self.rng.random() < 0.5:
            cands = self.host_ops(lambda o: o.name in self.async_ops and
                                  not (o.results and o.results[-1].type == GPU_TOKEN))
            block, i = self.pick(cands)
            op = block.ops[i]
            op.results.append(Value(GPU_TOKEN))
            if self.rng.random() < 0.3:
                # A later op waits for it.
                later = [k for k in range(i + 1, len(block.ops))
                         if block.ops[k].name in self.async_ops]
                if later:
                    add_dep(block.ops[self.pick(later)], op.results[-1])
            return f"add async {op.name}"
        cands = self.host_ops(lambda o: o.name.startswith("gpu.") and o.results
                              and o.results[-1].type == GPU_TOKEN)
        block, i = self.pick(cands)
        op = block.ops[i]
        token = op.results.pop()
        scope = [v for v in self.visible(block, i) if v.type == GPU_TOKEN]
        touched = []
        for user, j in self.uses().get(token, []):
            if self.is_dep_use(user, j) and (not scope or self.rng.random() < 0.5):
                user.operands[j] = None
                touched.append(user)
            else:
                user.operands[j] = self.pick(scope)
        for user in touched:
            while None in user.operands:
                remove_operand_dep(user, user.operands.index(None))
        return f"remove async {op.name}"

    def m_dep(self):
        r = self.rng.random()
        if r < 0.4:
            block, i = self.pick(self.host_ops(lambda o: o.name in self.async_ops))
            op = block.ops[i]
            deps = op.operands[:dep_count(op)]
            cands = [v for v in self.visible(block, i)
                     if v.type == GPU_TOKEN and v not in deps]
            add_dep(op, self.pick(cands))
            return f"add dependency {op.name}"
        if r < 0.8:
            block, i = self.pick(self.host_ops(lambda o: o.name.startswith("gpu.")
                                               and dep_count(o) > 0))
            op = block.ops[i]
            remove_operand_dep(op, self.rng.randrange(dep_count(op)))
            return f"remove dependency {op.name}"
        block = self.pick(self.host_blocks())
        i = self.rng.randrange(len(block.ops)) if block.ops else 0
        tokens = [v for v in self.visible(block, i) if v.type == GPU_TOKEN]
        deps = self.rng.sample(tokens, min(len(tokens), self.rng.randrange(3)))
        is_async = self.rng.random() < 0.5
        block.insert(i, Op("gpu.wait", deps, [GPU_TOKEN] if is_async else []))
        return f"insert gpu.wait{' async' if is_async else ''} [{len(deps)}]"

    def m_wrap(self):
        block = self.pick(self.host_blocks())
        n = len(block.ops) - (0 if block.parent.parent.name == "builtin.module" else 1)
        if n <= 0:
            raise Failed()
        i = self.rng.randrange(n)
        j = min(n, i + 1 + min(self.rng.randrange(4), self.rng.randrange(4)))
        if not all(self.movable(block, k) for k in range(i, j)):
            raise Failed()
        kind = self.pick(REGION_KINDS)
        run = block.ops[i:j]
        uses = self.uses()
        escaping = []
        for op in run:
            for r in op.results:
                if any(not self.inside(u, run) for u, _ in uses.get(r, [])):
                    escaping.append(r)
        if kind == "scf.parallel" and escaping:
            raise Failed()
        # gpu.on_stream yields no token or async dialect value.
        if kind == "gpu.on_stream" and any(
                v.type.startswith(("!async.", "!gpu.")) for v in escaping):
            raise Failed()
        scope = self.visible(block, i)
        del block.ops[i:j]
        types = [v.type for v in escaping]
        pre = []   # ops before the new one, in order

        def constant(type_, value):
            c = const_op(type_, value)
            pre.append(c)
            return c.results[0]

        def yield_block(op_name, args=()):
            b = Block(run, args)
            b.append(Op(op_name, escaping))
            return b

        scope = self.visible(block, i)

        def filler(t, ops):
            """A value of type t for the other branch (or a loop's init):
            a new token, an earlier value, or ub.poison of a builtin type."""
            same = [v for v in scope if v.type == t]
            if t == GPU_TOKEN and (not same or self.rng.random() < 0.5):
                ops.append(Op("gpu.wait", [], [GPU_TOKEN]))
                return ops[-1].results[0]
            if same:
                return self.pick(same)
            if t.startswith(("!async.", "!gpu.")):
                raise Failed()   # no poison of these: not what is tested
            ops.append(Op("ub.poison", [], [t], "<{value = #ub.poison}>"))
            return ops[-1].results[0]

        def filler_block(args=()):
            b = Block(args=args)
            vals = [filler(t, b.ops) for t in types]
            for op in b.ops:
                op.parent = b
            b.append(Op("scf.yield", vals))
            return b

        after = []
        if kind == "scf.if":
            conds = [v for v in scope if v.type == "i1"]
            cond = self.pick(conds) if conds and self.rng.random() < 0.5 else \
                constant("i1", self.pick(["true", "false"]))
            new = Op(kind, [cond], types)
            new.add_region(Region([yield_block("scf.yield")]))
            new.add_region(Region([filler_block()] if escaping or self.rng.random() < 0.5 else []))
        elif kind == "scf.for":
            lb = constant("index", 0)
            ub = constant("index", self.pick([0, 1, 1, 2, 3]))
            step = constant("index", 1)
            inits = [filler(t, pre) for t in types]
            new = Op(kind, [lb, ub, step] + inits, types)
            body = yield_block("scf.yield", ["index"] + types)
            new.add_region(Region([body]))
            # Loop-carried: uses of an init inside the run read the iter_arg.
            for init, arg in zip(inits, body.args[1:]):
                if self.rng.random() < 0.7:
                    for op in walk(new):
                        op.operands = [arg if v is init and op is not new else v
                                       for v in op.operands]
        elif kind == "scf.execute_region":
            new = Op(kind, [], types)
            new.add_region(Region([yield_block("scf.yield")]))
        elif kind == "scf.parallel":
            lb = constant("index", 0)
            ub = constant("index", self.pick([1, 2, 4]))
            step = constant("index", 1)
            new = Op(kind, [lb, ub, step], [],
                     "<{operandSegmentSizes = array<i32: 1, 1, 1, 0>}>")
            b = Block(run, ["index"])
            b.append(Op("scf.reduce"))
            new.add_region(Region([b]))
        elif kind == "scf.while":
            conds = [v for v in scope if v.type == "i1"]
            new = Op(kind, [], types)
            before = Block(run)
            if conds and self.rng.random() < 0.3:
                cond = self.pick(conds)
            else:
                c = const_op("i1", "false")
                before.append(c)
                cond = c.results[0]
            before.append(Op("scf.condition", [cond] + escaping))
            new.add_region(Region([before]))
            new.add_region(Region([Block([Op("scf.yield")], types)]))
        elif kind == "scf.index_switch":
            idx = [v for v in scope if v.type == "index"]
            sel = self.pick(idx) if idx and self.rng.random() < 0.5 else \
                constant("index", self.pick([0, 1]))
            new = Op(kind, [sel], types, "<{cases = array<i64: 0>}>")
            if self.rng.random() < 0.5:
                new.add_region(Region([filler_block()]))
                new.add_region(Region([yield_block("scf.yield")]))
            else:
                new.add_region(Region([yield_block("scf.yield")]))
                new.add_region(Region([filler_block()]))
        elif kind == "gpu.on_stream":
            # On a pointer of the function (a caller's stream, or memory
            # taken for one: the passes must not fail on it either), or on
            # the null stream.
            ptrs = [v for v in scope if v.type == "!llvm.ptr"]
            if ptrs and self.rng.random() < 0.8:
                stream = self.pick(ptrs)
            else:
                pre.append(Op("llvm.mlir.zero", [], ["!llvm.ptr"]))
                stream = pre[-1].results[0]
            new = Op(kind, [stream], types)
            body = Block(run, [GPU_TOKEN])
            body.append(Op("gpu.on_stream.yield", escaping,
                           props="<{operandSegmentSizes = array<i32: 0, "
                           f"{len(escaping)}>}}>"))
            new.add_region(Region([body]))
        else:  # async.execute
            tokens = [v for v in scope if v.type == ASYNC_TOKEN]
            deps = self.rng.sample(tokens, min(len(tokens), self.rng.randrange(2)))
            new = Op(kind, deps, [ASYNC_TOKEN] + [f"!async.value<{t}>" for t in types],
                     f"<{{operandSegmentSizes = array<i32: {len(deps)}, 0>}}>")
            new.add_region(Region([yield_block("async.yield")]))
            awaited = []
            for v in new.results[1:]:
                after.append(Op("async.await", [v], [v.type[len("!async.value<"):-1]]))
                awaited.append(after[-1].results[0])
            if self.rng.random() < 0.5:
                after.append(Op("async.await", [new.results[0]]))
            results = awaited
        if kind != "async.execute":
            results = new.results
        for k, op in enumerate(pre + [new] + after):
            block.insert(i + k, op)
        for old, nv in zip(escaping, results):
            self.replace_uses(old, nv, lambda u: not self.inside(u, [new]))
        return f"wrap {j - i} op(s) in {kind}"

    def m_alloc(self):
        cands = self.host_ops(lambda o: o.regions and o.name not in ISOLATED)
        block, i = self.pick(cands)
        region_op = block.ops[i]
        inner_blocks = [b for o in walk(region_op) if o.name not in ISOLATED
                        for r in o.regions for b in r.blocks if b.ops]
        inner = self.pick(inner_blocks)
        # A type the region already uses, so that an operand can be replaced.
        used = [v.type for o in walk(region_op) for v in o.operands
                if v.type.startswith("memref<") and memref_info(v.type)]
        type_ = self.pick(used) if used and self.rng.random() < 0.7 else \
            self.pick(["memref<16xf32>", "memref<8x8xf32>", "memref<32xi32>"])
        dims, elem = memref_info(type_)
        alloc = Op("gpu.alloc", [], [type_],
                   "<{operandSegmentSizes = array<i32: 0, 0, 0>}>")
        value = const_op(elem, ELEMENT_CONSTANTS[elem])
        memset = Op("gpu.memset", [alloc.results[0], value.results[0]])
        zero = const_op("index", 0)
        for k, op in enumerate([alloc, value, zero, memset]):
            block.insert(i + k, op)
        buf = alloc.results[0]
        kind = self.rng.randrange(4)
        users = [(o, j) for o in walk(region_op) for j, v in enumerate(o.operands)
                 if v.type == type_ and o is not region_op]
        at = self.rng.randrange(len(inner.ops))  # before the terminator
        idx = [zero.results[0]] * len(dims)
        if kind == 0 and users:
            o, j = self.pick(users)
            o.operands[j] = buf
            what = f"operand of {o.name}"
        elif kind <= 1:
            inner.insert(at, Op("memref.load", [buf] + idx, [elem]))
            what = "memref.load"
        elif kind == 2:
            inner.insert(at, Op("memref.store", [value.results[0], buf] + idx))
            what = "memref.store"
        else:
            inner.insert(at, Op("gpu.memset", [buf, value.results[0]]))
            what = "gpu.memset"
        if self.rng.random() < 0.3:
            block.insert(i + 5, Op("gpu.dealloc", [buf]))
        return f"gpu.alloc+memset {type_} before {region_op.name}, {what} inside"

    def m_yield(self):
        kinds = ("scf.if", "scf.execute_region", "scf.index_switch", "scf.for",
                 "async.execute")
        block, i = self.pick(self.host_ops(lambda o: o.name in kinds))
        op = block.ops[i]
        if op.name == "scf.for":
            scope = [v for v in self.visible(block, i) if v.type == GPU_TOKEN]
            if scope and self.rng.random() < 0.7:
                init = self.pick(scope)
            else:
                init = self.token_filler(block, i, GPU_TOKEN)
                i += 1
            op.operands.append(init)
            body = op.regions[0].blocks[0]
            arg = Value(GPU_TOKEN)
            body.args.append(arg)
            term = body.ops[-1]
            inside = [v for o in body.ops[:-1] for v in o.results if v.type == GPU_TOKEN]
            term.operands.append(self.pick(inside) if inside and self.rng.random() < 0.7
                                 else arg)
            op.results.append(Value(GPU_TOKEN))
            result = op.results[-1]
        else:
            if op.name == "scf.if" and not op.regions[1].blocks:
                op.regions[1].add_block(Block([Op("scf.yield")]))
            for region in op.regions:
                b = region.blocks[0]
                term = b.ops[-1]
                inside = [v for o in b.ops[:-1] for v in o.results if v.type == GPU_TOKEN]
                if inside and self.rng.random() < 0.8:
                    tok = self.pick(inside)
                else:
                    outer = [v for v in self.visible(b, len(b.ops) - 1) if v.type == GPU_TOKEN]
                    tok = self.pick(outer) if outer and self.rng.random() < 0.5 else \
                        self.token_filler(b, len(b.ops) - 1, GPU_TOKEN)
                term.operands.append(tok)
            if op.name == "async.execute":
                op.results.append(Value(f"!async.value<{GPU_TOKEN}>"))
                wait = Op("async.await", [op.results[-1]], [GPU_TOKEN])
                block.insert(i + 1, wait)
                i += 1
                result = wait.results[0]
            else:
                op.results.append(Value(GPU_TOKEN))
                result = op.results[-1]
        r = self.rng.random()
        later = [k for k in range(i + 1, len(block.ops))
                 if block.ops[k].name in self.async_ops]
        if r < 0.4 and later:
            add_dep(block.ops[self.pick(later)], result)
        elif r < 0.7:
            block.insert(i + 1, Op("gpu.wait", [result]))
        return f"yield a token from {op.name}"

    MUTATIONS = {"delete": 3, "duplicate": 2, "swap": 2, "rewire": 3,
                 "async": 3, "dep": 3, "wrap": 5, "alloc": 2, "yield": 2}

    def mutate(self):
        names = list(self.MUTATIONS)
        weights = [self.MUTATIONS[n] for n in names]
        for _ in range(20):
            name = self.rng.choices(names, weights)[0]
            saved = copy.deepcopy(self.root)
            try:
                return getattr(self, "m_" + name)()
            except Failed:
                self.root = saved
        return None


# ---------------------------------------------------------------------------
# Running mlir-opt on many inputs at once.


class Outcome:
    """What one mlir-opt run made of one input."""

    def __init__(self, kind, output="", stderr=""):
        self.kind = kind          # 'ok', 'error', 'crash'
        self.output = output
        self.stderr = stderr


def is_crash(proc_rc, stderr):
    return proc_rc < 0 or any(m in stderr for m in CRASH_MARKERS)


class Runner:
    def __init__(self, mlir_opt, workdir, timeout=20):
        self.mlir_opt = mlir_opt
        self.workdir = workdir
        self.timeout = timeout
        self.env = dict(os.environ, LLVM_DISABLE_SYMBOLIZATION="1")

    def run_one(self, args, text, symbolize=False, timeout=None):
        """(returncode or None on timeout, stdout, stderr) of one input."""
        fd, path = tempfile.mkstemp(suffix=".mlir", dir=self.workdir)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        env = dict(os.environ) if symbolize else self.env
        symbolizer = os.path.join(LLVM_PREFIX, "bin", "llvm-symbolizer")
        if symbolize and os.path.exists(symbolizer):
            env.setdefault("LLVM_SYMBOLIZER_PATH", symbolizer)
        try:
            p = subprocess.run([self.mlir_opt, "--mlir-disable-threading"] + args + [path],
                               capture_output=True, text=True, env=env,
                               timeout=timeout or self.timeout)
            return p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            return None, "", f"timeout after {timeout or self.timeout} s\n" + \
                (e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else "")
        finally:
            os.remove(path)

    def run(self, args, texts):
        """One Outcome per text; one mlir-opt for all unless one crashes."""
        if not texts:
            return []
        if len(texts) == 1:
            rc, out, err = self.run_one(args, texts[0])
            if rc is None or is_crash(rc, err):
                return [Outcome("crash", out, err)]
            return [Outcome("ok" if rc == 0 else "error", out, err)]
        joined = "\n// -----\n".join(texts)
        rc, out, err = self.run_one(["--split-input-file"] + args, joined,
                                    timeout=self.timeout + len(texts) // 5)
        chunks = re.split(r"^// -----\n", out, flags=re.M) if rc is not None else []
        if rc is None or is_crash(rc, err) or len(chunks) != len(texts):
            mid = len(texts) // 2
            return self.run(args, texts[:mid]) + self.run(args, texts[mid:])
        # A failed split prints nothing; its errors carry line numbers of
        # the joined file.
        starts, offset = [], 0
        for t in texts:
            starts.append(joined.count("\n", 0, offset) + 1)
            offset += len(t) + len("\n// -----\n")
        errors = [[] for _ in texts]
        for m in re.finditer(r"^[^\n]*?:(\d+):\d+: error: ([^\n]*)", err, re.M):
            k = max(0, sum(1 for s in starts if s <= int(m.group(1))) - 1)
            errors[k].append(m.group(0))
        outcomes = []
        for text, chunk, errs in zip(texts, chunks, errors):
            if chunk.strip():
                outcomes.append(Outcome("ok", chunk))
            elif errs:
                outcomes.append(Outcome("error", "", "\n".join(errs)))
            else:
                # No error with a location in this split: run it alone.
                outcomes += self.run(args, [text])
        return outcomes


# ---------------------------------------------------------------------------
# Inputs, mutants, classification.


def find_inputs(tests):
    paths = set()
    for g in INPUT_GLOBS:
        paths.update(glob.glob(os.path.join(tests, g)))
    overlay = os.path.join(ROOT, "mlir", "test")
    for p in glob.glob(os.path.join(overlay, SERIES_LOWER)):
        q = os.path.join(tests, os.path.relpath(p, overlay))
        if os.path.exists(q):
            paths.add(q)
    return sorted(paths)


def load_inputs(base, runner, tests, log):
    """[(label, tree)] of every split that the base mlir-opt verifies, or,
    if it has ops that only the series knows (SERIES_OPS), the series'."""
    splits = []
    for path in find_inputs(tests):
        with open(path) as f:
            text = f.read()
        rel = os.path.relpath(path, tests)
        for k, chunk in enumerate(SPLIT_RE.split(text)):
            # Lines of lit and FileCheck directives only: drop them.
            chunk = "\n".join(l for l in chunk.splitlines()
                              if not re.match(r"\s*//\s*(RUN|CHECK|[A-Z]+:|expected-)", l))
            # A func.func with an llvm.landingpad cannot be lowered: the
            # llvm.func that -convert-func-to-llvm makes of it has no
            # personality, which the landingpad needs (upstream's patterns;
            # a test of -gpu-async-region has one).
            if chunk.strip() and "llvm.landingpad" not in chunk:
                splits.append((f"{rel}#{k}", chunk))
    generic = ["--mlir-print-op-generic", "--mlir-print-local-scope"]
    outcomes = base.run(generic, [c for _, c in splits])
    series = [k for k, (_, c) in enumerate(splits)
              if outcomes[k].kind != "ok" and SERIES_OPS.search(c)]
    for k, o in zip(series, runner.run(generic, [splits[k][1] for k in series])):
        outcomes[k] = o
    inputs, skipped = [], 0
    for (label, _), o in zip(splits, outcomes):
        if o.kind != "ok":
            skipped += 1
            continue
        try:
            inputs.append((label, Parser(o.output).parse()))
        except ParseError as e:
            skipped += 1
            log(f"  skipping {label}: {e}")
    return inputs, skipped, len(find_inputs(tests))


class Mutant:
    def __init__(self, index, label, steps, text):
        self.index = index
        self.label = label
        self.steps = steps
        self.text = text


def make_candidate(seed, index, inputs, async_ops):
    rng = random.Random(f"{seed}:{index}")
    label, tree = inputs[rng.randrange(len(inputs))]
    mut = Mutator(rng, copy.deepcopy(tree), async_ops)
    steps = []
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        step = mut.mutate()
        if step:
            steps.append(step)
    if not steps:
        return None
    return Mutant(index, label, steps, render(mut.root))


def generate(n, seed, inputs, base, runner, pool, batch, log):
    """The first n candidates (in index order) that the base mlir-opt
    verifies (the series' one for those with SERIES_OPS), without
    duplicates."""
    async_ops = set(ASYNC_OPS)
    for _, tree in inputs:
        for op in walk(tree):
            if op.name.startswith("gpu.") and any(r.type == GPU_TOKEN for r in op.results):
                async_ops.add(op.name)
    accepted, seen = [], set()
    next_index, tried, valid = 0, 0, 0
    while len(accepted) < n:
        want = n - len(accepted)
        # Enough candidates for the remainder at the acceptance rate so far.
        rate = valid / tried if tried else 0.8
        count = max(batch, int(want / max(rate, 0.05) * 1.1))
        futures = []
        # Each group goes to mlir-opt as soon as it is made.
        for start in range(next_index, next_index + count, batch):
            cands = [make_candidate(seed, k, inputs, async_ops)
                     for k in range(start, min(start + batch, next_index + count))]
            cands = [c for c in cands if c is not None]
            for verifier in (base, runner):
                group = [c for c in cands if
                         bool(SERIES_OPS.search(c.text)) == (verifier is runner)]
                if group:
                    futures.append((group, pool.submit(
                        verifier.run, [], [c.text for c in group])))
        next_index += count
        results = sorted(((cand, outcome) for cands, fut in futures
                          for cand, outcome in zip(cands, fut.result())),
                         key=lambda pair: pair[0].index)
        for cand, outcome in results:
            tried += 1
            if outcome.kind != "ok":
                continue
            valid += 1
            digest = hashlib.sha1(cand.text.encode()).digest()
            if digest in seen or len(accepted) >= n:
                continue
            seen.add(digest)
            accepted.append(cand)
        log(f"  {len(accepted)}/{n} mutants ({tried} candidates tried)")
    return accepted, tried


FRAME_RE = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ (.*)$", re.M)
SKIP_FRAMES = re.compile(r"llvm::sys::|SignalHandler|__pthread_kill|raise|abort|"
                         r"__assert|__restore|llvm::llvm_unreachable|report_fatal_error")


def function_name(frame):
    """'ns::A<T>::f(int) file.cpp:0:0' -> 'A::f' (None if unnamed)."""
    text = frame
    while True:   # drop template arguments, innermost first
        stripped = re.sub(r"<[^<>]*>", "", text)
        if stripped == text:
            break
        text = stripped
    m = re.match(r"([\w:~]+(?: [\w:~]+)?)\(", text.replace("(anonymous namespace)::", ""))
    if not m or text.startswith("("):
        return None
    return "::".join(m.group(1).split("::")[-2:])


# A stack frame in either of LLVM's formats: ' #4 0xADDR name (/bin/x+0xOFF)'
# (symbolized) or '4  x  0xADDR name + N' (LLVM_DISABLE_SYMBOLIZATION).
RAW_FRAME_RE = re.compile(r"^\s*#?(\d+)\s+(?:(\S+)\s+)?0x([0-9a-f]+)(.*)$", re.M)


def crash_key(stderr):
    """A key for one crash site that does not depend on the address the
    binary was loaded at: the assertion or fatal error message, else the
    offsets of the three frames after the signal handler relative to frame 0
    (LLVM's PrintStackTrace, in the same binary)."""
    for pat in (r"Assertion `(.*)' failed", r"LLVM ERROR: (.*)",
                r"(UNREACHABLE executed at [^!]*)!", r"(timeout) after"):
        m = re.search(pat, stderr)
        if m:
            return re.sub(r"\s+", " ", m.group(1))[:200]
    frames = RAW_FRAME_RE.findall(stderr)
    if not frames:
        return "crash"
    base = int(frames[0][2], 16)
    past_handler, offsets = False, []
    for _, module, addr, rest in frames:
        if "libc.so" in module + rest:
            past_handler = True
            continue
        if past_handler and not SKIP_FRAMES.search(rest):
            offsets.append(f"{int(addr, 16) - base:+#x}")
    return "crash at " + " ".join(offsets[:3]) if offsets else "crash"


def signature(kind, stderr):
    """A short key for one distinct failure: the assertion or fatal error,
    else the first named frames of the crash; the verifier's message for
    invalid output."""
    if kind == "crash":
        for pat in (r"Assertion `(.*)' failed", r"LLVM ERROR: (.*)",
                    r"(UNREACHABLE executed at [^!]*)!", r"(timeout) after"):
            m = re.search(pat, stderr)
            if m:
                return re.sub(r"\s+", " ", m.group(1))[:200]
        names = [function_name(f) for f in FRAME_RE.findall(stderr)
                 if not SKIP_FRAMES.search(f)]
        names = [n for n in names if n][:3]
        return ("crash in " + " < ".join(names)) if names else "crash"
    m = re.search(r"error: (.*)", stderr)
    text = m.group(1) if m else stderr.strip().splitlines()[0] if stderr.strip() else "?"
    # The op's name stays; the types and values it names do not.
    head, sep, rest = text.partition(" op ")
    text = head + sep + re.sub(r"'[^']*'", "'T'", rest)
    return re.sub(r"%[\w#]+|\d+", "N", text)[:200]


def classify(runner, pass_args, mutants):
    """[(kind, detail)] per mutant for one pipeline: kind in ok, diagnostic,
    crash, invalid."""
    run = runner.run(["--verify-each=false"] + pass_args, [m.text for m in mutants])
    results = [None] * len(mutants)
    check_idx = []
    for k, o in enumerate(run):
        if o.kind == "crash":
            results[k] = ("crash", o.stderr)
        elif o.kind == "error":
            if "error:" in o.stderr:
                results[k] = ("diagnostic", o.stderr)
            else:
                results[k] = ("invalid", "pass failed without an error\n" + o.stderr)
        else:
            check_idx.append(k)
    again = runner.run([], [run[k].output for k in check_idx])
    for k, o in zip(check_idx, again):
        if o.kind == "ok":
            results[k] = ("ok", "")
        else:
            results[k] = ("invalid", "output does not parse/verify:\n" + o.stderr)
    return results


def reproduces(runner, base, pass_args, text, kind, sig):
    if base.run([], [text])[0].kind != "ok":
        return False
    (k, detail), = classify(runner, pass_args, [Mutant(0, "", [], text)])
    return k == kind and failure_key(kind, detail) == sig


def minimize(runner, base, pass_args, mutant, kind, sig, budget_s=120):
    """Deletes ops (largest first) while the same failure reproduces; sweeps
    the ops until a sweep deletes nothing or the time is up."""
    try:
        tree = Parser(mutant.text).parse()
    except ParseError:
        return None
    deadline = time.time() + budget_s
    text = mutant.text

    def ordered(root):
        return sorted((op for op in walk(root) if op.parent is not None),
                      key=lambda o: -sum(1 for _ in walk(o)))

    changed = True
    while changed and time.time() < deadline:
        changed = False
        index = 0
        while index < len(ordered(tree)) and time.time() < deadline:
            trial = copy.deepcopy(tree)
            if delete_for_minimize(trial, ordered(trial)[index]):
                candidate = render(trial)
                if reproduces(runner, base, pass_args, candidate, kind, sig):
                    tree, text, changed = trial, candidate, True
                    continue   # the next op has moved into this slot
            index += 1
    return text


def delete_for_minimize(root, op):
    block = op.parent
    index = block.ops.index(op)
    if index == len(block.ops) - 1 and block.parent.parent.name != "builtin.module":
        return False   # a terminator
    mut = Mutator(random.Random(0), root, ASYNC_OPS)
    scope = mut.visible(block, index)
    uses = mut.uses()
    for r in op.results:
        for user, j in uses.get(r, []):
            same = [v for v in scope if v.type == r.type]
            if mut.is_dep_use(user, j):
                user.operands[j] = None
            elif same:
                user.operands[j] = same[-1]
            else:
                return False
    for r in op.results:
        for user, _ in uses.get(r, []):
            while None in user.operands:
                remove_operand_dep(user, user.operands.index(None))
    del block.ops[index]
    return True


def pipeline_args(pass_text, lower_kernels):
    """mlir-opt arguments of a pipeline. With lower_kernels, gpu.func
    kernels are lowered (-convert-gpu-to-nvvm) right before -gpu-to-llvm, as
    -gpu-lower-to-nvvm-pipeline does: a launch_func that -gpu-to-llvm has
    lowered never matches the signature of a gpu.func kernel, and the
    verifier checks that."""
    out = []
    for arg in pass_text.split():
        if lower_kernels and re.match(r"--?gpu-to-llvm\b", arg):
            out.append("-convert-gpu-to-nvvm")
        out.append(arg)
    return out


def slug(pass_args):
    return re.sub(r"[^\w=]+", "_", pass_args.strip("- ")).strip("_")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("-n", type=int, default=5000, help="mutants per pass")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--passes", default=",".join(DEFAULT_PASSES),
                        help="comma-separated pipelines (mlir-opt arguments)")
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "fuzz-passes"))
    parser.add_argument("--mlir-opt", default=os.path.join(ROOT, "build", "bin", "mlir-opt"),
                        help="the patched mlir-opt whose passes are fuzzed")
    parser.add_argument("--base-mlir-opt", default=os.path.join(LLVM_PREFIX, "bin", "mlir-opt"),
                        help="the unpatched mlir-opt that must verify each mutant")
    parser.add_argument("--tests", default=os.path.join(ROOT, "build", "llvm-project", "mlir", "test"),
                        help="the patched tree's mlir/test")
    parser.add_argument("--batch", type=int, default=100, help="mutants per mlir-opt")
    parser.add_argument("--no-minimize", action="store_true")
    parser.add_argument("--no-kernel-lowering", action="store_true",
                        help="do not run -convert-gpu-to-nvvm before -gpu-to-llvm")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also list the most frequent diagnostics per pass")
    parser.add_argument("-q", "--quiet", action="store_true")
    args = parser.parse_args()
    # Debian's LLVM 23 tools may be in the sysroot only: run there.
    in_sysroot.reexec_if_needed()

    def log(msg):
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    def die(msg):
        print(f"error: {msg}", file=sys.stderr)
        sys.exit(2)

    for tool in (args.mlir_opt, args.base_mlir_opt):
        if not os.access(tool, os.X_OK):
            die(f"{tool} not found or not executable (run scripts/build.sh, or pass --mlir-opt)")
    if not os.path.isdir(args.tests):
        die(f"{args.tests} not found (run scripts/apply.sh, or pass --tests)")
    passes = [p.strip() for p in args.passes.split(",") if p.strip()]
    for p in passes:
        check = subprocess.run([args.mlir_opt] + pipeline_args(p, not args.no_kernel_lowering),
                               input="module {}\n", capture_output=True, text=True)
        if check.returncode != 0:
            die(f"{args.mlir_opt} does not run '{p}': {check.stderr.strip().splitlines()[-1:]}")
    start = time.time()
    os.makedirs(args.out, exist_ok=True)
    # Reproducers of an earlier run would be mistaken for this one's.
    for old in glob.glob(os.path.join(args.out, "*", "crash-*")) + \
            glob.glob(os.path.join(args.out, "*", "invalid-*")) + \
            glob.glob(os.path.join(args.out, "summary.txt")):
        os.remove(old)
    work = tempfile.mkdtemp(prefix="fuzz-passes.")
    try:
        base = Runner(args.base_mlir_opt, work)
        runner = Runner(args.mlir_opt, work)
        inputs, skipped, nfiles = load_inputs(base, runner, args.tests, log)
        if not inputs:
            die("no input parsed")
        log(f"{len(inputs)} input splits from {nfiles} files ({skipped} not verified by "
            f"{args.base_mlir_opt} or not parsed)")
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            mutants, tried = generate(args.n, args.seed, inputs, base, runner, pool,
                                      args.batch, log)
            log(f"{len(mutants)} mutants from {tried} candidates in {time.time() - start:.0f} s")
            rows, failures = [], []
            for pass_text in passes:
                t0 = time.time()
                pass_args = pipeline_args(pass_text, not args.no_kernel_lowering)
                groups = [mutants[k:k + args.batch] for k in range(0, len(mutants), args.batch)]
                futures = [pool.submit(classify, runner, pass_args, g) for g in groups]
                counts = dict(ok=0, diagnostic=0, crash=0, invalid=0)
                diagnostics = {}
                for g, fut in zip(groups, futures):
                    for m, (kind, detail) in zip(g, fut.result()):
                        counts[kind] += 1
                        if kind == "diagnostic":
                            sig = signature(kind, detail)
                            diagnostics[sig] = diagnostics.get(sig, 0) + 1
                        if kind in ("crash", "invalid"):
                            failures.append((pass_text, m, kind, detail))
                rows.append((pass_text, len(mutants), counts))
                log(f"{pass_text}: {counts} in {time.time() - t0:.0f} s")
                if args.verbose:
                    for sig, c in sorted(diagnostics.items(), key=lambda x: -x[1])[:8]:
                        log(f"    {c:6}  {sig}")
        report_failures(failures, runner, base, args, log)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    width = max(len(p) for p, _, _ in rows + [("pass", 0, 0)])
    print(f"{'pass':<{width}}  {'mutants':>7}  {'ok':>6}  {'diagnostic':>10}  {'crash':>5}  {'invalid':>7}")
    bad = 0
    for p, n, c in rows:
        print(f"{p:<{width}}  {n:>7}  {c['ok']:>6}  {c['diagnostic']:>10}  {c['crash']:>5}  {c['invalid']:>7}")
        bad += c["crash"] + c["invalid"]
    print(f"seed {args.seed}, {len(mutants)} mutants per pass, {time.time() - start:.0f} s"
          + (f"; reproducers in {args.out}" if bad else ""))
    return 1 if bad else 0


def failure_key(kind, detail):
    return crash_key(detail) if kind == "crash" else signature(kind, detail)


def upstream_result(base, pass_args, text):
    """What the base (unpatched) mlir-opt makes of a reproducer."""
    check = subprocess.run([base.mlir_opt] + pass_args, input="module {}\n",
                           capture_output=True, text=True)
    if check.returncode != 0:
        return "n/a (not an upstream pipeline)"
    (kind, detail), = classify(base, pass_args, [Mutant(0, "", [], text)])
    return kind + (f" ({signature(kind, detail)[:80]})" if kind != "ok" else "")


def report_failures(failures, runner, base, args, log):
    """Writes each reproducer; for each distinct failure (same assertion or
    crash site, or same verifier error) a symbolized stack, a minimized
    reproducer, what upstream's mlir-opt does with it; --out/summary.txt."""
    if not failures:
        return
    distinct = {}   # (kind, signature) -> dict
    by_key = {}     # (kind, key) -> the same dicts
    for pass_text, m, kind, detail in failures:
        pargs = pipeline_args(pass_text, not args.no_kernel_lowering)
        key = failure_key(kind, detail)
        d = os.path.join(args.out, slug(pass_text))
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, f"{kind}-{m.index}.mlir")
        entry = by_key.get((kind, key))
        if entry is None:
            sig = key
            if kind == "crash" and len(by_key) < 50:
                # Again with a symbolized stack, for the functions' names;
                # crashes in the same functions are one failure.
                rc, _, err = runner.run_one(["--verify-each=false"] + pargs, m.text,
                                            symbolize=True)
                if rc is not None and is_crash(rc, err):
                    detail = err
                    named = signature(kind, err)
                    if named.startswith("crash in"):
                        sig = named
            entry = by_key[(kind, key)] = distinct.get((kind, sig))
        if entry is None:
            entry = by_key[(kind, key)] = distinct[(kind, sig)] = dict(
                sig=sig, counts={}, first=path, minimized=None, upstream="")
            entry["upstream"] = "original " + upstream_result(base, pargs, m.text)
            if not args.no_minimize:
                log(f"minimizing {path} ({sig[:70]})")
                small = minimize(runner, base, pargs, m, kind, key)
                if small:
                    # The custom form, where it still reproduces.
                    o = base.run([], [small])[0]
                    if o.kind == "ok" and reproduces(runner, base, pargs, o.output, kind, key):
                        small = o.output
                    entry["minimized"] = path[:-5] + ".min.mlir"
                    entry["min_text"] = small
                    entry["upstream"] += ", minimized " + upstream_result(base, pargs, small)
        header = (f"// {kind}: {entry['sig']}\n"
                  f"// RUN: mlir-opt --verify-each=false {' '.join(pargs)} %s\n"
                  f"// fuzz-passes.py --seed {args.seed}: mutant {m.index} of {m.label}: "
                  + "; ".join(m.steps) + "\n")
        with open(path, "w") as f:
            f.write(header + m.text)
        with open(path[:-5] + ".stderr", "w") as f:
            f.write(detail)
        if entry["minimized"] and not entry.get("written"):
            with open(entry["minimized"], "w") as f:
                f.write(header + entry["min_text"])
            entry["written"] = True
        entry["counts"][pass_text] = entry["counts"].get(pass_text, 0) + 1
    with open(os.path.join(args.out, "summary.txt"), "w") as f:
        for (kind, _), e in distinct.items():
            counts = "; ".join(f"{p}: {c}" for p, c in e["counts"].items())
            text = (f"{kind}: {e['sig']}\n  {counts}\n  reproducer: {e['minimized'] or e['first']}\n"
                    f"  upstream mlir-opt: {e['upstream']}\n")
            f.write(text)
            log(text.rstrip())


if __name__ == "__main__":
    sys.exit(main())
