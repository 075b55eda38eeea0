#!/usr/bin/env bash
# In-tree LLVM + MLIR build of pristine + series, for machines with the cores
# and hours for it (not run by CI). Needs the whole llvm-project source:
#
#   LLVM_PROJECT=~/llvm-project scripts/build-full.sh [--check]
#   scripts/build-full.sh [--check]      # from the cached Debian orig tarball
#
# Builds into build/full (targets: host + NVPTX; the CUDA runner when CUDA is
# found) and, with --check, runs check-mlir.
set -euo pipefail
source "$(dirname "$0")/common.sh"
handle_help "$0" "$@"

check=
for arg in "$@"; do
  case $arg in
    --check) check=1 ;;
    --worktree) die "--full builds pristine + patches/series; export the working branch first" ;;
    *) die "usage: scripts/build-full.sh [--check]" ;;
  esac
done
"${REPO_ROOT}/scripts/install-deps.sh"
need_cmd cmake ninja git

FULL_SRC=${CACHE_DIR}/full-src
if [[ ! -d ${FULL_SRC}/.git ]]; then
  tmp=$(mktemp -d "${CACHE_DIR}/full.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  if [[ -n ${LLVM_PROJECT:-} ]]; then
    git -C "$LLVM_PROJECT" rev-parse -q --verify "${LLVM_TAG}^{commit}" >/dev/null ||
      die "LLVM_PROJECT=$LLVM_PROJECT has no tag ${LLVM_TAG}"
    note "cloning ${LLVM_TAG} from $LLVM_PROJECT"
    git clone -q --shared --no-checkout "$LLVM_PROJECT" "$tmp/src"
    git -C "$tmp/src" checkout -q -b "$BASE_BRANCH" "$LLVM_TAG"
  else
    tarball=${CACHE_DIR}/${DEBIAN_ORIG_TARBALL}
    [[ -f $tarball ]] || "${REPO_ROOT}/scripts/fetch-source.sh"
    [[ -f $tarball ]] || die "no ${DEBIAN_ORIG_TARBALL} in ${CACHE_DIR}; set LLVM_PROJECT to an llvm-project checkout"
    note "extracting the whole ${DEBIAN_ORIG_TARBALL}"
    mkdir -p "$tmp/src"
    tar -xJf "$tarball" -C "$tmp/src" --strip-components=1
    git -C "$tmp/src" init -q -b "$BASE_BRANCH"
    git -C "$tmp/src" add -A
    git -C "$tmp/src" -c user.name=pristine -c user.email=pristine@localhost \
      commit -q -m "llvm-project ${LLVM_TAG}"
    git -C "$tmp/src" tag "$LLVM_TAG"
  fi
  mv "$tmp/src" "$FULL_SRC"
fi

note "applying patches/series to ${FULL_SRC}"
git -C "$FULL_SRC" checkout -q -f -B series "$LLVM_TAG"
apply_series "$FULL_SRC"

cuda_args=()
if [[ -x /usr/local/cuda/bin/nvcc ]] || command -v nvcc >/dev/null 2>&1; then
  cuda_args=(-DMLIR_ENABLE_CUDA_RUNNER=ON -DMLIR_ENABLE_CUDA_CONVERSIONS=ON)
  note "CUDA found: building the CUDA runner"
fi
FULL_BUILD=${BUILD_DIR}/full
cmake -G Ninja -S "${FULL_SRC}/llvm" -B "$FULL_BUILD" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="${LLVM_PREFIX}/bin/clang" \
  -DCMAKE_CXX_COMPILER="${LLVM_PREFIX}/bin/clang++" \
  -DLLVM_ENABLE_PROJECTS=mlir \
  -DLLVM_TARGETS_TO_BUILD="host;NVPTX" \
  -DLLVM_ENABLE_ASSERTIONS=ON \
  -DLLVM_CCACHE_BUILD=ON \
  -DLLVM_USE_LINKER=lld \
  -DMLIR_INCLUDE_INTEGRATION_TESTS=ON \
  -DMLIR_ENABLE_GPU_CHECK_RUNTIME=ON \
  "${cuda_args[@]}" || die "configuring the in-tree build failed"
ninja -C "$FULL_BUILD" mlir-opt mlir-translate mlir-runner ||
  die "the in-tree build failed"
if [[ -n $check ]]; then
  ninja -C "$FULL_BUILD" check-mlir || die "check-mlir failed"
fi
note "done: ${FULL_BUILD}/bin/mlir-opt; tests: ninja -C build/full check-mlir"
