#!/usr/bin/env bash
# Checks that Debian's prebuilt MLIR libraries were built from the same MLIR
# headers as the pristine tree the series applies to. The overlay build
# compiles some libraries from the patched tree and links them with Debian's
# others; that is only sound when both sides agree on every declaration, i.e.
# when every handwritten header (.h, .td, .def) under mlir/include is the same
# file in the tree and in ${LLVM_PREFIX}/include (docs/overlay-build.md).
# The source (23.1.1) and the packages (23.1.x) may be different patch
# releases: that is fine exactly when this check passes.
set -euo pipefail
source "$(dirname "$0")/../common.sh"

need_cmd python3
installed=${LLVM_PREFIX}/include
[[ -d $installed/mlir ]] || die "no MLIR headers in ${installed} (libmlir-${LLVM_MAJOR}-dev)"
python3 - "${PRISTINE_DIR}/mlir/include" "$installed" <<'PY' ||
import filecmp, os, sys
tree, installed = sys.argv[1:3]
checked, differ, missing = 0, [], []
for top in ("mlir", "mlir-c"):
    for root, _, files in os.walk(os.path.join(tree, top)):
        for name in files:
            if not name.endswith((".h", ".td", ".def")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, tree)
            other = os.path.join(installed, rel)
            checked += 1
            if not os.path.exists(other):
                missing.append(rel)
            elif not filecmp.cmp(path, other, shallow=False):
                differ.append(rel)
for rel in differ[:10]:
    print(f"    differs: {rel}", file=sys.stderr)
for rel in missing[:10]:
    print(f"    not installed: {rel}", file=sys.stderr)
if differ or missing:
    sys.exit(1)
print(f"==> {checked} MLIR headers of the tree and of {installed} are identical",
      file=sys.stderr)
PY
  die "the MLIR headers of ${LLVM_TAG} and of Debian's $(llvm_version_at "$LLVM_PREFIX") differ: the overlay build would mix declarations (use LLVM_PROJECT=<checkout at the packages' tag>)"
