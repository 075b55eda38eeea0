//===- TestGpuAccessAnalysis.cpp - Test the GPU access analysis -----------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file contains a test pass that prints, as remarks, what
// gpu::GpuAccessAnalysis says about the host functions of a module: the
// memory each GPU op and each host op with memory effects accesses, and which
// of the named buffers may alias.
//
//===----------------------------------------------------------------------===//

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/GpuAccessAnalysis.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace {
/// For every function outside gpu.module ops:
///  - on each GPU op and each host op in it that is not free of memory
///    effects (and has no regions), a remark "accesses: everything",
///    "accesses: nothing" or "accesses:" followed by "reads X" and
///    "writes X", sorted; the same on each terminator that accesses memory
///    (the end of an automatic allocation scope);
///  - on the function, for each pair of its memref arguments ("argN") and of
///    the results of ops with a `test.name` string attribute, a remark
///    "X and Y may alias" or "X and Y do not alias".
struct TestGpuAccessAnalysisPass
    : public PassWrapper<TestGpuAccessAnalysisPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestGpuAccessAnalysisPass)

  StringRef getArgument() const final { return "test-gpu-access-analysis"; }
  StringRef getDescription() const final {
    return "Prints the memory that GPU ops and host ops access and which "
           "buffers may alias, as gpu::GpuAccessAnalysis answers.";
  }

  void runOnOperation() override {
    AliasAnalysis &aliasAnalysis = getAnalysis<AliasAnalysis>();
    gpu::GpuAccessAnalysis analysis(aliasAnalysis);
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (auto func = dyn_cast<FunctionOpInterface>(op))
        printAliases(analysis, func);
      else if (isa<gpu::AsyncOpInterface>(op))
        printAccesses(op, analysis.getGpuAccesses(op));
      else if (op->getParentOfType<FunctionOpInterface>() &&
               !isMemoryEffectFree(op) && op->getNumRegions() == 0)
        printAccesses(op, analysis.getHostAccesses(op));
      else if (op->hasTrait<OpTrait::IsTerminator>() &&
               !analysis.getHostAccesses(op).empty())
        printAccesses(op, analysis.getHostAccesses(op));
      return WalkResult::advance();
    });
  }

  /// "argN" for argument N of the function, the `test.name` of the defining
  /// op (with "#K" for result K of several), or "?".
  static std::string getName(Value value) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner()->isEntryBlock() &&
          isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
        return "arg" + std::to_string(arg.getArgNumber());
      return "?";
    }
    Operation *definer = value.getDefiningOp();
    auto name = definer->getAttrOfType<StringAttr>("test.name");
    if (!name)
      return "?";
    if (definer->getNumResults() == 1)
      return name.str();
    return name.str() + "#" +
           std::to_string(cast<OpResult>(value).getResultNumber());
  }

  static void printAccesses(Operation *op,
                            const gpu::MemoryAccesses &accesses) {
    InFlightDiagnostic remark = op->emitRemark("accesses: ");
    if (accesses.everything) {
      remark << "everything";
      return;
    }
    if (accesses.values.empty()) {
      remark << "nothing";
      return;
    }
    SmallVector<std::string> items;
    for (auto [value, writes] : accesses.values)
      items.push_back((writes ? "writes " : "reads ") + getName(value));
    llvm::sort(items);
    remark << llvm::join(items, ", ");
  }

  static void printAliases(gpu::GpuAccessAnalysis &analysis,
                           FunctionOpInterface func) {
    if (func.isExternal())
      return;
    SmallVector<Value> buffers;
    for (BlockArgument arg : func.getArguments())
      if (isa<BaseMemRefType>(arg.getType()))
        buffers.push_back(arg);
    func->walk([&](Operation *op) {
      if (op->hasAttr("test.name"))
        llvm::append_range(buffers, op->getResults());
    });
    for (auto [i, lhs] : llvm::enumerate(buffers))
      for (Value rhs : ArrayRef<Value>(buffers).drop_front(i + 1))
        func->emitRemark() << getName(lhs) << " and " << getName(rhs)
                           << (analysis.mayAlias(lhs, rhs) ? " may alias"
                                                           : " do not alias");
  }
};
} // namespace

namespace mlir {
void registerTestGpuAccessAnalysisPass() {
  PassRegistration<TestGpuAccessAnalysisPass>();
}
} // namespace mlir
