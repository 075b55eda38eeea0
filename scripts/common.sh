# Shared settings and helpers for the scripts in this directory.
# Sourced, not executed.

# Repository root and the pinned base.
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LLVM_VERSION=22.1.8
LLVM_TAG=llvmorg-${LLVM_VERSION}
LLVM_MAJOR=22
LLVM_PREFIX=${LLVM_PREFIX:-/usr/lib/llvm-${LLVM_MAJOR}}

# Debian's source package that carries the pinned tree.
DEBIAN_SRC_PKG=llvm-toolchain-${LLVM_MAJOR}
DEBIAN_ORIG_TARBALL=${DEBIAN_SRC_PKG}_${LLVM_VERSION}.orig.tar.xz
DEBIAN_ORIG_SHA256=b49b9277aef97616320b2da259e1f8174c65b0ce2fbe2e8629644a97693402fe

# Everything that is not part of the repository lives under the cache:
# the pristine tree, the working branch, ccache.
CACHE_DIR=${GPU_SERIES_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/mlir-gpu-async-series}
PRISTINE_DIR=${CACHE_DIR}/pristine-${LLVM_VERSION}
# The working branch: pristine tree + one commit per patch.
WORK_DIR=${GPU_SERIES_WORKTREE:-${CACHE_DIR}/work}
WORK_BRANCH=gpu-async-series
BASE_BRANCH=base-${LLVM_VERSION}

BUILD_DIR=${REPO_ROOT}/build

# The parts of llvm-project the series and the overlay build need.
SOURCE_SUBDIRS=(mlir llvm/CMakeLists.txt llvm/cmake llvm/utils/lit cmake third-party/unittest)

die() {
  echo "error: $*" >&2
  exit 1
}

note() {
  echo "==> $*" >&2
}

need_cmd() {
  local cmd
  for cmd in "$@"; do
    command -v "$cmd" >/dev/null 2>&1 ||
      die "'$cmd' not found; run scripts/install-deps.sh (or install it) first"
  done
}

# Pristine tree git repo with a single commit (tag $BASE_BRANCH).
pristine_ready() {
  [[ -f ${PRISTINE_DIR}/.git/complete ]]
}

# Series entries in order (comments and blank lines skipped). SERIES_LIMIT=k
# keeps the first k (used to build and test each prefix of the series).
series_patches() {
  [[ -f ${REPO_ROOT}/patches/series ]] || die "patches/series is missing"
  sed -e 's/#.*//' -e 's/[[:space:]]*$//' "${REPO_ROOT}/patches/series" |
    grep -v '^$' | head -n "${SERIES_LIMIT:-1000000}" || true
}

# The patched tree the build compiles: pristine + series (a git repository,
# branch "series" on top of tag $LLVM_TAG).
SRC_DIR=${BUILD_DIR}/llvm-project

# apply_series REPO [HOOK]: applies patches/series onto REPO's HEAD with
# git am, one commit per patch, calling HOOK with the patch's file name after
# each one. On failure the am is aborted and the patch named. A repository
# without a committer identity (the scratch ones) gets a neutral one.
apply_series() {
  local repo=$1 hook=${2:-} p log ident=()
  git -C "$repo" config user.email >/dev/null ||
    ident=(-c user.name=series -c user.email=series@localhost)
  log=$(mktemp)
  while read -r p; do
    [[ -f ${REPO_ROOT}/patches/$p ]] || die "patches/series lists '$p' but patches/$p does not exist"
    if ! git -C "$repo" "${ident[@]}" \
      am -q --keep-cr --keep-non-patch "${REPO_ROOT}/patches/$p" >"$log" 2>&1; then
      git -C "$repo" am --abort >/dev/null 2>&1 || true
      grep -E '^(error|Patch failed)' "$log" | sed 's/^/    /' >&2 || true
      rm -f "$log"
      die "patch $p does not apply (on top of the patches before it in patches/series)"
    fi
    [[ -z $hook ]] || "$hook" "$p"
  done < <(series_patches)
  rm -f "$log"
}
