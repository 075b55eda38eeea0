#!/bin/sh
# Runs the -gpu-async-region benchmark programs on a GPU machine and prints
# their times and the ratios to upstream, all measured in this one run.
# Copied into the bench pack by `scripts/cuda/cuda-bench.sh build`; needs only a
# POSIX shell, awk, the NVIDIA driver and the C/C++ runtime.
#
#   sh run-bench.sh OUTDIR [REPEAT]
#
# Each repetition (default 5) runs every upstream executable, then every
# series executable, each through its pack's run.sh, into
# OUTDIR/upstream-R/ and OUTDIR/series-R/. A program prints "seconds: T"
# (its own timing of the part that matters). The table (also in
# OUTDIR/bench.txt) gives the median and the minimum of T per executable and
# the ratio of upstream's median to each median: for a program P, upstream
# has P.run1 (the plain pass), the series P.run1 (the same RUN line) and
# P.run2 (max-streams=0). Bring OUTDIR back and run
# `scripts/cuda/cuda-bench.sh check OUTDIR` to FileCheck every output.
set -u

case ${1:-} in -h | --help)
  sed -n '2,/^[^#]/{/^#/!d;s/^# \{0,1\}//;p;}' "$0"
  exit 0
  ;;
esac
[ $# -ge 1 ] || { echo "usage: sh run-bench.sh OUTDIR [REPEAT]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
out=$1
reps=${2:-5}
mkdir -p "$out" || { echo "error: cannot create $out" >&2; exit 1; }
out=$(cd "$out" && pwd)

r=1
while [ "$r" -le "$reps" ]; do
  for variant in upstream series; do
    sh "$here/$variant/run.sh" "$out/$variant-$r" >"$out/$variant-$r.log" 2>&1 ||
      { echo "error: $variant/run.sh failed (repetition $r, $out/$variant-$r.log)" >&2; exit 1; }
  done
  r=$((r + 1))
done

# One line per run: variant, name, exit status, seconds (or '-').
for d in "$out"/upstream-* "$out"/series-*; do
  [ -d "$d" ] || continue
  variant=${d##*/}
  variant=${variant%-*}
  for rc in "$d"/*.rc; do
    name=${rc##*/}
    name=${name%.rc}
    t=$(awk '/^seconds: / { print $2; exit }' "$d/$name.stdout")
    printf '%s %s %s %s\n' "$variant" "$name" "$(cat "$rc")" "${t:--}"
  done
done >"$out/runs.txt"

awk -v reps="$reps" '
  function median(list, n,   a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++)
      for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
        t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
      }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  function minimum(list,   a, i, n, m) {
    n = split(list, a, " ")
    m = a[1]
    for (i = 2; i <= n; i++) if (a[i] + 0 < m + 0) m = a[i]
    return m
  }
  {
    key = $1 " " $2
    if (!(key in seen)) { seen[key] = 1; order[++nkeys] = key }
    if ($3 != 0 || $4 == "-") { failed[key]++; next }
    times[key] = times[key] " " $4
  }
  END {
    printf "%-9s %-32s %5s %10s %10s %10s\n", "variant", "executable", "runs",
           "median s", "min s", "upstream/x"
    bad = 0
    for (i = 1; i <= nkeys; i++) {
      key = order[i]
      split(key, k, " ")
      prog = k[2]; sub(/\.run[0-9]+$/, "", prog)
      if (failed[key]) { bad = 1 }
      if (times[key] == "") {
        printf "%-9s %-32s %5s %10s\n", k[1], k[2], 0, "failed"
        continue
      }
      m = median(times[key])
      base = "upstream " prog ".run1"
      ratio = "-"
      if (times[base] != "") ratio = sprintf("%.2f", median(times[base]) / m)
      printf "%-9s %-32s %5d %10.4f %10.4f %10s\n", k[1], k[2],
             split(times[key], tmp, " "), m, minimum(times[key]), ratio
    }
    if (nkeys == 0) { print "error: no results (nothing ran)"; exit 1 }
    if (bad) print "error: some runs failed (non-zero exit or no \"seconds:\" line); see runs.txt"
    exit bad
  }' "$out/runs.txt" >"$out/bench.txt"
status=$?
cat "$out/bench.txt"
exit "$status"
