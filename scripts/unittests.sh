#!/usr/bin/env bash
# Builds and runs the gtest unit tests that the series adds (the overlay
# build compiles libraries only, not mlir/unittests).
#
#   scripts/unittests.sh                  # every unit test of the patched tree
#   scripts/unittests.sh --only FILE      # one (mlir/unittests/...cpp; repeatable)
#   scripts/unittests.sh --list           # print the unit tests, run nothing
#
# The unit tests are the .cpp files under mlir/unittests that the series adds
# or changes in build/llvm-project. Each is compiled on its own with LLVM's
# googletest and TestMain from the same tree (third-party/unittest, built
# once into build/unittests/gtest, as upstream builds llvm_gtest), linked
# against Debian's libLLVM, and run. Exits 1 if one fails to build or run.
set -euo pipefail
source "$(dirname "$0")/common.sh"
handle_help "$0" "$@"
rerun_in_sysroot "$0" "$@"

only=()
list=
while (($#)); do
  case $1 in
    --only) only+=("$2"); shift ;;
    --list) list=1 ;;
    *) die "unknown argument '$1' (see scripts/unittests.sh)" ;;
  esac
  shift
done

if ((${#only[@]})); then
  tests=("${only[@]}")
else
  mapfile -t tests < <(
    { git -C "$SRC_DIR" diff --name-only "$LLVM_TAG" -- mlir/unittests
      git -C "$SRC_DIR" ls-files --others --exclude-standard -- mlir/unittests
    } | grep '\.cpp$' | sort -u)
fi
if [[ -n $list ]]; then
  printf '%s\n' "${tests[@]}"
  exit 0
fi
[[ -d ${SRC_DIR}/third-party/unittest ]] ||
  die "no ${SRC_DIR}/third-party/unittest; run scripts/build.sh first"
if ((${#tests[@]} == 0)); then
  note "no unit tests in this tree"
  exit 0
fi

CXX=${CXX:-clang++-23}
gtest=${SRC_DIR}/third-party/unittest
out=${BUILD_DIR}/unittests
flags=(-std=c++17 -O1 -fno-rtti -DGTEST_HAS_RTTI=0
  -I"${gtest}/googletest/include" -I"${gtest}/googlemock/include"
  -I/usr/lib/llvm-23/include)
mkdir -p "${out}/gtest"
for src in googletest/src/gtest-all.cc googlemock/src/gmock-all.cc \
           UnitTestMain/TestMain.cpp; do
  obj=${out}/gtest/$(basename "${src%.*}").o
  [[ -f $obj ]] && continue
  note "compiling ${src} (once)"
  "$CXX" "${flags[@]}" -Wno-suggest-override -I"${gtest}/googletest" \
    -I"${gtest}/googlemock" -c "${gtest}/${src}" -o "$obj"
done

status=0
for t in "${tests[@]}"; do
  [[ -f ${SRC_DIR}/$t ]] || die "unit test ${t} not in ${SRC_DIR}"
  exe=${out}/$(basename "${t%.cpp}")
  if ! "$CXX" "${flags[@]}" -Wall -Wextra -Wno-unused-parameter \
      -c "${SRC_DIR}/${t}" -o "${exe}.o" ||
     ! "$CXX" -fuse-ld=lld -o "$exe" "${exe}.o" "${out}/gtest/TestMain.o" \
       "${out}/gtest/gtest-all.o" "${out}/gtest/gmock-all.o" \
       -L/usr/lib/llvm-23/lib -lLLVM -pthread -Wl,-rpath,/usr/lib/llvm-23/lib; then
    echo "FAIL: ${t} (build)"
    status=1
    continue
  fi
  if "$exe" --gtest_brief=1; then
    echo "PASS: ${t}"
  else
    echo "FAIL: ${t}"
    status=1
  fi
done
exit "$status"
