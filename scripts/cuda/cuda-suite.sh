#!/usr/bin/env bash
# MLIR's CUDA integration tests as native executables: built here (CUDA
# toolkit, no GPU), host side checked here with the checking runtime, run on
# a GPU machine that has no LLVM or MLIR, and checked here again.
#
#   scripts/cuda/cuda-suite.sh build [--chip sm_90] [--format fatbin] [--out DIR]
#                               [--jobs 1|2] [--only NAME-PREFIX]...
#                               [--tests DIR] [--mlir-opt PATH]
#   scripts/cuda/cuda-suite.sh host-check [--out DIR]
#   scripts/cuda/cuda-suite.sh pack [DIR] [--out DIR]
#   scripts/cuda/cuda-suite.sh check-results OUTDIR [--summary FILE] [--out DIR]
#
# --out is the suite folder (default build/cuda-suite); pack writes
# build/cuda-pack unless given DIR. --tests and --mlir-opt build other tests
# (default: the patched tree's CUDA tests) or with another mlir-opt (default:
# build/bin/mlir-opt); scripts/cuda/cuda-bench.sh uses both. On the GPU machine:
# `sh run.sh OUTDIR` in the pack. See docs/cuda-suite.md.
set -euo pipefail
source "$(dirname "$0")/../common.sh"
handle_help "$0" "$@"
# With the sysroot toolchain (scripts/install-deps.sh) the suite is built and
# checked inside it, where the LLVM tools and CUDA toolkit are.
rerun_in_sysroot "$0" "$@"

SUITE_DIR=${BUILD_DIR}/cuda-suite
PACK_DIR=${BUILD_DIR}/cuda-pack
TESTS_DIR=${SRC_DIR}/mlir/test/Integration/GPU/CUDA
HELPERS=${REPO_ROOT}/scripts/cuda
LLVM_BIN=${LLVM_PREFIX}/bin
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
MLIR_OPT=${BUILD_DIR}/bin/mlir-opt
CUDA_RUNTIME=${BUILD_DIR}/lib/libmlir_cuda_runtime.so
CHECK_RUNTIME=${BUILD_DIR}/lib/libmlir_gpu_check_runtime.so
# The carry limit of the GPU machines.
PACK_LIMIT_BYTES=$((64 * 1024 * 1024))
HOST_CHECK_TIMEOUT=120

usage() {
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

need_file() {
  [[ -e $1 ]] || die "$1 not found; $2"
}

need_suite() {
  [[ -f $SUITE_DIR/manifest.tsv ]] ||
    die "$SUITE_DIR/manifest.tsv not found; run 'scripts/cuda/cuda-suite.sh build' first"
}

# manifest_jobs DIR: the job lines of DIR/manifest.tsv (comments skipped).
manifest_jobs() {
  grep -v '^#' "$1/manifest.tsv"
}

# compile_support_lib NAME SOURCE [ARGS...]: builds lib/NAME.so from one
# source file of the patched tree unless it is up to date.
compile_support_lib() {
  local name=$1 source=$2 out=$SUITE_DIR/lib/$1.so
  shift 2
  [[ -f $source ]] || die "$source not found in the patched tree"
  if [[ -f $out && $out -nt $source ]]; then
    return
  fi
  note "compiling $name.so"
  "${LLVM_BIN}/clang++" -std=c++17 -O2 -DNDEBUG -fPIC -shared \
    -I"${SRC_DIR}/mlir/include" -D"${name#lib}_EXPORTS" "$source" \
    -o "$out" -Wl,-soname,"$name.so" -Wl,-rpath,"\$ORIGIN" "$@" ||
    die "compiling $name.so from $source failed"
}

# build_support_libs: the libraries the executables link, in lib/.
#
# Debian's libmlir_runner_utils.so and friends need libLLVM.so and libMLIR.so
# (over 200 MiB), which do not fit a 64 MiB pack and are not on the GPU
# machine. The runner utilities need neither, so they are compiled here from
# the patched tree's own sources (without the sparse tensor runtime and the
# APFloat wrappers, which no CUDA test uses: a test that did would fail to
# link). The async runtime needs llvm::ThreadPool: LLVMSupport is linked in
# statically, its symbols hidden.
build_support_libs() {
  local src=${SRC_DIR}/mlir/lib/ExecutionEngine
  mkdir -p "$SUITE_DIR/lib"
  compile_support_lib libmlir_float16_utils "$src/Float16bits.cpp"
  compile_support_lib libmlir_c_runner_utils "$src/CRunnerUtils.cpp" \
    -L"$SUITE_DIR/lib" -l:libmlir_float16_utils.so
  compile_support_lib libmlir_runner_utils "$src/RunnerUtils.cpp" \
    -L"$SUITE_DIR/lib" -l:libmlir_float16_utils.so
  compile_support_lib libmlir_async_runtime "$src/AsyncRuntime.cpp" \
    -I"${LLVM_PREFIX}/include" -L"${LLVM_PREFIX}/lib" \
    -Wl,--exclude-libs,ALL -Wl,--gc-sections \
    -l:libLLVMSupport.a -l:libLLVMDemangle.a -lpthread
  # The CUDA runtime wrappers were built against CUDA 13 by scripts/build.sh;
  # they need only libcuda.so.1 and the C++ runtime.
  cp -f "$CUDA_RUNTIME" "$SUITE_DIR/lib/libmlir_cuda_runtime.so"
}

cmd_build() {
  local chip=sm_90 format=fatbin jobs=1 only=()
  local label="mlir/test/Integration/GPU/CUDA (${LLVM_TAG} + patches/series)"
  while (($#)); do
    case $1 in
      --tests) TESTS_DIR=${2:?--tests needs a value} label=$2 && shift ;;
      --mlir-opt) MLIR_OPT=${2:?--mlir-opt needs a value} && shift ;;
      --chip) chip=${2:?--chip needs a value} && shift ;;
      --format) format=${2:?--format needs a value} && shift ;;
      --out) SUITE_DIR=${2:?--out needs a value} && shift ;;
      --jobs) jobs=${2:?--jobs needs a value} && shift ;;
      --only) only+=(--only "${2:?--only needs a value}") && shift ;;
      *) die "unknown build argument '$1'" ;;
    esac
    shift
  done
  ((jobs >= 1 && jobs <= 2)) || die "--jobs must be 1 or 2 (this machine is shared)"
  [[ $chip =~ ^sm_[0-9]+a?$ ]] || die "--chip must name an SM target, like sm_90 or sm_90a"
  need_cmd python3
  need_file "$TESTS_DIR" "run scripts/build.sh (it creates the patched tree) first"
  need_file "$MLIR_OPT" "run scripts/build.sh first"
  need_file "$CUDA_RUNTIME" "scripts/build.sh builds it when the CUDA toolkit is installed"
  need_file "$CHECK_RUNTIME" "run scripts/build.sh first"
  need_file "$CUDA_HOME/bin/ptxas" "the CUDA toolkit is needed (set CUDA_HOME)"
  local tool
  for tool in mlir-translate opt llc llvm-objcopy llvm-nm clang clang++ ld.lld FileCheck; do
    need_file "$LLVM_BIN/$tool" "install Debian's LLVM $LLVM_VERSION tools (scripts/install-deps.sh)"
  done

  mkdir -p "$SUITE_DIR"
  SUITE_DIR=$(cd "$SUITE_DIR" && pwd)
  build_support_libs
  # gpu-module-to-binary runs ptxas and fatbinary from PATH.
  export PATH=$CUDA_HOME/bin:$PATH
  note "building the CUDA tests of $TESTS_DIR for $chip with $MLIR_OPT into $SUITE_DIR"
  local start=$SECONDS rc=0
  python3 "$HELPERS/suite.py" build --tests "$TESTS_DIR" \
    --tests-label "$label" \
    --out "$SUITE_DIR" --chip "$chip" --format "$format" --mlir-opt "$MLIR_OPT" \
    --llvm-bin "$LLVM_BIN" --check-runtime "$CHECK_RUNTIME" \
    --entry-source "$HELPERS/entry.c" --jobs "$jobs" "${only[@]}" || rc=$?
  # suite.py exits 2 on bad arguments (before touching anything), 1 when a
  # test failed to build (the manifest says which).
  ((rc != 2)) || die "scripts/cuda/suite.py rejected its arguments (see above)"
  note "build took $((SECONDS - start))s; manifest: $SUITE_DIR/manifest.tsv"
  ((rc == 0)) || die "some tests failed to build (see the error: lines above)"
}

# host_check_one NAME EXE ENV: runs one executable under the checking runtime;
# returns 0 when it passed. Its output is in host-check/NAME.log.
host_check_one() {
  local name=$1 exe=$2 env=$3 log=$SUITE_DIR/host-check/$1.log rc=0
  local -a vars=()
  [[ $env == - ]] || read -ra vars <<<"$env"
  # LD_LIBRARY_PATH wins over the executable's RUNPATH: check-lib/ resolves
  # libmlir_cuda_runtime.so to the checking runtime; the rest comes from lib/.
  env "${vars[@]}" LD_LIBRARY_PATH="$SUITE_DIR/check-lib" \
    timeout -k 10 "$HOST_CHECK_TIMEOUT" "$SUITE_DIR/$exe" >"$log" 2>&1 </dev/null || rc=$?
  if ((rc != 0)); then
    FAIL_REASON="exit status $rc"
  elif grep -q '^gpu-check: error:' "$log"; then
    FAIL_REASON="checking runtime violations"
  elif ! grep -q '^gpu-check: 0 violation(s)' "$log"; then
    # Every CUDA test loads a GPU module, so the checking runtime reports at
    # exit. Without the report it was not the runtime that got loaded.
    FAIL_REASON="no exit report from the checking runtime (not loaded, or no GPU runtime call)"
  else
    return 0
  fi
  return 1
}

cmd_host_check() {
  while (($#)); do
    case $1 in
      --out) SUITE_DIR=${2:?--out needs a value} && shift ;;
      *) die "unknown host-check argument '$1'" ;;
    esac
    shift
  done
  need_suite
  need_file "$CHECK_RUNTIME" "run scripts/build.sh first"
  SUITE_DIR=$(cd "$SUITE_DIR" && pwd)
  mkdir -p "$SUITE_DIR/check-lib"
  rm -rf "$SUITE_DIR/host-check"
  mkdir -p "$SUITE_DIR/host-check"
  ln -sfn "$(readlink -f "$CHECK_RUNTIME")" "$SUITE_DIR/check-lib/libmlir_cuda_runtime.so"

  local start=$SECONDS passed=0 failed=0 skipped=0 FAIL_REASON
  local name kind exe env host reason
  while IFS=$'\t' read -r name kind exe env _ host _ _ reason; do
    [[ $kind == exec ]] || continue
    if [[ $host != yes ]]; then
      echo "NOT-HOST-CHECKABLE: $name: $reason"
      skipped=$((skipped + 1))
    elif host_check_one "$name" "$exe" "$env"; then
      echo "PASS: $name"
      passed=$((passed + 1))
    else
      echo "FAIL: $name: $FAIL_REASON (log: $SUITE_DIR/host-check/$name.log)"
      grep -E '^gpu-check: (error|leak|note)' "$SUITE_DIR/host-check/$name.log" | sed 's/^/    /' || true
      tail -n 5 "$SUITE_DIR/host-check/$name.log" | sed 's/^/    | /'
      failed=$((failed + 1))
    fi
  done < <(manifest_jobs "$SUITE_DIR")
  echo "host-check: $passed passed, $failed failed, $skipped not host-checkable"
  note "host-check took $((SECONDS - start))s; logs: $SUITE_DIR/host-check/"
  ((passed + failed > 0)) || die "no host-checkable executable in $SUITE_DIR"
  ((failed == 0)) || die "$failed executable(s) failed under the checking runtime"
}

# glibc_needs DIR: the newest GLIBC_ and GLIBCXX_ symbol versions the ELF
# files of DIR require, i.e. what the GPU machine's C/C++ runtime must have.
glibc_needs() {
  local f
  for f in "$1"/bin/* "$1"/lib/*.so; do
    "$LLVM_BIN/llvm-nm" -D --undefined-only "$f" 2>/dev/null
  done | grep -oE '@(GLIBC|GLIBCXX|CXXABI)_[0-9.]+' | sort -u -t_ -k1,1 -k2,2V |
    awk -F_ '{ last[$1] = substr($0, 2) } END { for (k in last) print last[k] }' |
    sort | paste -sd' '
}

cmd_pack() {
  local dest=$PACK_DIR
  while (($#)); do
    case $1 in
      --out) SUITE_DIR=${2:?--out needs a value} && shift ;;
      -*) die "unknown pack argument '$1'" ;;
      *) dest=$1 ;;
    esac
    shift
  done
  need_suite
  [[ -d $SUITE_DIR/bin && -d $SUITE_DIR/lib ]] || die "$SUITE_DIR has no bin/ or lib/; run build again"
  rm -rf "$dest"
  mkdir -p "$dest"
  cp -a "$SUITE_DIR/bin" "$SUITE_DIR/lib" "$SUITE_DIR/tests" "$dest/"
  cp "$SUITE_DIR/manifest.tsv" "$SUITE_DIR/manifest.json" "$dest/"
  cp "$HELPERS/run.sh" "$dest/run.sh"
  chmod +x "$dest/run.sh"
  # Only plain files travel: no link may point back into this machine.
  if find "$dest" -type l | grep . >/dev/null; then
    die "the pack contains symbolic links: $(find "$dest" -type l | head -3)"
  fi
  local bytes
  bytes=$(du -sb "$dest" | cut -f1)
  echo "pack: $dest, $bytes bytes ($((bytes / 1024)) KiB), $(find "$dest/bin" -type f | wc -l) executables"
  echo "pack: the GPU machine needs libcuda.so.1 and $(glibc_needs "$dest")"
  ((bytes < PACK_LIMIT_BYTES)) || die "the pack is $bytes bytes, not under 64 MiB"
}

# check_one NAME EXE MERGE FILECHECK SOURCE: FileChecks one executable's
# results from OUTDIR. Sets RESULT (PASS/FAIL) and DETAIL.
check_one() {
  local name=$1 filecheck=$2 source=$3 rc
  local -a args=()
  if [[ ! -f $RESULTS/$name.rc ]]; then
    RESULT=FAIL DETAIL="no result in $RESULTS (not run)"
    return
  fi
  rc=$(<"$RESULTS/$name.rc")
  # lit runs RUN pipelines with pipefail: a failing runner fails the test.
  if [[ $rc != 0 ]]; then
    RESULT=FAIL DETAIL="exit status $rc"
    [[ $rc != 124 ]] || DETAIL="timed out (exit status 124)"
    return
  fi
  if [[ $filecheck == - ]]; then
    RESULT=PASS DETAIL="exit status 0, no FileCheck"
    return
  fi
  read -ra args <<<"${filecheck//%s/$CHECK_SUITE/tests/$source}"
  if "$LLVM_BIN/FileCheck" "${args[@]}" <"$RESULTS/$name.stdout" \
    >"$RESULTS/$name.filecheck" 2>&1; then
    RESULT=PASS DETAIL="FileCheck ${filecheck//%s/$source}"
  else
    RESULT=FAIL DETAIL="FileCheck failed (see $RESULTS/$name.filecheck)"
  fi
}

cmd_check_results() {
  local summary='' results=''
  while (($#)); do
    case $1 in
      --summary) summary=${2:?--summary needs a file} && shift ;;
      --out) SUITE_DIR=${2:?--out needs a value} && shift ;;
      -*) die "unknown check-results argument '$1'" ;;
      *) [[ -z $results ]] || die "check-results takes one OUTDIR"; results=$1 ;;
    esac
    shift
  done
  [[ -n $results ]] || die "usage: scripts/cuda/cuda-suite.sh check-results OUTDIR [--summary FILE]"
  [[ -d $results ]] || die "$results is not a folder"
  need_suite
  need_file "$LLVM_BIN/FileCheck" "install Debian's LLVM $LLVM_VERSION tools"
  RESULTS=$(cd "$results" && pwd)
  CHECK_SUITE=$(cd "$SUITE_DIR" && pwd)

  local passed=0 failed=0 unsupported=0 rows=() RESULT DETAIL
  local name kind filecheck source reason
  while IFS=$'\t' read -r name kind _ _ _ _ filecheck source reason; do
    case $kind in
      exec) check_one "$name" "$filecheck" "$source" ;;
      compile)
        RESULT=FAIL DETAIL=$reason
        [[ $reason != *": pass" ]] || RESULT=PASS
        ;;
      unsupported) RESULT=UNSUPPORTED DETAIL=$reason ;;
      *) RESULT=FAIL DETAIL="did not build: $reason" ;;
    esac
    case $RESULT in
      PASS) passed=$((passed + 1)) ;;
      FAIL) failed=$((failed + 1)) ;;
      *) unsupported=$((unsupported + 1)) ;;
    esac
    echo "$RESULT: cuda :: $name ($DETAIL)"
    rows+=("| \`$name\` | $RESULT | ${DETAIL//|/\\|} |")
  done < <(manifest_jobs "$SUITE_DIR")
  local line="$passed passed, $failed failed, $unsupported unsupported"
  echo "$line"
  if [[ -n $summary ]]; then
    {
      echo "# CUDA suite results"
      echo
      echo "Results: \`$RESULTS\`"
      [[ ! -f $RESULTS/env.txt ]] || echo "Machine: $(grep -m1 -E 'NVIDIA|nvidia-smi' "$RESULTS/env.txt" || true)"
      echo
      echo "**$line**"
      echo
      echo "| job | result | detail |"
      echo "|---|---|---|"
      printf '%s\n' "${rows[@]}"
    } >"$summary"
    note "summary written to $summary"
  fi
  ((failed == 0))
}

main() {
  (($#)) || usage
  local command=$1
  shift
  case $command in
    build) cmd_build "$@" ;;
    host-check) cmd_host_check "$@" ;;
    pack) cmd_pack "$@" ;;
    check-results) cmd_check_results "$@" ;;
    -h | --help | help) script_usage "$0"; exit 0 ;;
    *) die "unknown command '$command' (build, host-check, pack, check-results)" ;;
  esac
}

main "$@"
