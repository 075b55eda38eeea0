#!/usr/bin/env bash
# Installs what the overlay build and the tests need: Debian's LLVM/MLIR
# 23.1.x (libmlir-23-dev, mlir-23-tools, llvm-23-dev, llvm-23-tools, clang-23,
# lld-23, clang-format-23) with cmake, ninja, ccache, python3, valgrind (the
# instruction counts of scripts/verify/async-region-bench.py --instructions) and curl
# (main's snapshots for scripts/verify/check-main.sh).
#
# Where the host's apt has those packages they are installed on the host.
# Elsewhere (Debian 12: they need glibc >= 2.38) they go into a Debian
# unstable chroot under the cache, the sysroot (debootstrap --variant=minbase,
# about 2.7 GB), in which scripts/build.sh and scripts/test.sh then run.
# Does nothing when everything is present. MLIR_GPU_SERIES_SYSROOT=0/1 forces
# the choice (see scripts/common.sh).
set -euo pipefail
source "$(dirname "$0")/common.sh"
expect_no_args "$0" "$@"

packages=(
  "libmlir-${LLVM_MAJOR}-dev" "mlir-${LLVM_MAJOR}-tools"
  "llvm-${LLVM_MAJOR}-dev" "llvm-${LLVM_MAJOR}-tools"
  "clang-${LLVM_MAJOR}" "lld-${LLVM_MAJOR}" "clang-format-${LLVM_MAJOR}"
  libzstd-dev cmake ninja-build ccache rsync git xz-utils python3 valgrind
  curl
)

sudo=()
((EUID == 0)) || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive

# missing_packages [ROOT]: the packages of the list above not installed.
missing_packages() {
  local root=${1:-} p
  for p in "${packages[@]}"; do
    dpkg-query ${root:+--admindir="$root/var/lib/dpkg"} -W -f='${Status}' "$p" \
      2>/dev/null | grep -q 'install ok installed' || echo "$p"
  done
}

# The release checks that make the overlay build sound, for the toolchain at
# ROOT (empty: the host).
check_toolchain() {
  local root=$1 version
  version=$(if [[ -n $root ]]; then
    chroot "$root" "${LLVM_PREFIX}/bin/llvm-config" --version
  else
    "${LLVM_PREFIX}/bin/llvm-config" --version
  fi 2>/dev/null) ||
    die "${LLVM_PREFIX}/bin/llvm-config not found after installing llvm-${LLVM_MAJOR}-dev${root:+ in $root}"
  [[ $version == ${LLVM_SERIES}.* ]] ||
    die "Debian's LLVM is ${version}, the series needs ${LLVM_SERIES}.x (apt-cache policy llvm-${LLVM_MAJOR}-dev${root:+ in $root})"
  [[ -f ${root}${LLVM_PREFIX}/lib/cmake/mlir/MLIRConfig.cmake ]] ||
    die "MLIRConfig.cmake missing under ${root}${LLVM_PREFIX}; is libmlir-${LLVM_MAJOR}-dev installed?"
}

if ! use_sysroot; then
  mapfile -t missing < <(missing_packages)
  if ((${#missing[@]})); then
    note "installing: ${missing[*]}"
    "${sudo[@]}" apt-get update -q >/dev/null ||
      die "apt-get update failed; check the machine's Debian sources"
    "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
      die "apt-get install of ${missing[*]} failed"
  fi
  check_toolchain ""
  exit 0
fi

# The sysroot. Creating it and entering it need root (chroot, mounts).
((EUID == 0)) || die "the ${LLVM_SERIES} toolchain needs a Debian ${SYSROOT_SUITE} sysroot on this host, and creating it needs root (or install the packages natively and set MLIR_GPU_SERIES_SYSROOT=0)"
# Debian's unstable Release files may be past their Valid-Until date on a
# mirror snapshot; the archive signature is still checked.
apt_in=(-o Acquire::Check-Valid-Until=false -q)
if [[ ! -x ${SYSROOT}/usr/bin/apt-get ]]; then
  need_cmd apt-get
  if ! command -v debootstrap >/dev/null 2>&1; then
    note "installing debootstrap"
    apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends debootstrap >/dev/null ||
      die "apt-get install of debootstrap failed"
  fi
  mirror=$(debian_mirror)
  [[ -n $mirror ]] || mirror=http://deb.debian.org/debian
  stage=${SYSROOT}.partial
  rm -rf "$stage"
  mkdir -p "$(dirname "$SYSROOT")"
  note "creating a Debian ${SYSROOT_SUITE} sysroot for the ${LLVM_SERIES} toolchain in ${SYSROOT} (debootstrap from ${mirror}, a few minutes)"
  log=${CACHE_DIR}/sysroot-debootstrap.log
  debootstrap --variant=minbase "$SYSROOT_SUITE" "$stage" "$mirror" >"$log" 2>&1 ||
    { tail -20 "$log" >&2; die "debootstrap of Debian ${SYSROOT_SUITE} failed (log: $log)"; }
  rm -rf "$SYSROOT"
  mv "$stage" "$SYSROOT"
fi

mapfile -t missing < <(missing_packages "$SYSROOT")
if ((${#missing[@]})); then
  note "installing into the sysroot: ${missing[*]}"
  log=${CACHE_DIR}/sysroot-apt.log
  chroot "$SYSROOT" /usr/bin/env DEBIAN_FRONTEND=noninteractive \
    PATH=/usr/sbin:/usr/bin:/sbin:/bin PACKAGES="${missing[*]}" \
    sh -c 'apt-get "$@" update && apt-get "$@" install -y --no-install-recommends $PACKAGES' \
    apt "${apt_in[@]}" >"$log" 2>&1 <<<"" ||
    { tail -20 "$log" >&2; die "installing ${missing[*]} into the sysroot failed (log: $log)"; }
  chroot "$SYSROOT" apt-get clean >/dev/null 2>&1 || true
fi
check_toolchain "$SYSROOT"
touch "${SYSROOT}${SYSROOT_MARK}"
