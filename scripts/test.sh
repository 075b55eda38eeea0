#!/usr/bin/env bash
# Runs all tests (README command 2): builds first (incremental), then lit over
# the upstream suites the series can affect plus every test the series adds.
#
#   scripts/test.sh               # pristine + patches/series
#   scripts/test.sh --worktree    # the working branch as it is
#   scripts/test.sh --no-build    # test what is in build/ now
#   scripts/test.sh -- LIT_ARGS   # extra lit arguments (e.g. --filter gpu)
#
# Then checks -gpu-async-region with a random-program oracle
# (scripts/verify/async-region-oracle.py, one test per run, in every mode), runs
# 1000 random token graphs with the checking runtime
# (scripts/verify/token-graph-fuzz.py, one test), builds and runs the series' gtest
# unit tests (scripts/unittests.sh, one test),
# fuzzes the series' passes (scripts/verify/fuzz-passes.py, one test) and, where
# the CUDA toolkit is
# installed, builds the CUDA integration tests as native executables and runs
# their host side with the checking runtime (scripts/cuda/cuda-suite.sh;
# CUDA_SUITE=0 leaves that out). Ends with one line "N passed, N failed, N
# skipped": lit's results plus those.
set -euo pipefail
source "$(dirname "$0")/common.sh"
handle_help "$0" "$@"
check_build_dir

orig_args=("$@")
build_args=()
build=1
lit_extra=()
while (($#)); do
  case $1 in
    --worktree) build_args=(--worktree) ;;
    --no-build) build= ;;
    --) shift; lit_extra=("$@"); break ;;
    *) die "unknown argument '$1' (see scripts/test.sh)" ;;
  esac
  shift
done

[[ -z $build ]] || "${REPO_ROOT}/scripts/build.sh" "${build_args[@]}"
# With the sysroot toolchain (scripts/install-deps.sh) the tests run inside it
# too: lit, FileCheck and the runners are the sysroot's.
inner_args=(--no-build)
for a in "${orig_args[@]}"; do [[ $a == --no-build ]] || inner_args+=("$a"); done
rerun_in_sysroot "$0" "${inner_args[@]}"
[[ -x ${BUILD_DIR}/bin/mlir-opt && -x ${BUILD_DIR}/bin/llvm-lit ]] ||
  die "build/bin/mlir-opt missing; run scripts/build.sh first"

T=${SRC_DIR}/mlir/test
# The upstream suites the series can affect. Integration/GPU/CUDA needs a GPU
# and the CUDA runner: lit reports it unsupported elsewhere.
suites=(
  Dialect/GPU Conversion/GPUCommon Conversion/GPUToNVVM Conversion/GPUToROCDL
  Conversion/NVGPUToNVVM
  Conversion/SCFToGPU Dialect/Async Conversion/AsyncToLLVM
  Conversion/MemRefToLLVM Conversion/FuncToLLVM
  Dialect/SparseTensor/GPU Integration/GPU
)
paths=()
for s in "${suites[@]}"; do
  [[ -d $T/$s ]] || die "test suite mlir/test/$s not found in the patched tree"
  paths+=("$T/$s")
done
# Plus every test file the series adds or changes, wherever it lives.
while read -r f; do
  [[ $f == mlir/test/*.mlir && $f != mlir/test/lib/* ]] || continue
  covered=
  for s in "${suites[@]}"; do [[ $f == mlir/test/$s/* ]] && covered=1; done
  [[ -n $covered ]] || paths+=("${SRC_DIR}/$f")
done < <(git -C "$SRC_DIR" diff --name-only "$LLVM_TAG" -- mlir/test
  git -C "$SRC_DIR" ls-files --others --exclude-standard -- mlir/test)

results=${BUILD_DIR}/lit-results.json
note "running lit on ${#paths[@]} test path(s)"
start=$(date +%s)
set +e
"${BUILD_DIR}/bin/llvm-lit" -sv --output "$results" "${lit_extra[@]}" "${paths[@]}" 2>&1 |
  grep -v "note: Did not find mlir-capi-"
lit_rc=${PIPESTATUS[0]}
set -e
note "lit finished in $(($(date +%s) - start)) s (exit ${lit_rc})"
[[ -f $results ]] || die "lit wrote no results (exit ${lit_rc})"
status=0
lit_line=$(python3 "${REPO_ROOT}/ci/lit-summary.py" "$results") || status=1
echo "$lit_line"
read -r passed _ failed _ skipped _ <<<"$(tail -1 <<<"$lit_line")"

# -gpu-async-region against the memory accesses of 1000 random programs per
# run: no conflicting pair may lose its order, every output must verify
# (scripts/verify/async-region-oracle.py). With dependences (max-streams=0, from
# the dependence-mode patch on) also programs with loops, branches, calls
# and views, and the lowered programs run with the checking runtime (from
# the checking-runtime patches on); with caller streams, the shapes. Then the series' passes on 200 mutants
# of their own tests: no crash, no invalid output (scripts/verify/fuzz-passes.py).
oracle_runs=("-gpu-async-region")
dependences=
if [[ $("${BUILD_DIR}/bin/mlir-opt" --help) == *max-streams* ]] &&
  [[ -f ${BUILD_DIR}/lib/libmlir_gpu_check_runtime.so ]]; then
  dependences=1
  oracle_runs+=("-gpu-async-region=max-streams=0 --run"
    "-gpu-async-region --control-flow"
    "-gpu-async-region=max-streams=0 --control-flow --run")
  # The shapes of --shapes (pointer and opaque kernels, sparse handles,
  # async.execute bodies and awaits in them, stack buffers, caller streams,
  # barriers and shared memory, linalg ops, multi-block bodies, functions of
  # the programs' own that they call, scf.parallel) in every
  # mode, the default one also against upstream's pass, once the series has
  # caller streams; and the caller-stream programs after -canonicalize.
  if [[ -f ${SRC_DIR}/mlir/test/Dialect/GPU/async-region-on-stream.mlir ]]; then
    oracle_runs+=("-gpu-async-region --shapes all --compare-upstream"
      "-gpu-async-region --shapes all --control-flow --compare-upstream --run"
      "-gpu-async-region=max-streams=2 --shapes all --control-flow --run"
      "-gpu-async-region=max-streams=0 --shapes all --run"
      "-gpu-async-region=max-streams=0 --shapes all --control-flow --run"
      "-gpu-async-region=max-streams=0 --shapes stream --control-flow --canonicalize --run")
  fi
fi
# extra_test LABEL CMD...: one more test; counts as passed when CMD exits 0.
extra_test() {
  local label=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    echo "FAIL: ${label}"
    failed=$((failed + 1))
    status=1
  fi
}
if ((${#lit_extra[@]} == 0)); then
  for oracle in "${oracle_runs[@]}"; do
    read -r pass_args flags <<<"$oracle"
    # shellcheck disable=SC2086 # flags are words
    extra_test "async-region oracle (${oracle})" \
      python3 "${REPO_ROOT}/scripts/verify/async-region-oracle.py" -n 1000 --seed 1 \
      "--pass-args=${pass_args}" $flags
  done
  # 1000 random token graphs lowered and run with the checking runtime (lit's
  # token-graphs.mlir runs 100 of them), from the stream-lifetime patch on.
  if [[ -f ${SRC_DIR}/mlir/test/Integration/GPU/Check/Inputs/token_graphs.py &&
        -f ${BUILD_DIR}/lib/libmlir_gpu_check_runtime.so ]]; then
    extra_test "token graphs (scripts/verify/token-graph-fuzz.py -n 1000 --seed 1)" \
      python3 "${REPO_ROOT}/scripts/verify/token-graph-fuzz.py" -n 1000 --seed 1 \
      --batch 1000
  fi
  # The gtest unit tests the series adds (scripts/unittests.sh): the overlay
  # build compiles no mlir/unittests.
  if [[ -n $("${REPO_ROOT}/scripts/unittests.sh" --list) ]]; then
    extra_test "unit tests (scripts/unittests.sh)" "${REPO_ROOT}/scripts/unittests.sh"
  fi
  if [[ -n $dependences ]]; then
    extra_test "pass fuzzing (scripts/verify/fuzz-passes.py -n 200 --seed 1)" \
      python3 "${REPO_ROOT}/scripts/verify/fuzz-passes.py" -n 200 --seed 1 -q \
      --out "${BUILD_DIR}/fuzz-passes"
  fi
fi

# The CUDA integration tests as native executables, built wherever the CUDA
# toolkit is, and their host side run with the checking runtime (no GPU);
# scripts/cuda/cuda-suite.sh and docs/cuda-suite.md. Not with a lit filter.
if ((${#lit_extra[@]} == 0)) && [[ ${CUDA_SUITE:-1} != 0 ]]; then
  if [[ ! -f ${BUILD_DIR}/lib/libmlir_gpu_check_runtime.so ]]; then
    # Series prefixes before the checking runtime.
    note "no checking runtime in this tree: CUDA integration executables not built"
  elif [[ -x ${CUDA_HOME:-/usr/local/cuda}/bin/ptxas ]]; then
    suite=${REPO_ROOT}/scripts/cuda/cuda-suite.sh
    log=$(mktemp)
    # host_check WHAT OUT BUILD-COMMAND...: runs BUILD-COMMAND, then
    # host-checks the suite folder OUT that it wrote and adds the counts.
    host_check() {
      local what=$1 out=$2
      shift 2
      if "$@" && "$suite" host-check --out "$out" | tee "$log"; then
        line=$(grep '^host-check:' "$log" | tail -1)
        read -r _ hc_passed _ hc_failed _ hc_skipped _ <<<"$line"
        passed=$((passed + hc_passed))
        failed=$((failed + hc_failed))
        skipped=$((skipped + hc_skipped))
      else
        echo "FAIL: $what (build or host-check)"
        failed=$((failed + 1))
        status=1
      fi
    }
    host_check "CUDA integration executables" "${BUILD_DIR}/cuda-suite" "$suite" build
    "$suite" pack || { echo "FAIL: CUDA integration pack"; failed=$((failed + 1)); status=1; }
    # The GPU-only tools stay buildable: the run-time benchmark (both
    # variants) and two batches of token graphs, host side only.
    host_check "GPU benchmark (series)" "${BUILD_DIR}/cuda-bench/series" \
      "${REPO_ROOT}/scripts/cuda/cuda-bench.sh" build
    host_check "GPU benchmark (upstream)" "${BUILD_DIR}/cuda-bench/upstream" true
    host_check "token graphs for a GPU" "${BUILD_DIR}/cuda-token-graphs/suite" \
      "${REPO_ROOT}/scripts/cuda/cuda-token-graphs.sh" build --batches 2
    rm -f "$log"
  else
    note "no CUDA toolkit at ${CUDA_HOME:-/usr/local/cuda}: CUDA integration executables not built"
  fi
fi
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
exit "$status"
