#!/usr/bin/env bash
# Builds the patched mlir-opt (README command 1).
#
#   scripts/build.sh              # overlay build of pristine + patches/series
#   scripts/build.sh --worktree   # overlay build of the working branch as it is
#   scripts/build.sh --full       # in-tree LLVM+MLIR build (big machines)
#
# Where Debian's LLVM/MLIR 23.1 packages cannot be installed on the host
# (Debian 12), the compile steps run inside a Debian unstable sysroot
# (scripts/install-deps.sh), and build/bin/mlir-opt, mlir-translate and
# mlir-runner are wrappers that run the sysroot's binaries from the host.
#
# Overlay build: the MLIR libraries the series touches (and every library
# whose sources include a header the series changes) are compiled from the
# patched tree with assertions on; everything else comes from Debian's
# prebuilt LLVM/MLIR 23.1.x. Results: build/bin (tools), build/lib (runtime
# libraries), build/test/lit.site.cfg.py.
set -euo pipefail
source "$(dirname "$0")/common.sh"

mode=overlay
apply_args=()
compile_only=
for arg in "$@"; do
  case $arg in
    --worktree) apply_args=(--worktree) ;;
    --full) mode=full ;;
    # Internal: the sysroot half of an overlay build (see below).
    --compile-only) compile_only=1 ;;
    -h | --help) script_usage "$0"; exit 0 ;;
    *) die "unknown argument '$arg' (see scripts/build.sh --help)" ;;
  esac
done

check_build_dir

if [[ $mode == full ]]; then
  exec "${REPO_ROOT}/scripts/build-full.sh" "${apply_args[@]}"
fi

if [[ -z $compile_only ]]; then
  "${REPO_ROOT}/scripts/install-deps.sh"
  "${REPO_ROOT}/scripts/apply.sh" "${apply_args[@]}"
  if use_sysroot; then
    # The GPU check needs the host's nvidia-smi.
    cuda_tests=${MLIR_GPU_SERIES_CUDA_TESTS:-0}
    if [[ -z ${MLIR_GPU_SERIES_CUDA_TESTS:-} ]] && command -v nvidia-smi >/dev/null 2>&1 &&
      nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
      cuda_tests=1
    fi
    note "compiling inside the Debian ${SYSROOT_SUITE} sysroot (${SYSROOT})"
    MLIR_GPU_SERIES_CUDA_TESTS=$cuda_tests run_in_sysroot "$0" --compile-only
    exit 0
  fi
fi
need_cmd cmake ninja ccache python3
"${REPO_ROOT}/scripts/overlay/check-headers.sh"

JOBS=${JOBS:-$(nproc)}
CC=${LLVM_PREFIX}/bin/clang
CXX=${LLVM_PREFIX}/bin/clang++
export CCACHE_DIR=${CCACHE_DIR:-${CACHE_DIR}/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Sources move between the patched tree and the working branch: hash by
# content relative to the tree, not by absolute path.
export CCACHE_BASEDIR=${BUILD_DIR}
export CCACHE_NOHASHDIR=1

LIBS_BUILD=${BUILD_DIR}/mlir-libs
TOOLS_BUILD=${BUILD_DIR}/overlay
# Always compiled from the patched tree, so that the GPU code carries
# assertions and new passes get registered.
ALWAYS="MLIRGPUDialect;MLIRGPUTransforms;MLIRGPUToGPURuntimeTransforms"
ALWAYS+=";MLIRRegisterAllDialects;MLIRRegisterAllPasses;MLIRRegisterAllExtensions"
# With assertions, transform-op registration calls checks that
# TransformDialect.cpp only defines when assertions are on (Debian's archive
# has none): build that library from the tree too.
ALWAYS+=";MLIRTransformDialect"

# Stage 1: MLIR configured stand-alone from the patched tree, against
# Debian's LLVM and tablegen tools. Only objects are built from it.
# Debian's LLVMConfig.cmake sets LLVM_ENABLE_ASSERTIONS to its own OFF, which
# keeps -DNDEBUG in the Release flags: give the flags without it explicitly.
# (Debian's libLLVM exports llvm::DebugFlag and isCurrentDebugType, which
# LLVM_DEBUG needs once NDEBUG is not defined.)
STAGE1_STAMP="assertions-1 check-runtime-1 ${LLVM_VERSION} $(llvm_version_at "$LLVM_PREFIX")"
if [[ ! -f ${LIBS_BUILD}/build.ninja ||
      $(cat "${LIBS_BUILD}/overlay-stamp" 2>/dev/null) != "$STAGE1_STAMP" ]]; then
  note "configuring the MLIR libraries (stage 1) in ${LIBS_BUILD}"
  # Another release or toolchain: start afresh (ccache keeps the objects).
  rm -rf "$LIBS_BUILD" "$TOOLS_BUILD"
  cmake -G Ninja -S "${SRC_DIR}/mlir" -B "$LIBS_BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS_RELEASE="-O2" -DCMAKE_CXX_FLAGS_RELEASE="-O2" \
    -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    -DLLVM_DIR="${LLVM_PREFIX}/lib/cmake/llvm" \
    -DLLVM_ENABLE_ASSERTIONS=ON \
    -DMLIR_INCLUDE_TESTS=ON \
    -DMLIR_ENABLE_GPU_CHECK_RUNTIME=ON \
    -DMLIR_TABLEGEN="${LLVM_PREFIX}/bin/mlir-tblgen" \
    -DMLIR_PDLL_TABLEGEN="${LLVM_PREFIX}/bin/mlir-pdll" \
    -DMLIR_LINALG_ODS_YAML_GEN="${LLVM_PREFIX}/bin/mlir-linalg-ods-yaml-gen" \
    -DLLVM_EXTERNAL_LIT="${LLVM_PREFIX}/bin/lit" \
    >"${BUILD_DIR}/stage1-configure.log" 2>&1 || {
    tail -30 "${BUILD_DIR}/stage1-configure.log" >&2
    rm -f "${LIBS_BUILD}/build.ninja"
    die "configuring the MLIR libraries failed (log: build/stage1-configure.log)"
  }
  echo "$STAGE1_STAMP" >"${LIBS_BUILD}/overlay-stamp"
fi

note "generating the tablegen'd headers of the patched tree"
ninja -C "$LIBS_BUILD" -j "$JOBS" mlir-headers ||
  die "tablegen of the patched tree failed (see the ninja output above)"

note "computing the libraries to rebuild"
python3 "${REPO_ROOT}/scripts/overlay/rebuild_set.py" \
  --build "$LIBS_BUILD" --src "$SRC_DIR" --prefix "$LLVM_PREFIX" \
  --always "$ALWAYS" --out "${LIBS_BUILD}/overlay-libs.txt" ||
  die "could not compute the set of libraries to rebuild"
while read -r lib reason _; do
  echo "    $lib ($reason)" >&2
done <"${LIBS_BUILD}/overlay-libs.txt"

note "compiling the rebuilt libraries"
mapfile -t objects < <(cut -d' ' -f3- "${LIBS_BUILD}/overlay-libs.txt" | tr ' ' '\n')
ninja -C "$LIBS_BUILD" -j "$JOBS" "${objects[@]}" ||
  die "compiling the patched MLIR libraries failed (see the ninja output above)"

mkdir -p "${LIBS_BUILD}/overlay"
while read -r lib _ objs; do
  archive=${LIBS_BUILD}/overlay/lib${lib}.a
  stale=
  if [[ ! -f $archive ]]; then
    stale=1
  else
    for o in $objs; do
      [[ ${LIBS_BUILD}/$o -nt $archive ]] && { stale=1; break; }
    done
    # The object list changed (a source added or removed).
    [[ $(cat "$archive.objects" 2>/dev/null) == "$objs" ]] || stale=1
  fi
  if [[ -n $stale ]]; then
    rm -f "$archive"
    (cd "$LIBS_BUILD" && "${LLVM_PREFIX}/bin/llvm-ar" rcsD "$archive" $objs) ||
      die "creating $archive failed"
    echo "$objs" >"$archive.objects"
  fi
done <"${LIBS_BUILD}/overlay-libs.txt"

# Runtime libraries of the patched tree that the tests load (those the tree
# defines; Debian's others are linked into build/lib below). The checking
# runtime is defined with -DMLIR_ENABLE_GPU_CHECK_RUNTIME=ON (stage 1 above).
mkdir -p "${BUILD_DIR}/lib"
targets=$(ninja -C "$LIBS_BUILD" -t targets all | cut -d: -f1)
for rt in mlir_gpu_check_runtime; do
  lib=lib/lib${rt}.so
  # Not defined by this tree (an earlier prefix of the series): no stale copy.
  grep -qx "$lib" <<<"$targets" || { rm -f "${BUILD_DIR}/${lib}"; continue; }
  note "building runtime library ${rt}"
  ninja -C "$LIBS_BUILD" -j "$JOBS" "$lib" || die "building ${lib} failed"
  cmake -E copy_if_different "${LIBS_BUILD}/${lib}" "${BUILD_DIR}/${lib}"
done

# The CUDA integration tests run where there is a GPU (and the CUDA toolkit,
# for the runtime wrappers); MLIR_GPU_SERIES_CUDA_TESTS=0/1 overrides.
cuda_tests=${MLIR_GPU_SERIES_CUDA_TESTS:-}
if [[ -z $cuda_tests ]]; then
  cuda_tests=0
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    cuda_tests=1
  fi
fi

# Stage 2: the tools, linked against Debian's libraries and ours. Inside the
# sysroot they go to build/libexec, and build/bin gets wrappers (below).
tools_dir=${BUILD_DIR}/bin
in_sysroot && tools_dir=${BUILD_DIR}/libexec
# What `mlir-opt --version` says of the series (scripts/overlay/SeriesVersion.cpp).
series_version="MLIR GPU async series: $(series_patches | wc -l) patches on ${LLVM_TAG} (repository commit $(git -C "$REPO_ROOT" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown))"
note "configuring the tools (stage 2) in ${TOOLS_BUILD}"
cmake -G Ninja -S "${REPO_ROOT}/scripts/overlay" -B "$TOOLS_BUILD" \
  -DOVERLAY_SERIES_VERSION="$series_version" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DCMAKE_EXE_LINKER_FLAGS="-fuse-ld=lld" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fuse-ld=lld" \
  -DMLIR_DIR="${LLVM_PREFIX}/lib/cmake/mlir" \
  -DOVERLAY_SRC="$SRC_DIR" -DOVERLAY_MLIR_BUILD="$LIBS_BUILD" \
  -DOVERLAY_LIBS_FILE="${LIBS_BUILD}/overlay-libs.txt" \
  -DOVERLAY_OUT="$BUILD_DIR" \
  -DOVERLAY_TOOLS_DIR="$tools_dir" \
  -DOVERLAY_CUDA_TESTS="$cuda_tests" \
  >"${BUILD_DIR}/stage2-configure.log" 2>&1 || {
  tail -30 "${BUILD_DIR}/stage2-configure.log" >&2
  die "configuring the tools failed (log: build/stage2-configure.log)"
}
note "linking the tools"
ninja -C "$TOOLS_BUILD" -j "$JOBS" ||
  die "building the tools failed (see the ninja output above)"

# grep reads all of ninja's output: with pipefail, grep -q could stop early and
# fail the pipeline through SIGPIPE, skipping the CUDA wrappers at random.
if ninja -C "$TOOLS_BUILD" -t targets all | grep '^mlir_cuda_runtime:' >/dev/null; then
  note "building the CUDA runtime wrappers (CUDA toolkit found)"
  if ! ninja -C "$TOOLS_BUILD" -j "$JOBS" mlir_cuda_runtime >"${BUILD_DIR}/cuda-runtime.log" 2>&1; then
    tail -20 "${BUILD_DIR}/cuda-runtime.log" >&2
    ((cuda_tests == 0)) ||
      die "building build/lib/libmlir_cuda_runtime.so failed; the CUDA integration tests need it (log: build/cuda-runtime.log)"
    note "warning: build/lib/libmlir_cuda_runtime.so not built (log: build/cuda-runtime.log); the CUDA integration tests stay unsupported"
  fi
elif ((cuda_tests == 1)); then
  die "a GPU was found but no CUDA toolkit (cuda.h, libcuda) for the runtime wrappers; set CUDA_HOME, or MLIR_GPU_SERIES_CUDA_TESTS=0"
fi

# lit looks for runtime libraries in one directory: put Debian's next to ours
# (with their versioned names, which they load each other by).
# Inside the sysroot the links name the sysroot's path as the host sees it
# (which the sysroot sees too: the cache is mounted at the same path).
host_view=
in_sysroot && host_view=$SYSROOT
for rt in "${LLVM_PREFIX}"/lib/libmlir_*.so "${LLVM_PREFIX}"/lib/libmlir_*.so.[0-9]*; do
  name=$(basename "$rt")
  [[ -e ${BUILD_DIR}/lib/$name && ! -L ${BUILD_DIR}/lib/$name ]] || ln -sfn "${host_view}$rt" "${BUILD_DIR}/lib/$name"
done
# Drop links of another release (a build directory from before a move).
find "${BUILD_DIR}/lib" -maxdepth 1 -xtype l -name 'libmlir_*' -delete

if in_sysroot; then
  # Wrappers: inside the sysroot they run the tool directly; on the host they
  # run it with the sysroot's dynamic loader and libraries, so that files
  # anywhere on the host, stdin/stdout and the host's CUDA toolkit work as
  # with a native tool.
  ld_so=/usr/lib64/ld-linux-x86-64.so.2
  [[ -e $ld_so ]] || die "the sysroot has no ${ld_so}"
  libpath="${SYSROOT}${LLVM_PREFIX}/lib:${SYSROOT}/usr/lib/x86_64-linux-gnu"
  write_wrapper() {
    local name=$1 inside=$2 outside=$3
    cat >"${BUILD_DIR}/bin/$name.tmp" <<WRAPPER
#!/bin/sh
# Written by scripts/build.sh: ${name} of the ${LLVM_SERIES} toolchain in the sysroot
# ${SYSROOT}.
if [ -f ${SYSROOT_MARK} ]; then
  exec "${inside}" "\$@"
fi
exec "${SYSROOT}${ld_so}" --library-path "${libpath}" --argv0 "\$0" \\
  "${outside}" "\$@"
WRAPPER
    chmod +x "${BUILD_DIR}/bin/$name.tmp"
    mv "${BUILD_DIR}/bin/$name.tmp" "${BUILD_DIR}/bin/$name"
  }
  write_wrapper mlir-opt "${tools_dir}/mlir-opt" "${tools_dir}/mlir-opt"
  for tool in mlir-translate mlir-runner; do
    real=$(readlink -f "${LLVM_PREFIX}/bin/$tool") || die "${LLVM_PREFIX}/bin/$tool missing (mlir-${LLVM_MAJOR}-tools)"
    write_wrapper "$tool" "$real" "${SYSROOT}${real}"
  done
fi

version=$("${BUILD_DIR}/bin/mlir-opt" --version | sed -n 's/.*LLVM version \([0-9.]*\).*/\1/p')
[[ $version == ${LLVM_SERIES}.* ]] || die "build/bin/mlir-opt reports version '$version', expected ${LLVM_SERIES}.x"
note "done: build/bin/mlir-opt (LLVM ${version}, $(wc -l <"${LIBS_BUILD}/overlay-libs.txt") libraries from the patched tree)"
