#!/usr/bin/env bash
# Exports the series onto your llvm-project checkout as stacked branches, one
# per patch and stack, for stacked upstream pull requests:
#
#   scripts/export-branches.sh ~/llvm-project [PREFIX]
#
# The "#@ stack" markers of patches/series group the patches into stacks.
# Branch PREFIX/STACK/NNNN-name (PREFIX defaults to gpu-async) is
# llvmorg-23.1.1 plus what patch NNNN's pull request needs: every patch of
# the stacks above its own, then the patches of its stack up to NNNN; in an
# "each" stack (the independent fixes) only NNNN and the patches it names
# with "#@ needs". The script fails, naming the patch, where one does not
# apply on its branch's base. Your checkout's working tree and current
# branch are not touched (the patches are applied in a temporary worktree).
set -euo pipefail
source "$(dirname "$0")/common.sh"
handle_help "$0" "$@"

(($# >= 1 && $# <= 2)) || die "usage: scripts/export-branches.sh LLVM_PROJECT [PREFIX]"
lp=$1
prefix=${2:-gpu-async}
git -C "$lp" rev-parse --git-dir >/dev/null 2>&1 || die "$lp is not a git checkout"
git -C "$lp" rev-parse -q --verify "${LLVM_TAG}^{commit}" >/dev/null ||
  die "$lp has no tag ${LLVM_TAG}; run: git -C $lp fetch origin tag ${LLVM_TAG}"
branches=$(series_branches) || die "patches/series: bad stack markers (see above)"

tmp=$(mktemp -d)
cleanup() {
  git -C "$lp" worktree remove --force "$tmp/wt" >/dev/null 2>&1 || true
  git -C "$lp" worktree prune >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
git -C "$lp" worktree add -q --detach "$tmp/wt" "$LLVM_TAG"

# The commit of each list of patches made so far, keyed by ":LIST" (":" is
# the tag), so that a branch is its longest already-made prefix plus the
# patches after it.
declare -A commit_of=([":"]=$(git -C "$lp" rev-parse "${LLVM_TAG}^{commit}"))
n=0
while read -r stack patch held; do
  read -ra list <<<"$held"
  k=${#list[@]}
  while ((k > 0)) && [[ -z ${commit_of[":${list[*]:0:k}"]:-} ]]; do
    k=$((k - 1))
  done
  git -C "$tmp/wt" checkout -q --detach "${commit_of[":${list[*]:0:k}"]}"
  for ((i = k; i < ${#list[@]}; i++)); do
    base=${list[*]:0:i}
    am_patch "$tmp/wt" "${list[i]}" "on ${LLVM_TAG}${base:+ + ${base//.patch/}}"
    commit_of[":${list[*]:0:i+1}"]=$(git -C "$tmp/wt" rev-parse HEAD)
  done
  branch=${prefix}/${stack}/${patch%.patch}
  git -C "$lp" branch -f "$branch" "${commit_of[":$held"]}" >/dev/null
  note "$branch ($(wc -w <<<"$held") patch(es) on ${LLVM_TAG})"
  n=$((n + 1))
done <<<"$branches"
note "made ${n} branch(es); pushed nothing: push them to your fork to open stacked PRs (docs/upstreaming.md)"
