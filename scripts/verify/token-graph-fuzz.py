#!/usr/bin/env python3
"""Runs many random token-graph programs through the patched lowering with the
checking GPU runtime (no GPU needed); CI runs 1000 of them as the lit test
Integration/GPU/Check/token-graphs.mlir, this runs as many as asked.

  scripts/verify/token-graph-fuzz.py [-n 10000] [--seed 1] [--batch 500]

The programs come from the series' generator
(mlir/test/Integration/GPU/Check/Inputs/token_graphs.py in build/llvm-project),
are lowered with build/bin/mlir-opt -gpu-lower-to-nvvm-pipeline (then the
async dialect's lowering, as the lit test does) and run with Debian's
mlir-runner, build/lib/libmlir_gpu_check_runtime.so and the async runtime,
one module per batch. Prints one line per batch and a final summary; exits 1 if any
batch has a violation or a tool fails, keeping that batch's module under
build/fuzz/ to reproduce it.
"""

import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import in_sysroot  # noqa: E402 (scripts/in_sysroot.py)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build")
LLVM_PREFIX = os.environ.get("LLVM_PREFIX", "/usr/lib/llvm-23")
GENERATOR = os.path.join(BUILD, "llvm-project", "mlir", "test", "Integration",
                         "GPU", "Check", "Inputs", "token_graphs.py")
MLIR_OPT = os.path.join(BUILD, "bin", "mlir-opt")
RUNNER = os.path.join(LLVM_PREFIX, "bin", "mlir-runner")
RUNTIME = os.path.join(BUILD, "lib", "libmlir_gpu_check_runtime.so")
ASYNC_RUNTIME = os.path.join(BUILD, "lib", "libmlir_async_runtime.so")
ASYNC_LOWERING = ["-async-to-async-runtime", "-async-runtime-ref-counting",
                  "-convert-async-to-llvm", "-convert-to-llvm",
                  "-reconcile-unrealized-casts"]


def run_batch(seed, first, count, keep_dir):
    module = subprocess.run(
        [sys.executable, GENERATOR, "--seed", str(seed), "--first", str(first),
         "-n", str(count)], check=True, capture_output=True, text=True).stdout
    path = os.path.join(keep_dir, f"batch-{seed}-{first}.mlir")
    with open(path, "w") as f:
        f.write(module)
    lowered = subprocess.run(
        [MLIR_OPT, path, "-gpu-lower-to-nvvm-pipeline=cubin-format=isa"],
        capture_output=True, text=True)
    if lowered.returncode == 0:
        lowered = subprocess.run([MLIR_OPT] + ASYNC_LOWERING,
                                 input=lowered.stdout, capture_output=True,
                                 text=True)
    if lowered.returncode != 0:
        return False, f"mlir-opt failed on {path}:\n{lowered.stderr[-2000:]}"
    # -O0 as upstream's async integration tests: the coroutine lowering of
    # async.execute does not survive mlir-runner's default optimization.
    run = subprocess.run(
        [RUNNER, "--entry-point-result=void", "-O0",
         f"--shared-libs={RUNTIME}", f"--shared-libs={ASYNC_RUNTIME}"],
        input=lowered.stdout, capture_output=True, text=True)
    report = run.stderr

    def count_of(name):
        match = re.search(rf"calls {name} (\d+)", report)
        return match.group(1) if match else "0"

    summary = (f"streams created {count_of('mgpuStreamCreate')}, destroyed "
               f"{count_of('mgpuStreamDestroy')}; events created "
               f"{count_of('mgpuEventCreate')}, destroyed "
               f"{count_of('mgpuEventDestroy')}")
    if run.returncode != 0 or "gpu-check: 0 violation(s)" not in report:
        errors = "\n".join(l for l in report.splitlines() if "error" in l)
        return False, f"{summary}; violations in {path}:\n{errors[-3000:]}"
    os.remove(path)
    return True, summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=10000, help="programs")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=500)
    args = parser.parse_args()
    # Debian's LLVM 23 tools may be in the sysroot only: run there.
    in_sysroot.reexec_if_needed()
    for path in (GENERATOR, MLIR_OPT, RUNNER, RUNTIME, ASYNC_RUNTIME):
        if not os.path.exists(path):
            sys.exit(f"error: {path} not found; run scripts/build.sh first")
    keep_dir = os.path.join(BUILD, "fuzz")
    os.makedirs(keep_dir, exist_ok=True)
    failed = 0
    for first in range(0, args.n, args.batch):
        count = min(args.batch, args.n - first)
        ok, message = run_batch(args.seed, first, count, keep_dir)
        print(f"fuzz: programs {first}..{first + count - 1}: "
              f"{'ok' if ok else 'FAILED'}: {message}", flush=True)
        failed += 0 if ok else 1
    print(f"fuzz: {args.n} programs (seed {args.seed}), "
          f"{failed} failing batch(es)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
