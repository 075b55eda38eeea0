"""Pieces for reading MLIR's generic op form (`--mlir-print-op-generic`),
shared by scripts/async-region-oracle.py and scripts/async-region-graph.py.
"""

import re

# One op: '%r:2 = "name"(%x, %y) <{attrs}> ... : (T, T) -> (T, T)'.
OP_RE = re.compile(r'^\s*(?:(?P<results>%[\w:#, %]+?) = )?"(?P<name>[\w.]+)"'
                   r'\((?P<operands>[^)]*)\)')


def split_types(text):
    """Splits a comma-separated type list at nesting depth 0."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def result_names(results):
    """'%0' -> ['%0']; '%r:2' -> ['%r#0', '%r#1']."""
    names = []
    for part in results.split(","):
        m = re.match(r"(%\w+)(?::(\d+))?$", part.strip())
        if m and m.group(2):
            names += [f"{m.group(1)}#{i}" for i in range(int(m.group(2)))]
        elif m:
            names.append(m.group(1))
    return names
