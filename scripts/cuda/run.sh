#!/bin/sh
# Runs the CUDA integration test executables of this pack on a GPU machine.
# Needs only a POSIX shell, the NVIDIA driver (libcuda.so.1) and the C and
# C++ runtime libraries; no LLVM or MLIR. Copied into the pack by
# `scripts/cuda/cuda-suite.sh pack`.
#
#   sh run.sh OUTDIR [NAME...]
#
# For every executable of manifest.tsv (or only the NAMEs given) it writes
#   OUTDIR/NAME.stdout  what the test printed (with stderr too, for the tests
#                       whose RUN line pipes 2>&1 into FileCheck)
#   OUTDIR/NAME.stderr  what it printed on stderr otherwise
#   OUTDIR/NAME.rc      its exit status (124: timed out)
# plus OUTDIR/run.log (name, status, seconds) and OUTDIR/env.txt (machine,
# driver). Bring OUTDIR back and run `scripts/cuda/cuda-suite.sh check-results
# OUTDIR` where the LLVM tools are.
#
# CUDA_SUITE_TIMEOUT: seconds per test (default 120).
set -u
set -f

usage() {
  echo "usage: sh run.sh OUTDIR [NAME...]" >&2
  exit 2
}

case ${1:-} in -h | --help)
  sed -n '2,/^[^#]/{/^#/!d;s/^# \{0,1\}//;p;}' "$0"
  exit 0
  ;;
esac
[ $# -ge 1 ] || usage
here=$(cd "$(dirname "$0")" && pwd)
out=$1
shift
mkdir -p "$out" || { echo "error: cannot create $out" >&2; exit 1; }
out=$(cd "$out" && pwd)
limit=${CUDA_SUITE_TIMEOUT:-120}
[ -f "$here/manifest.tsv" ] || { echo "error: $here/manifest.tsv is missing" >&2; exit 1; }

if command -v timeout >/dev/null 2>&1; then
  have_timeout=1
else
  have_timeout=
  echo "warning: 'timeout' not found; tests run without a time limit" >&2
fi

# wanted NAME: whether NAME was asked for (all when none was).
wanted() {
  [ -z "$selected" ] && return 0
  case " $selected " in *" $1 "*) return 0 ;; esac
  return 1
}
selected="$*"

# run_one EXE ENV...: runs EXE with the given VAR=VALUE settings, from OUTDIR,
# under the time limit; stdout and stderr are set up by the caller.
run_one() {
  exe=$1
  shift
  if [ -n "$have_timeout" ]; then
    (cd "$out" && exec env "$@" timeout -k 10 "$limit" "$exe") </dev/null
  else
    (cd "$out" && exec env "$@" "$exe") </dev/null
  fi
}

# The execute bits may not survive the trip to the GPU machine.
find "$here/bin" -type f -exec chmod +x {} + 2>/dev/null

{
  date
  uname -a
  nvidia-smi 2>&1 || echo "nvidia-smi: not available"
} >"$out/env.txt" 2>&1

: >"$out/run.log"
tab=$(printf '\t')
ran=0
nonzero=0
while IFS="$tab" read -r name kind exe env merge _; do
  case $name in '#'* | '') continue ;; esac
  [ "$kind" = exec ] || continue
  wanted "$name" || continue
  # The environment field is VAR=VALUE words without spaces (or '-'): split
  # it into the positional parameters (globbing is off).
  # shellcheck disable=SC2086
  if [ "$env" = - ]; then set --; else set -- $env; fi
  start=$(date +%s)
  if [ "$merge" = 1 ]; then
    run_one "$here/$exe" "$@" >"$out/$name.stdout" 2>&1
    rc=$?
    : >"$out/$name.stderr"
  else
    run_one "$here/$exe" "$@" >"$out/$name.stdout" 2>"$out/$name.stderr"
    rc=$?
  fi
  seconds=$(($(date +%s) - start))
  echo "$rc" >"$out/$name.rc"
  printf '%s\t%s\t%s\n' "$name" "$rc" "$seconds" >>"$out/run.log"
  echo "$name: exit $rc (${seconds}s)"
  ran=$((ran + 1))
  [ "$rc" = 0 ] || nonzero=$((nonzero + 1))
done <"$here/manifest.tsv"

echo "ran $ran executable(s), $nonzero with a non-zero exit status; results in $out"
[ "$ran" -gt 0 ] || { echo "error: nothing ran (unknown NAME?)" >&2; exit 1; }
exit 0
