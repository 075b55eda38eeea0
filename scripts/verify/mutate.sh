#!/usr/bin/env bash
# Mutation testing of the series: does a lit test kill each hand-written
# mutant of scripts/verify/mutants.txt?
#
#   scripts/verify/mutate.sh                 # every mutant
#   scripts/verify/mutate.sh --only ID       # one mutant (repeatable)
#   scripts/verify/mutate.sh --list          # list the mutants and check their snippets
#   scripts/verify/mutate.sh --file FILE     # another mutants file
#   scripts/verify/mutate.sh --no-baseline   # skip the unmutated run of the tests
#
# In the working branch ($GPU_SERIES_WORKTREE, default
# ~/.cache/mlir-gpu-async-series/work), for each mutant: replace its snippet
# (which must occur exactly once) in its file, rebuild with
# `scripts/build.sh --worktree` (the overlay build recompiles the changed
# library and relinks; packages and sources are only checked, not fetched),
# run its lit tests with build/bin/llvm-lit, and put the file back (also on
# an error or an interrupt). First the listed tests must pass on the
# unmutated tree; at the end the unmutated tree is built again. Logs:
# build/mutate/ID.{build,lit}.log.
#
# Prints `ID  killed by TEST...` or `ID  SURVIVED` (or `BUILD-BROKEN`: the
# mutant does not compile, which checks nothing) per mutant; exits 1 if any
# mutant survives or does not build.
#
# mutants.txt: one entry per mutant,
#
#   === ID
#   # comment lines (here, or before the first entry)
#   file: mlir/lib/...cpp            (relative to llvm-project)
#   tests: Conversion/X.mlir ...     (relative to mlir/test; space-separated,
#                                     several `tests:` lines add up; one
#                                     under unittests/ is relative to mlir/
#                                     and run by scripts/unittests.sh)
#   --- from
#   exact original text (whole lines, taken literally)
#   --- to
#   its replacement, up to the next `=== ID` line (none: lines deleted)
#
# The sections are literal (a `#` line in them is text); their trailing blank
# lines are dropped.
set -euo pipefail
source "$(dirname "$0")/../common.sh"
handle_help "$0" "$@"

# lit and the builds use the sysroot's toolchain where the host has none.
rerun_in_sysroot "$0" "$@"

mutants_file=${REPO_ROOT}/scripts/verify/mutants.txt
only=()
list=
baseline=1
while (($#)); do
  case $1 in
    --only) [[ $# -ge 2 ]] || die "--only needs an ID"; only+=("$2"); shift ;;
    --only=*) only+=("${1#--only=}") ;;
    --list) list=1 ;;
    --file) [[ $# -ge 2 ]] || die "--file needs a path"; mutants_file=$2; shift ;;
    --no-baseline) baseline= ;;
    -h | --help) sed -n '2,/^set -euo/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see scripts/verify/mutate.sh --help)" ;;
  esac
  shift
done

[[ -f $mutants_file ]] || die "mutants file $mutants_file not found"
[[ -d ${WORK_DIR}/.git ]] || die "no working branch at ${WORK_DIR}; run scripts/worktree.sh first (or set GPU_SERIES_WORKTREE)"
need_cmd python3

tmp=$(mktemp -d)
current=      # the file under mutation (relative to WORK_DIR), while mutated
restore() {
  if [[ -n $current ]]; then
    cp -p "$tmp/original" "${WORK_DIR}/$current"
    note "restored ${WORK_DIR}/$current"
    current=
  fi
}
on_exit() {
  local rc=$?
  restore
  rm -rf "$tmp"
  exit "$rc"
}
on_signal() {
  trap - INT TERM
  restore
  echo "error: interrupted; build/ may hold a mutated mlir-opt: run scripts/build.sh --worktree" >&2
  exit 130
}
trap on_exit EXIT
trap on_signal INT TERM

# The mutants file, parsed and checked: $tmp/index has one line
# "ID<TAB>FILE<TAB>TESTS" per selected mutant, $tmp/ID.from and $tmp/ID.to
# the snippets. Each snippet must occur exactly once in the working branch.
python3 - "$mutants_file" "$tmp" "$WORK_DIR" "${only[@]}" <<'PY' || exit 1
import os, re, sys

path, out, work, only = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]

def die(msg):
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(1)

entries, cur, section = [], None, None
with open(path) as f:
    lines = f.readlines()
for n, line in enumerate(lines, 1):
    if line.startswith("=== "):
        cur = {"id": line[4:].strip(), "line": n, "file": None, "tests": [],
               "from": [], "to": []}
        if not re.fullmatch(r"[\w.-]+", cur["id"]):
            die(f"{path}:{n}: mutant id '{cur['id']}' must be letters, digits, '_', '.', '-'")
        entries.append(cur)
        section = None
    elif line.rstrip("\n") in ("--- from", "--- to"):
        if cur is None:
            die(f"{path}:{n}: '{line.strip()}' before the first '=== ID' line")
        section = line.strip()[4:]
    elif section:
        cur[section].append(line)
    elif not line.strip() or line.startswith("#"):
        continue
    elif cur is not None and line.startswith("file:"):
        cur["file"] = line[5:].strip()
    elif cur is not None and line.startswith("tests:"):
        cur["tests"] += line[6:].split()
    else:
        die(f"{path}:{n}: expected '=== ID', 'file:', 'tests:', '--- from' or '--- to'")

ids = [e["id"] for e in entries]
for i in set(ids):
    if ids.count(i) > 1:
        die(f"{path}: mutant id '{i}' is used twice")
for i in only:
    if i not in ids:
        die(f"no mutant '{i}' in {path} (scripts/verify/mutate.sh --list)")
with open(os.path.join(out, "index"), "w") as index:
    for e in entries:
        where = f"{path}:{e['line']} ({e['id']})"
        for s in ("from", "to"):
            while e[s] and not e[s][-1].strip():
                e[s].pop()
        if not e["file"] or not e["tests"] or not e["from"]:
            die(f"{where}: needs a 'file:', a 'tests:' and a non-empty '--- from' section")
        if only and e["id"] not in only:
            continue
        target = os.path.join(work, e["file"])
        if not os.path.isfile(target):
            die(f"{where}: {e['file']} not found in {work}")
        for t in e["tests"]:
            test_path = os.path.join("mlir", t if t.startswith("unittests/") else os.path.join("test", t))
            if not os.path.isfile(os.path.join(work, test_path)):
                die(f"{where}: test {test_path} not found in {work}")
        text = open(target).read()
        snippet = "".join(e["from"])
        count = text.count(snippet)
        if count != 1:
            die(f"{where}: the '--- from' text occurs {count} times in {e['file']}, not exactly once")
        with open(os.path.join(out, e["id"] + ".from"), "w") as f:
            f.write(snippet)
        with open(os.path.join(out, e["id"] + ".to"), "w") as f:
            f.write("".join(e["to"]))
        index.write(f"{e['id']}\t{e['file']}\t{' '.join(e['tests'])}\n")
PY

mapfile -t entries <"$tmp/index"
((${#entries[@]})) || die "no mutants in $mutants_file"

if [[ -n $list ]]; then
  for entry in "${entries[@]}"; do
    IFS=$'\t' read -r id file tests <<<"$entry"
    printf '%s\t%s\t%s\n' "$id" "$file" "$tests"
  done
  exit 0
fi

logs=${BUILD_DIR}/mutate
mkdir -p "$logs"
T=${SRC_DIR}/mlir/test

# build LOG: the overlay build of the working branch as it is now.
build() {
  "${REPO_ROOT}/scripts/build.sh" --worktree >"$1" 2>&1
}

# run_lit LOG TEST...: prints the tests that failed (killed the mutant);
# returns 2 if lit itself failed without a failing test. A test under
# unittests/ is a gtest unit test, run by scripts/unittests.sh (its log goes
# to LOG too).
run_lit() {
  local log=$1 rc=0 t
  shift
  local lit_tests=() unit_tests=()
  for t; do
    if [[ $t == unittests/* ]]; then unit_tests+=("$t"); else lit_tests+=("$t"); fi
  done
  : >"$log"
  if ((${#lit_tests[@]})); then
    "${BUILD_DIR}/bin/llvm-lit" -v "${lit_tests[@]/#/$T/}" >"$log" 2>&1 || rc=$?
    sed -n 's/^\(FAIL\|XPASS\|TIMEOUT\): MLIR :: \(.*\) (.*/\2/p' "$log" | sort -u
    if ((rc != 0)) && ! grep -qE '^(FAIL|XPASS|TIMEOUT): ' "$log"; then
      return 2
    fi
  fi
  for t in "${unit_tests[@]}"; do
    "${REPO_ROOT}/scripts/unittests.sh" --only "mlir/$t" >>"$log" 2>&1 || echo "$t"
  done
}

if [[ -n $baseline ]]; then
  note "building the unmutated working branch (${WORK_DIR})"
  build "$logs/baseline.build.log" ||
    die "the unmutated working branch does not build (log: build/mutate/baseline.build.log)"
  mapfile -t all_tests < <(cut -f3 "$tmp/index" | tr ' ' '\n' | sort -u)
  note "running the ${#all_tests[@]} listed test(s) on the unmutated tree"
  failing=$(run_lit "$logs/baseline.lit.log" "${all_tests[@]}") ||
    die "lit failed on the unmutated tree (log: build/mutate/baseline.lit.log)"
  [[ -z $failing ]] ||
    die "test(s) fail without a mutation, so they cannot tell: $(echo $failing) (log: build/mutate/baseline.lit.log)"
fi

results=()
status=0
for entry in "${entries[@]}"; do
  IFS=$'\t' read -r id file tests <<<"$entry"
  note "mutant ${id}: ${file}"
  cp -p "${WORK_DIR}/$file" "$tmp/original"
  current=$file
  python3 - "${WORK_DIR}/$file" "$tmp/$id.from" "$tmp/$id.to" <<'PY' ||
import sys
target, src, dst = sys.argv[1:]
text = open(target).read()
old, new = open(src).read(), open(dst).read()
if text.count(old) != 1:
    sys.exit(1)
open(target, "w").write(text.replace(old, new))
PY
    die "mutant ${id}: its snippet no longer occurs exactly once in ${file}"
  if ! build "$logs/$id.build.log"; then
    verdict="BUILD-BROKEN (build/mutate/$id.build.log)"
    status=1
  else
    read -r -a test_list <<<"$tests"
    if ! killers=$(run_lit "$logs/$id.lit.log" "${test_list[@]}"); then
      die "mutant ${id}: lit failed without a failing test (log: build/mutate/$id.lit.log)"
    fi
    if [[ -n $killers ]]; then
      verdict="killed by $(echo $killers)"
    else
      verdict=SURVIVED
      status=1
    fi
  fi
  restore
  note "mutant ${id}: ${verdict}"
  results+=("${id}"$'\t'"${verdict}")
done

note "rebuilding the unmutated working branch"
build "$logs/final.build.log" ||
  die "rebuilding the unmutated working branch failed (log: build/mutate/final.build.log)"

width=2
for r in "${results[@]}"; do
  id=${r%%$'\t'*}
  ((${#id} > width)) && width=${#id}
done
for r in "${results[@]}"; do
  printf "%-${width}s  %s\n" "${r%%$'\t'*}" "${r#*$'\t'}"
done
exit "$status"
