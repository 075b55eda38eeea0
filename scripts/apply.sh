#!/usr/bin/env bash
# Makes build/llvm-project = pristine tree + patches/series.
#
#   scripts/apply.sh              # from patches/ (what CI and users build)
#   scripts/apply.sh --worktree   # from the working branch, with uncommitted
#                                 # edits (quick edit-build loop)
#
# The series is applied in a scratch worktree first; build/llvm-project is only
# updated when every patch applied, and only files whose content changed are
# rewritten, so the incremental build stays incremental.
set -euo pipefail
source "$(dirname "$0")/common.sh"
handle_help "$0" "$@"

mode=series
case ${1:-} in
  "") ;;
  --worktree) mode=worktree ;;
  *) die "usage: scripts/apply.sh [--worktree]" ;;
esac

need_cmd git
"${REPO_ROOT}/scripts/fetch-source.sh"

if [[ ! -d ${SRC_DIR}/.git ]]; then
  note "cloning the pristine tree into ${SRC_DIR}"
  rm -rf "$SRC_DIR"
  mkdir -p "$BUILD_DIR"
  git clone -q --branch "$BASE_BRANCH" "$PRISTINE_DIR" "$SRC_DIR.tmp"
  git -C "$SRC_DIR.tmp" checkout -q -b series
  mv "$SRC_DIR.tmp" "$SRC_DIR"
fi

if [[ $mode == worktree ]]; then
  [[ -d ${WORK_DIR}/.git ]] || die "no working branch at ${WORK_DIR}; run scripts/worktree.sh first"
  note "syncing ${SRC_DIR} with the working branch ${WORK_DIR} (uncommitted edits included)"
  sync=(rsync -rc --delete --exclude=/.git "${WORK_DIR}/" "${SRC_DIR}/")
  if command -v rsync >/dev/null 2>&1; then
    "${sync[@]}"
  elif use_sysroot && sysroot_ready; then
    # The host lacks rsync; install-deps.sh put it into the sysroot, which
    # sees both trees at their host paths.
    run_in_sysroot "${sync[@]}"
  else
    need_cmd rsync
  fi
  exit 0
fi

scratch=$(mktemp -d "${BUILD_DIR}/apply.XXXXXX")
cleanup() {
  git -C "$SRC_DIR" worktree remove --force "$scratch" >/dev/null 2>&1 || rm -rf "$scratch"
  git -C "$SRC_DIR" worktree prune >/dev/null 2>&1 || true
}
trap cleanup EXIT
git -C "$SRC_DIR" worktree add -q --detach "$scratch" "$LLVM_TAG"
n=$(series_patches | wc -l)
note "applying ${n} patch(es) from patches/series"
apply_series "$scratch"
head=$(git -C "$scratch" rev-parse HEAD)
# Switch the build tree to the new commit: git rewrites only the files that
# differ, so unchanged sources keep their timestamps.
git -C "$SRC_DIR" checkout -q -f -B series "$head"
git -C "$SRC_DIR" clean -q -fd
note "build/llvm-project is ${LLVM_TAG} + ${n} patch(es)"
