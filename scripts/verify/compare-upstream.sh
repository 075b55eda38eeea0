#!/usr/bin/env bash
# Lowers the programs in scripts/verify/compare/ with Debian's mlir-opt (upstream,
# the packages' release) and with the series' build/bin/mlir-opt, runs the
# host code with the checking runtime, and prints one markdown table:
# whether the lowering succeeds, host GPU ops left unconverted, host
# synchronizations (static), and the checking runtime's verdict.
#
#   scripts/verify/compare-upstream.sh        # after scripts/build.sh
set -euo pipefail
source "$(dirname "$0")/../common.sh"
expect_no_args "$0" "$@"

rerun_in_sysroot "$0" "$@"
need_cmd python3
UPSTREAM=${LLVM_PREFIX}/bin/mlir-opt
SERIES=${BUILD_DIR}/bin/mlir-opt
RUNNER=${LLVM_PREFIX}/bin/mlir-runner
CHECK_RT=${BUILD_DIR}/lib/libmlir_gpu_check_runtime.so
for f in "$UPSTREAM" "$SERIES" "$RUNNER" "$CHECK_RT"; do
  [[ -e $f ]] || die "$f missing; run scripts/build.sh first"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "| program | mlir-opt | exit | host GPU ops left | host syncs | streams created / destroyed | checking runtime |"
echo "|---|---|---|---|---|---|---|"
for prog in "${REPO_ROOT}"/scripts/verify/compare/*.mlir; do
  name=$(basename "$prog" .mlir)
  runs=(upstream series)
  # The synchronous program goes through -gpu-async-region first, and with
  # the series also through its dependence mode.
  [[ $name != two-convolutions ]] || runs+=(series-dependences)
  for which in "${runs[@]}"; do
    opt=$UPSTREAM pre=()
    [[ $which == upstream ]] || opt=$SERIES
    [[ $name != two-convolutions ]] || pre=(-gpu-async-region)
    [[ $which != series-dependences ]] || pre=(-gpu-async-region=max-streams=0)
    label="$which ($("$opt" --version | sed -n 's/.*LLVM version \([0-9.]*\).*/\1/p'))"
    rc=0
    "$opt" "$prog" "${pre[@]}" -gpu-lower-to-nvvm-pipeline="cubin-format=isa" \
      >"$tmp/out.mlir" 2>"$tmp/err" || rc=$?
    if ((rc != 0)); then
      echo "| $name | $label | $rc | — | — | — | $(head -1 "$tmp/err" | sed 's/|/\\|/g' | cut -c1-80) |"
      continue
    fi
    left=$(grep -cE '^\s*(%[^=]* = )?gpu\.(wait|alloc|dealloc|memcpy|memset)\b' "$tmp/out.mlir" || true)
    syncs=$(grep -cE 'llvm\.call @mgpu(Stream|Event)Synchronize' "$tmp/out.mlir" || true)
    if ((left != 0)); then
      echo "| $name | $label | 0 | $left | $syncs | — | not runnable (ops left) |"
      continue
    fi
    rrc=0
    "$RUNNER" "$tmp/out.mlir" --entry-point-result=void \
      --shared-libs="$CHECK_RT" >"$tmp/run" 2>&1 || rrc=$?
    created=$(sed -n 's/^gpu-check: calls mgpuStreamCreate \([0-9]*\)/\1/p' "$tmp/run")
    destroyed=$(sed -n 's/^gpu-check: calls mgpuStreamDestroy \([0-9]*\)/\1/p' "$tmp/run")
    verdict=$(grep -oE 'gpu-check: error: [a-z-]+' "$tmp/run" | sed 's/gpu-check: error: //' |
      sort | uniq -c | awk '{printf "%s%s x%s", sep, $2, $1; sep=", "}' || true)
    [[ -n $verdict ]] || verdict="0 violations"
    echo "| $name | $label | 0 | 0 | $syncs | ${created:-0} / ${destroyed:-0} | $verdict (exit $rrc) |"
  done
done
