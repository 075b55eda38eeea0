//===- TestGpuAsyncBuilders.cpp - Test the async GPU op builders ----------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file contains a test pass that rebuilds synchronous gpu.launch and
// gpu.launch_func ops as async ops through their C++ builders, passing an
// async token type and async dependencies.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {
/// Rebuilds every synchronous gpu.launch and gpu.launch_func as
///
///   %d0 = gpu.wait async
///   %d1 = gpu.wait async
///   %t = gpu.launch[_func] async [%d0, %d1] ...
///   gpu.wait [%t]
///
/// using only the ops' C++ builders, so that the builders' handling of the
/// async token type and of several dependencies is covered by tests.
struct TestGpuAsyncBuildersPass
    : public PassWrapper<TestGpuAsyncBuildersPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestGpuAsyncBuildersPass)

  StringRef getArgument() const final { return "test-gpu-async-builders"; }
  StringRef getDescription() const final {
    return "Rebuilds synchronous gpu.launch and gpu.launch_func ops as async "
           "ops with two dependencies through their C++ builders.";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<gpu::GPUDialect>();
  }

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      auto asyncOp = dyn_cast<gpu::AsyncOpInterface>(op);
      if (asyncOp && !asyncOp.getAsyncToken() &&
          isa<gpu::LaunchOp, gpu::LaunchFuncOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder builder(op);
      Location loc = op->getLoc();
      Type tokenType = builder.getType<gpu::AsyncTokenType>();
      SmallVector<Value, 2> dependencies;
      for (int i = 0; i < 2; ++i)
        dependencies.push_back(
            gpu::WaitOp::create(builder, loc, tokenType, ValueRange())
                .getAsyncToken());

      Value token;
      if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
        token = rebuild(builder, launch, tokenType, dependencies);
      else
        token =
            rebuild(builder, cast<gpu::LaunchOp>(op), tokenType, dependencies);
      gpu::WaitOp::create(builder, loc, Type(), token);
      op->erase();
    }
  }

  static Value rebuild(OpBuilder &builder, gpu::LaunchFuncOp op, Type tokenType,
                       ValueRange dependencies) {
    std::optional<gpu::KernelDim3> clusterSize;
    if (op.hasClusterSize())
      clusterSize = op.getClusterSizeOperandValues();
    auto newOp = gpu::LaunchFuncOp::create(
        builder, op.getLoc(), op.getKernel(), op.getGridSizeOperandValues(),
        op.getBlockSizeOperandValues(), op.getDynamicSharedMemorySize(),
        op.getKernelOperands(), tokenType, dependencies, clusterSize);
    return newOp.getAsyncToken();
  }

  static Value rebuild(OpBuilder &builder, gpu::LaunchOp op, Type tokenType,
                       ValueRange dependencies) {
    auto types = [](ArrayRef<BlockArgument> args) {
      return llvm::map_to_vector(
          args, [](BlockArgument arg) { return arg.getType(); });
    };
    Value clusterX, clusterY, clusterZ;
    if (op.hasClusterSize()) {
      clusterX = op.getClusterSizeX();
      clusterY = op.getClusterSizeY();
      clusterZ = op.getClusterSizeZ();
    }
    auto newOp = gpu::LaunchOp::create(
        builder, op.getLoc(), op.getGridSizeX(), op.getGridSizeY(),
        op.getGridSizeZ(), op.getBlockSizeX(), op.getBlockSizeY(),
        op.getBlockSizeZ(), op.getDynamicSharedMemorySize(), tokenType,
        dependencies, types(op.getWorkgroupAttributionBBArgs()),
        types(op.getPrivateAttributions()), clusterX, clusterY, clusterZ,
        op.getModuleAttr(), op.getFunctionAttr());
    // The builder made an empty body with the same block arguments: use the
    // original body instead.
    newOp.getBody().getBlocks().clear();
    newOp.getBody().takeBody(op.getBody());
    return newOp.getAsyncToken();
  }
};
} // namespace

namespace mlir {
void registerTestGpuAsyncBuildersPass() {
  PassRegistration<TestGpuAsyncBuildersPass>();
}
} // namespace mlir
