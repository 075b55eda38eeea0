#!/usr/bin/env bash
# (Re)creates the working branch: pristine llvmorg-23.1.1 + one commit per
# patch of patches/series, at $GPU_SERIES_WORKTREE (default
# ~/.cache/mlir-gpu-async-series/work), branch gpu-async-series.
#
#   scripts/worktree.sh           # create it if missing
#   scripts/worktree.sh --force   # throw the existing one away first
#
# Edit there, commit (one commit per patch: amend or fixup + rebase), then
# scripts/export.sh writes patches/ and mlir/ back into this repository.
set -euo pipefail
source "$(dirname "$0")/common.sh"
handle_help "$0" "$@"

force=
case ${1:-} in
  "") ;;
  --force) force=1 ;;
  *) die "usage: scripts/worktree.sh [--force]" ;;
esac

if [[ -d ${WORK_DIR}/.git ]]; then
  if [[ -z $force ]]; then
    note "working branch already at ${WORK_DIR} ($(git -C "$WORK_DIR" rev-list --count "${LLVM_TAG}..HEAD") commit(s) on ${LLVM_TAG}); --force recreates it"
    exit 0
  fi
  [[ -z $(git -C "$WORK_DIR" status --porcelain) ]] ||
    die "${WORK_DIR} has uncommitted changes; commit and export them, or remove them, before --force"
fi

"${REPO_ROOT}/scripts/fetch-source.sh"
tmp=$(mktemp -d "${CACHE_DIR}/work.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
git clone -q --branch "$BASE_BRANCH" "$PRISTINE_DIR" "$tmp/tree"
git -C "$tmp/tree" checkout -q -b "$WORK_BRANCH" "$LLVM_TAG"
git -C "$tmp/tree" config user.name "$SERIES_AUTHOR_NAME"
git -C "$tmp/tree" config user.email "$SERIES_AUTHOR_EMAIL"
apply_series "$tmp/tree"
rm -rf "$WORK_DIR"
mv "$tmp/tree" "$WORK_DIR"
note "working branch ${WORK_BRANCH} at ${WORK_DIR}: ${LLVM_TAG} + $(series_patches | wc -l) patch(es)"
