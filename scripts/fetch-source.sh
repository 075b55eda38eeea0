#!/usr/bin/env bash
# Puts the pristine llvmorg-23.1.1 tree (the parts the series needs) into the
# cache as a one-commit git repository.
#
#   scripts/fetch-source.sh                      # Debian's source package
#   LLVM_PROJECT=~/llvm-project scripts/fetch-source.sh   # your checkout
#
# The Debian path adds a private deb-src list (testing + unstable, on the
# mirror this machine already uses) under the cache, downloads only the orig
# tarball, and verifies its sha256. No binary package is installed from those
# suites and the machine's own apt configuration is not changed.
set -euo pipefail
source "$(dirname "$0")/common.sh"
expect_no_args "$0" "$@"

if pristine_ready; then
  note "pristine tree already at ${PRISTINE_DIR}"
  exit 0
fi
need_cmd git tar xz sha256sum

stage=$(mktemp -d "${CACHE_DIR%/}.stage.XXXXXX" 2>/dev/null ||
  { mkdir -p "$CACHE_DIR" && mktemp -d "${CACHE_DIR}/stage.XXXXXX"; })
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/tree"

from_checkout() {
  local src=$1 head tagged version_file
  [[ -d $src/.git || -f $src/.git ]] ||
    die "LLVM_PROJECT=$src is not a git checkout of llvm-project"
  head=$(git -C "$src" rev-parse HEAD)
  tagged=$(git -C "$src" rev-parse -q --verify "${LLVM_TAG}^{commit}" || true)
  if [[ $head != "$tagged" ]]; then
    # Not at the tag (or the tag is not fetched): accept any commit whose
    # version says ${LLVM_SERIES}.x (scripts/overlay/check-headers.sh then
    # checks it against the packages).
    version_file=cmake/Modules/LLVMVersion.cmake
    git -C "$src" cat-file -e "HEAD:$version_file" 2>/dev/null ||
      version_file=llvm/CMakeLists.txt
    local v
    v=$(git -C "$src" show "HEAD:$version_file" |
      sed -n 's/.*set(LLVM_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)).*/\2/p' |
      head -3 | paste -sd.)
    [[ $v == ${LLVM_SERIES}.* ]] ||
      die "LLVM_PROJECT=$src is at $(git -C "$src" describe --tags --always HEAD) (version '$v'), not ${LLVM_TAG}; check out the tag first"
  fi
  note "exporting ${SOURCE_SUBDIRS[*]} from $src at ${head:0:12}"
  git -C "$src" archive --format=tar HEAD -- "${SOURCE_SUBDIRS[@]}" |
    tar -x -C "$stage/tree"
}

from_debian() {
  need_cmd apt-get apt-cache
  local tarball=${CACHE_DIR}/${DEBIAN_ORIG_TARBALL}
  if [[ ! -f $tarball ]]; then
    local apt=${CACHE_DIR}/apt uri
    mkdir -p "$apt/lists/partial" "$apt/sources.list.d" "$stage/dl"
    uri=$(debian_mirror)
    [[ -n $uri ]] || die "no Debian mirror found in /etc/apt/sources.list*; set LLVM_PROJECT to an llvm-project checkout instead"
    cat >"$apt/sources.list.d/llvm-src.sources" <<SRC
Types: deb-src
URIs: $uri
Suites: testing unstable
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    local o=(-o Dir::Etc::SourceList=/dev/null
      -o "Dir::Etc::SourceParts=$apt/sources.list.d"
      -o "Dir::State::Lists=$apt/lists")
    note "updating the deb-src lists for ${DEBIAN_SRC_PKG} (testing, unstable) from $uri"
    apt-get "${o[@]}" -q update >"$stage/apt-update.log" 2>&1 ||
      { cat "$stage/apt-update.log" >&2; die "apt-get update of the deb-src lists failed"; }
    local version
    version=$(apt-cache "${o[@]}" showsrc "$DEBIAN_SRC_PKG" 2>/dev/null |
      awk -v want="$DEBIAN_ORIG_TARBALL" '/^Version:/ {v=$2} $3 == want && !found {print v; found=1}')
    [[ -n $version ]] ||
      die "no ${DEBIAN_SRC_PKG} source version with ${DEBIAN_ORIG_TARBALL} in testing/unstable; set LLVM_PROJECT to an llvm-project checkout at ${LLVM_TAG}"
    note "downloading ${DEBIAN_ORIG_TARBALL} (${DEBIAN_SRC_PKG} ${version}, about 212 MB)"
    # The mirror may not serve every file of the source package (the .dsc);
    # apt then exits non-zero after the tarball arrived. The checksum below is
    # the integrity check that counts.
    (cd "$stage/dl" && apt-get "${o[@]}" -q source --download-only \
      "${DEBIAN_SRC_PKG}=${version}" >"$stage/apt-source.log" 2>&1) || true
    [[ -f $stage/dl/$DEBIAN_ORIG_TARBALL ]] ||
      { cat "$stage/apt-source.log" >&2; die "apt-get source did not download ${DEBIAN_ORIG_TARBALL}"; }
    mv "$stage/dl/$DEBIAN_ORIG_TARBALL" "$tarball.part"
    mv "$tarball.part" "$tarball"
  fi
  note "verifying sha256 of ${DEBIAN_ORIG_TARBALL}"
  echo "${DEBIAN_ORIG_SHA256}  $tarball" | sha256sum -c --quiet - >/dev/null 2>&1 || {
    rm -f "$tarball"
    die "sha256 mismatch for ${DEBIAN_ORIG_TARBALL} (removed it; run again to download it anew)"
  }
  note "extracting ${SOURCE_SUBDIRS[*]}"
  local top members=()
  top=$(tar -tJf "$tarball" | awk -F/ 'NR == 1 {print $1}')
  for s in "${SOURCE_SUBDIRS[@]}"; do members+=("$top/$s"); done
  tar -xJf "$tarball" -C "$stage/tree" --strip-components=1 "${members[@]}"
}

if [[ -n ${LLVM_PROJECT:-} ]]; then
  from_checkout "$LLVM_PROJECT"
else
  from_debian
fi

[[ -f $stage/tree/mlir/lib/Conversion/GPUCommon/GPUToLLVMConversion.cpp ]] ||
  die "the extracted tree has no mlir/lib/Conversion/GPUCommon; source incomplete"

note "committing the pristine tree"
git -C "$stage/tree" init -q -b "$BASE_BRANCH"
git -C "$stage/tree" -c core.autocrlf=false add -A
git -C "$stage/tree" -c user.name=pristine -c user.email=pristine@localhost \
  commit -q -m "llvm-project ${LLVM_TAG} (mlir and build support only)"
git -C "$stage/tree" tag "$LLVM_TAG"
touch "$stage/tree/.git/complete"
rm -rf "$PRISTINE_DIR"
mv "$stage/tree" "$PRISTINE_DIR"
note "pristine tree ready at ${PRISTINE_DIR}"
