#!/usr/bin/env bash
# What CI runs: README command 2 (which builds incrementally first), timed.
# The output ends with lit's "N passed, N failed, N skipped" line.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
scripts/test.sh 2>&1 | tee "$log" || status=$?
echo "ci: build + tests took $(($(date +%s) - start)) s"
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1 || true)
[[ -n $summary ]] || { echo "ci: no test summary (build or lit failed)"; echo "0 passed, 1 failed"; exit 1; }
echo "$summary"
exit $status
