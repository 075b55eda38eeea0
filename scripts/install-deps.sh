#!/usr/bin/env bash
# Installs the Debian packages the overlay build and the tests need
# (LLVM/MLIR 22.1.8 from bookworm-security, clang-22, lld-22, clang-format-22,
# ninja, ccache, cmake). Does nothing when they are all present.
set -euo pipefail
source "$(dirname "$0")/common.sh"

packages=(
  "libmlir-${LLVM_MAJOR}-dev" "mlir-${LLVM_MAJOR}-tools"
  "llvm-${LLVM_MAJOR}-dev" "llvm-${LLVM_MAJOR}-tools"
  "clang-${LLVM_MAJOR}" "lld-${LLVM_MAJOR}" "clang-format-${LLVM_MAJOR}"
  libzstd-dev cmake ninja-build ccache rsync git xz-utils python3
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
    missing+=("$p")
done

if ((${#missing[@]})); then
  note "installing: ${missing[*]}"
  sudo=()
  ((EUID == 0)) || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q >/dev/null ||
    die "apt-get update failed; check the machine's Debian sources"
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
    die "apt-get install of ${missing[*]} failed"
fi

# The series is pinned to one LLVM release: refuse any other.
version=$("${LLVM_PREFIX}/bin/llvm-config" --version 2>/dev/null) ||
  die "${LLVM_PREFIX}/bin/llvm-config not found after installing llvm-${LLVM_MAJOR}-dev"
[[ $version == "$LLVM_VERSION" ]] ||
  die "Debian's LLVM is ${version}, the series needs ${LLVM_VERSION} (apt-cache policy llvm-${LLVM_MAJOR}-dev)"
[[ -f ${LLVM_PREFIX}/lib/cmake/mlir/MLIRConfig.cmake ]] ||
  die "MLIRConfig.cmake missing under ${LLVM_PREFIX}; is libmlir-${LLVM_MAJOR}-dev installed?"
