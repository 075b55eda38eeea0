# Shared settings and helpers for the scripts in this directory.
# Sourced, not executed.

# Repository root and the pinned base.
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The source tree is llvmorg-23.1.1 (the release Debian ships as source);
# the prebuilt libraries may be any 23.1.x whose MLIR headers are the same as
# the tree's (scripts/overlay/check-headers.sh).
LLVM_VERSION=23.1.1
LLVM_TAG=llvmorg-${LLVM_VERSION}
LLVM_MAJOR=23
LLVM_SERIES=23.1
LLVM_PREFIX=${LLVM_PREFIX:-/usr/lib/llvm-${LLVM_MAJOR}}

# Debian's source package that carries the pinned tree.
DEBIAN_SRC_PKG=llvm-toolchain-${LLVM_MAJOR}
DEBIAN_ORIG_TARBALL=${DEBIAN_SRC_PKG}_${LLVM_VERSION}.orig.tar.xz
DEBIAN_ORIG_SHA256=0a5838b993f406534db7e6dc7df66e295354a1e9a23bb21e5739cf5df5bc7689

# Everything that is not part of the repository lives under the cache:
# the pristine tree, the working branch, ccache.
CACHE_DIR=${GPU_SERIES_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/mlir-gpu-async-series}
PRISTINE_DIR=${CACHE_DIR}/pristine-${LLVM_VERSION}
# The working branch: pristine tree + one commit per patch.
WORK_DIR=${GPU_SERIES_WORKTREE:-${CACHE_DIR}/work}
WORK_BRANCH=gpu-async-series
BASE_BRANCH=base-${LLVM_VERSION}

BUILD_DIR=${REPO_ROOT}/build

# The author of the series' commits (the working branch uses it; scripts/check.sh
# checks every patch for it).
SERIES_AUTHOR_NAME="MLIR GPU async series"
SERIES_AUTHOR_EMAIL=gpu-async-series@users.noreply.github.com

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
# keeps the first k (used to build and test each prefix of the series);
# SERIES_PATCHES="A B ..." replaces the series by those patches, in that
# order (used to build and test a stack branch that is not a prefix).
series_patches() {
  if [[ -n ${SERIES_PATCHES:-} ]]; then
    printf '%s\n' $SERIES_PATCHES | head -n "${SERIES_LIMIT:-1000000}"
    return
  fi
  [[ -f ${REPO_ROOT}/patches/series ]] || die "patches/series is missing"
  sed -e 's/#.*//' -e 's/[[:space:]]*$//' "${REPO_ROOT}/patches/series" |
    grep -v '^$' | head -n "${SERIES_LIMIT:-1000000}" || true
}

# The stacked branches of the series, one line per patch:
#   STACK PATCH P1 P2 ... PATCH
# where P1 ... PATCH are the patches the branch for PATCH holds, in order.
# patches/series groups its patches into stacks with marker comments:
#   #@ stack NAME         the patches below form a stack; the branch of each
#                         one holds every patch above the stack plus the
#                         stack's patches up to it
#   #@ stack NAME each    each patch below applies alone on what is above the
#                         stack (independent pull requests) ...
#   #@ needs NNNN         ... except the next one, which needs patch NNNN
#                         of the same stack (and what that one needs)
series_branches() {
  [[ -f ${REPO_ROOT}/patches/series ]] || die "patches/series is missing"
  awk '
    function fail(msg) { print "error: patches/series:" NR ": " msg > "/dev/stderr"; bad = 1; exit 1 }
    /^#@ stack / {
      if (NF < 3 || NF > 4 || (NF == 4 && $4 != "each")) fail("expected \"#@ stack NAME [each]\"")
      if ($3 in stacks) fail("stack " $3 " is declared twice")
      stacks[$3] = 1; stack = $3; each = (NF == 4); below = above; needs = ""; next
    }
    /^#@ needs / {
      if (NF != 3 || !each) fail("\"#@ needs NNNN\" only precedes a patch of an \"each\" stack")
      if (!(($3, stack) in branch)) fail("needs " $3 ", which is not an earlier patch of stack " stack)
      needs = $3; next
    }
    /^#@/ { fail("unknown marker: " $0) }
    { sub(/#.*/, ""); sub(/[ \t]+$/, "") }
    /^$/ { next }
    {
      if (stack == "") fail("patch " $1 " comes before the first \"#@ stack\" marker")
      num = substr($1, 1, 4)
      if (each) held = (needs == "" ? below : branch[needs, stack]) " " $1
      else held = (prev_in_stack[stack] == "" ? below : prev_in_stack[stack]) " " $1
      sub(/^ /, "", held)
      branch[num, stack] = held; prev_in_stack[stack] = held
      above = above " " $1; sub(/^ /, "", above); needs = ""
      print stack, $1, held
    }
    END { if (bad) exit 1 }
  ' "${REPO_ROOT}/patches/series"
}

# The patched tree the build compiles: pristine + series (a git repository,
# branch "series" on top of tag $LLVM_TAG).
SRC_DIR=${BUILD_DIR}/llvm-project

# am_patch REPO PATCH: applies patches/PATCH onto REPO's HEAD with git am
# (one commit); on failure the am is aborted and the patch named, with WHERE
# saying what it was applied on. A repository without a committer identity
# (the scratch ones) gets a neutral one.
am_patch() {
  local repo=$1 p=$2 where=${3:-on top of the patches before it in patches/series} log ident=()
  [[ -f ${REPO_ROOT}/patches/$p ]] || die "patches/series lists '$p' but patches/$p does not exist"
  git -C "$repo" config user.email >/dev/null ||
    ident=(-c user.name=series -c user.email=series@localhost)
  log=$(mktemp)
  if ! git -C "$repo" "${ident[@]}" \
    am -q --keep-cr --keep-non-patch "${REPO_ROOT}/patches/$p" >"$log" 2>&1; then
    git -C "$repo" am --abort >/dev/null 2>&1 || true
    grep -E '^(error|Patch failed)' "$log" | sed 's/^/    /' >&2 || true
    rm -f "$log"
    die "patch $p does not apply ($where)"
  fi
  rm -f "$log"
}

# apply_series REPO [HOOK]: applies the series (series_patches) onto REPO's
# HEAD, one commit per patch, calling HOOK with the patch's file name after
# each one.
apply_series() {
  local repo=$1 hook=${2:-} p
  while read -r p; do
    am_patch "$repo" "$p"
    [[ -z $hook ]] || "$hook" "$p"
  done < <(series_patches)
}

# The toolchain: Debian's LLVM/MLIR ${LLVM_SERIES}.x packages. Where the host's apt has
# them they are installed on the host; elsewhere (Debian 12: they need glibc
# >= 2.38) they are installed into a Debian unstable chroot under the cache,
# the *sysroot*, and the build and the tests run inside it
# (scripts/install-deps.sh; docs/overlay-build.md).
#   MLIR_GPU_SERIES_SYSROOT=auto (default) | 1 (always the sysroot) | 0 (never)
SYSROOT=${CACHE_DIR}/sysroot-unstable
# A file only the sysroot has: scripts and wrappers run inside it test for it.
SYSROOT_MARK=/.mlir-gpu-series-sysroot
SYSROOT_SUITE=unstable

in_sysroot() {
  [[ -f $SYSROOT_MARK ]]
}

# The LLVM version installed at $1 (a prefix such as /usr/lib/llvm-23), or
# nothing.
llvm_version_at() {
  "$1/bin/llvm-config" --version 2>/dev/null || true
}

# The Debian mirror this machine's apt uses (its first non-security one), or
# nothing.
debian_mirror() {
  local uri
  uri=$(awk '/^URIs:/ && !u {u=$2} END {print u}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
  [[ -n $uri ]] ||
    uri=$(awk '$1 == "deb" && $2 !~ /security/ && !u {u=$2} END {print u}' /etc/apt/sources.list 2>/dev/null || true)
  echo "$uri"
}

# Whether the scripts build inside the sysroot (decided on the host).
use_sysroot() {
  in_sysroot && return 1
  case ${MLIR_GPU_SERIES_SYSROOT:-auto} in
    1) return 0 ;;
    0) return 1 ;;
    auto) ;;
    *) die "MLIR_GPU_SERIES_SYSROOT must be auto, 0 or 1" ;;
  esac
  # Installed on the host, or installable from the host's apt.
  [[ $(llvm_version_at "$LLVM_PREFIX") == ${LLVM_SERIES}.* ]] && return 1
  local candidate
  candidate=$(apt-cache policy "libmlir-${LLVM_MAJOR}-dev" 2>/dev/null |
    awk '/Candidate:/ {print $2}')
  [[ $candidate == *:${LLVM_SERIES}.* || $candidate == ${LLVM_SERIES}.* ]] && return 1
  return 0
}

sysroot_ready() {
  [[ -f ${SYSROOT}${SYSROOT_MARK} ]]
}

# rerun_in_sysroot SCRIPT ARGS...: where the toolchain is the sysroot's (see
# use_sysroot), makes sure it is installed, runs SCRIPT ARGS inside it and
# exits with its status; elsewhere returns and the caller goes on natively.
rerun_in_sysroot() {
  use_sysroot || return 0
  "${REPO_ROOT}/scripts/install-deps.sh"
  local rc=0
  run_in_sysroot "$@" || rc=$?
  exit "$rc"
}

# run_in_sysroot CMD ARGS...: runs CMD inside the sysroot, in a private mount
# namespace where the repository, the cache and (if present) the CUDA toolkit
# are mounted at their host paths, so that every path means the same inside
# and outside.
run_in_sysroot() {
  # Already inside it (a script that re-ran itself there): run as is.
  if in_sysroot; then "$@"; return; fi
  sysroot_ready || die "no sysroot at ${SYSROOT}; run scripts/install-deps.sh first"
  need_cmd unshare chroot mount
  local cuda=
  [[ -d /usr/local/cuda ]] && cuda=$(readlink -f /usr/local/cuda)
  unshare --mount --propagation private -- /bin/bash -c '
    set -e
    root=$1 repo=$2 cache=$3 cuda=$4 dir=$5; shift 5
    bind() { mkdir -p "$root$2"; mount --bind "$1" "$root$2"; }
    bind "$repo" "$repo"
    bind "$cache" "$cache"
    bind /dev /dev
    [[ ! -d /dev/shm ]] || bind /dev/shm /dev/shm
    bind /proc /proc
    [[ -z $cuda ]] || bind "$cuda" /usr/local/cuda
    [[ ! -f /etc/resolv.conf ]] || { touch "$root/etc/resolv.conf"; mount --bind /etc/resolv.conf "$root/etc/resolv.conf"; }
    exec chroot "$root" /usr/bin/env \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      LANG=C.UTF-8 /bin/bash -c "cd \"\$0\" && exec \"\$@\"" "$dir" "$@"
  ' run_in_sysroot "$SYSROOT" "$REPO_ROOT" "$CACHE_DIR" "$cuda" "$PWD" "$@"
}

# check_build_dir: dies, saying what to do, when build/ was made by a clone
# at another path: its CMake caches name that path, and CMake refuses them.
check_build_dir() {
  local cache made
  for cache in "${BUILD_DIR}"/{mlir-libs,overlay}/CMakeCache.txt; do
    [[ -f $cache ]] || continue
    made=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$cache")
    [[ -z $made || $made == "$(dirname "$cache")" ||
       $made -ef $(dirname "$cache") ]] && continue
    die "build/ was made by a clone at ${made%/build/*}, not by this one (${REPO_ROOT}), and cannot move with it: remove it (rm -rf '${BUILD_DIR}'; ccache keeps the compiled objects) and build again"
  done
}

# script_usage SCRIPT: the comment block at the top of SCRIPT (after its #!
# line) without the comment marks: its usage.
script_usage() {
  sed -n '2,/^[^#]/{/^#/!d;s/^# \{0,1\}//;p;}' "$1"
}

# handle_help SCRIPT ARGS...: with -h or --help among ARGS, prints SCRIPT's
# usage and exits 0, before the script does anything.
handle_help() {
  local script=$1 arg
  shift
  for arg; do
    case $arg in -h | --help)
      script_usage "$script"
      exit 0
      ;;
    esac
  done
}

# expect_no_args SCRIPT ARGS...: as handle_help; any other argument fails
# before the script does anything.
expect_no_args() {
  handle_help "$@"
  local script=$1
  shift
  (($# == 0)) || die "$(basename "$script") takes no arguments, got '$1' (see $(basename "$script") --help)"
}
