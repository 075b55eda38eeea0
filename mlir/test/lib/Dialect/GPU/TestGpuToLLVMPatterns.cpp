//===- TestGpuToLLVMPatterns.cpp - Use the GPU-to-LLVM patterns -----------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file contains a test pass that lowers GPU host ops to runtime calls as
// a downstream pass does: with populateGpuToLLVMConversionPatterns in a
// conversion of its own, with or without the steps around the conversion.
//
//===----------------------------------------------------------------------===//

#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace {
struct TestGpuToLLVMPatternsPass
    : public PassWrapper<TestGpuToLLVMPatternsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestGpuToLLVMPatternsPass)
  TestGpuToLLVMPatternsPass() = default;
  TestGpuToLLVMPatternsPass(const TestGpuToLLVMPatternsPass &pass)
      : PassWrapper(pass) {}

  StringRef getArgument() const final { return "test-gpu-to-llvm-patterns"; }
  StringRef getDescription() const final {
    return "Lowers func and GPU host ops with the patterns of "
           "populateGpuToLLVMConversionPatterns in a conversion of its own.";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect>();
  }

  Option<bool> withSteps{
      *this, "with-steps",
      llvm::cl::desc("Run prepareGpuAsyncTokensForLLVM before the conversion "
                     "and finalizeGpuStreamLifetimes after it")};

  void runOnOperation() override {
    if (withSteps && failed(prepareGpuAsyncTokensForLLVM(getOperation())))
      return signalPassFailure();
    LLVMTypeConverter converter(&getContext());
    RewritePatternSet patterns(&getContext());
    ConversionTarget target(getContext());
    target.addLegalDialect<LLVM::LLVMDialect>();
    target.addIllegalDialect<func::FuncDialect, gpu::GPUDialect>();
    populateFuncToLLVMConversionPatterns(converter, patterns);
    populateGpuToLLVMConversionPatterns(converter, patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    if (withSteps)
      finalizeGpuStreamLifetimes(getOperation(), converter);
  }
};
} // namespace

namespace mlir {
void registerTestGpuToLLVMPatternsPass() {
  PassRegistration<TestGpuToLLVMPatternsPass>();
}
} // namespace mlir
