#!/usr/bin/env bash
# Formats the C and C++ lines changed in the working branch with Debian's
# clang-format-23, as scripts/check.sh checks each patch (TableGen files are
# not formatted, as upstream does not). Runs inside the sysroot where the
# toolchain is there; the files are changed in place: review, then commit or
# amend.
#
#   scripts/format.sh          # the uncommitted edits
#   scripts/format.sh --last   # those and the lines of the last commit
set -euo pipefail
source "$(dirname "$0")/common.sh"
handle_help "$0" "$@"

base=()
for arg in "$@"; do
  case $arg in
    --last) base=(HEAD~1) ;;
    *) die "unknown argument '$arg' (see scripts/format.sh --help)" ;;
  esac
done
[[ -d ${WORK_DIR}/.git ]] || die "no working branch at ${WORK_DIR}; run scripts/worktree.sh first"
rerun_in_sysroot "$0" "$@"

fmt=$(command -v "clang-format-${LLVM_MAJOR}") ||
  die "clang-format-${LLVM_MAJOR} not found; run scripts/install-deps.sh"
diff_tool=$(command -v "clang-format-diff-${LLVM_MAJOR}") ||
  die "clang-format-diff-${LLVM_MAJOR} not found; run scripts/install-deps.sh"
cd "$WORK_DIR"
git diff -U0 --no-color "${base[@]}" | "$diff_tool" -p1 -binary "$fmt" -i
git status --short
