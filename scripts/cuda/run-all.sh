#!/bin/sh
# Runs every GPU pack of the repository on a GPU machine in one go, then
# compute-sanitizer (memcheck with leak check) over the series' own tests and
# some token graphs. Needs only a POSIX shell, the NVIDIA driver and the packs
# built on the build machine:
#
#   scripts/cuda/cuda-suite.sh build && scripts/cuda/cuda-suite.sh pack  # build/cuda-pack
#   scripts/cuda/cuda-token-graphs.sh build --batches 50  # build/cuda-token-graphs/pack
#   scripts/cuda/cuda-bench.sh build                      # build/cuda-bench/pack
#
#   sh scripts/cuda/run-all.sh OUTDIR [EXTRA_PACK...]
#
# writes OUTDIR/suite, OUTDIR/token-graphs, OUTDIR/bench, OUTDIR/extra-N (one
# per EXTRA_PACK, a pack made by `cuda-suite.sh pack`), OUTDIR/sanitizer
# (NAME.log, NAME.rc: 0 clean, 99 an error found) and OUTDIR/times.txt. A
# pack that is missing is skipped and said so. Bring OUTDIR back and check it
# with `scripts/cuda/cuda-suite.sh check-results` and
# `scripts/cuda/cuda-bench.sh check` (docs/cuda-suite.md).
set -u
[ $# -ge 1 ] || { echo "usage: sh scripts/cuda/run-all.sh OUTDIR [EXTRA_PACK...]" >&2; exit 2; }
case $1 in -h | --help) sed -n '2,/^[^#]/{/^#/!d;s/^# \{0,1\}//;p;}' "$0"; exit 0 ;; esac
out=$1
shift
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$repo/build
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
times=$out/times.txt
: >"$times"

step() { # step NAME COMMAND...: runs COMMAND, appends its seconds to times.txt
  name=$1
  shift
  start=$(date +%s)
  "$@"
  rc=$?
  echo "$name $(($(date +%s) - start)) s (exit $rc)" >>"$times"
}

if [ -f "$build/cuda-pack/run.sh" ]; then
  step suite sh "$build/cuda-pack/run.sh" "$out/suite" >"$out/suite.log" 2>&1
else
  echo "suite: no pack at build/cuda-pack" >>"$times"
fi
if [ -f "$build/cuda-token-graphs/pack/run.sh" ]; then
  step token-graphs sh "$build/cuda-token-graphs/pack/run.sh" "$out/token-graphs" \
    >"$out/token-graphs.log" 2>&1
else
  echo "token-graphs: no pack at build/cuda-token-graphs/pack" >>"$times"
fi
if [ -f "$build/cuda-bench/pack/run-bench.sh" ]; then
  step bench sh "$build/cuda-bench/pack/run-bench.sh" "$out/bench" 10 >"$out/bench.log" 2>&1
else
  echo "bench: no pack at build/cuda-bench/pack" >>"$times"
fi
n=0
for pack in "$@"; do
  n=$((n + 1))
  step "extra-$n" sh "$pack/run.sh" "$out/extra-$n" >"$out/extra-$n.log" 2>&1
done

# The sanitizer over the series' own CUDA tests, the extra packs and ten token
# graph executables. It reports every failing CUDA API call as an error.
sanitizer=$(command -v compute-sanitizer 2>/dev/null)
for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
  [ -n "$sanitizer" ] && break
  [ -x "$d/compute-sanitizer" ] && sanitizer=$d/compute-sanitizer
done
if [ -z "$sanitizer" ]; then
  echo "sanitizer: compute-sanitizer not found" >>"$times"
  exit 0
fi
mkdir -p "$out/sanitizer"
# sanitize NAME EXE [VAR=VALUE...]: runs EXE under the sanitizer.
sanitize() {
  name=$1
  exe=$2
  shift 2
  env "$@" "$sanitizer" --tool memcheck --leak-check full --error-exitcode 99 "$exe" \
    >"$out/sanitizer/$name.log" 2>&1
  echo $? >"$out/sanitizer/$name.rc"
}
start=$(date +%s)
for exe in "$build"/cuda-pack/bin/graph-capture* "$build"/cuda-pack/bin/on-stream* \
  "$build"/cuda-pack/bin/multi-dep-memcpy* "$build"/cuda-pack/bin/async-region-* \
  "$build"/cuda-pack/bin/conditional-execution* \
  "$build"/cuda-token-graphs/pack/bin/token-graphs-seed1 \
  "$build"/cuda-token-graphs/pack/bin/token-graphs-seed1[0-8]; do
  [ -x "$exe" ] || continue
  case $(basename "$exe") in
    async-region-concurrent-kernels*) sanitize "$(basename "$exe")" "$exe" CUDA_MODULE_LOADING=EAGER ;;
    *) sanitize "$(basename "$exe")" "$exe" ;;
  esac
done
for pack in "$@"; do
  for exe in "$pack"/bin/*; do
    [ -x "$exe" ] && sanitize "extra-$(basename "$exe")" "$exe"
  done
done
echo "sanitizer $(($(date +%s) - start)) s" >>"$times"
