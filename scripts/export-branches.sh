#!/usr/bin/env bash
# Exports the series onto your llvm-project checkout as stacked branches, one
# per patch, for stacked upstream pull requests:
#
#   scripts/export-branches.sh ~/llvm-project [PREFIX]
#
# Branch PREFIX/NNNN-name (PREFIX defaults to gpu-async) holds llvmorg-23.1.1
# plus patches 0001..NNNN. Your checkout's working tree and current branch are
# not touched (the patches are applied in a temporary git worktree).
set -euo pipefail
source "$(dirname "$0")/common.sh"

(($# >= 1 && $# <= 2)) || die "usage: scripts/export-branches.sh LLVM_PROJECT [PREFIX]"
lp=$1
prefix=${2:-gpu-async}
git -C "$lp" rev-parse --git-dir >/dev/null 2>&1 || die "$lp is not a git checkout"
git -C "$lp" rev-parse -q --verify "${LLVM_TAG}^{commit}" >/dev/null ||
  die "$lp has no tag ${LLVM_TAG}; run: git -C $lp fetch origin tag ${LLVM_TAG}"

tmp=$(mktemp -d)
cleanup() {
  git -C "$lp" worktree remove --force "$tmp/wt" >/dev/null 2>&1 || true
  git -C "$lp" worktree prune >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
git -C "$lp" worktree add -q --detach "$tmp/wt" "$LLVM_TAG"

make_branch() {
  local branch=${prefix}/${1%.patch}
  git -C "$tmp/wt" branch -f "$branch" HEAD >/dev/null
  note "$branch"
}
apply_series "$tmp/wt" make_branch
note "pushed nothing; push the branches above to your fork to open stacked PRs"
