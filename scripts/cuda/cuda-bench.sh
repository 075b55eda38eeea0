#!/usr/bin/env bash
# Run-time benchmark of -gpu-async-region on a GPU: the programs of
# scripts/cuda/bench, built as native executables (scripts/cuda/cuda-suite.sh)
# with upstream's mlir-opt (Debian's, first RUN line only) and with the
# series' (every RUN line), timed on a GPU machine in one run.
#
#   scripts/cuda/cuda-bench.sh build           # -> build/cuda-bench/pack
#   # on the GPU machine:
#   sh build/cuda-bench/pack/run-bench.sh OUTDIR [REPEAT]
#   # back here:
#   scripts/cuda/cuda-bench.sh check OUTDIR    # FileCheck every output
#
# See docs/results.md ("On a GPU") for the figures and the exact commands.
set -euo pipefail
source "$(dirname "$0")/../common.sh"
handle_help "$0" "$@"
rerun_in_sysroot "$0" "$@"

BENCH_DIR=${BUILD_DIR}/cuda-bench
PROGRAMS=${REPO_ROOT}/scripts/cuda/bench
SUITE=${REPO_ROOT}/scripts/cuda/cuda-suite.sh
UPSTREAM_MLIR_OPT=${LLVM_PREFIX}/bin/mlir-opt

usage() {
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

cmd_build() {
  (($# == 0)) || die "build takes no arguments"
  [[ -x $UPSTREAM_MLIR_OPT ]] ||
    die "$UPSTREAM_MLIR_OPT not found; install Debian's MLIR tools (scripts/install-deps.sh)"
  local -a first=()
  local f
  for f in "$PROGRAMS"/*.mlir; do
    first+=(--only "$(basename "$f" .mlir).run1")
  done
  ((${#first[@]})) || die "no programs in $PROGRAMS"
  rm -rf "$BENCH_DIR"
  "$SUITE" build --tests "$PROGRAMS" --out "$BENCH_DIR/series"
  "$SUITE" build --tests "$PROGRAMS" --mlir-opt "$UPSTREAM_MLIR_OPT" \
    --out "$BENCH_DIR/upstream" "${first[@]}"
  "$SUITE" pack "$BENCH_DIR/pack/series" --out "$BENCH_DIR/series"
  "$SUITE" pack "$BENCH_DIR/pack/upstream" --out "$BENCH_DIR/upstream"
  cp "$REPO_ROOT/scripts/cuda/run-bench.sh" "$BENCH_DIR/pack/run-bench.sh"
  echo "bench pack: $BENCH_DIR/pack ($(du -sb "$BENCH_DIR/pack" | cut -f1) bytes)"
}

cmd_check() {
  (($# == 1)) || die "usage: scripts/cuda/cuda-bench.sh check OUTDIR"
  local results=$1 variant d rc=0
  [[ -d $results ]] || die "$results not found"
  for variant in upstream series; do
    for d in "$results/$variant"-*/; do
      [[ -d $d ]] || die "no $variant results in $results"
      "$SUITE" check-results "$d" --out "$BENCH_DIR/$variant" >/dev/null ||
        { echo "FAIL: $d (run: $SUITE check-results $d --out $BENCH_DIR/$variant)"; rc=1; }
    done
  done
  ((rc == 0)) || die "some outputs failed their FileCheck lines"
  echo "check: every output of $results passes its FileCheck lines"
}

(($#)) || usage
command=$1
shift
case $command in
  build) cmd_build "$@" ;;
  check) cmd_check "$@" ;;
  -h | --help | help) script_usage "$0"; exit 0 ;;
  *) die "unknown command '$command' (build, check)" ;;
esac
