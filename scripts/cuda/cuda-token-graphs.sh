#!/usr/bin/env bash
# The random token graphs of Integration/GPU/Check/token-graphs.mlir (forks,
# joins, host waits, tokens crossing scf, call and async.execute boundaries)
# lowered with the series and built as native executables against the real
# CUDA runtime wrappers (scripts/cuda/cuda-suite.sh), for a GPU machine: there the
# CUDA driver itself must accept every stream and event call.
#
#   scripts/cuda/cuda-token-graphs.sh build [--batches B] [-n N] [--seed S]
#       # -> build/cuda-token-graphs/pack: B executables of N programs each,
#       #    seeds S..S+B-1 (default 10 x 100 from seed 1)
#   # on the GPU machine:
#   sh build/cuda-token-graphs/pack/run.sh OUTDIR
#   # back here:
#   scripts/cuda/cuda-suite.sh check-results OUTDIR --out build/cuda-token-graphs/suite
#
# An executable passes when it exits 0, prints "token graphs: done" and no
# "failed with" line (what the CUDA runtime wrappers print when a driver call
# fails). See docs/results.md ("On a GPU").
set -euo pipefail
source "$(dirname "$0")/../common.sh"
handle_help "$0" "$@"
rerun_in_sysroot "$0" "$@"

OUT_DIR=${BUILD_DIR}/cuda-token-graphs
GENERATOR=${SRC_DIR}/mlir/test/Integration/GPU/Check/Inputs/token_graphs.py

usage() {
  sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# write_test SEED N FILE: one module of N programs, with the RUN and CHECK
# lines that scripts/cuda/cuda-suite.sh builds it from.
write_test() {
  local seed=$1 n=$2 file=$3
  {
    cat <<HEADER
// $n random token graphs (seed $seed) from
// mlir/test/Integration/GPU/Check/Inputs/token_graphs.py, lowered by the
// series and run on a GPU with the CUDA runtime wrappers.
//
// RUN: mlir-opt %s -gpu-lower-to-nvvm-pipeline="cubin-format=%gpu_compilation_format" \\
// RUN: | mlir-opt -async-to-async-runtime -async-runtime-ref-counting \\
// RUN:   -convert-async-to-llvm -convert-to-llvm -reconcile-unrealized-casts \\
// RUN: | mlir-runner --entry-point-result=void -O0 \\
// RUN:   --shared-libs=%mlir_cuda_runtime \\
// RUN:   --shared-libs=%mlir_async_runtime \\
// RUN:   --shared-libs=%mlir_c_runner_utils 2>&1 \\
// RUN: | FileCheck %s

// CHECK-NOT: failed with
// CHECK: token graphs: done
// CHECK-NOT: failed with

HEADER
    # The generator's @main becomes @programs (the executable's C entry shim
    # defines main); the module's last line, its closing brace, comes below.
    python3 "$GENERATOR" --seed "$seed" -n "$n" |
      sed -e 's/^  func\.func @main() {$/  func.func @programs() {/' -e '$d'
    cat <<'FOOTER'
  func.func @main() {
    func.call @programs() : () -> ()
    vector.print str "token graphs: done\n"
    return
  }
}
FOOTER
  } >"$file"
}

cmd_build() {
  local batches=10 n=100 seed=1 b
  while (($#)); do
    case $1 in
      --batches) batches=${2:?--batches needs a value} && shift ;;
      -n) n=${2:?-n needs a value} && shift ;;
      --seed) seed=${2:?--seed needs a value} && shift ;;
      *) die "unknown build argument '$1'" ;;
    esac
    shift
  done
  [[ $batches =~ ^[1-9][0-9]*$ && $n =~ ^[1-9][0-9]*$ && $seed =~ ^[0-9]+$ ]] ||
    die "--batches, -n and --seed take whole numbers (batches and n at least 1)"
  [[ -f $GENERATOR ]] || die "$GENERATOR not found; run scripts/build.sh first"
  rm -rf "$OUT_DIR"
  mkdir -p "$OUT_DIR/tests"
  for ((b = 0; b < batches; b++)); do
    write_test $((seed + b)) "$n" "$OUT_DIR/tests/token-graphs-seed$((seed + b)).mlir"
  done
  "${REPO_ROOT}/scripts/cuda/cuda-suite.sh" build --tests "$OUT_DIR/tests" \
    --out "$OUT_DIR/suite" --jobs 2
  "${REPO_ROOT}/scripts/cuda/cuda-suite.sh" pack "$OUT_DIR/pack" --out "$OUT_DIR/suite"
}

(($#)) || usage
command=$1
shift
case $command in
  build) cmd_build "$@" ;;
  -h | --help | help) script_usage "$0"; exit 0 ;;
  *) die "unknown command '$command' (build)" ;;
esac
