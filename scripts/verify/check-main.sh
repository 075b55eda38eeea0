#!/usr/bin/env bash
# Checks the series against LLVM main as far as Debian's binary snapshots of
# main allow (main's full source is not at hand): the packages libmlir-24-dev,
# mlir-24-tools, libmlir-24, libllvm24 and llvm-24-dev of Debian experimental,
# at the version pinned below, give main's installed headers and .td files,
# its mlir-tblgen and its mlir-opt.
#
#   1. headers: the series' hunks to files under mlir/include apply to main's
#      installed copies of those files (one patch after the other);
#   2. tblgen: main's mlir-tblgen generates the patched .td files;
#   3. C++: each C++ file the series adds or changes compiles
#      (-fsyntax-only) against main's headers, with the patched headers and
#      the files generated in 2 in front; errors on lines the series wrote
#      are counted apart from errors on lines it carries from 23.1.1;
#   4. parse: main's mlir-opt parses and verifies each input of the tests the
#      series adds or changes, cut at `// -----`, except inputs that expect
#      diagnostics, use the series' own ops, or are 23.1.1's unchanged.
#
# The packages are downloaded once into the cache and checked against the
# SHA256 sums below. Prints one line of figures per check and the failures
# under it; exits 1 if a check failed, 2 if the packages cannot be had.
#
#   scripts/verify/check-main.sh [--keep]   # keep the trees and logs (in the cache)
set -euo pipefail
source "$(dirname "$0")/../common.sh"
handle_help "$0" "$@"

keep=0
while (($#)); do
  case $1 in
    --keep) keep=1; shift ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done

MAIN_VERSION='24~++20261025103442+7e3c57157096-1~exp1'
MAIN_POOL=http://deb.debian.org/debian/pool/main/l/llvm-toolchain-snapshot
MAIN_PACKAGES=(
  "libllvm24 32dbfecd5c6d1a0bce0bf555047f61239d982cd2d5a4da7a58a9e6d237ee6f97"
  "libmlir-24 0b97bcbedba4309711ca50e6e09d3bc81679119d76cf09773d5c4d0565d08a78"
  "libmlir-24-dev 5947929ab31c0569ca5360134dc78e194ff96707d1bf397ab3f9c642ae4b0748"
  "llvm-24-dev b87c0af0d675ae97d3bb0e3c3261bfbcca66a5299543e50cf9462b0332d370d7"
  "mlir-24-tools 7322d23c9ae9de4d413bc6799fcd3abb72676dee6ae85aeb2c8abfbb3b10a467"
)
# Ops that exist only with the series: inputs that use them are not given to
# main's mlir-opt.
SERIES_OPS='gpu\.on_stream|gpu\.conditional_execution'

snapshot=${CACHE_DIR}/main-snapshot
root=${snapshot}/root
main=${root}/usr/lib/llvm-24

# fetch_main: the packages, downloaded and checked once, extracted into
# ${root}.
fetch_main() {
  local stamp=${root}/.complete-${MAIN_VERSION}
  [[ -f $stamp ]] && return 0
  need_cmd curl sha256sum dpkg-deb
  mkdir -p "${snapshot}/debs"
  local entry name sum deb
  for entry in "${MAIN_PACKAGES[@]}"; do
    read -r name sum <<<"$entry"
    deb=${snapshot}/debs/${name}_${MAIN_VERSION}_amd64.deb
    if [[ ! -f $deb ]] || ! echo "$sum  $deb" | sha256sum -c --status; then
      note "downloading ${name} ${MAIN_VERSION}"
      curl -fsS -o "$deb.part" "${MAIN_POOL}/${name}_${MAIN_VERSION//:/%3a}_amd64.deb" ||
        { rm -f "$deb.part"; echo "check-main: cannot download ${name} ${MAIN_VERSION} from ${MAIN_POOL} (Debian experimental may have replaced the snapshot: pin a newer version and its SHA256 sums in $0)" >&2; exit 2; }
      echo "$sum  $deb.part" | sha256sum -c --status ||
        { rm -f "$deb.part"; echo "check-main: ${name}: SHA256 mismatch" >&2; exit 2; }
      mv "$deb.part" "$deb"
    fi
  done
  rm -rf "$root" && mkdir -p "$root"
  for entry in "${MAIN_PACKAGES[@]}"; do
    read -r name sum <<<"$entry"
    dpkg-deb -x "${snapshot}/debs/${name}_${MAIN_VERSION}_amd64.deb" "$root"
  done
  touch "$stamp"
}

fetch_main
pristine_ready || die "no pristine tree; run scripts/fetch-source.sh first"
mapfile -t patches < <(series_patches)

# Under the cache, which the sysroot sees at the same path.
work=${snapshot}/check
((keep)) || trap 'rm -rf "$work"' EXIT
rm -rf "$work" && mkdir -p "$work/tree" "$work/gen" "$work/logs"
note "checking against main ${MAIN_VERSION%%-*} in ${work}"
failed=0
in_main() { run_in_sysroot env LD_LIBRARY_PATH="${main}/lib:${root}/usr/lib/x86_64-linux-gnu" "$@"; }

# 1. Headers and .td files.
mapfile -t headers < <(cat "${patches[@]/#/${REPO_ROOT}/patches/}" |
  sed -n 's|^diff --git a/\(mlir/include/[^ ]*\) .*|\1|p' | sort -u)
missing=()
for f in "${headers[@]}"; do
  src=${main}/include/${f#mlir/include/}
  if [[ -f $src ]]; then
    mkdir -p "$(dirname "$work/tree/$f")" && cp "$src" "$work/tree/$f"
  elif [[ -f ${PRISTINE_DIR}/$f ]]; then
    missing+=("$f")
  fi
done
rejected=0
: >"$work/logs/headers.txt"
for p in "${patches[@]}"; do
  (cd "$work/tree" && git apply --reject --include='mlir/include/*' \
    "${REPO_ROOT}/patches/$p") >>"$work/logs/headers.txt" 2>&1 || true
  while IFS= read -r rej; do
    n=$(grep -c '^@@' "$rej")
    echo "  headers: $p: ${n} hunk(s) of ${rej#"$work/tree/"} do not apply to main" >>"$work/logs/headers.fail"
    rejected=$((rejected + n))
    rm "$rej"
  done < <(find "$work/tree" -name '*.rej')
done
note "headers: ${#headers[@]} file(s) under mlir/include changed by the series, ${rejected} hunk(s) do not apply to main, ${#missing[@]} file(s) not in main${missing:+ (${missing[*]})}"
[[ ! -f $work/logs/headers.fail ]] || { cat "$work/logs/headers.fail"; failed=1; }
((${#missing[@]} == 0)) || failed=1

# 2. main's mlir-tblgen on the patched .td files, generating what the
# build generates from them.
tblgen_fail=0 tblgen_runs=0
tblgen() { # tblgen TD OUT ARGS...
  local td=$1 out=$2; shift 2
  [[ -f $work/tree/$td ]] || return 0
  mkdir -p "$(dirname "$work/gen/$out")"
  tblgen_runs=$((tblgen_runs + 1))
  if ! in_main "${main}/bin/mlir-tblgen" "$@" -I "$work/tree/mlir/include" \
    -I "${main}/include" "$work/tree/$td" -o "$work/gen/$out" \
    >"$work/logs/tblgen-$(basename "$out").txt" 2>&1; then
    echo "  tblgen: $td ($*) fails:"; head -5 "$work/logs/tblgen-$(basename "$out").txt" | sed 's/^/    /'
    tblgen_fail=$((tblgen_fail + 1))
  fi
}
{
  tblgen mlir/include/mlir/Dialect/GPU/IR/GPUOps.td mlir/Dialect/GPU/IR/GPUOps.h.inc -gen-op-decls
  tblgen mlir/include/mlir/Dialect/GPU/IR/GPUOps.td mlir/Dialect/GPU/IR/GPUOps.cpp.inc -gen-op-defs
  tblgen mlir/include/mlir/Dialect/GPU/IR/GPUOps.td mlir/Dialect/GPU/IR/GPUOpsDialect.h.inc -gen-dialect-decls -dialect=gpu
  tblgen mlir/include/mlir/Dialect/GPU/IR/GPUOps.td mlir/Dialect/GPU/IR/GPUOpsDialect.cpp.inc -gen-dialect-defs -dialect=gpu
  tblgen mlir/include/mlir/Dialect/GPU/Transforms/Passes.td mlir/Dialect/GPU/Transforms/Passes.h.inc -gen-pass-decls -name GPU
  tblgen mlir/include/mlir/Dialect/NVGPU/IR/NVGPUOps.td mlir/Dialect/NVGPU/IR/NVGPUOps.h.inc -gen-op-decls
  tblgen mlir/include/mlir/Dialect/NVGPU/IR/NVGPUOps.td mlir/Dialect/NVGPU/IR/NVGPUOps.cpp.inc -gen-op-defs
} >"$work/logs/tblgen.fail"
note "tblgen: ${tblgen_runs} generation(s) of the patched .td files by main's mlir-tblgen, ${tblgen_fail} failed"
((tblgen_fail == 0)) || { cat "$work/logs/tblgen.fail"; failed=1; }

# APIs of 23.1.1 that main changed, where a line the series wrote calls
# them: the series builds on 23.1.1, so such a line cannot be written for
# both; the pull request against main adapts it as said. Each entry: the
# file, text of the source line, text of the error, and what the pull
# request does. An error matching an entry is counted apart and does not
# fail the check; one matching none does.
MAIN_API_CHANGES=(
  "mlir/test/lib/Dialect/GPU/TestGpuAsyncBuilders.cpp|gpu::LaunchFuncOp::create(|no matching function for call to 'create'|main's gpu.launch_func builder takes an asyncObject after the async dependencies: the pull request passes a null Value there"
  "mlir/test/lib/Dialect/GPU/TestGpuAsyncBuilders.cpp|gpu::LaunchOp::create(|no matching function for call to 'create'|main's gpu.launch builder takes an asyncObject after the async dependencies: the pull request passes a null Value there"
)
# main_api_change FILE LINE MESSAGE: whether the error is a listed change.
main_api_change() {
  local entry file text error source
  source=$(sed -n "${2}p" "${REPO_ROOT}/$1")
  for entry in "${MAIN_API_CHANGES[@]}"; do
    IFS='|' read -r file text error _ <<<"$entry"
    [[ $1 == "$file" && $source == *"$text"* && $3 == *"$error"* ]] && return 0
  done
  return 1
}

# 3. The series' C++ against main's headers, each file compiled in a copy
# of the patched tree (its relative includes are 23.1.1's, which the series
# carries). A line the series wrote is one that differs from the pristine
# 23.1.1 file (all lines of a new file). Files whose SDK headers (CUDA, HIP,
# googletest) are not at hand are listed, not compiled.
cp -al "${PRISTINE_DIR}/mlir" "$work/src"
(cd "${REPO_ROOT}" && find mlir -type f) | while IFS= read -r f; do
  mkdir -p "$(dirname "$work/src/${f#mlir/}")"
  cp --remove-destination "${REPO_ROOT}/$f" "$work/src/${f#mlir/}"
done
sdk=()
[[ ! -d /usr/local/cuda/include ]] || sdk=(-I /usr/local/cuda/include)
mapfile -t sources < <(cat "${patches[@]/#/${REPO_ROOT}/patches/}" |
  sed -n 's|^diff --git a/\(mlir/[^ ]*\.cpp\) .*|\1|p' | sort -u)
cxx_files=0 cxx_series=0 cxx_api=0 cxx_carried=0 no_sdk=()
: >"$work/logs/cxx.fail"
: >"$work/logs/cxx.info"
for f in "${sources[@]}"; do
  [[ -f ${REPO_ROOT}/$f ]] || continue
  log=$work/logs/cxx-$(basename "$f").txt
  src=$work/src/${f#mlir/}
  in_main clang++-${LLVM_MAJOR} -fsyntax-only -std=c++17 -w -ferror-limit=0 \
    -I "$work/gen" -I "$work/tree/mlir/include" -I "${main}/include" \
    "${sdk[@]}" "$src" >"$log" 2>&1 || true
  if grep -qE "fatal error: '(cuda\.h|hip/[^']*|gtest/[^']*)' file not found" "$log"; then
    no_sdk+=("$f")
    continue
  fi
  cxx_files=$((cxx_files + 1))
  if [[ -f ${PRISTINE_DIR}/$f ]]; then
    written=$(diff --unchanged-line-format= --old-line-format= \
      --new-line-format='%dn ' "${PRISTINE_DIR}/$f" "${REPO_ROOT}/$f" || true)
  else
    written=all
  fi
  s=0 a=0 c=0
  while IFS=: read -r file line _ message; do
    if [[ $written != all && " $written" != *" $line "* ]]; then
      c=$((c + 1))
    elif main_api_change "$f" "$line" "$message"; then
      a=$((a + 1))
    else
      s=$((s + 1))
      echo "    $f:$line:$message" >>"$work/logs/cxx.fail"
    fi
  done < <(grep -E "^$src:[0-9]+:[0-9]+: (fatal )?error:" "$log" |
    sed "s|^$work/src/|mlir/|")
  other=$(grep -E ': (fatal )?error:' "$log" | grep -vc "^$src:" || true)
  cxx_series=$((cxx_series + s)) cxx_api=$((cxx_api + a))
  cxx_carried=$((cxx_carried + c + other))
  if ((a + c + other > 0)); then
    echo "  C++: $f: ${a} error(s) from main's listed API changes, $((c + other)) on carried 23.1.1 lines or in headers (log: $log)" >>"$work/logs/cxx.info"
  fi
done
note "C++: ${cxx_files} file(s) the series adds or changes, against main's headers: ${cxx_series} error(s) on lines the series wrote, ${cxx_api} from main's listed API changes, ${cxx_carried} on carried 23.1.1 lines or in headers (reported, not failures)${no_sdk:+; not compiled for want of SDK headers: ${no_sdk[*]}}"
[[ ! -s $work/logs/cxx.info ]] || cat "$work/logs/cxx.info"
[[ ! -s $work/logs/cxx.fail ]] || { echo "  C++: errors on lines the series wrote:"; cat "$work/logs/cxx.fail"; failed=1; }

# 4. main's mlir-opt on the tests' inputs.
mapfile -t tests < <(cat "${patches[@]/#/${REPO_ROOT}/patches/}" |
  sed -n 's|^diff --git a/\(mlir/test/[^ ]*\.mlir\) .*|\1|p' | sort -u)
mkdir -p "$work/inputs"
python3 - "$REPO_ROOT" "$PRISTINE_DIR" "$work/inputs" "$SERIES_OPS" "${tests[@]}" >"$work/logs/inputs.txt" <<'EOF'
import os, re, sys
root, pristine, out, series_ops, files = (sys.argv[1], sys.argv[2], sys.argv[3],
                                          sys.argv[4], sys.argv[5:])
skipped = {"diagnostics": 0, "series ops": 0, "carried": 0}
n = 0
# Chunks compared without their surrounding blank lines: appending a case
# to a file changes the blank lines at the end of its last chunk.
split = lambda text: [c.strip() for c in re.split(r"(?m)^// -----.*\n", text)]
for f in files:
    path = os.path.join(root, f)
    if not os.path.exists(path):
        continue
    old = os.path.join(pristine, f)
    carried = set(split(open(old).read())) if os.path.exists(old) else set()
    for i, chunk in enumerate(split(open(path).read())):
        if chunk in carried:
            skipped["carried"] += 1
        elif "expected-" in chunk:
            skipped["diagnostics"] += 1
        elif re.search(series_ops, chunk):
            skipped["series ops"] += 1
        else:
            name = f"{n:04d}-{f.replace('/', '_')}#{i}.mlir"
            open(os.path.join(out, name), "w").write(chunk + "\n")
            n += 1
print(n, skipped["diagnostics"], skipped["series ops"], skipped["carried"])
EOF
read -r inputs skipped_diag skipped_ops skipped_carried <"$work/logs/inputs.txt"
parse_fail=0
: >"$work/logs/parse.fail"
in_main bash -c '
  for f in "$2"/*.mlir; do
    "$1" --allow-unregistered-dialect "$f" -o /dev/null >"$f.log" 2>&1 || echo "$f"
  done' check-main "${main}/bin/mlir-opt" "$work/inputs" >"$work/logs/parse.list" || true
while IFS= read -r f; do
  parse_fail=$((parse_fail + 1))
  { echo "  parse: $(basename "$f") is rejected by main's mlir-opt:"
    grep -m1 'error' "$f.log" | sed 's/^/    /'; } >>"$work/logs/parse.fail"
done <"$work/logs/parse.list"
note "parse: ${#tests[@]} test file(s) of the series, ${inputs} input(s) given to main's mlir-opt (left out: ${skipped_carried} unchanged from 23.1.1, ${skipped_diag} expecting diagnostics, ${skipped_ops} with the series' ops), ${parse_fail} rejected"
((parse_fail == 0)) || { cat "$work/logs/parse.fail"; failed=1; }

((failed == 0)) || die "the series does not fit main where listed above (main ${MAIN_VERSION%%-*})"
note "the series fits main ${MAIN_VERSION%%-*} as far as these checks reach"
