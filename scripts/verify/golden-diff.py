#!/usr/bin/env python3
"""Compares two builds of mlir-opt byte for byte on the series' corpus: the
output of a re-cut (or any refactoring) of the series must equal the output of
the series before it.

  scripts/verify/golden-diff.py --save DIR    # keep build/'s mlir-opt in DIR
  scripts/verify/golden-diff.py --ref DIR     # compare build/'s mlir-opt with it

The corpus:
- every RUN line of the .mlir tests of the GPU and SCF directories of the
  patched tree (build/llvm-project/mlir/test): the leading mlir-opt stages
  of the line (up to the first other tool), on the test file;
- 1000 oracle programs with control flow (scripts/verify/async-region-oracle.py
  --control-flow --seed 1) through -gpu-async-region with max-streams=1 and 0,
  each alone and then lowered with -gpu-lower-to-nvvm-pipeline;
- 1000 token graphs (Check/Inputs/token_graphs.py --seed 1) lowered with
  -gpu-lower-to-nvvm-pipeline, as their lit test does.
Each case compares exit status, stdout and stderr (binary paths and
gpu-module-to-binary's compile times masked). A case whose outputs differ only
in the order of the external function declarations (`llvm.func @f(...)`
without a body: runtime functions are declared where the lowering first
calls them) is counted apart, as identical up to that order.
Prints the number of identical cases and each differing one; exits 1 if
any differs other than in the order of declarations.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build")
TESTS = os.path.join(BUILD, "llvm-project", "mlir", "test")
TEST_DIRS = ["Conversion/GPUCommon", "Conversion/GPUToNVVM",
             "Conversion/GPUToROCDL", "Conversion/NVGPUToNVVM",
             "Dialect/GPU", "Dialect/SCF", "Integration/GPU"]
GENERATOR = os.path.join(ROOT, "mlir", "test", "Integration", "GPU", "Check", "Inputs",
                         "token_graphs.py")
ORACLE = os.path.join(ROOT, "scripts", "verify", "async-region-oracle.py")


def real_binary():
    """The mlir-opt binary build.sh made (libexec/ when built in a sysroot)."""
    for path in (os.path.join(BUILD, "libexec", "mlir-opt"),
                 os.path.join(BUILD, "bin", "mlir-opt")):
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            if f.read(2) != b"#!":
                return path
    sys.exit("error: no mlir-opt binary under build/; run scripts/build.sh")


def save(directory):
    os.makedirs(directory, exist_ok=True)
    binary = real_binary()
    shutil.copy2(binary, os.path.join(directory, "mlir-opt.bin"))
    wrapper = os.path.join(BUILD, "bin", "mlir-opt")
    text = open(wrapper).read()
    if binary != wrapper:
        text = text.replace(binary, os.path.join(directory, "mlir-opt.bin"))
    else:
        text = "#!/bin/sh\nexec \"%s\" \"$@\"\n" % os.path.join(
            directory, "mlir-opt.bin")
    with open(os.path.join(directory, "mlir-opt"), "w") as f:
        f.write(text)
    os.chmod(os.path.join(directory, "mlir-opt"), 0o755)
    print(f"saved {binary} as {directory}/mlir-opt")


def run_lines(path):
    """The RUN lines of a test, continuation lines joined."""
    lines, current = [], ""
    for line in open(path):
        m = re.match(r"\s*//\s*RUN:\s?(.*)$", line)
        if not m:
            continue
        text = m.group(1).rstrip()
        if text.endswith("\\"):
            current += text[:-1] + " "
            continue
        lines.append(current + text)
        current = ""
    return lines


def opt_prefix(line, path):
    """The leading mlir-opt stages of a RUN line, %s substituted; None if the
    line starts with another tool or uses a substitution we do not know."""
    line = re.sub(r"^(not|env \S+=\S+)\s+", "", line.strip())
    stages = [s.strip() for s in line.split("|")]
    kept = []
    for stage in stages:
        if not stage.startswith("mlir-opt"):
            break
        kept.append(stage[len("mlir-opt"):])
    if not kept:
        return None
    kept = [s.replace("%s", path).replace("%S", os.path.dirname(path))
            for s in kept]
    if any(re.search(r"%[A-Za-z_{]", s) for s in kept):
        return None
    return kept


def run(opt, stages, stdin_file):
    command = " | ".join(f"'{opt}' {args}" for args in stages)
    with open(stdin_file) if stdin_file else open(os.devnull) as stdin:
        result = subprocess.run(["bash", "-c", "set -o pipefail; " + command],
                                stdin=stdin, capture_output=True, text=True)
    def mask(text):
        # Binary paths and gpu-module-to-binary's compile times.
        text = text.replace(opt, "mlir-opt")
        return re.sub(r"TimeInMs = \d+", "TimeInMs = N", text)
    return result.returncode, mask(result.stdout), mask(result.stderr)


DECLARATION = re.compile(r"^\s*llvm\.func @[\w$.]+\([^)]*\)( -> [^{]*)?$")


def sort_declarations(output):
    """Returns `output` (exit status, stdout, stderr) with the external
    function declarations of stdout moved to its end, sorted."""
    status, stdout, stderr = output
    lines = stdout.splitlines()
    declarations = sorted(l for l in lines if DECLARATION.match(l))
    others = [l for l in lines if not DECLARATION.match(l)]
    return status, "\n".join(others + declarations), stderr


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--save", metavar="DIR")
    parser.add_argument("--ref", metavar="DIR")
    parser.add_argument("-n", type=int, default=1000,
                        help="generated programs of each kind")
    args = parser.parse_args()
    if args.save:
        save(args.save)
        return
    if not args.ref:
        parser.error("--save DIR or --ref DIR")
    ref = os.path.join(args.ref, "mlir-opt")
    new = os.path.join(BUILD, "bin", "mlir-opt")
    for tool in (ref, new):
        if not os.access(tool, os.X_OK):
            sys.exit(f"error: {tool} not found")

    cases = []  # (name, stages, stdin file)
    walk = [w for d in TEST_DIRS for w in os.walk(os.path.join(TESTS, d))]
    for base, _, files in sorted(walk):
        for name in sorted(files):
            if not name.endswith(".mlir"):
                continue
            path = os.path.join(base, name)
            for i, line in enumerate(run_lines(path)):
                stages = opt_prefix(line, path)
                if stages:
                    cases.append((f"{os.path.relpath(path, TESTS)} RUN {i + 1}",
                                  stages, None))

    tmp = tempfile.mkdtemp(prefix="golden-diff.")
    oracle = os.path.join(tmp, "oracle.mlir")
    with open(oracle, "w") as f:
        subprocess.run([sys.executable, ORACLE, "--control-flow", "--seed",
                        "1", "-n", str(args.n), "--emit"], stdout=f,
                       check=True)
    # The oracle's kernels are gpu.funcs: lowered as its --run lowers them
    # (the NVVM pipeline runs -gpu-to-llvm after the device code).
    lowering = "-gpu-lower-to-nvvm-pipeline=cubin-format=isa"
    for streams in ("1", "0"):
        region = f"-gpu-async-region=max-streams={streams}"
        cases.append((f"oracle {region}", [region], oracle))
        cases.append((f"oracle {region} | {lowering}", [region, lowering],
                      oracle))
    graphs = os.path.join(tmp, "graphs.mlir")
    with open(graphs, "w") as f:
        subprocess.run([sys.executable, GENERATOR, "--seed", "1", "-n",
                        str(args.n)], stdout=f, check=True)
    cases.append((f"token graphs {lowering}", [lowering], graphs))

    same, reordered, differ = 0, [], []
    for name, stages, stdin in cases:
        old, now = run(ref, stages, stdin), run(new, stages, stdin)
        if old == now:
            same += 1
        elif sort_declarations(old) == sort_declarations(now):
            reordered.append(name)
            print(f"declarations reordered: {name}")
        else:
            differ.append(name)
            print(f"differs: {name}: mlir-opt {' | mlir-opt '.join(stages)}")
    shutil.rmtree(tmp)
    print(f"{same} of {len(cases)} cases identical, {len(reordered)} identical "
          f"up to the order of function declarations, {len(differ)} differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
