//===- SeriesVersion.cpp - Name the patch series in --version ------------===//
//
// Linked into the tools that scripts/build.sh builds from the patched tree,
// so that `mlir-opt --version` says which series and commit it was built
// from (Debian's LLVM version line alone does not tell it from Debian's own
// mlir-opt). OVERLAY_SERIES_VERSION comes from scripts/build.sh.
//
//===----------------------------------------------------------------------===//

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

namespace {
struct SeriesVersion {
  SeriesVersion() {
    llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
      os << "  " << OVERLAY_SERIES_VERSION << "\n";
    });
  }
} seriesVersion;
} // namespace
