#!/usr/bin/env bash
# Series check.
#
#   scripts/check.sh                 # the series applies; mlir/ equals
#                                    # pristine + series; every patch is
#                                    # clang-format clean against its parent,
#                                    # at most 600 changed lines, with an
#                                    # upstream subject and no private names;
#                                    # every mutant of scripts/verify/mutants.txt
#                                    # still applies; the GPU runtimes match
#                                    # GPURuntimeFunctions.def; the series fits LLVM
#                                    # main (scripts/verify/check-main.sh;
#                                    # CHECK_MAIN=0 leaves it out)
#   scripts/check.sh --overlay-only  # only the overlay comparison
#   scripts/check.sh --each-prefix   # also build and test each prefix of the
#                                    # series, first to last, and each stack
#                                    # branch that is not a prefix (the
#                                    # independent fixes alone on the base;
#                                    # slow: see docs/)
#   scripts/check.sh --each-branch   # only the stack branches that are not
#                                    # prefixes (after the default checks)
set -euo pipefail
source "$(dirname "$0")/common.sh"
handle_help "$0" "$@"

mode=default
case ${1:-} in
  "") ;;
  --overlay-only) mode=overlay ;;
  --each-prefix) mode=prefix ;;
  --each-branch) mode=branch ;;
  *) die "usage: scripts/check.sh [--overlay-only | --each-prefix | --each-branch]" ;;
esac

"${REPO_ROOT}/scripts/fetch-source.sh" >/dev/null
# clang-format-23 and the builds of each prefix use the sysroot's toolchain
# where the host has none (scripts/install-deps.sh).
[[ $mode == overlay ]] || rerun_in_sysroot "$0" "$@"
need_cmd git cmp
# Every patch is from the series' author (not a machine's default identity).
while read -r p; do
  from=$(sed -n 's/^From: //p;/^$/q' "${REPO_ROOT}/patches/$p" | head -1)
  [[ $from == "$SERIES_AUTHOR_NAME <$SERIES_AUTHOR_EMAIL>" ]] ||
    die "patches/$p is from '$from', not '$SERIES_AUTHOR_NAME <$SERIES_AUTHOR_EMAIL>' (git commit --amend --reset-author in the working branch, with its user.name/user.email set)"
done < <(series_patches)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone -q --branch "$BASE_BRANCH" "$PRISTINE_DIR" "$tmp/tree"
git -C "$tmp/tree" checkout -q -b check "$LLVM_TAG"
apply_series "$tmp/tree"
n=$(series_patches | wc -l)

# 1. Overlay == pristine + series, file by file.
bad=0
declare -A in_series=()
while IFS= read -r path; do
  in_series[$path]=1
  if [[ ! -f ${REPO_ROOT}/$path ]]; then
    echo "overlay: $path is changed by the series but missing from the overlay" >&2
    bad=1
  elif ! cmp -s "${REPO_ROOT}/$path" "$tmp/tree/$path"; then
    echo "overlay: $path differs from pristine + series" >&2
    bad=1
  fi
done < <(git -C "$tmp/tree" diff --name-only --no-renames "$LLVM_TAG" HEAD)
if [[ -d ${REPO_ROOT}/mlir ]]; then
  while IFS= read -r path; do
    [[ -n ${in_series[$path]:-} ]] || {
      echo "overlay: $path is in the overlay but the series does not change it" >&2
      bad=1
    }
  done < <(cd "$REPO_ROOT" && find mlir -type f | sort)
fi
((bad == 0)) || die "the overlay (mlir/) is out of sync with patches/; run scripts/export.sh from the working branch"
note "overlay in sync: ${#in_series[@]} file(s), ${n} patch(es)"
[[ $mode != overlay ]] || exit 0

# 2. clang-format, patch by patch, on the lines each patch changes, in the
# files upstream's formatter checks (C and C++; not TableGen, CMake or tests).
FORMAT_EXTENSIONS=cpp,c,cc,h,hpp,hxx,cxx,inc,cppm,cl
CLANG_FORMAT=${CLANG_FORMAT:-$(command -v "clang-format-${LLVM_MAJOR}" || true)}
[[ -x $CLANG_FORMAT ]] || die "clang-format-${LLVM_MAJOR} not found; run scripts/install-deps.sh"
GIT_CLANG_FORMAT=${LLVM_PREFIX}/bin/git-clang-format
[[ -x $GIT_CLANG_FORMAT ]] || die "${GIT_CLANG_FORMAT} not found (clang-format-${LLVM_MAJOR})"
mapfile -t patches < <(series_patches)
commits=($(git -C "$tmp/tree" rev-list --reverse "${LLVM_TAG}..HEAD"))
fmt_bad=0
for i in "${!commits[@]}"; do
  c=${commits[$i]}
  out=$(cd "$tmp/tree" && "$GIT_CLANG_FORMAT" --binary "$CLANG_FORMAT" \
    --extensions "$FORMAT_EXTENSIONS" --diff "$c~1" "$c" 2>&1 || true)
  case $out in
    "" | *"no modified files to format"* | *"did not modify any files"*) ;;
    *)
      echo "clang-format: ${patches[$i]} is not clang-format clean:" >&2
      echo "$out" | sed 's/^/    /' >&2
      fmt_bad=1
      ;;
  esac
done
((fmt_bad == 0)) || die "formatting: run git clang-format in the working branch and amend the patch named above"
note "clang-format clean: ${n} patch(es)"

# 3. Reviewable patches: an upstream subject prefix, at most 600 changed
# lines (added plus removed lines, blank ones included, as
# `git apply --numstat` and GitHub count them), and none of
# this repository's own names (its folders, issue and patch numbers, the
# names of its test seeds).
MAX_CHANGED_LINES=600
PRIVATE_NAMES='(^|[^A-Za-z_])(docs|scripts)/|issue #?[0-9]|patch 00[0-9]|seed[ _-]?0[0-9]|@seed_'
review_bad=0
for p in "${patches[@]}"; do
  f=${REPO_ROOT}/patches/$p
  subject=$(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$f" | head -1)
  if [[ ! $subject =~ ^\[mlir\]\[(gpu|nvgpu|scf|memref|FuncToLLVM)\]\  ]]; then
    echo "review: $p: subject '$subject' does not start with [mlir][gpu], [mlir][nvgpu], [mlir][scf], [mlir][memref] or [mlir][FuncToLLVM]" >&2
    review_bad=1
  fi
  changed=$(git apply --numstat "$f" | awk '{c += $1 + $2} END {print c + 0}')
  if ((changed > MAX_CHANGED_LINES)); then
    echo "review: $p: ${changed} changed lines (at most ${MAX_CHANGED_LINES})" >&2
    review_bad=1
  fi
  if grep -n -i -E "$PRIVATE_NAMES" "$f" >"$tmp/private"; then
    echo "review: $p names this repository's own things:" >&2
    head -5 "$tmp/private" >&2
    review_bad=1
  fi
done
((review_bad == 0)) || die "some patches are not ready for review (see the review: lines above)"
note "reviewable: ${n} patch(es), each at most ${MAX_CHANGED_LINES} changed lines, upstream subjects, no private names"

# 3b. Every mutant of scripts/verify/mutants.txt still applies to the series (its
# snippet occurs exactly once in its file), so that the list cannot go
# stale unnoticed.
GPU_SERIES_WORKTREE="$tmp/tree" "${REPO_ROOT}/scripts/verify/mutate.sh" --list \
  >"$tmp/mutants.log" 2>&1 || {
  cat "$tmp/mutants.log" >&2
  die "scripts/verify/mutants.txt does not apply to the series (update the snippet)"
}
note "mutants: $(wc -l <"$tmp/mutants.log") listed, each snippet found once in the series"

# 3c. The GPU runtimes against the shared list of their functions
# (GPURuntimeFunctions.def): the text of what the compiler does not check
# here (the ROCm wrappers, the CUDA wrappers' cuSPARSE functions).
"${REPO_ROOT}/scripts/verify/check-runtime-abi.py" "$tmp/tree" >"$tmp/abi.log" 2>&1 || {
  cat "$tmp/abi.log" >&2
  die "a GPU runtime's functions differ from GPURuntimeFunctions.def (scripts/verify/check-runtime-abi.py)"
}
note "runtime functions: $(tail -1 "$tmp/abi.log")"

# 4. The stacked branches (the "#@ stack" markers): each one applies on its
# base, the independent fixes each alone on the tag.
"${REPO_ROOT}/scripts/export-branches.sh" "$tmp/tree" stacks 2>"$tmp/branches.log" || {
  grep -v '^==> stacks/' "$tmp/branches.log" >&2
  die "the stacked branches of patches/series cannot be made"
}
note "stacked branches: $(grep -c '^==> stacks/' "$tmp/branches.log") made, each patch applies on its branch's base"

# 4b. The series against LLVM main's binary snapshots (docs/upstreaming.md
# §4b): header and .td hunks, main's mlir-tblgen, the C++ against main's
# headers, main's mlir-opt on the tests' inputs. CHECK_MAIN=0 leaves it out
# (offline: the snapshots are downloaded once).
if [[ ${CHECK_MAIN:-1} != 0 ]]; then
  "${REPO_ROOT}/scripts/verify/check-main.sh" >"$tmp/main.log" 2>&1 || {
    cat "$tmp/main.log" >&2
    die "the series does not fit LLVM main (scripts/verify/check-main.sh; CHECK_MAIN=0 leaves it out offline)"
  }
  grep '^==> ' "$tmp/main.log" | sed 's/^==> /main: /' | while IFS= read -r line; do note "$line"; done
else
  note "main: left out (CHECK_MAIN=0)"
fi
[[ $mode == prefix || $mode == branch ]] || exit 0

# 5. Every prefix builds and passes the tests (bisectability): the lit tests,
# which are the series' own. The CUDA executables' host-check is this
# repository's check of the whole series and is left out here: before the
# patches that destroy streams after their last use and lower tokens across
# regions, the lowering leaks streams in some CUDA tests, which the
# host-check rightly reports.
mkdir -p "${BUILD_DIR}"
[[ $mode == prefix ]] || n=0
for ((k = 1; k <= n; k++)); do
  note "prefix ${k}/${n}: ${patches[$((k - 1))]}"
  start=$(date +%s)
  SERIES_LIMIT=$k CUDA_SUITE=0 "${REPO_ROOT}/scripts/test.sh" \
    >"${BUILD_DIR}/prefix-$k.log" 2>&1 || {
    tail -20 "${BUILD_DIR}/prefix-$k.log" >&2
    die "prefix ${k} (${patches[$((k - 1))]}) fails to build or test (log: build/prefix-$k.log)"
  }
  note "prefix ${k}: $(tail -1 "${BUILD_DIR}/prefix-$k.log") in $(($(date +%s) - start)) s"
done
# 6. So does every stacked branch that is not a prefix of the series: a fix
# of an "each" stack alone on what is above its stack (or with what it
# needs).
while read -r stack patch held; do
  read -ra list <<<"$held"
  [[ ${list[*]} != "${patches[*]:0:${#list[@]}}" ]] || continue
  log=${BUILD_DIR}/branch-${patch:0:4}.log
  note "branch ${stack}/${patch%.patch}: ${#list[@]} patch(es)"
  start=$(date +%s)
  SERIES_PATCHES=$held CUDA_SUITE=0 "${REPO_ROOT}/scripts/test.sh" >"$log" 2>&1 || {
    tail -20 "$log" >&2
    die "branch ${stack}/${patch%.patch} fails to build or test (log: ${log#"${REPO_ROOT}/"})"
  }
  note "branch ${stack}/${patch:0:4}: $(tail -1 "$log") in $(($(date +%s) - start)) s"
done < <(series_branches)
# Leave build/ at the full series.
"${REPO_ROOT}/scripts/apply.sh" >/dev/null
