//===- ResolveConditionalExecution.cpp - Resolve conditional execution ----===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the pass that replaces each gpu.conditional_execution
// op by its device or its host region, depending on where the op is.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
#define GEN_PASS_DEF_GPURESOLVECONDITIONALEXECUTIONPASS
#include "mlir/Dialect/GPU/Transforms/Passes.h.inc"
} // namespace mlir

using namespace mlir;
using namespace mlir::gpu;

namespace {
struct GpuResolveConditionalExecutionPass
    : public impl::GpuResolveConditionalExecutionPassBase<
          GpuResolveConditionalExecutionPass> {
  void runOnOperation() override;
};
} // namespace

/// Replaces `op` by the contents of the region of its context, or erases it
/// when that region is missing.
static void resolve(RewriterBase &rewriter, ConditionalExecutionOp op) {
  Region &region = op.getRegionForContext();
  if (region.empty()) {
    // The verifier only allows a missing region for an op without results.
    rewriter.eraseOp(op);
    return;
  }
  Block &block = region.front();
  auto yield = cast<YieldOp>(block.getTerminator());
  SmallVector<Value> results(yield.getValues());
  rewriter.eraseOp(yield);
  rewriter.inlineBlockBefore(&block, op);
  rewriter.replaceOp(op, results);
}

void GpuResolveConditionalExecutionPass::runOnOperation() {
  // Post-order: nested ops first, so that each is resolved by its own
  // context before an enclosing one moves it.
  SmallVector<ConditionalExecutionOp> ops;
  getOperation()->walk<WalkOrder::PostOrder>(
      [&](ConditionalExecutionOp op) { ops.push_back(op); });
  IRRewriter rewriter(&getContext());
  for (ConditionalExecutionOp op : ops) {
    rewriter.setInsertionPoint(op);
    resolve(rewriter, op);
  }
}
