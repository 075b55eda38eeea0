"""Pieces for reading MLIR's generic op form (`--mlir-print-op-generic`),
shared by scripts/verify/async-region-oracle.py,
scripts/verify/async_region_interp.py and scripts/verify/async-region-graph.py:
line-level helpers (OP_RE, split_types, result_names) and a parser for whole
modules with regions (parse_generic).
"""

import re

# One op: '%r:2 = "name"(%x, %y) <{attrs}> ... : (T, T) -> (T, T)'.
OP_RE = re.compile(r'^\s*(?:(?P<results>%[\w:#, %]+?) = )?"(?P<name>[\w.]+)"'
                   r'\((?P<operands>[^)]*)\)')


def split_types(text):
    """Splits a comma-separated list (types, attribute entries) at nesting
    depth 0; the '>' of '->' and commas in quoted strings do not count."""
    out, depth, cur, quoted, prev = [], 0, "", False, ""
    for ch in text:
        if quoted:
            quoted = not (ch == '"' and prev != "\\")
        elif ch == '"':
            quoted = True
        elif ch in "<([{":
            depth += 1
        elif ch in ">)]}" and not (ch == ">" and prev == "-"):
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
        prev = ch
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


# ---------------------------------------------------------------------------
# A parser for whole modules in the generic form, with regions.
#
# It relies on the printer's layout: every op starts on its own line
# ('%r = "name"(%a, %b) <{props}> ...'); an op with regions ends that line with
# '({', each following region starts at a '}, {' line, and the op ends at a
# line '}) {attrs} : (types) -> types'; blocks with arguments start at a
# '^bb0(%arg0: type, ...):' line. With -mlir-print-debuginfo, 'loc(...)' ends
# op lines and block arguments, and '#locN = loc(...)' lines define aliases.
# ---------------------------------------------------------------------------

_HEAD_RE = re.compile(r'^\s*(?:(?P<results>%[^"=]*?) = )?"(?P<name>[^"]+)"'
                      r'\((?P<operands>[^)]*)\)')
_LOC_RE = re.compile(r'\s*\bloc\((?P<loc>#loc\d*|unknown|"[^"]*":\d+:\d+)\)$')
_LOC_ALIAS_RE = re.compile(r'^(?P<alias>#loc\d*) = loc\((?P<loc>.*)\)$')
_FILE_LOC_RE = re.compile(r'^"[^"]*":(\d+):(\d+)$')


class Block:
    """A block: its arguments (names and types) and its ops."""

    def __init__(self):
        self.arg_names = []
        self.arg_types = []
        self.ops = []


class Op:
    """One op of the generic form.

    name, results, operands: as printed ('%5#1' for result 1 of '%5:2');
    operand_types, result_types: from the function type after ':';
    props: the text between '<{' and '}>' (properties), attrs: the text of the
    attribute dictionary; regions: lists of Blocks; loc: the location text
    ('"<stdin>":12:5') or None; line: the op's first line.
    """

    def __init__(self, name, results, operands, props, line):
        self.name = name
        self.results = results
        self.operands = operands
        self.props = props
        self.attrs = ""
        self.operand_types = []
        self.result_types = []
        self.regions = []
        self.loc = None
        self.line = line
        self._attr_map = None

    def attr(self, key):
        """The text of attribute or property `key` (its top-level entry in
        the properties or the attribute dictionary; "" for a unit
        attribute), or None."""
        if self._attr_map is None:
            self._attr_map = {}
            for text in (self.attrs, self.props):   # properties win
                for entry in split_types(text):
                    k, sep, v = entry.partition(" = ")
                    self._attr_map[k.strip()] = v.strip() if sep else ""
        return self._attr_map.get(key)

    def segments(self):
        """The operands split by operandSegmentSizes, or None."""
        sizes = self.attr("operandSegmentSizes")
        if sizes is None:
            return None
        counts = [int(x) for x in re.findall(r"-?\d+", sizes.split(":", 1)[1])]
        out, pos = [], 0
        for count in counts:
            out.append(self.operands[pos:pos + count])
            pos += count
        return out

    def line_number(self):
        """The source line of the op's location ('"file":L:C'), or None."""
        m = _FILE_LOC_RE.match(self.loc or "")
        return int(m.group(1)) if m else None

    def walk(self):
        """This op and every op nested in its regions, in pre-order."""
        yield self
        for region in self.regions:
            for block in region:
                for op in block.ops:
                    yield from op.walk()


def _balanced_end(text, pos, opener, closer):
    """Index just past the bracket that closes text[pos] (an `opener`),
    skipping quoted strings."""
    depth = 0
    i = pos
    while i < len(text):
        ch = text[i]
        if ch == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError(f"unbalanced {opener}{closer} in: {text[:200]}")


def _parse_trailer(op, text):
    """Fills in op's attribute dictionary, types and location from the text
    after its operands, properties and regions: ' {attrs} : (T) -> T loc(L)'.
    """
    text = text.strip()
    m = _LOC_RE.search(text)
    if m:
        op.loc = m.group("loc")
        text = text[:m.start()].rstrip()
    if text.startswith("{"):
        end = _balanced_end(text, 0, "{", "}")
        op.attrs = text[1:end - 1]
        text = text[end:].strip()
    if not text.startswith(":"):
        raise ValueError(f"expected ':' in '{op.line.strip()}'")
    sig = text[1:].strip()
    end = _balanced_end(sig, 0, "(", ")")
    op.operand_types = split_types(sig[1:end - 1])
    outs = sig[end:].strip()
    if not outs.startswith("->"):
        raise ValueError(f"expected '->' in '{op.line.strip()}'")
    outs = outs[2:].strip()
    if outs.startswith("(") and _balanced_end(outs, 0, "(", ")") == len(outs):
        outs = outs[1:-1]
    op.result_types = split_types(outs)


def _parse_block_header(text):
    """'^bb0(%a: T loc(..), %b: U):' -> a Block with those arguments."""
    block = Block()
    start = text.find("(")
    if start >= 0:
        inner = text[start + 1:_balanced_end(text, start, "(", ")") - 1]
        for arg in split_types(inner):
            name, _, ty = arg.partition(":")
            m = _LOC_RE.search(ty)
            if m:
                ty = ty[:m.start()]
            block.arg_names.append(name.strip())
            block.arg_types.append(ty.strip())
    return block


def parse_generic(text):
    """Parses a module printed with -mlir-print-op-generic; returns its
    top-level ops (usually one builtin.module). Locations that are aliases
    are resolved."""
    top = Block()
    aliases = {}
    # Stack of [op, region (list of Blocks)] for the ops whose regions are
    # being read; the innermost last.
    stack = []

    def current_block():
        if not stack:
            return top
        region = stack[-1][1]
        if not region:
            region.append(Block())
        return region[-1]

    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("//"):
            continue
        m = _LOC_ALIAS_RE.match(s)
        if m:
            aliases[m.group("alias")] = m.group("loc")
            continue
        if s.startswith("^"):
            block = _parse_block_header(s)
            region = stack[-1][1]
            if region and not region[-1].ops and not region[-1].arg_names:
                region[-1] = block
            else:
                region.append(block)
            continue
        if s == "}, {":
            op = stack[-1][0]
            op.regions.append(stack[-1][1])
            stack[-1][1] = []
            continue
        if s.startswith("})"):
            op, region = stack.pop()
            op.regions.append(region)
            _parse_trailer(op, s[2:])
            continue
        m = _HEAD_RE.match(line)
        if not m:
            raise ValueError(f"cannot parse line: {line.strip()[:200]}")
        results = (result_names(m.group("results"))
                   if m.group("results") else [])
        operands = [o.strip() for o in m.group("operands").split(",")
                    if o.strip()]
        rest = line[m.end():].lstrip()
        if rest.startswith("["):   # successors (not used by this parser)
            rest = rest[_balanced_end(rest, 0, "[", "]"):].lstrip()
        props = ""
        if rest.startswith("<{"):
            end = _balanced_end(rest, 1, "{", "}")
            props = rest[2:end - 1]
            rest = rest[end + 1:].lstrip()
        op = Op(m.group("name"), results, operands, props, line)
        current_block().ops.append(op)
        if rest == "({":
            stack.append([op, []])
        else:
            _parse_trailer(op, rest)
    if stack:
        raise ValueError(f"unterminated region of {stack[-1][0].name}")
    for block in [top]:
        for root in block.ops:
            for op in root.walk():
                if op.loc in aliases:
                    op.loc = aliases[op.loc]
    return top.ops
