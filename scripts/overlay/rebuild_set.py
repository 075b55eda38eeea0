#!/usr/bin/env python3
"""Computes which MLIR libraries the overlay build must compile from the
patched source.

Debian ships every MLIR library prebuilt from the pristine 23.1 tree. A
library has to be rebuilt when
  * one of its sources is changed or added by the series, or
  * one of its sources includes, directly or transitively, a header that the
    series changes: a handwritten header, except when the series only adds
    new declarations to it at namespace scope (see added_declarations_only),
    or a tablegen'd .inc whose content differs from the one Debian compiled
    against, except when the difference is only whole new top-level blocks
    (see additive_only).
Otherwise Debian's archive is used as is. Libraries in --always are rebuilt in
any case (so that they carry assertions).

Writes one line per library to rebuild: "NAME REASON OBJECT...", object paths
relative to the MLIR build directory.
"""

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
from collections import defaultdict, deque

INCLUDE_RE = re.compile(rb'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
HEADER_EXTS = (".h", ".inc", ".def", ".hpp")


def run(cmd, cwd=None):
    return subprocess.run(
        cmd, cwd=cwd, check=True, stdout=subprocess.PIPE, text=True
    ).stdout


def debian_static_libs(prefix):
    cfg = os.path.join(prefix, "lib/cmake/mlir/MLIRConfig.cmake")
    text = open(cfg).read()
    m = re.search(r'MLIR_ALL_LIBS "([^"]*)"', text)
    if not m:
        sys.exit(f"error: no MLIR_ALL_LIBS in {cfg}")
    names = m.group(1).split(";")
    return [n for n in names if os.path.isfile(os.path.join(prefix, "lib", f"lib{n}.a"))]


def changed_source_files(src):
    """Files under mlir/ that differ from the pristine tag (committed or not)."""
    tag = run(["git", "-C", src, "describe", "--tags", "--abbrev=0", "HEAD"]).strip()
    out = run(["git", "-C", src, "diff", "--name-only", tag, "--", "mlir"])
    out += run(["git", "-C", src, "ls-files", "--others", "--exclude-standard", "--", "mlir"])
    return {os.path.realpath(os.path.join(src, p)) for p in out.split()}


# A top-level block of a generated header: ODS emits each op's declarations as
# "namespace mlir::gpu {" ... "} // namespace mlir::gpu", one after the other.
TOP_LEVEL_BLOCK = re.compile(rb"(?m)^(?=namespace [\w:]+ \{$)")


def additive_only(theirs, ours):
    """Whether `ours` is `theirs` with whole top-level namespace blocks
    inserted and nothing else changed: a new op adds its class declarations
    that way. Code compiled against `theirs` cannot refer to the new
    declarations, and every declaration it can refer to is unchanged, so its
    objects are still valid: the header must not make its includers rebuild.
    Any other difference (a changed class, an inline function whose body
    changed, a line inserted inside an existing block) is not additive."""
    a = TOP_LEVEL_BLOCK.split(theirs)
    b = TOP_LEVEL_BLOCK.split(ours)
    if len(a) < 2:
        return False
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    return all(tag in ("equal", "insert") for tag, *_ in matcher.get_opcodes())


COMMENT_OR_STRING = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")
# What a declaration at brace depth 0 of inserted text declares: a function
# (name before its parameter list), a class, struct, enum or alias.
DECLARED_NAME = re.compile(
    r"\b(?:class|struct|union|enum(?:\s+class)?|using)\s+([A-Za-z_]\w*)"
    r"|\b([A-Za-z_]\w*)\s*\(")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "decltype",
            "alignof", "static_assert", "noexcept", "operator"}


def strip_comments(text):
    return COMMENT_OR_STRING.sub(lambda m: " " if m.group(0)[0] == "/" else '""',
                                 text)


def only_namespaces_open(text):
    """Whether every brace still open at the end of `text` (comments and
    strings stripped) opens a namespace."""
    stack, start = [], 0
    for m in re.finditer(r"[{};]", text):
        if m.group(0) == "{":
            stack.append(bool(re.search(r"\bnamespace\b[\w:\s]*$",
                                        text[start:m.start()])))
        elif m.group(0) == "}" and stack:
            stack.pop()
        start = m.end()
    return all(stack)


def added_declarations_only(theirs, ours, known_identifiers):
    """Whether handwritten header `ours` is `theirs` with new declarations
    inserted at namespace scope and nothing else changed: whole lines
    inserted, outside any class, function or enum body, without preprocessor
    lines, balanced in braces, each declaring a name that appears nowhere in
    the pristine headers (`known_identifiers`), so that it cannot be a new
    overload, specialization or member that changes what code compiled
    against `theirs` refers to. Such a header need not make its includers
    rebuild; anything else does."""
    a, b = theirs.splitlines(True), ours.splitlines(True)
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    inserted_any = False
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag != "insert":
            return False
        inserted_any = True
        if not only_namespaces_open(strip_comments("".join(a[:i1]))):
            return False
        added = strip_comments("".join(b[j1:j2]))
        if re.search(r"(?m)^\s*#", added):
            return False
        depth, top = 0, []
        for ch in added:
            depth += ch == "{"
            depth -= ch == "}"
            if depth < 0:
                return False
            top.append(ch if depth == 0 or ch == "{" else " ")
        if depth != 0:
            return False
        names = [m.group(1) or m.group(2)
                 for m in DECLARED_NAME.finditer("".join(top))]
        names = [n for n in names if n not in KEYWORDS]
        if not names or any(n in known_identifiers for n in names):
            return False
    return inserted_any


def pristine_identifiers(src, tag):
    """Every identifier of the pristine MLIR headers."""
    names = set()
    files = run(["git", "-C", src, "ls-tree", "-r", "--name-only", tag,
                 "--", "mlir/include"]).split()
    headers = [f for f in files if f.endswith(HEADER_EXTS)]
    blobs = subprocess.run(
        ["git", "-C", src, "cat-file", "--batch"], check=True,
        input="".join(f"{tag}:{f}\n" for f in headers).encode(),
        stdout=subprocess.PIPE).stdout
    names.update(m.decode() for m in re.findall(rb"\b[A-Za-z_]\w*\b", blobs))
    return names


def additive_handwritten_headers(src, changed_src):
    """The changed handwritten headers that only gain new declarations."""
    tag = run(["git", "-C", src, "describe", "--tags", "--abbrev=0", "HEAD"]).strip()
    headers = [p for p in changed_src if p.endswith(HEADER_EXTS) and
               os.path.relpath(p, src).startswith("mlir/include/")]
    if not headers:
        return set()
    known = pristine_identifiers(src, tag)
    result = set()
    for path in headers:
        rel = os.path.relpath(path, src)
        # A new header (not in the tag): nothing was compiled against it.
        if subprocess.run(["git", "-C", src, "cat-file", "-e", f"{tag}:{rel}"],
                          stderr=subprocess.DEVNULL).returncode != 0:
            continue
        theirs = run(["git", "-C", src, "show", f"{tag}:{rel}"])
        if added_declarations_only(theirs, open(path).read(), known):
            result.add(path)
    return result


def changed_generated_files(build, src, prefix, changed_src):
    """Generated headers whose content differs from what Debian compiled with."""
    changed = set()
    debian_inc = os.path.join(prefix, "include")
    gen_inc = os.path.join(build, "include")
    changed_td_dirs = {os.path.dirname(p) for p in changed_src if p.endswith(".td")}
    for root, _, files in os.walk(build):
        if "CMakeFiles" in root:
            continue
        for f in files:
            if not f.endswith(".inc") and not f.endswith(".h"):
                continue
            path = os.path.join(root, f)
            if path.startswith(gen_inc + os.sep):
                rel = os.path.relpath(path, gen_inc)
                theirs = os.path.join(debian_inc, rel)
                if os.path.isfile(theirs):
                    with open(path, "rb") as a, open(theirs, "rb") as b:
                        ours_text, theirs_text = a.read(), b.read()
                    if ours_text != theirs_text and not additive_only(
                            theirs_text, ours_text):
                        changed.add(os.path.realpath(path))
                    continue
            # Generated next to a library (e.g. the test dialect) or not
            # installed by Debian: changed if a .td of its source directory is.
            rel = os.path.relpath(root, build)
            for base in (os.path.join(src, "mlir", rel), os.path.join(src, "mlir", "include", rel)):
                if os.path.realpath(base) in changed_td_dirs:
                    changed.add(os.path.realpath(path))
    return changed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="MLIR build directory")
    ap.add_argument("--src", required=True, help="patched llvm-project tree")
    ap.add_argument("--prefix", required=True, help="Debian's LLVM prefix")
    ap.add_argument("--always", default="", help="';'-separated libraries")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    build = os.path.realpath(args.build)
    src = os.path.realpath(args.src)

    known = set(
        line.split(":")[0]
        for line in run(["ninja", "-C", build, "-t", "targets", "all"]).splitlines()
    )
    libs = [n for n in debian_static_libs(args.prefix) if f"lib/lib{n}.a" in known]

    # Objects of each library: the explicit inputs of its archive edge.
    objects = {}
    query = run(["ninja", "-C", build, "-t", "query"] + [f"lib/lib{n}.a" for n in libs])
    current, in_input = None, False
    for line in query.splitlines():
        if not line.startswith(" "):
            current = line.rstrip(":")
            objects[current] = []
            in_input = False
        elif line.strip() == "input: phony" or line.strip().startswith("input:"):
            in_input = True
        elif line.strip().startswith("outputs:"):
            in_input = False
        elif in_input:
            item = line.strip()
            if item.startswith("|"):
                in_input = False
                continue
            if item.endswith(".o"):
                objects[current].append(item)

    # Source file and include path of every object.
    cdb = json.load(open(os.path.join(build, "compile_commands.json")))
    by_output = {}
    for entry in cdb:
        out = entry.get("output")
        if out is None:
            m = re.search(r"-o (\S+)", entry["command"])
            out = m.group(1) if m else None
        if out:
            # CMake >= 3.31 writes absolute paths; ninja names them relative.
            if os.path.isabs(out):
                out = os.path.relpath(out, entry["directory"])
            by_output[out] = entry

    include_dirs = []
    for entry in cdb:
        for d in re.findall(r"-I(\S+)", entry["command"]):
            d = os.path.realpath(os.path.join(entry["directory"], d))
            if (d.startswith(build) or d.startswith(src)) and d not in include_dirs:
                include_dirs.append(d)
    # Generated headers first, then the patched headers, as the compiler sees them.
    include_dirs.sort(key=lambda d: 0 if d == os.path.join(build, "include") else
                      1 if d == os.path.join(src, "mlir", "include") else 2)

    changed_src = changed_source_files(src)
    additive = additive_handwritten_headers(src, changed_src)
    for path in sorted(additive):
        print(f"additive (includers not rebuilt): {os.path.relpath(path, src)}")
    changed = (set(changed_src) - additive) | changed_generated_files(
        build, src, args.prefix, changed_src)

    # Include graph over the MLIR sources, built on demand.
    edges = {}

    def includes_of(path):
        if path in edges:
            return edges[path]
        deps = []
        try:
            data = open(path, "rb").read()
        except OSError:
            data = b""
        here = os.path.dirname(path)
        for m in INCLUDE_RE.finditer(data):
            name = m.group(1).decode()
            for d in [here] + include_dirs:
                cand = os.path.join(d, name)
                if os.path.isfile(cand):
                    deps.append(os.path.realpath(cand))
                    break
        edges[path] = deps
        return deps

    sources = {}
    for lib in libs:
        for obj in objects.get(f"lib/lib{lib}.a", []):
            entry = by_output.get(obj)
            if entry:
                sources.setdefault(lib, []).append(
                    (obj, os.path.realpath(os.path.join(entry["directory"], entry["file"]))))

    # Reverse reachability from the changed files.
    todo = deque(p for lib in sources for _, p in sources[lib])
    seen = set(todo)
    while todo:
        p = todo.popleft()
        for q in includes_of(p):
            if q not in seen:
                seen.add(q)
                todo.append(q)
    users = defaultdict(list)
    for p, deps in edges.items():
        for q in deps:
            users[q].append(p)
    tainted = set()
    todo = deque(p for p in changed if p in seen)
    tainted.update(todo)
    while todo:
        p = todo.popleft()
        for u in users[p]:
            if u not in tainted:
                tainted.add(u)
                todo.append(u)

    always = [a for a in args.always.split(";") if a]
    rel = lambda p: os.path.relpath(p, src)
    with open(args.out + ".tmp", "w") as out:
        for lib in libs:
            srcs = sources.get(lib, [])
            reason = None
            for _, p in srcs:
                if p in changed:
                    reason = f"changed-source:{rel(p)}"
                    break
            if reason is None:
                for _, p in srcs:
                    if p in tainted:
                        hdr = next((h for h in includes_of(p) if h in tainted or h in changed), None)
                        reason = f"includes-changed-header:{rel(p)}"
                        break
            if reason is None and lib in always:
                reason = "always"
            if reason:
                if not srcs:
                    sys.exit(f"error: library {lib} must be rebuilt but has no objects in {build}")
                out.write(" ".join([lib, reason] + [o for o, _ in srcs]) + "\n")
    os.replace(args.out + ".tmp", args.out)
    missing = [a for a in always if a not in libs]
    if missing:
        sys.exit(f"error: libraries to rebuild not found in the build: {' '.join(missing)}")
    print(f"{len(changed)} changed file(s); "
          f"{sum(1 for _ in open(args.out))} of {len(libs)} libraries to rebuild")


if __name__ == "__main__":
    main()
