#!/usr/bin/env python3
"""Draws a program's GPU token graph, or the checking runtime's trace.

Token graph (Graphviz):

  scripts/verify/async-region-graph.py FILE.mlir [--pass-args=ARGS] [--func NAME]
                                [--no-host-ops] -o OUT.svg|OUT.dot

runs `mlir-opt FILE.mlir ARGS --mlir-print-op-generic` (build/bin/mlir-opt,
or $MLIR_OPT) and draws each host function that has GPU ops (or only
--func NAME) as a graph:

  - one node per GPU op (gpu.launch_func with its kernel, gpu.memcpy,
    gpu.memset, gpu.alloc, gpu.dealloc, any other gpu op with a token) with
    the buffers (memref operands) it gets; `gpu.wait async` is an ellipse
    node; a synchronous `gpu.wait` is a bold box "host wait";
  - grey notes for the host ops that touch buffers (memref.* ops with a
    memref operand or result), func.call and the return (--no-host-ops
    leaves them out);
  - solid edges: !gpu.async.token dependencies, producer -> user (a token
    with no producer in the function is drawn as a plain-text input);
  - dashed grey edges: host program order. The host-side nodes are linked
    in program order, and the first GPU op after a host-side node hangs off
    it (the host issues it, and the GPU ops after it, after that node);
  - colours: chains, a guess at the streams -gpu-to-llvm will use. In
    program order, an op continues the chain of the producer of its first
    token dependency if no earlier op continued that producer; otherwise
    (no dependency, a producer outside the function, or a producer already
    continued) it starts a new chain. Host waits belong to no chain.
    Regions are flattened: nested ops are drawn in textual order.

The SVG is made by `dot -Tsvg`; without `dot` (Debian: graphviz) the DOT
text is written next to OUT as OUT.dot and a warning says so. OUT.dot
writes only the DOT text.

Stream timeline (plain SVG, no dependencies):

  scripts/verify/async-region-graph.py --timeline TRACE.json -o OUT.svg

reads the Chrome trace that the checking runtime
(build/lib/libmlir_gpu_check_runtime.so) writes with
MLIR_GPU_CHECK_TRACE=TRACE.json: one event per runtime call on the host
track (tid 0) and one per enqueued device operation on the track of its
stream (tid = stream number), with a logical clock as "ts". The picture has
a row for the host and one per stream, x = logical clock: host calls as
labelled marks (event record: circle, stream wait for event: diamond, host
synchronization: red, with a red line across all rows), device operations
as boxes on their stream, an arrow from each host call to the operation it
enqueued (the operation's event follows its call), and a dashed arrow from
the k-th mgpuStreamCreate to stream k (streams are numbered in creation
order). The trace does not say which stream an event was recorded on or
which stream waits for it, so those stay marks on the host row.

Exits 1 (with an `error:` line) when a tool fails or the input is unusable.
"""

import argparse
import html
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

from mlir_generic_form import OP_RE, result_names, split_types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKEN = "!gpu.async.token"
# Chain colours (fill), reused in order when there are more chains.
PALETTE = ["#a6cee3", "#fdbf6f", "#b2df8a", "#cab2d6", "#fb9a99", "#ffff99",
           "#8dd3c7", "#d9d9d9"]


def fail(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(1)


def run(cmd, stdin_text=None):
    """Runs cmd; returns its stdout, or fails with the command and stderr."""
    try:
        result = subprocess.run(cmd, input=stdin_text, capture_output=True,
                                text=True)
    except OSError as e:
        fail(f"cannot run {shlex.join(cmd)}: {e}")
    if result.returncode != 0:
        fail(f"command failed (exit {result.returncode}): {shlex.join(cmd)}\n"
             f"{result.stderr[-3000:]}")
    return result.stdout


# ---------------------------------------------------------------------------
# Generic-form parsing (OP_RE and friends in scripts/verify/mlir_generic_form.py).
# ---------------------------------------------------------------------------

FUNC_RE = re.compile(r'^(?P<indent>\s*)"func.func"\(\) <\{.*'
                     r'sym_name = "(?P<name>[^"]+)".*\(\{$')


class Op:
    def __init__(self, line):
        m = OP_RE.match(line)
        self.name = m.group("name")
        self.operands = [o.strip() for o in m.group("operands").split(",")
                         if o.strip()]
        self.results = (result_names(m.group("results"))
                        if m.group("results") else [])
        self.in_types, self.out_types = [], []
        # Ops with regions ('... ({') have their types on the closing line;
        # they are not drawn, so their types are not needed.
        if not line.rstrip().endswith("({") and " : " in line:
            sig = line.rsplit(" : ", 1)[1].strip()
            sm = re.match(r"\((.*)\) -> (.*)$", sig)
            if sm:
                outs = sm.group(2)
                if outs.startswith("("):
                    outs = outs[1:-1]
                self.in_types = split_types(sm.group(1))
                self.out_types = split_types(outs)
        km = re.search(r"kernel = (@[\w.$]+(?:::@[\w.$]+)*)", line)
        self.kernel = km.group(1).split("::")[-1] if km else None
        cm = re.search(r"callee = (@[\w.$]+)", line)
        self.callee = cm.group(1) if cm else None

    @property
    def deps(self):
        """Token operands (async dependencies)."""
        return [v for v, t in zip(self.operands, self.in_types) if t == TOKEN]

    @property
    def token(self):
        found = [v for v, t in zip(self.results, self.out_types) if t == TOKEN]
        return found[0] if found else None

    @property
    def buffers(self):
        """Memref operands."""
        return [v for v, t in zip(self.operands, self.in_types)
                if t.startswith("memref<")]

    @property
    def new_buffers(self):
        """Memref results."""
        return [v for v, t in zip(self.results, self.out_types)
                if t.startswith("memref<")]


def parse_functions(text):
    """Returns [(function name, [Op])] for the functions with a body."""
    functions = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = FUNC_RE.match(lines[i])
        i += 1
        if not m:
            continue
        end = m.group("indent") + "})"
        ops = []
        while i < len(lines) and not lines[i].startswith(end):
            if OP_RE.match(lines[i]):
                ops.append(Op(lines[i]))
            i += 1
        functions.append((m.group("name"), ops))
    return functions


# ---------------------------------------------------------------------------
# Token graph -> DOT.
# ---------------------------------------------------------------------------

def quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') \
        .replace("\n", "\\n") + '"'


def classify(op):
    """'gpu', 'join', 'wait' (host wait), 'host', or None (not drawn)."""
    if op.name == "gpu.wait":
        return "join" if op.token else "wait"
    if op.name.startswith("gpu.") and (op.token or op.deps):
        return "gpu"
    if op.name in ("gpu.launch_func", "gpu.memcpy", "gpu.memset", "gpu.alloc",
                   "gpu.dealloc"):
        return "gpu"    # left synchronous: still GPU work
    if op.name.startswith("memref.") and (op.buffers or op.new_buffers):
        return "host"
    if op.name in ("func.call", "func.return"):
        return "host"
    return None


def label(op, kind):
    short = op.name.split(".", 1)[1]
    lhs = f"{op.token} = " if op.token else ""
    if kind == "wait":
        deps = ", ".join(op.deps)
        return "host wait" + (f"\n[{deps}]" if deps else "")
    if kind == "join":
        return lhs + "gpu.wait async\n" + ("(join)" if op.deps else
                                           "(new token)")
    if kind == "host":
        if op.name == "func.return":
            return "return"
        if op.name == "func.call":
            return f"func.call {op.callee or ''}"
        text = op.name
        if op.new_buffers:
            text += " -> " + ", ".join(op.new_buffers)
        if op.buffers:
            text += " " + ", ".join(op.buffers)
        return text
    text = lhs + short + (f" @{op.kernel[1:]}" if op.kernel else "")
    if op.buffers or op.new_buffers:
        parts = op.buffers + [f"-> {b}" for b in op.new_buffers]
        text += "\n(" + ", ".join(parts) + ")"
    return text


def function_dot(index, name, ops, host_ops):
    """DOT lines of one function's cluster; returns (lines, number of
    chains)."""
    out = [f"  subgraph cluster_{index} {{",
           f"    label={quote('func @' + name)}; fontname=Helvetica;"
           " color=grey70;"]
    producer = {}       # token -> node id
    chain_of = {}       # node id -> chain number
    continued = set()   # node ids whose chain was continued
    chains = 0
    inputs = set()
    host_prev = None
    issued_after_prev = False   # a GPU op already hangs off host_prev
    edges = []
    for pos, op in enumerate(ops):
        kind = classify(op)
        if kind is None or (kind == "host" and not host_ops):
            continue
        node = f"f{index}_op{pos}"
        attrs = {"label": label(op, kind)}
        if kind == "wait":
            attrs.update(shape="box", style="bold", penwidth="2")
        elif kind == "host":
            attrs.update(shape="note", color="grey50", fontcolor="grey30")
        else:
            first = producer.get(op.deps[0]) if op.deps else None
            if first is not None and first not in continued:
                continued.add(first)
                chain_of[node] = chain_of[first]
            else:
                chain_of[node] = chains
                chains += 1
            colour = PALETTE[chain_of[node] % len(PALETTE)]
            attrs["label"] += f"\nchain {chain_of[node] + 1}"
            attrs.update(style="filled", fillcolor=colour)
            if kind == "join":
                attrs.update(shape="ellipse", fontsize="10")
            else:
                attrs.update(shape="box", style="filled,rounded")
        out.append(f"    {node} [" + ", ".join(
            f"{k}={quote(v)}" for k, v in attrs.items()) + "];")
        for dep in op.deps:
            src = producer.get(dep)
            if src is None:
                src = f"f{index}_in_{dep[1:].replace('#', '_')}"
                if src not in inputs:
                    inputs.add(src)
                    out.append(f"    {src} [shape=plaintext, "
                               f"label={quote(dep)}];")
            edges.append(f"    {src} -> {node} [penwidth=1.5];")
        if host_prev is not None and (kind in ("wait", "host") or
                                      not issued_after_prev):
            edges.append(f"    {host_prev} -> {node} [style=dashed, "
                         "color=grey60, arrowhead=open];")
            issued_after_prev = True
        if kind in ("wait", "host"):
            host_prev = node
            issued_after_prev = False
        if op.token:
            producer[op.token] = node
    out += edges
    out.append("  }")
    return out, chains


def graph_mode(args):
    if not args.input:
        fail("an MLIR file is required (or --timeline TRACE.json)")
    if not os.path.isfile(args.input):
        fail(f"{args.input}: no such file")
    mlir_opt = os.environ.get("MLIR_OPT",
                              os.path.join(ROOT, "build", "bin", "mlir-opt"))
    if not shutil.which(mlir_opt):
        fail(f"{mlir_opt} not found or not executable; build it "
             "(scripts/build.sh) or set MLIR_OPT")
    cmd = [mlir_opt, args.input, *shlex.split(args.pass_args),
           "--mlir-print-op-generic"]
    text = run(cmd)
    functions = parse_functions(text)
    if args.func:
        functions = [(n, o) for n, o in functions if n == args.func]
        if not functions:
            fail(f"no function @{args.func} with a body in the output of "
                 f"{shlex.join(cmd)}")
    else:
        functions = [(n, o) for n, o in functions
                     if any(classify(op) in ("gpu", "join", "wait")
                            for op in o)]
        if not functions:
            fail(f"no function with GPU ops in the output of "
                 f"{shlex.join(cmd)}")
    title = args.title or (os.path.basename(args.input) +
                           (" " + args.pass_args if args.pass_args else ""))
    lines = ["digraph tokens {",
             "  rankdir=TB; fontname=Helvetica; labelloc=t;",
             "  node [fontname=Helvetica, fontsize=11];",
             "  edge [fontname=Helvetica, fontsize=9];"]
    total_chains = 0
    for i, (name, ops) in enumerate(functions):
        body, chains = function_dot(i, name, ops, not args.no_host_ops)
        lines += body
        total_chains += chains
    legend = ["solid: !gpu.async.token dependency; dashed grey: host "
              "program order", "bold box: host wait; ellipse: gpu.wait "
              f"async; colour: chain ({total_chains} in all)"]
    lines.insert(1, "  label=<" + html.escape(title) + "".join(
        '<BR/><FONT POINT-SIZE="9">' + html.escape(l) + "</FONT>"
        for l in legend) + ">;")
    lines.append("}")
    dot_text = "\n".join(lines) + "\n"
    write_dot_or_svg(dot_text, args.output)


def write_dot_or_svg(dot_text, output):
    if output.endswith(".dot"):
        with open(output, "w") as f:
            f.write(dot_text)
        print(f"wrote {output}")
        return
    dot = shutil.which("dot")
    if not dot:
        dot_path = os.path.splitext(output)[0] + ".dot"
        with open(dot_path, "w") as f:
            f.write(dot_text)
        print(f"warning: Graphviz `dot` not found (Debian: apt-get install "
              f"graphviz); wrote {dot_path} instead of {output}",
              file=sys.stderr)
        return
    svg = run([dot, "-Tsvg"], dot_text)
    with open(output, "w") as f:
        f.write(svg)
    print(f"wrote {output}")


# ---------------------------------------------------------------------------
# Trace -> SVG timeline.
# ---------------------------------------------------------------------------

ENQUEUE_CALLS = {"mgpuLaunchKernel", "mgpuLaunchClusterKernel", "mgpuMemcpy",
                 "mgpuMemset32", "mgpuMemset16", "mgpuMemAlloc",
                 "mgpuMemFree"}
HOST_WAITS = {"mgpuStreamSynchronize", "mgpuEventSynchronize"}
STEP = 46          # pixels per logical clock tick
LEFT = 80          # row labels
TOP = 130          # rotated host-call labels
ROW = 64           # row height
BOX_H = 26


def host_colour(name):
    if name in ENQUEUE_CALLS:
        return "#4c78a8"
    if name in HOST_WAITS:
        return "#d62728"
    if name.startswith("mgpuStream"):
        return "#2ca02c" if name != "mgpuStreamWaitEvent" else "#ff7f0e"
    if name.startswith("mgpuEvent"):
        return "#ff7f0e"
    return "#999999"


def load_trace(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: cannot read the trace: {e}")
    events = data.get("traceEvents") if isinstance(data, dict) else data
    if not isinstance(events, list):
        fail(f"{path}: no traceEvents list")
    names, calls = {}, []
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[e["tid"]] = e.get("args", {}).get("name", f"tid {e['tid']}")
        elif e.get("ph") == "X":
            calls.append((e["ts"], e["tid"], e["name"]))
    if not calls:
        fail(f"{path}: no trace events (was MLIR_GPU_CHECK_TRACE set for a "
             "program that calls the runtime?)")
    calls.sort()
    return names, calls


def timeline_mode(args):
    names, events = load_trace(args.timeline)
    streams = sorted({tid for _, tid, _ in events if tid != 0} |
                     {tid for tid in names if tid != 0})
    row_of = {0: 0}
    for i, tid in enumerate(streams):
        row_of[tid] = i + 1
    t_max = max(ts for ts, _, _ in events)
    width = max(LEFT + (t_max + 2) * STEP, 880)
    rows = 1 + len(streams)
    legend_y = TOP + rows * ROW + 10
    height = legend_y + 78

    def x(ts):
        return LEFT + (ts + 0.5) * STEP

    def y(row):
        return TOP + row * ROW + ROW / 2

    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
           f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
           'font-family="Helvetica, Arial, sans-serif">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" '
           'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
           '<path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker></defs>',
           f'<rect width="{width:.0f}" height="{height:.0f}" fill="white"/>',
           f'<text x="8" y="18" font-size="13" font-weight="bold">'
           f'{html.escape(args.title or os.path.basename(args.timeline))}'
           '</text>']
    # Rows and their labels.
    for tid, row in row_of.items():
        fill = "#f4f4f4" if row == 0 else ("#fbfbfb" if row % 2 else "white")
        svg.append(f'<rect x="0" y="{TOP + row * ROW}" width="{width:.0f}" '
                   f'height="{ROW}" fill="{fill}"/>')
        svg.append(f'<text x="8" y="{y(row) + 4:.0f}" font-size="12">'
                   f'{html.escape(names.get(tid, f"stream {tid}"))}</text>')
    # Clock ticks.
    for ts in range(0, t_max + 1):
        svg.append(f'<text x="{x(ts):.0f}" y="{TOP + rows * ROW + 12}" '
                   f'font-size="8" fill="#888" text-anchor="middle">{ts}'
                   '</text>')
    # Stream lifelines: stream k is created by the k-th mgpuStreamCreate.
    creates = [ts for ts, tid, name in events
               if tid == 0 and name == "mgpuStreamCreate"]
    for k, tid in enumerate(streams, start=1):
        last = max((ts for ts, t, _ in events if t == tid), default=None)
        start = creates[tid - 1] if tid - 1 < len(creates) else None
        if start is None or last is None:
            continue
        svg.append(f'<line x1="{x(start):.0f}" y1="{y(row_of[tid]):.0f}" '
                   f'x2="{x(last):.0f}" y2="{y(row_of[tid]):.0f}" '
                   'stroke="#2ca02c" stroke-width="2"/>')
        svg.append(f'<line x1="{x(start):.0f}" y1="{y(0) + 8:.0f}" '
                   f'x2="{x(start):.0f}" y2="{y(row_of[tid]) - 4:.0f}" '
                   'stroke="#2ca02c" stroke-dasharray="4,3" '
                   'marker-end="url(#arrow)"/>')
    by_ts = {ts: (tid, name) for ts, tid, name in events}
    for ts, tid, name in events:
        cx, cy = x(ts), y(row_of[tid])
        if tid == 0 and name.startswith("mgpu"):
            colour = host_colour(name)
            short = name[4:]
            if name in HOST_WAITS:
                svg.append(f'<line x1="{cx:.0f}" y1="{TOP}" x2="{cx:.0f}" '
                           f'y2="{TOP + rows * ROW}" stroke="#d62728" '
                           'stroke-dasharray="2,3"/>')
            if name == "mgpuEventRecord":
                svg.append(f'<circle cx="{cx:.0f}" cy="{cy:.0f}" r="7" '
                           f'fill="{colour}"/>')
            elif name == "mgpuStreamWaitEvent":
                svg.append(f'<path d="M{cx:.0f},{cy - 9:.0f} l9,9 l-9,9 '
                           f'l-9,-9 z" fill="{colour}"/>')
            else:
                svg.append(f'<rect x="{cx - 6:.0f}" y="{cy - 9:.0f}" '
                           f'width="12" height="18" fill="{colour}"/>')
            svg.append(f'<text transform="translate({cx + 3:.0f},'
                       f'{TOP - 4}) rotate(-55)" font-size="10" '
                       f'fill="{colour}">{html.escape(short)}</text>')
            continue
        # A device operation (on its stream; on the host row when it ran
        # synchronously).
        w = STEP - 6
        svg.append(f'<rect x="{cx - w / 2:.0f}" y="{cy - BOX_H / 2:.0f}" '
                   f'width="{w}" height="{BOX_H}" rx="4" fill="#a6cee3" '
                   'stroke="#1f78b4"/>')
        words = name.split(" ", 1)
        for i, word in enumerate(words):
            dy = (i - (len(words) - 1) / 2) * 11 + 3
            svg.append(f'<text x="{cx:.0f}" y="{cy + dy:.0f}" font-size="9" '
                       f'text-anchor="middle">{html.escape(word)}</text>')
        caller = by_ts.get(ts - 1)
        if tid != 0 and caller and caller[0] == 0 and \
                caller[1] in ENQUEUE_CALLS:
            svg.append(f'<line x1="{x(ts - 1):.0f}" y1="{y(0) + 9:.0f}" '
                       f'x2="{cx - 4:.0f}" y2="{cy - BOX_H / 2:.0f}" '
                       'stroke="#4c78a8" stroke-width="1.5" '
                       'marker-end="url(#arrow)"/>')
    legend = [("#4c78a8", "rect", "enqueue call (arrow: the operation it "
               "enqueued)"),
              ("#2ca02c", "rect", "stream create/destroy (dashed arrow: "
               "stream k from the k-th create)"),
              ("#ff7f0e", "circle", "event record"),
              ("#ff7f0e", "diamond", "stream waits for event"),
              ("#d62728", "rect", "host synchronization (host wait)")]
    for i, (colour, shape, text) in enumerate(legend):
        ly = legend_y + 12 + (i // 2) * 18
        lx = 8 + (i % 2) * 440
        if shape == "circle":
            svg.append(f'<circle cx="{lx + 6:.0f}" cy="{ly:.0f}" r="5" '
                       f'fill="{colour}"/>')
        elif shape == "diamond":
            svg.append(f'<path d="M{lx + 6:.0f},{ly - 6:.0f} l6,6 l-6,6 '
                       f'l-6,-6 z" fill="{colour}"/>')
        else:
            svg.append(f'<rect x="{lx:.0f}" y="{ly - 6:.0f}" width="12" '
                       f'height="12" fill="{colour}"/>')
        svg.append(f'<text x="{lx + 18:.0f}" y="{ly + 4:.0f}" '
                   f'font-size="10">{html.escape(text)}</text>')
    svg.append(f'<text x="8" y="{legend_y + 70:.0f}" font-size="9" '
               'fill="#666">x: the runtime\'s logical clock (one tick per '
               'call or enqueued operation), not time. The trace does not '
               'name the stream of an event record or wait.</text>')
    svg.append("</svg>")
    with open(args.output, "w") as f:
        f.write("\n".join(svg) + "\n")
    print(f"wrote {args.output}: {len(events)} trace events, "
          f"{len(streams)} stream(s)")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="See the module docstring (head of this file) and "
               "docs/async-region-pictures.md.")
    parser.add_argument("input", nargs="?", help="MLIR file (graph mode)")
    parser.add_argument("--pass-args", default="",
                        help="mlir-opt arguments before printing, e.g. "
                             "--pass-args=-gpu-async-region=max-streams=0")
    parser.add_argument("--func", help="draw only this function")
    parser.add_argument("--no-host-ops", action="store_true",
                        help="leave out host memref ops, calls and returns")
    parser.add_argument("--timeline", metavar="TRACE.json",
                        help="draw a checking-runtime trace instead")
    parser.add_argument("--title", help="title of the picture")
    parser.add_argument("-o", "--output", required=True,
                        help="OUT.svg (or OUT.dot in graph mode)")
    args = parser.parse_args()
    if args.timeline:
        if args.input:
            fail("give either an MLIR file or --timeline, not both")
        timeline_mode(args)
    else:
        graph_mode(args)


if __name__ == "__main__":
    main()
