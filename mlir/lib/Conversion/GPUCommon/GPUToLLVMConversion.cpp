//===- ConvertLaunchFuncToGpuRuntimeCalls.cpp - MLIR GPU lowering passes --===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements a pass to convert gpu.launch_func op into a sequence of
// GPU runtime calls. As most of GPU runtimes does not have a stable published
// ABI, this pass uses a slim runtime layer that builds on top of the public
// API from GPU runtime headers.
//
//===----------------------------------------------------------------------===//

#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"

#include "mlir/Analysis/Liveness.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/AsyncToLLVM/AsyncToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMInterface.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUToLLVM.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Async/IR/Async.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/DebugLog.h"

#define DEBUG_TYPE "gpu-to-llvm"

namespace mlir {
#define GEN_PASS_DEF_GPUTOLLVMCONVERSIONPASS
#include "mlir/Conversion/Passes.h.inc"
} // namespace mlir

using namespace mlir;

namespace {
class GpuToLLVMConversionPass
    : public impl::GpuToLLVMConversionPassBase<GpuToLLVMConversionPass> {
public:
  using Base::Base;
  void getDependentDialects(DialectRegistry &registry) const final {
    Base::getDependentDialects(registry);
    // The lowering of gpu.on_stream inlines a body of several blocks with
    // branches, or into an scf.execute_region where its parent needs one block.
    registry.insert<cf::ControlFlowDialect, scf::SCFDialect>();
    registerConvertToLLVMDependentDialectLoading(registry);
  }
  // Run the dialect converter on the module.
  void runOnOperation() override;
};

/// The GPU runtime functions that lowered host code calls (the `mgpu*`
/// wrappers of the CUDA and ROCm runtimes) and the LLVM types of their
/// signatures, shared by everything in this file that emits runtime calls.
struct GpuRuntimeCallBuilders {
  GpuRuntimeCallBuilders(MLIRContext *context, unsigned intPtrBitwidth)
      : context(context),
        llvmIntPtrType(IntegerType::get(context, intPtrBitwidth)) {}

  MLIRContext *context;

  Type llvmVoidType = LLVM::LLVMVoidType::get(context);
  LLVM::LLVMPointerType llvmPointerType = LLVM::LLVMPointerType::get(context);
  Type llvmInt8Type = IntegerType::get(context, 8);
  Type llvmInt16Type = IntegerType::get(context, 16);
  Type llvmInt32Type = IntegerType::get(context, 32);
  Type llvmInt64Type = IntegerType::get(context, 64);
  Type llvmFloat32Type = Float32Type::get(context);
  Type llvmIntPtrType;

  FunctionCallBuilder streamCreateCallBuilder = {
      "mgpuStreamCreate", llvmPointerType /* void *stream */, {}};
  FunctionCallBuilder streamDestroyCallBuilder = {
      "mgpuStreamDestroy", llvmVoidType, {llvmPointerType /* void *stream */}};
  FunctionCallBuilder streamSynchronizeCallBuilder = {
      "mgpuStreamSynchronize",
      llvmVoidType,
      {llvmPointerType /* void *stream */}};
  FunctionCallBuilder streamWaitEventCallBuilder = {
      "mgpuStreamWaitEvent",
      llvmVoidType,
      {llvmPointerType /* void *stream */, llvmPointerType /* void *event */}};
  FunctionCallBuilder eventCreateCallBuilder = {
      "mgpuEventCreate", llvmPointerType /* void *event */, {}};
  FunctionCallBuilder eventDestroyCallBuilder = {
      "mgpuEventDestroy", llvmVoidType, {llvmPointerType /* void *event */}};
  FunctionCallBuilder eventSynchronizeCallBuilder = {
      "mgpuEventSynchronize",
      llvmVoidType,
      {llvmPointerType /* void *event */}};
  FunctionCallBuilder eventRecordCallBuilder = {
      "mgpuEventRecord",
      llvmVoidType,
      {llvmPointerType /* void *event */, llvmPointerType /* void *stream */}};
  FunctionCallBuilder hostRegisterCallBuilder = {
      "mgpuMemHostRegisterMemRef",
      llvmVoidType,
      {llvmIntPtrType /* intptr_t rank */,
       llvmPointerType /* void *memrefDesc */,
       llvmIntPtrType /* intptr_t elementSizeBytes */}};
  FunctionCallBuilder hostUnregisterCallBuilder = {
      "mgpuMemHostUnregisterMemRef",
      llvmVoidType,
      {llvmIntPtrType /* intptr_t rank */,
       llvmPointerType /* void *memrefDesc */,
       llvmIntPtrType /* intptr_t elementSizeBytes */}};
  FunctionCallBuilder allocCallBuilder = {
      "mgpuMemAlloc",
      llvmPointerType /* void * */,
      {llvmIntPtrType /* intptr_t sizeBytes */,
       llvmPointerType /* void *stream */,
       llvmInt8Type /* bool isHostShared */}};
  FunctionCallBuilder deallocCallBuilder = {
      "mgpuMemFree",
      llvmVoidType,
      {llvmPointerType /* void *ptr */, llvmPointerType /* void *stream */}};
  FunctionCallBuilder memcpyCallBuilder = {
      "mgpuMemcpy",
      llvmVoidType,
      {llvmPointerType /* void *dst */, llvmPointerType /* void *src */,
       llvmIntPtrType /* intptr_t sizeBytes */,
       llvmPointerType /* void *stream */}};
  FunctionCallBuilder memset16CallBuilder = {
      "mgpuMemset16",
      llvmVoidType,
      {llvmPointerType /* void *dst */,
       llvmInt16Type /* unsigned short value */,
       llvmIntPtrType /* intptr_t sizeBytes */,
       llvmPointerType /* void *stream */}};
  FunctionCallBuilder memset32CallBuilder = {
      "mgpuMemset32",
      llvmVoidType,
      {llvmPointerType /* void *dst */, llvmInt32Type /* unsigned int value */,
       llvmIntPtrType /* intptr_t sizeBytes */,
       llvmPointerType /* void *stream */}};
  FunctionCallBuilder setDefaultDeviceCallBuilder = {
      "mgpuSetDefaultDevice",
      llvmVoidType,
      {llvmInt32Type /* uint32_t devIndex */}};
  FunctionCallBuilder createDnVecCallBuilder = {
      "mgpuCreateDnVec",
      llvmPointerType,
      {llvmIntPtrType, llvmPointerType, llvmInt32Type,
       llvmPointerType /* void *stream */}};
  FunctionCallBuilder destroyDnVecCallBuilder = {
      "mgpuDestroyDnVec",
      llvmVoidType,
      {llvmPointerType, llvmPointerType /* void *stream */}};
  FunctionCallBuilder createDnMatCallBuilder = {
      "mgpuCreateDnMat",
      llvmPointerType,
      {llvmIntPtrType, llvmIntPtrType, llvmPointerType, llvmInt32Type,
       llvmPointerType /* void *stream */}};
  FunctionCallBuilder destroyDnMatCallBuilder = {
      "mgpuDestroyDnMat",
      llvmVoidType,
      {llvmPointerType, llvmPointerType /* void *stream */}};
  FunctionCallBuilder createCooCallBuilder = {
      "mgpuCreateCoo",
      llvmPointerType,
      {llvmIntPtrType, llvmIntPtrType, llvmIntPtrType, llvmPointerType,
       llvmPointerType, llvmPointerType, llvmInt32Type, llvmInt32Type,
       llvmPointerType /* void *stream */}};
  FunctionCallBuilder createCooAoSCallBuilder = {
      "mgpuCreateCooAoS", // deprecated in cuSPARSE 11.2
      llvmPointerType,
      {llvmIntPtrType, llvmIntPtrType, llvmIntPtrType, llvmPointerType,
       llvmPointerType, llvmInt32Type, llvmInt32Type,
       llvmPointerType /* void *stream */}};
  FunctionCallBuilder createCsrCallBuilder = {
      "mgpuCreateCsr",
      llvmPointerType,
      {llvmIntPtrType, llvmIntPtrType, llvmIntPtrType, llvmPointerType,
       llvmPointerType, llvmPointerType, llvmInt32Type, llvmInt32Type,
       llvmInt32Type, llvmPointerType /* void *stream */}};
  FunctionCallBuilder createCscCallBuilder = {
      "mgpuCreateCsc",
      llvmPointerType,
      {llvmIntPtrType, llvmIntPtrType, llvmIntPtrType, llvmPointerType,
       llvmPointerType, llvmPointerType, llvmInt32Type, llvmInt32Type,
       llvmInt32Type, llvmPointerType /* void *stream */}};
  FunctionCallBuilder createBsrCallBuilder = {
      "mgpuCreateBsr",
      llvmPointerType,
      {llvmIntPtrType, llvmIntPtrType, llvmIntPtrType, llvmIntPtrType,
       llvmIntPtrType, llvmPointerType, llvmPointerType, llvmPointerType,
       llvmInt32Type, llvmInt32Type, llvmInt32Type,
       llvmPointerType /* void *stream */}};
  FunctionCallBuilder destroySpMatCallBuilder = {
      "mgpuDestroySpMat",
      llvmVoidType,
      {llvmPointerType, llvmPointerType /* void *stream */}};
  FunctionCallBuilder spMVBufferSizeCallBuilder = {
      "mgpuSpMVBufferSize",
      llvmIntPtrType,
      {llvmInt32Type, llvmPointerType, llvmPointerType, llvmPointerType,
       llvmInt32Type, llvmPointerType /* void *stream */}};
  FunctionCallBuilder spMVCallBuilder = {
      "mgpuSpMV",
      llvmVoidType,
      {llvmInt32Type, llvmPointerType, llvmPointerType, llvmPointerType,
       llvmInt32Type, llvmPointerType, llvmPointerType /* void *stream */}};
  FunctionCallBuilder createSpMMBufferSizeCallBuilder = {
      "mgpuSpMMBufferSize",
      llvmIntPtrType,
      {llvmInt32Type, llvmInt32Type, llvmPointerType, llvmPointerType,
       llvmPointerType, llvmInt32Type, llvmPointerType /* void *stream */}};
  FunctionCallBuilder createSpMMCallBuilder = {
      "mgpuSpMM",
      llvmVoidType,
      {llvmInt32Type, llvmInt32Type, llvmPointerType, llvmPointerType,
       llvmPointerType, llvmInt32Type, llvmPointerType,
       llvmPointerType /* void *stream */}};
  FunctionCallBuilder createSDDMMBufferSizeCallBuilder = {
      "mgpuSDDMMBufferSize",
      llvmIntPtrType,
      {llvmInt32Type, llvmInt32Type, llvmPointerType, llvmPointerType,
       llvmPointerType, llvmInt32Type, llvmPointerType /* void *stream */}};
  FunctionCallBuilder createSDDMMCallBuilder = {
      "mgpuSDDMM",
      llvmVoidType,
      {llvmInt32Type, llvmInt32Type, llvmPointerType, llvmPointerType,
       llvmPointerType, llvmInt32Type, llvmPointerType,
       llvmPointerType /* void *stream */}};
  FunctionCallBuilder createLtDnMatCallBuilder = {
      "mgpuCreateCuSparseLtDnMat",
      llvmVoidType,
      {llvmPointerType, llvmIntPtrType, llvmIntPtrType, llvmPointerType,
       llvmInt32Type, llvmPointerType /* void *stream */}};
  FunctionCallBuilder destroyCuSparseLtSpMatBuilder = {
      "mgpuDestroyCuSparseLtSpMat",
      llvmVoidType,
      {llvmPointerType, llvmPointerType /* void *stream */}};
  FunctionCallBuilder destroyCuSparseLtDnMatBuilder = {
      "mgpuDestroyCuSparseLtDnMat",
      llvmVoidType,
      {llvmPointerType, llvmPointerType /* void *stream */}};
  FunctionCallBuilder create2To4SpMatCallBuilder = {
      "mgpuCusparseLtCreate2To4SpMat",
      llvmVoidType,
      {llvmPointerType, llvmIntPtrType, llvmIntPtrType, llvmPointerType,
       llvmInt32Type, llvmPointerType /* void *stream */}};
  FunctionCallBuilder createCuSparseLtSpMMBufferSizeBuilder = {
      "mgpuCuSparseLtSpMMBufferSize",
      llvmVoidType,
      {llvmPointerType, llvmInt32Type, llvmInt32Type, llvmPointerType,
       llvmPointerType, llvmPointerType, llvmInt32Type, llvmInt32Type,
       llvmPointerType /*void *stream*/}};
  FunctionCallBuilder createCuSparseLtSpMMBuilder = {
      "mgpuCuSparseLtSpMM",
      llvmVoidType,
      {llvmPointerType, llvmPointerType, llvmPointerType, llvmPointerType,
       llvmPointerType, llvmPointerType, llvmPointerType /*void *stream*/}};
  FunctionCallBuilder createSpGEMMCreateDescrBuilder = {
      "mgpuSpGEMMCreateDescr",
      llvmPointerType,
      {llvmPointerType /*void *stream*/}};
  FunctionCallBuilder createSpGEMMDestroyDescrBuilder = {
      "mgpuSpGEMMDestroyDescr",
      llvmVoidType,
      {llvmPointerType /*s*/, llvmPointerType /*void *stream*/}};
  FunctionCallBuilder createSpGEMMWorkEstimationBuilder = {
      "mgpuSpGEMMWorkEstimation",
      llvmIntPtrType,
      {llvmPointerType /*s*/, llvmInt32Type /*ma*/, llvmInt32Type /*mb*/,
       llvmPointerType /*a*/, llvmPointerType /*b*/, llvmPointerType /*c*/,
       llvmInt32Type /*ctp*/, llvmIntPtrType /*bs*/, llvmPointerType /*buf*/,
       llvmPointerType /*void *stream*/}};
  FunctionCallBuilder createSpGEMMComputeBuilder = {
      "mgpuSpGEMMCompute",
      llvmIntPtrType,
      {llvmPointerType /*s*/, llvmInt32Type /*ma*/, llvmInt32Type /*mb*/,
       llvmPointerType /*a*/, llvmPointerType /*b*/, llvmPointerType /*c*/,
       llvmInt32Type /*ctp*/, llvmIntPtrType /*bs*/, llvmPointerType /*buf*/,
       llvmPointerType /*void *stream*/}};
  FunctionCallBuilder createSpGEMMCopyBuilder = {
      "mgpuSpGEMMCopy",
      llvmVoidType,
      {llvmPointerType /*s*/, llvmInt32Type /*ma*/, llvmInt32Type /*mb*/,
       llvmPointerType /*a*/, llvmPointerType /*b*/, llvmPointerType /*c*/,
       llvmInt32Type /*ctp*/, llvmPointerType /*void *stream*/}};
  FunctionCallBuilder createSpMatGetSizeBuilder = {
      "mgpuSpMatGetSize",
      llvmVoidType,
      {llvmPointerType /*mc*/, llvmPointerType /*rc*/, llvmPointerType /*cc*/,
       llvmPointerType /*nc*/, llvmPointerType /*void *stream*/}};
  FunctionCallBuilder createSetCsrPointersBuilder = {
      "mgpuSetCsrPointers",
      llvmVoidType,
      {llvmPointerType /*spmat*/, llvmPointerType /*pos*/,
       llvmPointerType /*crd*/, llvmPointerType /*val*/,
       llvmPointerType /*void *stream*/}};

  /// Creates an event, records it on `stream` and returns it.
  Value recordEvent(Location loc, OpBuilder &builder, Value stream) const {
    Value event = eventCreateCallBuilder.create(loc, builder, {}).getResult();
    eventRecordCallBuilder.create(loc, builder, {event, stream});
    return event;
  }

  /// Creates a stream whose lifetime finalizeGpuStreamLifetimes manages, and
  /// of these only: it marks the call (`gpu.lowered_stream`) until then.
  Value createStream(Location loc, OpBuilder &builder) const {
    LLVM::CallOp create = streamCreateCallBuilder.create(loc, builder, {});
    gpu::GPUDialect::LoweredStreamAttrHelper(context).setAttr(
        create, UnitAttr::get(context));
    return create.getResult();
  }

  /// Returns whether `op` calls one of the runtime functions above.
  bool isRuntimeCall(Operation *op) const {
    auto call = dyn_cast<LLVM::CallOp>(op);
    if (!call || !call.getCallee())
      return false;
    const FunctionCallBuilder *builders[] = {
        &streamCreateCallBuilder,
        &streamDestroyCallBuilder,
        &streamSynchronizeCallBuilder,
        &streamWaitEventCallBuilder,
        &eventCreateCallBuilder,
        &eventDestroyCallBuilder,
        &eventSynchronizeCallBuilder,
        &eventRecordCallBuilder,
        &hostRegisterCallBuilder,
        &hostUnregisterCallBuilder,
        &allocCallBuilder,
        &deallocCallBuilder,
        &memcpyCallBuilder,
        &memset16CallBuilder,
        &memset32CallBuilder,
        &setDefaultDeviceCallBuilder,
        &createDnVecCallBuilder,
        &destroyDnVecCallBuilder,
        &createDnMatCallBuilder,
        &destroyDnMatCallBuilder,
        &createCooCallBuilder,
        &createCooAoSCallBuilder,
        &createCsrCallBuilder,
        &createCscCallBuilder,
        &createBsrCallBuilder,
        &destroySpMatCallBuilder,
        &spMVBufferSizeCallBuilder,
        &spMVCallBuilder,
        &createSpMMBufferSizeCallBuilder,
        &createSpMMCallBuilder,
        &createSDDMMBufferSizeCallBuilder,
        &createSDDMMCallBuilder,
        &createLtDnMatCallBuilder,
        &destroyCuSparseLtSpMatBuilder,
        &destroyCuSparseLtDnMatBuilder,
        &create2To4SpMatCallBuilder,
        &createCuSparseLtSpMMBufferSizeBuilder,
        &createCuSparseLtSpMMBuilder,
        &createSpGEMMCreateDescrBuilder,
        &createSpGEMMDestroyDescrBuilder,
        &createSpGEMMWorkEstimationBuilder,
        &createSpGEMMComputeBuilder,
        &createSpGEMMCopyBuilder,
        &createSpMatGetSizeBuilder,
        &createSetCsrPointersBuilder};
    return llvm::any_of(builders, [&](const FunctionCallBuilder *builder) {
      return *call.getCallee() == builder->functionName;
    });
  }
};

template <typename OpTy>
class ConvertOpToGpuRuntimeCallPattern : public ConvertOpToLLVMPattern<OpTy>,
                                         protected GpuRuntimeCallBuilders {
public:
  explicit ConvertOpToGpuRuntimeCallPattern(
      const LLVMTypeConverter &typeConverter, PatternBenefit benefit = 1)
      : ConvertOpToLLVMPattern<OpTy>(typeConverter, benefit),
        GpuRuntimeCallBuilders(&typeConverter.getContext(),
                               typeConverter.getPointerBitwidth(0)) {}

protected:
  Value getNumElements(ConversionPatternRewriter &rewriter, Location loc,
                       MemRefType type, MemRefDescriptor desc) const {
    Type indexType = ConvertToLLVMPattern::getIndexType();
    if (type.hasStaticShape())
      return ConvertToLLVMPattern::createIndexAttrConstant(
          rewriter, loc, indexType, type.getNumElements());
    // Compute the number of elements by multiplying all the dim sizes.
    uint64_t rank = type.getRank();
    Value numElements = desc.size(rewriter, loc, /*pos=*/0);
    for (unsigned i = 1; i < rank; i++)
      numElements = LLVM::MulOp::create(rewriter, loc, numElements,
                                        desc.size(rewriter, loc, /*pos=*/i));
    return numElements;
  }

  /// Makes `stream` wait, without blocking the host, for the work that the
  /// async token `origDependency`, lowered to `dependency`, stands for (see
  /// isStreamToken). A stream dependency gets an event recorded right after
  /// the op that produced `origDependency` when that op is in the same block,
  /// so that the event captures that op's work and nothing enqueued on the
  /// stream later (otherwise at the current point). An event dependency is
  /// waited for directly. Either way the event is destroyed once waited for:
  /// the op that uses an event token consumes it.
  void waitForDependency(Location loc, Value stream, Value origDependency,
                         Value dependency,
                         ConversionPatternRewriter &rewriter) const;

  /// Returns the stream on which the runtime calls of `op` run, after all of
  /// its async dependencies completed. This is the one place where async
  /// dependencies are joined:
  ///  - `op` is async and has a stream dependency: the first one is reused,
  ///    and waits for the other dependencies (k dependencies cost at most
  ///    k-1 event create/record/wait/destroy sequences and no new stream);
  ///  - `op` is async otherwise, or with `freshStream`: a new stream that
  ///    waits for all dependencies;
  ///  - `op` is synchronous: no stream is created. It runs on its first
  ///    stream dependency, or else on the null (default) stream, which waits
  ///    for the other dependencies.
  Value getStreamForAsyncOp(gpu::AsyncOpInterface op, ValueRange dependencies,
                            ConversionPatternRewriter &rewriter,
                            bool freshStream = false) const;

  /// Replaces `op`, whose runtime calls were emitted on `stream` (as returned
  /// by `getStreamForAsyncOp`), with `results` followed by the lowered async
  /// token, which is `stream` itself. A synchronous `op` has no token; unless
  /// its runtime call blocks the host by itself (`hostBlocking`), the host
  /// then synchronizes with `stream`. No stream is destroyed here.
  void replaceAsyncOp(gpu::AsyncOpInterface op, Value stream,
                      ValueRange results, ConversionPatternRewriter &rewriter,
                      bool hostBlocking = false) const;
};

/// A rewrite pattern to convert gpu.host_register operations into a GPU runtime
/// call. Currently it supports CUDA and ROCm (HIP).
class ConvertHostRegisterOpToGpuRuntimeCallPattern
    : public ConvertOpToGpuRuntimeCallPattern<gpu::HostRegisterOp> {
public:
  ConvertHostRegisterOpToGpuRuntimeCallPattern(
      const LLVMTypeConverter &typeConverter)
      : ConvertOpToGpuRuntimeCallPattern<gpu::HostRegisterOp>(typeConverter) {}

private:
  LogicalResult
  matchAndRewrite(gpu::HostRegisterOp hostRegisterOp, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

class ConvertHostUnregisterOpToGpuRuntimeCallPattern
    : public ConvertOpToGpuRuntimeCallPattern<gpu::HostUnregisterOp> {
public:
  ConvertHostUnregisterOpToGpuRuntimeCallPattern(
      const LLVMTypeConverter &typeConverter)
      : ConvertOpToGpuRuntimeCallPattern<gpu::HostUnregisterOp>(typeConverter) {
  }

private:
  LogicalResult
  matchAndRewrite(gpu::HostUnregisterOp hostUnregisterOp, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

/// A rewrite pattern to convert gpu.alloc operations into a GPU runtime
/// call. Currently it supports CUDA and ROCm (HIP).
class ConvertAllocOpToGpuRuntimeCallPattern
    : public ConvertOpToGpuRuntimeCallPattern<gpu::AllocOp> {
public:
  ConvertAllocOpToGpuRuntimeCallPattern(const LLVMTypeConverter &typeConverter)
      : ConvertOpToGpuRuntimeCallPattern<gpu::AllocOp>(typeConverter) {}

private:
  LogicalResult
  matchAndRewrite(gpu::AllocOp allocOp, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

/// A rewrite pattern to convert gpu.dealloc operations into a GPU runtime
/// call. Currently it supports CUDA and ROCm (HIP).
class ConvertDeallocOpToGpuRuntimeCallPattern
    : public ConvertOpToGpuRuntimeCallPattern<gpu::DeallocOp> {
public:
  ConvertDeallocOpToGpuRuntimeCallPattern(
      const LLVMTypeConverter &typeConverter)
      : ConvertOpToGpuRuntimeCallPattern<gpu::DeallocOp>(typeConverter) {}

private:
  LogicalResult
  matchAndRewrite(gpu::DeallocOp deallocOp, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

class ConvertAsyncYieldToGpuRuntimeCallPattern
    : public ConvertOpToGpuRuntimeCallPattern<async::YieldOp> {
public:
  ConvertAsyncYieldToGpuRuntimeCallPattern(
      const LLVMTypeConverter &typeConverter, PatternBenefit benefit = 1)
      : ConvertOpToGpuRuntimeCallPattern<async::YieldOp>(typeConverter,
                                                         benefit) {}

private:
  LogicalResult
  matchAndRewrite(async::YieldOp yieldOp, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

/// A rewrite pattern to convert gpu.wait operations into a GPU runtime
/// call. Currently it supports CUDA and ROCm (HIP).
class ConvertWaitOpToGpuRuntimeCallPattern
    : public ConvertOpToGpuRuntimeCallPattern<gpu::WaitOp> {
public:
  ConvertWaitOpToGpuRuntimeCallPattern(const LLVMTypeConverter &typeConverter)
      : ConvertOpToGpuRuntimeCallPattern<gpu::WaitOp>(typeConverter) {}

private:
  LogicalResult
  matchAndRewrite(gpu::WaitOp waitOp, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

/// A rewrite pattern to convert gpu.wait async operations into a GPU runtime
/// call. Currently it supports CUDA and ROCm (HIP).
class ConvertWaitAsyncOpToGpuRuntimeCallPattern
    : public ConvertOpToGpuRuntimeCallPattern<gpu::WaitOp> {
public:
  ConvertWaitAsyncOpToGpuRuntimeCallPattern(
      const LLVMTypeConverter &typeConverter)
      : ConvertOpToGpuRuntimeCallPattern<gpu::WaitOp>(typeConverter) {}

private:
  LogicalResult
  matchAndRewrite(gpu::WaitOp waitOp, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

/// A rewrite pattern to convert gpu.on_stream operations into GPU runtime
/// calls on its stream, with its body inlined into the parent.
class ConvertOnStreamOpToGpuRuntimeCallPattern
    : public ConvertOpToGpuRuntimeCallPattern<gpu::OnStreamOp> {
public:
  ConvertOnStreamOpToGpuRuntimeCallPattern(
      const LLVMTypeConverter &typeConverter)
      : ConvertOpToGpuRuntimeCallPattern<gpu::OnStreamOp>(typeConverter) {}

private:
  LogicalResult
  matchAndRewrite(gpu::OnStreamOp onStreamOp, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

/// A rewrite patter to legalize gpu.launch_func with LLVM types.
class LegalizeLaunchFuncOpPattern
    : public ConvertOpToGpuRuntimeCallPattern<gpu::LaunchFuncOp> {
public:
  LegalizeLaunchFuncOpPattern(const LLVMTypeConverter &typeConverter,
                              bool kernelBarePtrCallConv,
                              bool kernelIntersperseSizeCallConv)
      : ConvertOpToGpuRuntimeCallPattern<gpu::LaunchFuncOp>(typeConverter),
        kernelBarePtrCallConv(kernelBarePtrCallConv),
        kernelIntersperseSizeCallConv(kernelIntersperseSizeCallConv) {}

private:
  LogicalResult
  matchAndRewrite(gpu::LaunchFuncOp launchOp, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;

  bool kernelBarePtrCallConv;
  bool kernelIntersperseSizeCallConv;
};

/// A rewrite pattern to convert gpu.memcpy operations into a GPU runtime
/// call. Currently it supports CUDA and ROCm (HIP).
class ConvertMemcpyOpToGpuRuntimeCallPattern
    : public ConvertOpToGpuRuntimeCallPattern<gpu::MemcpyOp> {
public:
  ConvertMemcpyOpToGpuRuntimeCallPattern(const LLVMTypeConverter &typeConverter)
      : ConvertOpToGpuRuntimeCallPattern<gpu::MemcpyOp>(typeConverter) {}

private:
  LogicalResult
  matchAndRewrite(gpu::MemcpyOp memcpyOp, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

/// A rewrite pattern to convert gpu.memset operations into a GPU runtime
/// call. Currently it supports CUDA and ROCm (HIP).
class ConvertMemsetOpToGpuRuntimeCallPattern
    : public ConvertOpToGpuRuntimeCallPattern<gpu::MemsetOp> {
public:
  ConvertMemsetOpToGpuRuntimeCallPattern(const LLVMTypeConverter &typeConverter)
      : ConvertOpToGpuRuntimeCallPattern<gpu::MemsetOp>(typeConverter) {}

private:
  LogicalResult
  matchAndRewrite(gpu::MemsetOp memsetOp, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

/// A rewrite pattern to convert gpu.set_default_device to a GPU runtime call.
/// Currently supports CUDA and ROCm (HIP)
class ConvertSetDefaultDeviceOpToGpuRuntimeCallPattern
    : public ConvertOpToGpuRuntimeCallPattern<gpu::SetDefaultDeviceOp> {
public:
  ConvertSetDefaultDeviceOpToGpuRuntimeCallPattern(
      const LLVMTypeConverter &typeConverter)
      : ConvertOpToGpuRuntimeCallPattern<gpu::SetDefaultDeviceOp>(
            typeConverter) {}

  LogicalResult
  matchAndRewrite(gpu::SetDefaultDeviceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

/// Generic rewriting rule for operation on sparse matrices.
/// Currently supports CUDA (by means of cuSparse and cuSparseLt).
#define DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(op_name)                \
  class Convert##op_name##ToGpuRuntimeCallPattern                              \
      : public ConvertOpToGpuRuntimeCallPattern<gpu::op_name> {                \
  public:                                                                      \
    Convert##op_name##ToGpuRuntimeCallPattern(                                 \
        const LLVMTypeConverter &typeConverter)                                \
        : ConvertOpToGpuRuntimeCallPattern<gpu::op_name>(typeConverter) {}     \
                                                                               \
  private:                                                                     \
    LogicalResult                                                              \
    matchAndRewrite(gpu::op_name op, OpAdaptor adaptor,                        \
                    ConversionPatternRewriter &rewriter) const override;       \
  };

DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(CreateDnTensorOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(DestroyDnTensorOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(CreateCooOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(CreateCooAoSOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(CreateCsrOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(CreateCscOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(CreateBsrOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(Create2To4SpMatOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(DestroySpMatOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(SpMVBufferSizeOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(SpMVOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(SpMMBufferSizeOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(SDDMMBufferSizeOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(SpMMOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(SDDMMOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(SpGEMMCreateDescrOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(SpGEMMDestroyDescrOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(SpGEMMWorkEstimationOrComputeOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(SpGEMMCopyOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(SpMatGetSizeOp)
DECLARE_CONVERT_OP_TO_GPU_RUNTIME_CALL_PATTERN(SetCsrPointersOp)

} // namespace

/// Walks the ops nested in `root` that run on the host, in pre-order: the
/// bodies of gpu.module ops are device code, which this pass leaves alone.
static WalkResult walkHostOps(Operation *root,
                              function_ref<WalkResult(Operation *)> callback) {
  return root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::GPUModuleOp>(op))
      return WalkResult::skip();
    return callback(op);
  });
}

/// Emits an error on each function of the host code nested in `root` that the
/// conversion left as a func.func: one whose signature has no LLVM type, such
/// as a memref in a memory space that the type converter cannot map to an
/// address space (the converter reports that without a location, and the
/// function stays).
static LogicalResult checkHostFunctionsLowered(Operation *root) {
  bool found = false;
  walkHostOps(root, [&](Operation *op) {
    if (!isa<func::FuncOp>(op))
      return WalkResult::advance();
    op->emitOpError("was not lowered to LLVM");
    found = true;
    return WalkResult::skip();
  });
  return failure(found);
}

/// Returns whether `user` is in a region of the terminator of the block that
/// defines the async token `token` (a token of an scf.parallel body used in
/// the region of its scf.reduce). Such a region runs after the block, possibly
/// several times or not at all.
static bool isInTerminatorRegion(Value token, Operation *user) {
  Block *block = token.getParentBlock();
  Operation *terminator =
      block->mightHaveTerminator() ? block->getTerminator() : nullptr;
  return terminator && terminator->isProperAncestor(user);
}

/// Completes the GPU work of each async token that is used in a region of the
/// terminator of its block before that terminator: no use in such a region
/// can consume the token's stream, as the region may run any number of times.
/// The host waits for the token before the terminator (unless the block
/// does). In the region, a gpu.wait drops the token (a synchronous one left
/// without dependencies is erased) and any other user takes the token of a new
/// stream instead (`gpu.wait async`): the work it depended on is complete when
/// it runs.
static void completeTokensUsedInTerminatorRegions(Operation *root) {
  llvm::SetVector<Value> tokens;
  llvm::SetVector<Operation *> waits;
  SmallVector<OpOperand *> uses;
  walkHostOps(root, [&](Operation *op) {
    for (OpOperand &operand : op->getOpOperands()) {
      Value token = operand.get();
      if (!isa<gpu::AsyncTokenType>(token.getType()) ||
          !isInTerminatorRegion(token, op))
        continue;
      tokens.insert(token);
      if (isa<gpu::WaitOp>(op))
        waits.insert(op);
      else
        uses.push_back(&operand);
    }
    return WalkResult::advance();
  });
  for (Value token : tokens) {
    Block *block = token.getParentBlock();
    // The block may wait for the token on the host already.
    if (llvm::any_of(token.getUsers(), [&](Operation *user) {
          auto wait = dyn_cast<gpu::WaitOp>(user);
          return wait && !wait.getAsyncToken() && wait->getBlock() == block;
        }))
      continue;
    Operation *terminator = block->getTerminator();
    LDBG() << "host wait before '" << terminator->getName()
           << "' for a token used in its region, defined at " << token.getLoc();
    OpBuilder builder(terminator);
    gpu::WaitOp::create(builder, terminator->getLoc(), Type(), token);
  }
  for (OpOperand *use : uses) {
    LDBG() << "new stream for '" << use->getOwner()->getName()
           << "' in a terminator's region at " << use->getOwner()->getLoc();
    OpBuilder builder(use->getOwner());
    use->set(gpu::WaitOp::create(builder, use->getOwner()->getLoc(),
                                 use->get().getType(), ValueRange())
                 .getAsyncToken());
  }
  for (Operation *op : waits) {
    auto wait = cast<gpu::WaitOp>(op);
    SmallVector<Value> dependencies;
    for (Value dependency : wait.getAsyncDependencies())
      if (!isInTerminatorRegion(dependency, wait))
        dependencies.push_back(dependency);
    if (dependencies.empty() && !wait.getAsyncToken()) {
      wait.erase();
      continue;
    }
    wait.getAsyncDependenciesMutable().assign(dependencies);
  }
}

/// Returns whether the async token `token` lowers to a stream. The token of an
/// async GPU op lowers to the stream that the op's work was enqueued on; all
/// other tokens (block arguments, results of calls, of region ops and of
/// `async.await`) lower to events.
static bool isStreamToken(Value token) {
  auto producer = token.getDefiningOp<gpu::AsyncOpInterface>();
  return producer && producer.getAsyncToken() == token;
}

/// Emits an error on each use, other than by gpu.wait (an event, as upstream)
/// or as a launch's stream, of a token that may be a stream made outside: a
/// cast, or an argument of a function with a C interface.
static LogicalResult checkOutsideStreamTokens(Operation *root) {
  SmallVector<Value> tokens;
  root->walk([&](Operation *op) {
    if (isa<UnrealizedConversionCastOp>(op))
      llvm::append_range(tokens, op->getResults());
    else if (op->hasAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName()))
      for (Region &region : op->getRegions())
        llvm::append_range(tokens, region.getArguments());
  });
  bool found = false;
  for (Value token : tokens)
    for (Operation *user : token.getUsers()) {
      auto launch = dyn_cast<gpu::LaunchFuncOp>(user);
      if (!isa<gpu::AsyncTokenType>(token.getType()) ||
          isa<gpu::WaitOp>(user) ||
          (launch && launch.getAsyncObject() == token))
        continue;
      found = true;
      user->emitOpError("cannot be lowered to GPU runtime calls: it uses an "
                        "async token that may be a stream made outside (a C "
                        "interface, a cast) as an event");
    }
  return failure(found);
}

/// Returns whether `use` is the explicit stream (`asyncObject`) of a launch.
static bool isExplicitStreamUse(OpOperand &use) {
  auto launch = dyn_cast<gpu::LaunchFuncOp>(use.getOwner());
  if (!launch)
    return false;
  MutableOperandRange stream = launch.getAsyncObjectMutable();
  return stream.size() == 1 &&
         stream[0].getOperandNumber() == use.getOperandNumber();
}

/// Emits an error on each launch whose explicit stream is an async token that
/// is not an argument of the function, or that something else uses as a
/// token. Frontends that type the stream argument of a host function as a
/// token launch on it (`gpu.launch_func <%arg : !gpu.async.token>`): such a
/// token is the caller's stream, not an event, so it must not be waited for
/// or destroyed as one.
static LogicalResult checkExplicitStreamTokens(Operation *root) {
  WalkResult result = root->walk([](gpu::LaunchFuncOp launch) -> WalkResult {
    Value stream = launch.getAsyncObject();
    if (!stream || !isa<gpu::AsyncTokenType>(stream.getType()))
      return WalkResult::advance();
    auto argument = dyn_cast<BlockArgument>(stream);
    if (!argument || !argument.getOwner()->isEntryBlock() ||
        !isa<FunctionOpInterface>(argument.getOwner()->getParentOp()))
      return launch.emitOpError("cannot be lowered to GPU runtime calls: its "
                                "stream is an async token that is not an "
                                "argument of the function");
    if (!llvm::all_of(stream.getUses(), isExplicitStreamUse))
      return launch.emitOpError("cannot be lowered to GPU runtime calls: its "
                                "stream is an async token that is also used "
                                "as a token");
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Returns whether `token` is the entry token of a gpu.on_stream body.
static bool isOnStreamEntryToken(Value token) {
  auto argument = dyn_cast<BlockArgument>(token);
  return argument && argument.getOwner()->isEntryBlock() &&
         isa<gpu::OnStreamOp>(argument.getOwner()->getParentOp());
}

/// Returns the op whose region receives the body of `onStreamOp` when it is
/// inlined: its parent, or where the parent is a gpu.on_stream whose body has
/// one block (inlined in place), that op's receiver.
static Operation *getOnStreamReceiver(gpu::OnStreamOp onStreamOp) {
  Operation *parent = onStreamOp->getParentOp();
  auto outer = dyn_cast<gpu::OnStreamOp>(parent);
  if (outer && outer.getBody().hasOneBlock())
    return getOnStreamReceiver(outer);
  return parent;
}

/// Returns whether the body of `onStreamOp` can be inlined where it is: in
/// place (one block), as blocks of a region that may have several (of a
/// function, an scf.execute_region or a gpu.on_stream), or in an
/// scf.execute_region in an SCF op, which -convert-scf-to-cf lowers with it.
/// The region of another op may have to keep one block (async.execute).
static bool canInlineOnStreamBody(gpu::OnStreamOp onStreamOp) {
  if (onStreamOp.getBody().hasOneBlock())
    return true;
  Operation *receiver = getOnStreamReceiver(onStreamOp);
  return isa<FunctionOpInterface, scf::ExecuteRegionOp, gpu::OnStreamOp>(
             receiver) ||
         isa<scf::SCFDialect>(receiver->getDialect());
}

/// Fails, with an error, on a gpu.on_stream whose body cannot be inlined
/// (see canInlineOnStreamBody).
static LogicalResult checkOnStreamBodies(Operation *root) {
  WalkResult result = root->walk([](gpu::OnStreamOp onStreamOp) {
    if (canInlineOnStreamBody(onStreamOp))
      return WalkResult::advance();
    onStreamOp.emitOpError()
        << "has a body of several blocks, which cannot be inlined into '"
        << getOnStreamReceiver(onStreamOp)->getName()
        << "' (its region may have to keep one block); outline that op "
           "first";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// Orders every GPU op in the body of each gpu.on_stream after the work that
/// was enqueued on its stream before the op, as the op requires, also where
/// the input does not say so: a token-based or synchronous GPU op gets the
/// entry token as a dependency unless one of its dependencies is the token
/// of an op of the same block that is ordered after it already. Otherwise an
/// op whose dependencies all come from elsewhere (tokens from outside the
/// body, a loop's iter_arg), or that has none, would start on a stream that
/// does not wait for the caller's work, and would escape a graph capture of
/// that stream. A host `gpu.wait` and a launch on a stream of its own (an
/// `asyncObject`) are left as they are.
static void orderOnStreamBodiesAfterEntry(Operation *root) {
  SmallVector<gpu::OnStreamOp> onStreamOps;
  walkHostOps(root, [&](Operation *op) {
    if (auto onStreamOp = dyn_cast<gpu::OnStreamOp>(op))
      onStreamOps.push_back(onStreamOp);
    return WalkResult::advance();
  });
  for (gpu::OnStreamOp onStreamOp : onStreamOps) {
    Value entry = onStreamOp.getEntryToken();
    onStreamOp->walk([&](Block *block) {
      llvm::SmallDenseSet<Value, 8> ordered = {entry};
      for (Operation &op : *block) {
        auto asyncOp = dyn_cast<gpu::AsyncOpInterface>(&op);
        auto launch = dyn_cast<gpu::LaunchFuncOp>(&op);
        auto wait = dyn_cast<gpu::WaitOp>(&op);
        if (!asyncOp || (wait && !wait.getAsyncToken()) ||
            (launch && launch.getAsyncObject()))
          continue;
        if (llvm::none_of(asyncOp.getAsyncDependencies(),
                          [&](Value token) { return ordered.contains(token); }))
          asyncOp.addAsyncDependency(entry);
        if (Value token = asyncOp.getAsyncToken())
          ordered.insert(token);
      }
    });
  }
}

/// Replaces each `arith.select` of two async tokens (canonicalization makes
/// one of an scf.if that yields one of two tokens) by a `gpu.wait async` on
/// both: waiting for either one's work is implied by waiting for both, and
/// each event keeps one consumer, while a select would consume the event it
/// picks and leak the other.
static void joinSelectedTokens(Operation *root) {
  SmallVector<arith::SelectOp> selects;
  walkHostOps(root, [&](Operation *op) {
    auto select = dyn_cast<arith::SelectOp>(op);
    if (select && isa<gpu::AsyncTokenType>(select.getType()))
      selects.push_back(select);
    return WalkResult::advance();
  });
  for (arith::SelectOp select : selects) {
    LDBG() << "join of the two tokens of the select at " << select.getLoc();
    OpBuilder builder(select);
    auto join = gpu::WaitOp::create(
        builder, select.getLoc(), select.getType(),
        ValueRange{select.getTrueValue(), select.getFalseValue()});
    select.replaceAllUsesWith(join.getAsyncToken());
    select.erase();
  }
}

/// Gives each event token exactly one consumer. Tokens that are not produced
/// by an async GPU op (block arguments, results of region ops and calls,
/// `async.await`) lower to events, and the op that uses an event destroys it,
/// so an event token must have exactly one consumer, an op in the block that
/// defines it: either a GPU op, which consumes it once however often it lists
/// it, or an op that passes it on across a region boundary (a terminator, a
/// call, a loop's initial value) as a single operand, which hands it over.
/// Anything else is rewritten here:
///  - a token that is never used gets an unused `gpu.wait async`, which only
///    releases the event;
///  - a token used by several ops, passed on as several operands (each would
///    hand over the same event), from a nested region (which may run zero
///    times, or many), or by a conditional branch (which may pass it along
///    one edge only) becomes a stream right after its definition:
///    `gpu.wait async [%event]`; streams can be used any number of times.
static void normalizeEventTokens(Operation *root) {
  SmallVector<Value> events;
  walkHostOps(root, [&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          if (isa<gpu::AsyncTokenType>(argument.getType()))
            events.push_back(argument);
    for (Value result : op->getResults())
      if (isa<gpu::AsyncTokenType>(result.getType()) && !isStreamToken(result))
        events.push_back(result);
    return WalkResult::advance();
  });
  for (Value event : events) {
    // The caller's stream, passed in as a token (checkExplicitStreamTokens).
    if (llvm::any_of(event.getUses(), isExplicitStreamUse))
      continue;
    // An unused entry token of gpu.on_stream gets no event at all.
    if (event.use_empty() && isOnStreamEntryToken(event))
      continue;
    Block *block = event.getParentBlock();
    auto users = llvm::to_vector(event.getUsers());
    if (llvm::all_equal(users) && !users.empty() &&
        users.front()->getBlock() == block &&
        users.front()->getNumSuccessors() < 2 &&
        (event.hasOneUse() || isa<gpu::AsyncOpInterface>(users.front())))
      continue;
    LDBG() << "event token defined at " << event.getLoc() << ", with "
           << users.size() << " user(s), made a stream";
    OpBuilder builder(event.getContext());
    if (auto argument = dyn_cast<BlockArgument>(event))
      builder.setInsertionPointToStart(block);
    else
      builder.setInsertionPointAfter(event.getDefiningOp());
    auto wait = gpu::WaitOp::create(builder, event.getLoc(), event.getType(),
                                    ValueRange(event));
    if (!users.empty())
      event.replaceAllUsesExcept(wait.getAsyncToken(), wait);
  }
}

/// Makes implicit forks explicit. An async op runs on the stream of its first
/// stream dependency (see getStreamForAsyncOp). That is only right if nothing
/// else was enqueued on that stream since the dependency's producer, or if the
/// op depends on what was: otherwise it would wait for unrelated work, and
/// several users of one token would run one after the other. So, block by
/// block, track the last token of each stream: an op that depends on such a
/// last token gets that dependency first and continues the stream; an op that
/// does not gets its first stream dependency through a `gpu.wait async`, i.e.
/// a new stream that waits for an event recorded after the dependency's
/// producer. Dependencies produced in other blocks are never continued.
static void makeForksExplicit(Block &block) {
  // The stream of each token produced in this block, and the last token of
  // each stream.
  DenseMap<Value, unsigned> streamOf;
  SmallVector<Value> lastToken;
  auto startStream = [&](Value token) {
    streamOf[token] = lastToken.size();
    lastToken.push_back(token);
  };
  for (Operation &op : block) {
    auto asyncOp = dyn_cast<gpu::AsyncOpInterface>(&op);
    if (!asyncOp || !asyncOp.getAsyncToken())
      continue;
    Value token = asyncOp.getAsyncToken();
    SmallVector<OpOperand *> streamDeps;
    for (OpOperand &operand : op.getOpOperands())
      if (isa<gpu::AsyncTokenType>(operand.get().getType()) &&
          isStreamToken(operand.get()))
        streamDeps.push_back(&operand);
    // gpu.wait async always starts a stream; so does an op without stream
    // dependencies.
    if (isa<gpu::WaitOp>(op) || streamDeps.empty()) {
      startStream(token);
      continue;
    }
    auto continued = llvm::find_if(streamDeps, [&](OpOperand *operand) {
      auto it = streamOf.find(operand->get());
      return it != streamOf.end() && lastToken[it->second] == operand->get();
    });
    unsigned stream;
    if (continued != streamDeps.end()) {
      // Run on that stream: make it the first stream dependency.
      Value last = (*continued)->get();
      (*continued)->set(streamDeps.front()->get());
      streamDeps.front()->set(last);
      stream = streamOf[last];
    } else {
      LDBG() << "fork: '" << op.getName() << "' at " << op.getLoc()
             << " runs on a stream of its own";
      OpBuilder builder(&op);
      Value fork = gpu::WaitOp::create(builder, op.getLoc(), token.getType(),
                                       streamDeps.front()->get())
                       .getAsyncToken();
      streamDeps.front()->set(fork);
      startStream(fork);
      stream = streamOf[fork];
    }
    streamOf[token] = stream;
    lastToken[stream] = token;
  }
}

/// Makes the forks in the host code nested in `root` explicit, block by block.
static void makeForksExplicit(Operation *root) {
  walkHostOps(root, [](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        makeForksExplicit(block);
    return WalkResult::advance();
  });
}

/// Returns the `mgpuStreamCreate` calls nested in `root` that the patterns
/// emitted (see GpuRuntimeCallBuilders::createStream), and removes their mark.
static SmallVector<LLVM::CallOp> takeLoweredStreams(Operation *root) {
  SmallVector<LLVM::CallOp> streams;
  root->walk([&](LLVM::CallOp call) {
    if (call->removeAttr(
            gpu::GPUDialect::LoweredStreamAttrHelper::getNameStr()))
      streams.push_back(call);
  });
  LDBG() << streams.size() << " stream(s) created by the patterns";
  return streams;
}

/// Returns whether `op` uses a stream as a stream: a runtime call, or a
/// `gpu.launch_func` (lowered later, by the translation to LLVM IR).
static bool isRuntimeUse(Operation *op,
                         const GpuRuntimeCallBuilders &builders) {
  return builders.isRuntimeCall(op) || isa<gpu::LaunchFuncOp>(op);
}

/// Gives each `async.execute` body that uses a stream of `streams` created
/// outside of it a stream of its own: the body runs on another thread,
/// possibly after this one destroyed the stream. An event is recorded on the
/// stream before the outermost such `async.execute`, and the body starts with
/// a new stream that waits for that event. The new streams are added to
/// `streams` and handled in turn (for nested bodies).
static void
localizeStreamsInExecuteBodies(SmallVectorImpl<LLVM::CallOp> &streams,
                               const GpuRuntimeCallBuilders &builders) {
  SmallVector<LLVM::CallOp> worklist(streams.begin(), streams.end());
  streams.clear();
  while (!worklist.empty()) {
    LLVM::CallOp create = worklist.pop_back_val();
    streams.push_back(create);
    Value stream = create.getResult();
    Location loc = create.getLoc();
    Region *region = create->getParentRegion();

    // Uses in async.execute bodies, by outermost async.execute.
    llvm::MapVector<Operation *, SmallVector<OpOperand *>> usesInExecute;
    for (OpOperand &use : stream.getUses()) {
      Operation *user = use.getOwner();
      Operation *ancestor = region->findAncestorOpInRegion(*user);
      Operation *execute = nullptr;
      for (Operation *op = user; op != ancestor;) {
        op = op->getParentOp();
        if (isa<async::ExecuteOp>(op))
          execute = op;
      }
      if (execute)
        usesInExecute[execute].push_back(&use);
    }
    for (auto &[execute, uses] : usesInExecute) {
      LDBG() << "stream created at " << loc << " used in the async.execute at "
             << execute->getLoc() << ": the body gets a stream of its own";
      OpBuilder builder(execute);
      Value event = builders.recordEvent(loc, builder, stream);
      builder.setInsertionPointToStart(
          &cast<async::ExecuteOp>(execute).getBodyRegion().front());
      LLVM::CallOp local =
          builders.streamCreateCallBuilder.create(loc, builder, {});
      builders.streamWaitEventCallBuilder.create(loc, builder,
                                                 {local.getResult(), event});
      builders.eventDestroyCallBuilder.create(loc, builder, {event});
      for (OpOperand *use : uses)
        use->set(local.getResult());
      worklist.push_back(local);
    }
  }
}

/// Passes an event instead of each stream of `streams` that would leave its
/// region: an op that uses the stream other than as a stream (a terminator
/// such as `scf.yield` or `llvm.return`, a call, a loop's initial value) gets
/// an event recorded on it right before, and a branch gets one on the edge
/// that passes the stream, in a new block. The receiver owns the event (see
/// normalizeEventTokens).
static void passEventsAcrossRegions(ArrayRef<LLVM::CallOp> streams,
                                    const GpuRuntimeCallBuilders &builders) {
  for (LLVM::CallOp create : streams) {
    Value stream = create.getResult();
    Location loc = create.getLoc();
    SetVector<Operation *> crossing;
    for (Operation *user : stream.getUsers())
      if (!isRuntimeUse(user, builders))
        crossing.insert(user);
    for (Operation *user : crossing) {
      LDBG() << "stream created at " << loc << " passed to '" << user->getName()
             << "' as an event recorded on it";
      OpBuilder builder(user);
      auto branch = dyn_cast<BranchOpInterface>(user);
      for (unsigned i = 0, e = branch ? user->getNumSuccessors() : 0; i < e;
           ++i) {
        MutableOperandRange forwarded =
            branch.getSuccessorOperands(i).getMutableForwardedOperands();
        OperandRange range = forwarded;
        SmallVector<Value> operands(range.begin(), range.end());
        if (!llvm::is_contained(operands, stream))
          continue;
        Block *successor = user->getSuccessor(i);
        Block *edge = builder.createBlock(successor);
        for (Value &operand : operands)
          if (operand == stream)
            operand = builders.recordEvent(loc, builder, stream);
        LLVM::BrOp::create(builder, loc, operands, successor);
        forwarded.clear();
        user->setSuccessor(edge, i);
      }
      for (OpOperand &use : user->getOpOperands())
        if (use.get() == stream) {
          builder.setInsertionPoint(user);
          use.set(builders.recordEvent(loc, builder, stream));
        }
    }
  }
}

/// Gives each stream of `streams` exactly one `mgpuStreamDestroy` on every
/// path, right after its last use, by liveness: after the last use in a block
/// where it is not live-out, and on each control-flow edge along which it
/// stops being live (splitting the edge if the successor has other
/// predecessors). A use nested in an op (an `scf.if` body) counts as a use by
/// that op. CUDA releases a stream's resources once its pending work
/// completes, so destroying it after its last host-side use is safe.
static void placeStreamDestroys(Operation *root, ArrayRef<LLVM::CallOp> streams,
                                const GpuRuntimeCallBuilders &builders) {
  if (streams.empty())
    return;

  Liveness liveness(root);
  // The blocks the liveness is about; edges split below are added to
  // `edgeBlocks`, each with a single predecessor and a branch to the original
  // successor.
  DenseMap<Region *, SmallVector<Block *>> blocksOf;
  for (LLVM::CallOp create : streams) {
    Region *region = create->getParentRegion();
    if (!blocksOf.count(region))
      blocksOf[region] =
          llvm::map_to_vector(*region, [](Block &block) { return &block; });
  }
  DenseSet<Block *> edgeBlocks;
  for (LLVM::CallOp create : streams) {
    Value stream = create.getResult();
    Location loc = create.getLoc();
    Region *region = create->getParentRegion();
    // The last op of each block that uses the stream, directly or nested.
    DenseMap<Block *, Operation *> lastUse;
    lastUse[create->getBlock()] = create;
    for (Operation *user : stream.getUsers()) {
      Operation *ancestor = region->findAncestorOpInRegion(*user);
      Operation *&last = lastUse[ancestor->getBlock()];
      if (!last || last->isBeforeInBlock(ancestor))
        last = ancestor;
    }
    for (Block *block : blocksOf[region]) {
      bool liveOut = liveness.getLiveOut(block).contains(stream);
      auto it = lastUse.find(block);
      if (!liveOut) {
        if (it != lastUse.end()) {
          LDBG() << "stream created at " << loc << " destroyed after '"
                 << it->second->getName() << "' at " << it->second->getLoc();
          OpBuilder builder(it->second->getContext());
          builder.setInsertionPointAfter(it->second);
          builders.streamDestroyCallBuilder.create(loc, builder, {stream});
        }
        continue;
      }
      // Live out of this block: destroy it on each edge to a successor where
      // it is no longer live, splitting the edge if needed.
      Operation *terminator = block->getTerminator();
      for (unsigned i = 0, e = terminator->getNumSuccessors(); i < e; ++i) {
        Block *successor = terminator->getSuccessor(i);
        bool isEdge = edgeBlocks.contains(successor);
        Block *target =
            isEdge ? successor->getTerminator()->getSuccessor(0) : successor;
        if (liveness.getLiveIn(target).contains(stream))
          continue;
        LDBG() << "stream created at " << loc << " destroyed on edge " << i
               << " of '" << terminator->getName() << "' at "
               << terminator->getLoc();
        OpBuilder builder(terminator->getContext());
        if (isEdge || successor->getSinglePredecessor()) {
          builder.setInsertionPointToStart(successor);
          builders.streamDestroyCallBuilder.create(loc, builder, {stream});
          continue;
        }
        Block *edge = builder.createBlock(
            successor, successor->getArgumentTypes(),
            SmallVector<Location>(successor->getNumArguments(), loc));
        builders.streamDestroyCallBuilder.create(loc, builder, {stream});
        LLVM::BrOp::create(builder, loc, edge->getArguments(), successor);
        terminator->setSuccessor(edge, i);
        edgeBlocks.insert(edge);
      }
    }
  }
}

LogicalResult mlir::prepareGpuAsyncTokensForLLVM(Operation *root) {
  completeTokensUsedInTerminatorRegions(root);
  if (failed(checkExplicitStreamTokens(root)) ||
      failed(checkOnStreamBodies(root)))
    return failure();
  orderOnStreamBodiesAfterEntry(root);
  joinSelectedTokens(root);
  normalizeEventTokens(root);
  makeForksExplicit(root);
  return success();
}

void mlir::finalizeGpuStreamLifetimes(Operation *root,
                                      const LLVMTypeConverter &converter) {
  GpuRuntimeCallBuilders builders(root->getContext(),
                                  converter.getPointerBitwidth(0));
  SmallVector<LLVM::CallOp> streams = takeLoweredStreams(root);
  localizeStreamsInExecuteBodies(streams, builders);
  passEventsAcrossRegions(streams, builders);
  placeStreamDestroys(root, streams, builders);
}

void GpuToLLVMConversionPass::runOnOperation() {
  MLIRContext *context = &getContext();
  if (failed(checkOutsideStreamTokens(getOperation())))
    return signalPassFailure();

  // Perform progressive lowering of vector transfer operations.
  {
    RewritePatternSet patterns(&getContext());
    // Vector transfer ops with rank > 1 should be lowered with VectorToSCF.
    vector::populateVectorTransferLoweringPatterns(patterns,
                                                   /*maxTransferRank=*/1);
    // Transform N-D vector.from_elements to 1-D vector.from_elements before
    // conversion.
    vector::populateVectorFromElementsUnrollPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }

  LowerToLLVMOptions options(context);
  options.useBarePtrCallConv = hostBarePtrCallConv;
  RewritePatternSet patterns(context);
  ConversionTarget target(*context);
  target.addLegalDialect<LLVM::LLVMDialect>();
  LLVMTypeConverter converter(context, options);

  // Populate all patterns from all dialects that implement the
  // `ConvertToLLVMPatternInterface` interface.
  for (Dialect *dialect : context->getLoadedDialects()) {
    auto *iface = dyn_cast<ConvertToLLVMPatternInterface>(dialect);
    if (!iface)
      continue;
    iface->populateConvertToLLVMConversionPatterns(target, converter, patterns);
  }

  if (failed(prepareGpuAsyncTokensForLLVM(getOperation())))
    return signalPassFailure();

  // The host-side GPU ops this pass lowers to runtime calls (the async ops,
  // gpu.on_stream, host registration, device selection; gpu.launch must have
  // been outlined) are illegal: one that is left is an error, not silently
  // kept. So is a gpu.conditional_execution on the host, which
  // -gpu-resolve-conditional-execution replaces by its host region. Other GPU
  // ops stay legal (e.g. gpu.warp_execute_on_lane_0, whose body is lowered).
  target.addDynamicallyLegalDialect<gpu::GPUDialect>([](Operation *op) {
    if (op->getParentOfType<gpu::GPUModuleOp>())
      return true;
    return !isa<gpu::AsyncOpInterface, gpu::ConditionalExecutionOp,
                gpu::HostRegisterOp, gpu::HostUnregisterOp, gpu::OnStreamOp,
                gpu::OnStreamYieldOp, gpu::SetDefaultDeviceOp>(op);
  });
  // Preserve GPU modules and binaries. Modules are preserved as they can be
  // converted later by `gpu-module-to-binary`.
  target.addLegalOp<gpu::GPUModuleOp, gpu::BinaryOp>();
  // Accept as legal LaunchFuncOps if the operands have been lowered.
  target.addDynamicallyLegalOp<gpu::LaunchFuncOp>(
      [&](gpu::LaunchFuncOp op) -> bool { return converter.isLegal(op); });

  // These aren't covered by the ConvertToLLVMPatternInterface right now.
  populateVectorToLLVMConversionPatterns(converter, patterns);
  populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
  populateAsyncStructuralTypeConversionsAndLegality(converter, patterns,
                                                    target);
  // SCF ops that carry async tokens (loop-carried values, results) are
  // converted like function signatures; others are left to later passes.
  scf::populateSCFStructuralTypeConversions(converter, patterns);
  target.addDynamicallyLegalOp<scf::ForOp, scf::IfOp, scf::IndexSwitchOp,
                               scf::ExecuteRegionOp, scf::WhileOp,
                               scf::ConditionOp, scf::YieldOp, scf::ParallelOp,
                               scf::ReduceOp, scf::ReduceReturnOp>(
      [](Operation *op) {
        auto isToken = [](Type type) { return isa<gpu::AsyncTokenType>(type); };
        return llvm::none_of(op->getOperandTypes(), isToken) &&
               llvm::none_of(op->getResultTypes(), isToken);
      });
  populateGpuToLLVMConversionPatterns(converter, patterns,
                                      kernelBarePtrCallConv,
                                      kernelIntersperseSizeCallConv);

  if (failed(applyPartialConversion(getOperation(), target,
                                    std::move(patterns))) ||
      failed(checkHostFunctionsLowered(getOperation())))
    return signalPassFailure();
  finalizeGpuStreamLifetimes(getOperation(), converter);
}

LLVM::CallOp FunctionCallBuilder::create(Location loc, OpBuilder &builder,
                                         ArrayRef<Value> arguments) const {
  auto module = builder.getBlock()->getParent()->getParentOfType<ModuleOp>();
  auto function = [&] {
    if (auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(functionName))
      return function;
    auto builder = OpBuilder::atBlockEnd(module.getBody());
    return LLVM::LLVMFuncOp::create(builder, loc, functionName, functionType);
  }();
  // The runtime functions take generic pointers: pass the pointers of
  // memrefs in other address spaces as generic ones.
  SmallVector<Value> operands(arguments);
  ArrayRef<Type> params = function.getFunctionType().getParams();
  for (unsigned i = 0, e = std::min(operands.size(), params.size()); i < e;
       ++i) {
    auto pointer = dyn_cast<LLVM::LLVMPointerType>(operands[i].getType());
    auto param = dyn_cast<LLVM::LLVMPointerType>(params[i]);
    if (pointer && param && param.getAddressSpace() == 0 &&
        pointer.getAddressSpace() != 0)
      operands[i] =
          LLVM::AddrSpaceCastOp::create(builder, loc, param, operands[i]);
  }
  return LLVM::CallOp::create(builder, loc, function, operands);
}

// Corresponding to cusparseIndexType_t defined in cusparse.h.
static int32_t getCuSparseIndexTypeFrom(Type type) {
  if (type.isInteger(16))
    return 1; // CUSPARSE_INDEX_16U
  if (type.isInteger(32))
    return 2; // CUSPARSE_INDEX_32I
  return 3;   // CUSPARSE_INDEX_64I
}

static int32_t getCuSparseLtDataTypeFrom(Type type) {
  if (type.isF16())
    return 0; // CUSPARSE_COMPUTE_16F,
  if (type.isInteger(32))
    return 1; // CUSPARSE_COMPUTE_32I
  llvm_unreachable("unsupported type");
  // TODO: add support to TF32
}

// Corresponding to cudaDataType_t defined in CUDA library_types.h.
static int32_t getCuSparseDataTypeFrom(Type type) {
  if (llvm::isa<ComplexType>(type)) {
    // get the element type
    auto elementType = cast<ComplexType>(type).getElementType();
    if (elementType.isBF16())
      return 15; // CUDA_C_16BF
    if (elementType.isF16())
      return 6; // CUDA_C_16F
    if (elementType.isF32())
      return 4; // CUDA_C_32F
    if (elementType.isF64())
      return 5; // CUDA_C_64F
    if (elementType.isInteger(8))
      return 7; // CUDA_C_8I
    if (elementType.isInteger(16))
      return 21; // CUDA_C_16I
    if (elementType.isInteger(32))
      return 11; // CUDA_C_32I
    if (elementType.isInteger(64))
      return 25; // CUDA_C_64I
  }
  if (type.isBF16())
    return 14; // CUDA_R_16BF
  if (type.isF16())
    return 2; // CUDA_R_16F
  if (type.isF32())
    return 0; // CUDA_R_32F
  if (type.isF64())
    return 1; // CUDA_R_64F
  if (type.isInteger(8))
    return 3; // CUDA_R_8I
  if (type.isInteger(16))
    return 20; // CUDA_R_16I
  if (type.isInteger(32))
    return 10; // CUDA_R_32I
  if (type.isInteger(64))
    return 24; // CUDA_R_64I

  llvm_unreachable("unsupported element type");
}

static gpu::Prune2To4SpMatFlag get2To4PruneFlag(Value spMat) {
  return spMat.getDefiningOp<gpu::Create2To4SpMatOp>().getPruneFlag();
}

// TODO:  We may want a run-time (of the mlir compiler) disablement/warning:
// cusparseLt currently won't work for cuda architecture <8.0 and will trigger a
// runtime (of the CUDA program) error , but it might be great if we could at
// least output a warning when we found the target architecture is <8.0 and the
// user still wants to use cusparseLt. to make sure when lowering gpu sparse
// dialect to llvm calls, the cusparselt calls are disabled for cuda
// architecture <8.0
/// Returns whether sparse matrix handle `spMat` has 2:4 sparsity (and lowers
/// to cusparseLt calls), or nothing if it was not created by a gpu.create_*
/// op in this function (a block argument, a value passed through a region op
/// or `async.await`): the lowering cannot tell which library it belongs to.
static std::optional<bool> is2To4Sparsity(Value spMat) {
  Operation *creator = spMat.getDefiningOp();
  if (isa_and_nonnull<gpu::Create2To4SpMatOp>(creator))
    return true;
  if (isa_and_nonnull<gpu::CreateCooOp, gpu::CreateCooAoSOp, gpu::CreateCsrOp,
                      gpu::CreateCscOp, gpu::CreateBsrOp>(creator))
    return false;
  return std::nullopt;
}

/// Returns whether dense tensor handle `dnTensor` is used by a gpu.spmm whose
/// sparse operand has 2:4 sparsity (it then lowers to cusparseLt calls), or
/// nothing if the sparsity of such an operand is not known.
static std::optional<bool> isSpMMCusparseLtOp(Value dnTensor) {
  bool result = false;
  for (Operation *user : dnTensor.getUsers()) {
    auto spmmOp = dyn_cast<gpu::SpMMOp>(user);
    if (!spmmOp)
      continue;
    std::optional<bool> is2To4 = is2To4Sparsity(spmmOp.getSpmatA());
    if (!is2To4)
      return std::nullopt;
    result |= *is2To4;
  }
  return result;
}

/// Returns whether `spMat`, a sparse matrix handle `op` uses, is a cusparseLt
/// matrix; a match failure (with the reason) if that cannot be told.
static FailureOr<bool> is2To4SparsityFor(Operation *op, Value spMat,
                                         ConversionPatternRewriter &rewriter) {
  if (std::optional<bool> is2To4 = is2To4Sparsity(spMat))
    return *is2To4;
  return rewriter.notifyMatchFailure(
      op, "the sparse matrix handle was not created by a gpu.create_* op in "
          "this function: cannot tell whether it is a cusparseLt matrix");
}

/// Returns whether dense tensor handle `dnTensor`, which `op` creates or
/// destroys, is a cusparseLt matrix (a 2-D tensor used by a gpu.spmm with a
/// 2:4 sparse matrix); a match failure (with the reason) if that cannot be
/// told.
static FailureOr<bool>
isCusparseLtDnTensorFor(Operation *op, Value dnTensor, size_t rank,
                        ConversionPatternRewriter &rewriter) {
  if (rank != 2)
    return false;
  if (std::optional<bool> cusparseLt = isSpMMCusparseLtOp(dnTensor))
    return *cusparseLt;
  return rewriter.notifyMatchFailure(
      op, "a gpu.spmm that uses the handle has a sparse matrix operand that "
          "was not created in this function: cannot tell whether it is a "
          "cusparseLt matrix");
}

// Returns whether all operands are of LLVM type.
static LogicalResult areAllLLVMTypes(Operation *op, ValueRange operands,
                                     ConversionPatternRewriter &rewriter) {
  if (!llvm::all_of(operands, [](Value value) {
        return LLVM::isCompatibleType(value.getType());
      }))
    return rewriter.notifyMatchFailure(
        op, "Cannot convert if operands aren't of LLVM type.");
  return success();
}

LogicalResult ConvertHostRegisterOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::HostRegisterOp hostRegisterOp, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  auto *op = hostRegisterOp.getOperation();
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();

  Location loc = op->getLoc();

  auto memRefType = hostRegisterOp.getValue().getType();
  auto elementType = cast<UnrankedMemRefType>(memRefType).getElementType();
  auto elementSize = getSizeInBytes(loc, elementType, rewriter);

  auto arguments = getTypeConverter()->promoteOperands(
      loc, op->getOperands(), adaptor.getOperands(), rewriter);
  arguments.push_back(elementSize);
  hostRegisterCallBuilder.create(loc, rewriter, arguments);

  rewriter.eraseOp(op);
  return success();
}

LogicalResult ConvertHostUnregisterOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::HostUnregisterOp hostUnregisterOp, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  Operation *op = hostUnregisterOp.getOperation();
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();

  Location loc = op->getLoc();

  auto memRefType = hostUnregisterOp.getValue().getType();
  auto elementType = cast<UnrankedMemRefType>(memRefType).getElementType();
  auto elementSize = getSizeInBytes(loc, elementType, rewriter);

  auto arguments = getTypeConverter()->promoteOperands(
      loc, op->getOperands(), adaptor.getOperands(), rewriter);
  arguments.push_back(elementSize);
  hostUnregisterCallBuilder.create(loc, rewriter, arguments);

  rewriter.eraseOp(op);
  return success();
}

LogicalResult ConvertAllocOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::AllocOp allocOp, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {

  MemRefType memRefType = allocOp.getType();

  if (failed(areAllLLVMTypes(allocOp, adaptor.getOperands(), rewriter)))
    return failure();
  if (!isConvertibleAndHasIdentityMaps(memRefType))
    return rewriter.notifyMatchFailure(
        allocOp, "the memref must have an identity layout and an LLVM type");

  auto loc = allocOp.getLoc();

  bool isShared = allocOp.getHostShared();

  if (isShared && allocOp.getAsyncToken())
    return rewriter.notifyMatchFailure(
        allocOp, "Host Shared allocation cannot be done async");

  // Get shape of the memref as values: static sizes are constant
  // values and dynamic sizes are passed to 'alloc' as operands.
  SmallVector<Value, 4> shape;
  SmallVector<Value, 4> strides;
  Value sizeBytes;
  getMemRefDescriptorSizes(loc, memRefType, adaptor.getDynamicSizes(), rewriter,
                           shape, strides, sizeBytes);

  // Allocate the underlying buffer and store a pointer to it in the MemRef
  // descriptor.
  Value stream =
      getStreamForAsyncOp(allocOp, adaptor.getAsyncDependencies(), rewriter);

  auto isHostShared = mlir::LLVM::ConstantOp::create(
      rewriter, loc, llvmInt8Type, rewriter.getI8IntegerAttr(isShared));

  Value allocatedPtr =
      allocCallBuilder.create(loc, rewriter, {sizeBytes, stream, isHostShared})
          .getResult();

  // Cast the runtime-returned pointer to the memref's address space if it
  // isn't there already, so it fits the descriptor's pointer slots.
  unsigned dstAddrSpace = memRefType.getMemorySpaceAsInt();
  unsigned srcAddrSpace =
      cast<LLVM::LLVMPointerType>(allocatedPtr.getType()).getAddressSpace();
  if (dstAddrSpace != srcAddrSpace) {
    auto targetPtrTy =
        LLVM::LLVMPointerType::get(rewriter.getContext(), dstAddrSpace);
    allocatedPtr =
        LLVM::AddrSpaceCastOp::create(rewriter, loc, targetPtrTy, allocatedPtr);
  }

  // No alignment.
  Value alignedPtr = allocatedPtr;

  // Create the MemRef descriptor.
  auto memRefDescriptor = this->createMemRefDescriptor(
      loc, memRefType, allocatedPtr, alignedPtr, shape, strides, rewriter);

  // The allocation returns to the host once done.
  replaceAsyncOp(allocOp, stream, {memRefDescriptor}, rewriter,
                 /*hostBlocking=*/true);
  return success();
}

LogicalResult ConvertDeallocOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::DeallocOp deallocOp, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(deallocOp, adaptor.getOperands(), rewriter)))
    return failure();

  Location loc = deallocOp.getLoc();

  Value pointer =
      MemRefDescriptor(adaptor.getMemref()).allocatedPtr(rewriter, loc);
  Value stream =
      getStreamForAsyncOp(deallocOp, adaptor.getAsyncDependencies(), rewriter);
  deallocCallBuilder.create(loc, rewriter, {pointer, stream});

  replaceAsyncOp(deallocOp, stream, {}, rewriter, /*hostBlocking=*/true);
  return success();
}

static bool isGpuAsyncTokenType(Value value) {
  return isa<gpu::AsyncTokenType>(value.getType());
}

// Converts !gpu.async.token operands of `async.yield` to runtime calls. The
// !gpu.async.token are lowered to stream within the async.execute region, but
// are passed as events between them. For each !gpu.async.token operand, we
// create an event and record it on the stream.
//
// This pattern is registered with a higher benefit than the structural
// async.yield rewriter from populateAsyncStructuralTypeConversionsAndLegality
// so it wins when both match. Without that benefit override, the structural
// pattern can win and silently retype gpu.async.token operands without
// recording an event, leaving the host await to call cuEventSynchronize on
// a stream pointer (a no-op that returns an error), racing the host against
// the GPU.
LogicalResult ConvertAsyncYieldToGpuRuntimeCallPattern::matchAndRewrite(
    async::YieldOp yieldOp, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (llvm::none_of(yieldOp.getOperands(), isGpuAsyncTokenType))
    return rewriter.notifyMatchFailure(yieldOp, "no gpu async token operand");

  Location loc = yieldOp.getLoc();
  SmallVector<Value, 4> newOperands(adaptor.getOperands());
  for (auto &operand : yieldOp->getOpOperands()) {
    if (!isGpuAsyncTokenType(operand.get()))
      continue;
    auto idx = operand.getOperandNumber();
    auto stream = adaptor.getOperands()[idx];
    // An event is handed over as it is.
    if (!isStreamToken(operand.get()))
      continue;
    newOperands[idx] = recordEvent(loc, rewriter, stream);
  }

  rewriter.modifyOpInPlace(yieldOp, [&] { yieldOp->setOperands(newOperands); });
  return success();
}

template <typename OpTy>
void ConvertOpToGpuRuntimeCallPattern<OpTy>::waitForDependency(
    Location loc, Value stream, Value origDependency, Value dependency,
    ConversionPatternRewriter &rewriter) const {
  Value event = dependency;
  if (isStreamToken(origDependency)) {
    OpBuilder::InsertionGuard guard(rewriter);
    // Record right after the producer when it is in the same block; from
    // another block (a loop body, a branch) the event would be created once
    // and used on each iteration or not at all, so record here.
    Operation *producer = origDependency.getDefiningOp();
    if (producer->getBlock() == rewriter.getInsertionBlock())
      rewriter.setInsertionPointAfter(producer);
    event = recordEvent(loc, rewriter, dependency);
  }
  streamWaitEventCallBuilder.create(loc, rewriter, {stream, event});
  eventDestroyCallBuilder.create(loc, rewriter, {event});
}

template <typename OpTy>
Value ConvertOpToGpuRuntimeCallPattern<OpTy>::getStreamForAsyncOp(
    gpu::AsyncOpInterface op, ValueRange dependencies,
    ConversionPatternRewriter &rewriter, bool freshStream) const {
  Location loc = op->getLoc();
  OperandRange origDependencies = op.getAsyncDependencies();
  assert(origDependencies.size() == dependencies.size() &&
         "expected one lowered value per async dependency");
  Value stream;
  std::optional<unsigned> reused;
  if (!freshStream) {
    auto it = llvm::find_if(origDependencies, isStreamToken);
    if (it != origDependencies.end()) {
      reused = std::distance(origDependencies.begin(), it);
      stream = dependencies[*reused];
    }
  }
  if (!stream && !op.getAsyncToken())
    stream = LLVM::ZeroOp::create(rewriter, loc, llvmPointerType);
  if (!stream)
    stream = createStream(loc, rewriter);
  LDBG() << "'" << op->getName() << "' at " << loc << " runs on "
         << (reused               ? "the stream of its first stream dependency"
             : op.getAsyncToken() ? "a new stream"
                                  : "the default stream");
  llvm::SmallDenseSet<Value, 4> waitedFor;
  for (auto [i, origDependency, dependency] :
       llvm::enumerate(origDependencies, dependencies)) {
    // The same token listed twice, or another token for the reused stream,
    // needs no event.
    if (i == reused || dependency == stream ||
        !waitedFor.insert(origDependency).second)
      continue;
    LDBG() << "  and waits for its dependency #" << i;
    waitForDependency(loc, stream, origDependency, dependency, rewriter);
  }
  return stream;
}

template <typename OpTy>
void ConvertOpToGpuRuntimeCallPattern<OpTy>::replaceAsyncOp(
    gpu::AsyncOpInterface op, Value stream, ValueRange results,
    ConversionPatternRewriter &rewriter, bool hostBlocking) const {
  SmallVector<Value> replacements(results);
  if (op.getAsyncToken())
    replacements.push_back(stream);
  else if (!hostBlocking)
    streamSynchronizeCallBuilder.create(op->getLoc(), rewriter, {stream});
  rewriter.replaceOp(op, replacements);
}

// Converts `gpu.wait` to runtime calls. The converted op synchronizes the host
// with the stream/event operands. Event operands are consumed (destroyed);
// streams are destroyed after their last use by finalizeGpuStreamLifetimes.
LogicalResult ConvertWaitOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::WaitOp waitOp, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (waitOp.getAsyncToken())
    return rewriter.notifyMatchFailure(waitOp, "Cannot convert async op.");

  Location loc = waitOp.getLoc();

  // A token listed twice (canonicalization can fold a `gpu.wait async` into
  // the synchronous wait that uses it), or two tokens of one stream, are
  // waited for, and consumed, once.
  llvm::SmallDenseSet<Value, 4> waitedFor;
  for (auto [origOperand, operand] : llvm::zip_equal(
           waitOp.getAsyncDependencies(), adaptor.getAsyncDependencies())) {
    if (!waitedFor.insert(operand).second)
      continue;
    if (isStreamToken(origOperand)) {
      streamSynchronizeCallBuilder.create(loc, rewriter, {operand});
    } else {
      eventSynchronizeCallBuilder.create(loc, rewriter, {operand});
      eventDestroyCallBuilder.create(loc, rewriter, {operand});
    }
  }

  rewriter.eraseOp(waitOp);
  return success();
}

// Converts `gpu.wait async` to runtime calls. The converted op creates a new
// stream that waits for the stream/event operands without blocking the host.
// Event operands are consumed (destroyed).
LogicalResult ConvertWaitAsyncOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::WaitOp waitOp, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (!waitOp.getAsyncToken())
    return rewriter.notifyMatchFailure(waitOp, "Can only convert async op.");

  // Nothing waits for an unused token: only release the events it consumes.
  if (waitOp.getAsyncToken().use_empty()) {
    llvm::SmallDenseSet<Value, 4> released;
    for (auto [origDependency, dependency] : llvm::zip_equal(
             waitOp.getAsyncDependencies(), adaptor.getAsyncDependencies()))
      if (!isStreamToken(origDependency) && released.insert(dependency).second)
        eventDestroyCallBuilder.create(waitOp.getLoc(), rewriter, {dependency});
    rewriter.eraseOp(waitOp);
    return success();
  }

  // `gpu.wait async` is where new streams come from: the result is always a
  // new stream, which waits for all dependencies.
  Value stream = getStreamForAsyncOp(waitOp, adaptor.getAsyncDependencies(),
                                     rewriter, /*freshStream=*/true);
  rewriter.replaceOp(waitOp, {stream});
  return success();
}

// Converts `gpu.on_stream` to runtime calls on its stream, which the lowering
// does not own (nothing synchronizes or destroys it), and inlines its body.
// The entry token becomes an event recorded on the stream, consumed by its
// one user (see normalizeEventTokens; orderOnStreamBodiesAfterEntry made
// every GPU op of the body depend on it); each `gpu.on_stream.yield` makes
// the stream wait for the tokens it lists, recorded at the yield. A body of
// one block is inlined in place; one of several blocks becomes blocks of the
// parent region (of a function, an scf.execute_region or a gpu.on_stream), or
// an scf.execute_region in an SCF op; in another op, whose region may have to
// keep one block (async.execute), it is not converted (see
// canInlineOnStreamBody).
LogicalResult ConvertOnStreamOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::OnStreamOp onStreamOp, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  Location loc = onStreamOp.getLoc();
  Value stream = adaptor.getStream();
  Region &body = onStreamOp.getBody();
  bool entryUsed = !onStreamOp.getEntryToken().use_empty();
  if (!canInlineOnStreamBody(onStreamOp))
    return rewriter.notifyMatchFailure(
        onStreamOp, "a body of several blocks in a region that may have to "
                    "keep one block");

  SmallVector<gpu::OnStreamYieldOp> yields;
  for (Block &block : body)
    if (auto yield = dyn_cast<gpu::OnStreamYieldOp>(block.getTerminator()))
      yields.push_back(yield);
  for (gpu::OnStreamYieldOp yield : yields) {
    OperandRange origDependencies = yield.getAsyncDependencies();
    SmallVector<Value> dependencies;
    if (failed(rewriter.getRemappedValues(origDependencies, dependencies)))
      return rewriter.notifyMatchFailure(yield, "cannot convert its tokens");
    rewriter.setInsertionPoint(yield);
    llvm::SmallDenseSet<Value, 4> waitedFor;
    for (auto [origDependency, dependency] :
         llvm::zip_equal(origDependencies, dependencies)) {
      if (dependency == stream || !waitedFor.insert(origDependency).second)
        continue;
      Value event = isStreamToken(origDependency)
                        ? recordEvent(loc, rewriter, dependency)
                        : dependency;
      streamWaitEventCallBuilder.create(loc, rewriter, {stream, event});
      eventDestroyCallBuilder.create(loc, rewriter, {event});
    }
  }

  // An unused entry token is dropped: no event.
  TypeConverter::SignatureConversion entry(/*numOrigInputs=*/1);
  if (entryUsed) {
    rewriter.setInsertionPoint(onStreamOp);
    entry.remapInput(0, recordEvent(loc, rewriter, stream));
  }
  if (failed(rewriter.convertRegionTypes(&body, *getTypeConverter(), &entry)))
    return rewriter.notifyMatchFailure(onStreamOp, "cannot convert its body");

  if (body.hasOneBlock() && yields.size() == 1) {
    gpu::OnStreamYieldOp yield = yields.front();
    SmallVector<Value> results(yield.getValues());
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&body.front(), onStreamOp);
    rewriter.replaceOp(onStreamOp, results);
    return success();
  }

  if (!isa<FunctionOpInterface, scf::ExecuteRegionOp, gpu::OnStreamOp>(
          onStreamOp->getParentOp())) {
    rewriter.setInsertionPoint(onStreamOp);
    auto executeRegion = scf::ExecuteRegionOp::create(
        rewriter, loc, onStreamOp.getResultTypes());
    for (gpu::OnStreamYieldOp yield : yields) {
      rewriter.setInsertionPoint(yield);
      rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, yield.getValues());
    }
    rewriter.inlineRegionBefore(body, executeRegion.getRegion(),
                                executeRegion.getRegion().end());
    rewriter.replaceOp(onStreamOp, executeRegion.getResults());
    return success();
  }

  Block *continuation = rewriter.splitBlock(
      onStreamOp->getBlock(), std::next(onStreamOp->getIterator()));
  SmallVector<Location> locs(onStreamOp.getNumResults(), loc);
  continuation->addArguments(onStreamOp.getResultTypes(), locs);
  for (gpu::OnStreamYieldOp yield : yields) {
    rewriter.setInsertionPoint(yield);
    rewriter.replaceOpWithNewOp<cf::BranchOp>(yield, continuation,
                                              yield.getValues());
  }
  Block *bodyEntry = &body.front();
  rewriter.inlineRegionBefore(body, continuation);
  rewriter.setInsertionPoint(onStreamOp);
  cf::BranchOp::create(rewriter, loc, bodyEntry);
  rewriter.replaceOp(onStreamOp, continuation->getArguments());
  return success();
}

// Legalize the op's operands.
LogicalResult LegalizeLaunchFuncOpPattern::matchAndRewrite(
    gpu::LaunchFuncOp launchOp, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(launchOp, adaptor.getOperands(), rewriter)))
    return failure();

  Location loc = launchOp.getLoc();

  // Lower the kernel operands to match kernel parameters.
  // Note: If `useBarePtrCallConv` is set in the type converter's options,
  // the value of `kernelBarePtrCallConv` will be ignored.
  OperandRange origArguments = launchOp.getKernelOperands();
  bool effectiveBarePtr = kernelBarePtrCallConv ||
                          getTypeConverter()->getOptions().useBarePtrCallConv;
  if (effectiveBarePtr) {
    for (Value arg : origArguments) {
      if (isa<UnrankedMemRefType>(arg.getType()))
        return rewriter.notifyMatchFailure(
            loc, "unranked memref kernel argument is not supported with "
                 "the bare-pointer calling convention");
    }
  }
  SmallVector<Value, 8> llvmArguments = getTypeConverter()->promoteOperands(
      loc, origArguments, adaptor.getKernelOperands(), rewriter,
      /*useBarePtrCallConv=*/kernelBarePtrCallConv);
  SmallVector<Value, 8> llvmArgumentsWithSizes;

  // Intersperse size information if requested.
  if (kernelIntersperseSizeCallConv) {
    if (origArguments.size() != llvmArguments.size()) {
      // This shouldn't happen if the bare-pointer calling convention is used.
      return rewriter.notifyMatchFailure(
          launchOp,
          "Cannot add sizes to arguments with one-to-many LLVM IR expansion.");
    }

    llvmArgumentsWithSizes.reserve(llvmArguments.size() * 2);
    for (auto [llvmArg, origArg] : zip_equal(llvmArguments, origArguments)) {
      auto memrefTy = dyn_cast<MemRefType>(origArg.getType());
      if (!memrefTy) {
        return rewriter.notifyMatchFailure(
            launchOp, "Operand to launch op is not a memref.");
      }

      if (!memrefTy.hasStaticShape() ||
          !memrefTy.getElementType().isIntOrFloat()) {
        return rewriter.notifyMatchFailure(
            launchOp, "Operand to launch op is not a memref with a static "
                      "shape and an integer or float element type.");
      }

      unsigned bitwidth = memrefTy.getElementTypeBitWidth();
      if (bitwidth % 8 != 0) {
        return rewriter.notifyMatchFailure(
            launchOp, "Operand to launch op is not a memref with a "
                      "byte-aligned element type.");
      }

      uint64_t staticSize = static_cast<uint64_t>(bitwidth / 8) *
                            static_cast<uint64_t>(memrefTy.getNumElements());

      Value sizeArg = LLVM::ConstantOp::create(
          rewriter, loc, getIndexType(), rewriter.getIndexAttr(staticSize));
      llvmArgumentsWithSizes.push_back(llvmArg); // Presumably a bare pointer.
      llvmArgumentsWithSizes.push_back(sizeArg);
    }
  }

  // A launch on an explicit stream (`asyncObject`, the caller's) runs on it
  // as it is: that stream is the caller's to synchronize and destroy, and the
  // verifier rejects async dependencies and an async token next to it. A
  // synchronous launch without dependencies keeps no stream: the LLVM
  // translation runs it on a stream of its own and waits for it.
  Value stream = adaptor.getAsyncObject();
  if (!stream && launchOp.getAsyncToken())
    stream =
        getStreamForAsyncOp(launchOp, adaptor.getAsyncDependencies(), rewriter);

  std::optional<gpu::KernelDim3> clusterSize = std::nullopt;
  if (launchOp.hasClusterSize()) {
    clusterSize =
        gpu::KernelDim3{adaptor.getClusterSizeX(), adaptor.getClusterSizeY(),
                        adaptor.getClusterSizeZ()};
  }
  auto newLaunchOp = gpu::LaunchFuncOp::create(
      rewriter, launchOp.getLoc(), launchOp.getKernelAttr(),
      gpu::KernelDim3{adaptor.getGridSizeX(), adaptor.getGridSizeY(),
                      adaptor.getGridSizeZ()},
      gpu::KernelDim3{adaptor.getBlockSizeX(), adaptor.getBlockSizeY(),
                      adaptor.getBlockSizeZ()},
      adaptor.getDynamicSharedMemorySize(),
      llvmArgumentsWithSizes.empty() ? llvmArguments : llvmArgumentsWithSizes,
      stream, clusterSize);
  if (launchOp.getCooperative())
    newLaunchOp.setCooperative(true);
  if (stream && !launchOp.getAsyncObject())
    replaceAsyncOp(launchOp, stream, {}, rewriter);
  else
    rewriter.eraseOp(launchOp);
  return success();
}

static Value bitAndAddrspaceCast(Location loc,
                                 ConversionPatternRewriter &rewriter,
                                 LLVM::LLVMPointerType destinationType,
                                 Value sourcePtr,
                                 const LLVMTypeConverter &typeConverter) {
  auto sourceTy = cast<LLVM::LLVMPointerType>(sourcePtr.getType());
  if (destinationType.getAddressSpace() != sourceTy.getAddressSpace())
    sourcePtr = LLVM::AddrSpaceCastOp::create(
        rewriter, loc,
        LLVM::LLVMPointerType::get(rewriter.getContext(),
                                   destinationType.getAddressSpace()),
        sourcePtr);
  return sourcePtr;
}

LogicalResult ConvertMemcpyOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::MemcpyOp memcpyOp, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  auto memRefType = cast<MemRefType>(memcpyOp.getSrc().getType());

  if (failed(areAllLLVMTypes(memcpyOp, adaptor.getOperands(), rewriter)))
    return failure();
  // The copy is contiguous: both sides need an identity layout.
  if (!isConvertibleAndHasIdentityMaps(memRefType) ||
      !isConvertibleAndHasIdentityMaps(
          cast<MemRefType>(memcpyOp.getDst().getType())))
    return rewriter.notifyMatchFailure(
        memcpyOp, "the source and the destination must have an identity "
                  "layout and an LLVM type");

  auto loc = memcpyOp.getLoc();

  MemRefDescriptor srcDesc(adaptor.getSrc());
  Value numElements = getNumElements(rewriter, loc, memRefType, srcDesc);

  Type elementPtrType = getElementPtrType(memRefType);
  Value nullPtr = LLVM::ZeroOp::create(rewriter, loc, elementPtrType);
  Value gepPtr = LLVM::GEPOp::create(
      rewriter, loc, elementPtrType,
      typeConverter->convertType(memRefType.getElementType()), nullPtr,
      numElements);
  auto sizeBytes =
      LLVM::PtrToIntOp::create(rewriter, loc, getIndexType(), gepPtr);

  auto src = bitAndAddrspaceCast(loc, rewriter, llvmPointerType,
                                 srcDesc.alignedPtr(rewriter, loc),
                                 *getTypeConverter());
  auto dst = bitAndAddrspaceCast(
      loc, rewriter, llvmPointerType,
      MemRefDescriptor(adaptor.getDst()).alignedPtr(rewriter, loc),
      *getTypeConverter());

  Value stream =
      getStreamForAsyncOp(memcpyOp, adaptor.getAsyncDependencies(), rewriter);
  memcpyCallBuilder.create(loc, rewriter, {dst, src, sizeBytes, stream});

  replaceAsyncOp(memcpyOp, stream, {}, rewriter);

  return success();
}

LogicalResult ConvertMemsetOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::MemsetOp memsetOp, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  auto memRefType = cast<MemRefType>(memsetOp.getDst().getType());

  if (failed(areAllLLVMTypes(memsetOp, adaptor.getOperands(), rewriter)))
    return failure();
  if (!isConvertibleAndHasIdentityMaps(memRefType))
    return rewriter.notifyMatchFailure(
        memsetOp, "the memref must have an identity layout and an LLVM type");

  auto loc = memsetOp.getLoc();

  Type valueType = adaptor.getValue().getType();
  unsigned bitWidth = valueType.getIntOrFloatBitWidth();
  // Ints and floats of 16 or 32 bit width are allowed.
  if (!valueType.isIntOrFloat() || (bitWidth != 16 && bitWidth != 32)) {
    return rewriter.notifyMatchFailure(
        memsetOp, "value must be a 16 or 32 bit int or float");
  }

  unsigned valueTypeWidth = valueType.getIntOrFloatBitWidth();
  Type bitCastType = valueTypeWidth == 32 ? llvmInt32Type : llvmInt16Type;

  MemRefDescriptor dstDesc(adaptor.getDst());
  Value numElements = getNumElements(rewriter, loc, memRefType, dstDesc);

  auto value =
      LLVM::BitcastOp::create(rewriter, loc, bitCastType, adaptor.getValue());
  auto dst = bitAndAddrspaceCast(loc, rewriter, llvmPointerType,
                                 dstDesc.alignedPtr(rewriter, loc),
                                 *getTypeConverter());

  Value stream =
      getStreamForAsyncOp(memsetOp, adaptor.getAsyncDependencies(), rewriter);
  FunctionCallBuilder builder =
      valueTypeWidth == 32 ? memset32CallBuilder : memset16CallBuilder;
  builder.create(loc, rewriter, {dst, value, numElements, stream});

  replaceAsyncOp(memsetOp, stream, {}, rewriter);
  return success();
}

LogicalResult ConvertSetDefaultDeviceOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::SetDefaultDeviceOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  Location loc = op.getLoc();
  auto call = setDefaultDeviceCallBuilder.create(loc, rewriter,
                                                 {adaptor.getDevIndex()});
  rewriter.replaceOp(op, call);
  return success();
}

template <typename T>
static Value genConstInt32From(OpBuilder &builder, Location loc, T tValue) {
  Type llvmInt32Type = builder.getIntegerType(32);
  return LLVM::ConstantOp::create(builder, loc, llvmInt32Type,
                                  static_cast<int32_t>(tValue));
}

template <typename T>
static Value genConstFloat32From(OpBuilder &builder, Location loc, T tValue) {
  Type llvmFloat32Type = builder.getF32Type();
  return LLVM::ConstantOp::create(
      builder, loc, llvmFloat32Type,
      builder.getF32FloatAttr(static_cast<float>(tValue)));
}

LogicalResult ConvertCreateDnTensorOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::CreateDnTensorOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  FailureOr<bool> cusparseLt = isCusparseLtDnTensorFor(
      op, op.getDnTensor(), op.getDims().size(), rewriter);
  if (failed(cusparseLt))
    return failure();
  Location loc = op.getLoc();
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  Value pTensor =
      MemRefDescriptor(adaptor.getMemref()).allocatedPtr(rewriter, loc);
  Type dType = op.getMemref().getType().getElementType();
  auto dtp = genConstInt32From(rewriter, loc, getCuSparseDataTypeFrom(dType));

  SmallVector<Value, 4> dims;
  for (Value dim : adaptor.getDims()) {
    dims.push_back(dim);
  }

  Value handle;
  // TODO: For now, we track the use of the handle and lower it to cusparse /
  // cusparseLt accordingly. If in a block, both cusparse and cusparseLt are
  // used, we require two separate Creation ops to be the correct logic. In
  // future, we may add support to using one handle in sparse tensor / GPU
  // dialect in both cusparse and cusparseLt. use the cusparseLt create call if
  // the dnmat is used with spmat with 2:4 sparsity
  if (dims.size() == 2) {
    if (*cusparseLt) {
      auto handleSz = LLVM::ConstantOp::create(rewriter, loc, getIndexType(),
                                               rewriter.getIndexAttr(11032));
      handle = LLVM::AllocaOp::create(rewriter, loc, llvmPointerType,
                                      llvmInt8Type, handleSz, /*alignment=*/16);
      handle = LLVM::BitcastOp::create(rewriter, loc, llvmPointerType, handle);

      createLtDnMatCallBuilder
          .create(loc, rewriter,
                  {handle, dims[0], dims[1], pTensor, dtp, stream})
          .getResult();
    } else {
      handle =
          createDnMatCallBuilder
              .create(loc, rewriter, {dims[0], dims[1], pTensor, dtp, stream})
              .getResult();
    }
  } else {
    assert(dims.size() == 1 && "Only 1D and 2D tensors are supported");
    handle = createDnVecCallBuilder
                 .create(loc, rewriter, {dims[0], pTensor, dtp, stream})
                 .getResult();
  }
  replaceAsyncOp(op, stream, {handle}, rewriter);
  return success();
}

LogicalResult ConvertDestroyDnTensorOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::DestroyDnTensorOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  auto definingOp = op.getDnTensor().getDefiningOp<gpu::CreateDnTensorOp>();
  if (!definingOp)
    return rewriter.notifyMatchFailure(
        op, "the dense tensor handle was not created by gpu.create_dn_tensor "
            "in this function: cannot tell its rank");
  FailureOr<bool> cusparseLt = isCusparseLtDnTensorFor(
      op, op.getDnTensor(), definingOp.getDims().size(), rewriter);
  if (failed(cusparseLt))
    return failure();
  Location loc = op.getLoc();
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  SmallVector<Value, 4> dims;
  for (Value dim : definingOp.getDims()) {
    dims.push_back(dim);
  }
  if (dims.size() == 2) {
    // Use the cusparseLt destroy call if the dnmat is used with spmat with
    // 2:4 sparsity
    if (*cusparseLt) {
      destroyCuSparseLtDnMatBuilder.create(loc, rewriter,
                                           {adaptor.getDnTensor(), stream});
    } else {
      destroyDnMatCallBuilder.create(loc, rewriter,
                                     {adaptor.getDnTensor(), stream});
    }
  } else {
    assert(dims.size() == 1 && "Only 1D and 2D tensors are supported");
    destroyDnVecCallBuilder.create(loc, rewriter,
                                   {adaptor.getDnTensor(), stream});
  }
  replaceAsyncOp(op, stream, {}, rewriter);
  return success();
}

LogicalResult ConvertCreateCooOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::CreateCooOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  Location loc = op.getLoc();
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  Value pRowIdxs =
      MemRefDescriptor(adaptor.getRowIdxs()).allocatedPtr(rewriter, loc);
  Value pColIdxs =
      MemRefDescriptor(adaptor.getColIdxs()).allocatedPtr(rewriter, loc);
  Value pValues =
      MemRefDescriptor(adaptor.getValues()).allocatedPtr(rewriter, loc);
  Type iType =
      llvm::cast<MemRefType>(op.getColIdxs().getType()).getElementType();
  Type dType =
      llvm::cast<MemRefType>(op.getValues().getType()).getElementType();
  auto itp = genConstInt32From(rewriter, loc, getCuSparseIndexTypeFrom(iType));
  auto dtp = genConstInt32From(rewriter, loc, getCuSparseDataTypeFrom(dType));
  auto handle =
      createCooCallBuilder
          .create(loc, rewriter,
                  {adaptor.getRows(), adaptor.getCols(), adaptor.getNnz(),
                   pRowIdxs, pColIdxs, pValues, itp, dtp, stream})
          .getResult();
  replaceAsyncOp(op, stream, {handle}, rewriter);
  return success();
}

LogicalResult ConvertCreateCooAoSOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::CreateCooAoSOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  Location loc = op.getLoc();
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  Value pIdxs = MemRefDescriptor(adaptor.getIdxs()).allocatedPtr(rewriter, loc);
  Value pValues =
      MemRefDescriptor(adaptor.getValues()).allocatedPtr(rewriter, loc);
  Type iType = llvm::cast<MemRefType>(op.getIdxs().getType()).getElementType();
  Type dType =
      llvm::cast<MemRefType>(op.getValues().getType()).getElementType();
  auto itp = genConstInt32From(rewriter, loc, getCuSparseIndexTypeFrom(iType));
  auto dtp = genConstInt32From(rewriter, loc, getCuSparseDataTypeFrom(dType));
  auto handle =
      createCooAoSCallBuilder
          .create(loc, rewriter,
                  {adaptor.getRows(), adaptor.getCols(), adaptor.getNnz(),
                   pIdxs, pValues, itp, dtp, stream})
          .getResult();
  replaceAsyncOp(op, stream, {handle}, rewriter);
  return success();
}

LogicalResult ConvertCreateCsrOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::CreateCsrOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  Location loc = op.getLoc();
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  Value pRowPos =
      MemRefDescriptor(adaptor.getRowPos()).allocatedPtr(rewriter, loc);
  Value pColIdxs =
      MemRefDescriptor(adaptor.getColIdxs()).allocatedPtr(rewriter, loc);
  Value pValues =
      MemRefDescriptor(adaptor.getValues()).allocatedPtr(rewriter, loc);
  Type pType =
      llvm::cast<MemRefType>(op.getRowPos().getType()).getElementType();
  Type iType =
      llvm::cast<MemRefType>(op.getColIdxs().getType()).getElementType();
  Type dType =
      llvm::cast<MemRefType>(op.getValues().getType()).getElementType();
  auto ptp = genConstInt32From(rewriter, loc, getCuSparseIndexTypeFrom(pType));
  auto itp = genConstInt32From(rewriter, loc, getCuSparseIndexTypeFrom(iType));
  auto dtp = genConstInt32From(rewriter, loc, getCuSparseDataTypeFrom(dType));
  auto handle =
      createCsrCallBuilder
          .create(loc, rewriter,
                  {adaptor.getRows(), adaptor.getCols(), adaptor.getNnz(),
                   pRowPos, pColIdxs, pValues, ptp, itp, dtp, stream})
          .getResult();
  replaceAsyncOp(op, stream, {handle}, rewriter);
  return success();
}

LogicalResult ConvertCreate2To4SpMatOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::Create2To4SpMatOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  Location loc = op.getLoc();
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  Value pMat =
      MemRefDescriptor(adaptor.getMemref()).allocatedPtr(rewriter, loc);
  Type dType =
      llvm::cast<MemRefType>(op.getMemref().getType()).getElementType();
  auto dtp = genConstInt32From(rewriter, loc, getCuSparseDataTypeFrom(dType));

  // CUDA runner asserts the size is 44104 bytes.
  auto handleSz = LLVM::ConstantOp::create(rewriter, loc, getIndexType(),
                                           rewriter.getIndexAttr(44104));
  Value handle = LLVM::AllocaOp::create(
      rewriter, loc, llvmPointerType, llvmInt8Type, handleSz, /*alignment=*/16);
  handle = LLVM::BitcastOp::create(rewriter, loc, llvmPointerType, handle);

  create2To4SpMatCallBuilder
      .create(loc, rewriter,
              {handle, adaptor.getRows(), adaptor.getCols(), pMat, dtp, stream})
      .getResult();
  replaceAsyncOp(op, stream, {handle}, rewriter);
  return success();
}

LogicalResult ConvertDestroySpMatOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::DestroySpMatOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  FailureOr<bool> is2To4 = is2To4SparsityFor(op, op.getSpmat(), rewriter);
  if (failed(is2To4))
    return failure();
  Location loc = op.getLoc();
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  // Use the cusparseLt destroy call if the spmat is 2:4 sparsity
  if (*is2To4) {
    destroyCuSparseLtSpMatBuilder.create(loc, rewriter,
                                         {adaptor.getSpmat(), stream});

  } else {
    destroySpMatCallBuilder.create(loc, rewriter, {adaptor.getSpmat(), stream});
  }
  replaceAsyncOp(op, stream, {}, rewriter);
  return success();
}

LogicalResult ConvertSpMVBufferSizeOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::SpMVBufferSizeOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  Location loc = op.getLoc();
  auto modeA = genConstInt32From(rewriter, loc, op.getModeA());
  auto computeType = genConstInt32From(
      rewriter, loc, getCuSparseDataTypeFrom(adaptor.getComputeType()));
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  auto bufferSize = spMVBufferSizeCallBuilder
                        .create(loc, rewriter,
                                {modeA, adaptor.getSpmatA(), adaptor.getDnX(),
                                 adaptor.getDnY(), computeType, stream})
                        .getResult();
  replaceAsyncOp(op, stream, {bufferSize}, rewriter);
  return success();
}

LogicalResult ConvertSpMVOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::SpMVOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  Location loc = op.getLoc();
  auto modeA = genConstInt32From(rewriter, loc, adaptor.getModeA());
  auto computeType = genConstInt32From(
      rewriter, loc, getCuSparseDataTypeFrom(adaptor.getComputeType()));
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  Value pBuf =
      MemRefDescriptor(adaptor.getBuffer()).allocatedPtr(rewriter, loc);
  spMVCallBuilder.create(loc, rewriter,
                         {modeA, adaptor.getSpmatA(), adaptor.getDnX(),
                          adaptor.getDnY(), computeType, pBuf, stream});
  replaceAsyncOp(op, stream, {}, rewriter);
  return success();
}

LogicalResult ConvertSpMMBufferSizeOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::SpMMBufferSizeOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  FailureOr<bool> is2To4 = is2To4SparsityFor(op, op.getSpmatA(), rewriter);
  if (failed(is2To4))
    return failure();
  Location loc = op.getLoc();
  auto modeA = genConstInt32From(rewriter, loc, adaptor.getModeA());
  auto modeB = genConstInt32From(rewriter, loc, adaptor.getModeB());
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  Value bufferSize;
  if (*is2To4) {
    auto pruneFlag =
        genConstInt32From(rewriter, loc, get2To4PruneFlag(op.getSpmatA()));
    auto computeType = genConstInt32From(
        rewriter, loc, getCuSparseLtDataTypeFrom(adaptor.getComputeType()));
    auto three = LLVM::ConstantOp::create(rewriter, loc, getIndexType(),
                                          rewriter.getIndexAttr(3));
    auto bufferSize =
        LLVM::AllocaOp::create(rewriter, loc, llvmPointerType, llvmPointerType,
                               three, /*alignment=*/16);
    createCuSparseLtSpMMBufferSizeBuilder
        .create(loc, rewriter,
                {bufferSize, modeA, modeB, adaptor.getSpmatA(),
                 adaptor.getDnmatB(), adaptor.getDnmatC(), computeType,
                 pruneFlag, stream})
        .getResult();

    auto bufferSizePtr1 = LLVM::GEPOp::create(
        rewriter, loc, llvmPointerType, llvmPointerType, bufferSize,
        ValueRange{LLVM::ConstantOp::create(rewriter, loc, getIndexType(),
                                            rewriter.getIndexAttr(1))});
    auto bufferSizePtr2 = LLVM::GEPOp::create(
        rewriter, loc, llvmPointerType, llvmPointerType, bufferSize,
        ValueRange{LLVM::ConstantOp::create(rewriter, loc, getIndexType(),
                                            rewriter.getIndexAttr(2))});
    auto bufferSize0 =
        LLVM::LoadOp::create(rewriter, loc, llvmInt64Type, bufferSize);
    auto bufferSize1 =
        LLVM::LoadOp::create(rewriter, loc, llvmInt64Type, bufferSizePtr1);
    auto bufferSize2 =
        LLVM::LoadOp::create(rewriter, loc, llvmInt64Type, bufferSizePtr2);

    replaceAsyncOp(op, stream, {bufferSize0, bufferSize1, bufferSize2},
                   rewriter);
  } else {
    auto computeType = genConstInt32From(
        rewriter, loc, getCuSparseDataTypeFrom(adaptor.getComputeType()));
    bufferSize =
        createSpMMBufferSizeCallBuilder
            .create(loc, rewriter,
                    {modeA, modeB, adaptor.getSpmatA(), adaptor.getDnmatB(),
                     adaptor.getDnmatC(), computeType, stream})
            .getResult();
    replaceAsyncOp(op, stream, {bufferSize}, rewriter);
  }
  return success();
}

LogicalResult ConvertSDDMMBufferSizeOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::SDDMMBufferSizeOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  Location loc = op.getLoc();
  auto modeA = genConstInt32From(rewriter, loc, adaptor.getModeA());
  auto modeB = genConstInt32From(rewriter, loc, adaptor.getModeB());
  auto computeType = genConstInt32From(
      rewriter, loc, getCuSparseDataTypeFrom(adaptor.getComputeType()));
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  auto bufferSize =
      createSDDMMBufferSizeCallBuilder
          .create(loc, rewriter,
                  {modeA, modeB, adaptor.getDnmatA(), adaptor.getDnmatB(),
                   adaptor.getSpmatC(), computeType, stream})
          .getResult();
  replaceAsyncOp(op, stream, {bufferSize}, rewriter);
  return success();
}

LogicalResult ConvertSpMMOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::SpMMOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  FailureOr<bool> is2To4 = is2To4SparsityFor(op, op.getSpmatA(), rewriter);
  if (failed(is2To4))
    return failure();
  Location loc = op.getLoc();
  auto modeA = genConstInt32From(rewriter, loc, adaptor.getModeA());
  auto modeB = genConstInt32From(rewriter, loc, adaptor.getModeB());
  auto computeType = genConstInt32From(
      rewriter, loc, getCuSparseDataTypeFrom(adaptor.getComputeType()));

  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);

  // Lower to cusparseLt if applicable
  if (*is2To4) {
    SmallVector<Value> pBufs;
    for (Value buffer : adaptor.getBuffers()) {
      Value pBuf = MemRefDescriptor(buffer).allocatedPtr(rewriter, loc);
      pBufs.push_back(pBuf);
    }
    createCuSparseLtSpMMBuilder.create(
        loc, rewriter,
        {adaptor.getSpmatA(), adaptor.getDnmatB(), adaptor.getDnmatC(),
         pBufs[0], pBufs[1], pBufs[2], stream});
  } else {
    Value pBuf = MemRefDescriptor(adaptor.getBuffers().front())
                     .allocatedPtr(rewriter, loc);
    createSpMMCallBuilder.create(loc, rewriter,
                                 {modeA, modeB, adaptor.getSpmatA(),
                                  adaptor.getDnmatB(), adaptor.getDnmatC(),
                                  computeType, pBuf, stream});
  }
  replaceAsyncOp(op, stream, {}, rewriter);
  return success();
}

template <typename T>
static void addOpaquePointerConversion(LLVMTypeConverter &converter) {
  converter.addConversion([&converter](T) -> Type {
    return LLVM::LLVMPointerType::get(&converter.getContext());
  });
}

LogicalResult ConvertSDDMMOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::SDDMMOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  Location loc = op.getLoc();
  auto computeType = genConstInt32From(
      rewriter, loc, getCuSparseDataTypeFrom(adaptor.getComputeType()));
  auto modeA = genConstInt32From(rewriter, loc, adaptor.getModeA());
  auto modeB = genConstInt32From(rewriter, loc, adaptor.getModeB());
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  Value pBuf =
      MemRefDescriptor(adaptor.getBuffer()).allocatedPtr(rewriter, loc);
  createSDDMMCallBuilder.create(loc, rewriter,
                                {modeA, modeB, adaptor.getDnmatA(),
                                 adaptor.getDnmatB(), adaptor.getSpmatC(),
                                 computeType, pBuf, stream});
  replaceAsyncOp(op, stream, {}, rewriter);
  return success();
}

LogicalResult
ConvertSpGEMMCreateDescrOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::SpGEMMCreateDescrOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  Location loc = op.getLoc();
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  Value descr = createSpGEMMCreateDescrBuilder.create(loc, rewriter, {stream})
                    .getResult();
  replaceAsyncOp(op, stream, {descr}, rewriter);
  return success();
}

LogicalResult
ConvertSpGEMMDestroyDescrOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::SpGEMMDestroyDescrOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  Location loc = op.getLoc();
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  createSpGEMMDestroyDescrBuilder.create(loc, rewriter,
                                         {adaptor.getDesc(), stream});
  replaceAsyncOp(op, stream, {}, rewriter);
  return success();
}

LogicalResult
ConvertSpGEMMWorkEstimationOrComputeOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::SpGEMMWorkEstimationOrComputeOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  Location loc = op.getLoc();
  auto computeType = genConstInt32From(
      rewriter, loc, getCuSparseDataTypeFrom(adaptor.getComputeType()));
  auto modeA = genConstInt32From(rewriter, loc, adaptor.getModeA());
  auto modeB = genConstInt32From(rewriter, loc, adaptor.getModeB());
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);

  Value pBuf =
      MemRefDescriptor(adaptor.getBuffer()).allocatedPtr(rewriter, loc);
  Value bufferSizeNew;

  if (adaptor.getKind() ==
      gpu::SpGEMMWorkEstimationOrComputeKind::WORK_ESTIMATION) {
    bufferSizeNew =
        createSpGEMMWorkEstimationBuilder
            .create(loc, rewriter,
                    {adaptor.getDesc(), modeA, modeB, adaptor.getSpmatA(),
                     adaptor.getSpmatB(), adaptor.getSpmatC(), computeType,
                     adaptor.getBufferSz(), pBuf, stream})
            .getResult();
  } else {
    bufferSizeNew =
        createSpGEMMComputeBuilder
            .create(loc, rewriter,
                    {adaptor.getDesc(), modeA, modeB, adaptor.getSpmatA(),
                     adaptor.getSpmatB(), adaptor.getSpmatC(), computeType,
                     adaptor.getBufferSz(), pBuf, stream})
            .getResult();
  }
  replaceAsyncOp(op, stream, {bufferSizeNew}, rewriter);
  return success();
}

LogicalResult ConvertSpGEMMCopyOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::SpGEMMCopyOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  Location loc = op.getLoc();
  auto computeType = genConstInt32From(
      rewriter, loc, getCuSparseDataTypeFrom(adaptor.getComputeType()));
  auto modeA = genConstInt32From(rewriter, loc, adaptor.getModeA());
  auto modeB = genConstInt32From(rewriter, loc, adaptor.getModeB());
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  createSpGEMMCopyBuilder.create(loc, rewriter,
                                 {adaptor.getDesc(), modeA, modeB,
                                  adaptor.getSpmatA(), adaptor.getSpmatB(),
                                  adaptor.getSpmatC(), computeType, stream});
  replaceAsyncOp(op, stream, {}, rewriter);
  return success();
}

LogicalResult ConvertSpMatGetSizeOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::SpMatGetSizeOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  Location loc = op.getLoc();
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);

  auto three = LLVM::ConstantOp::create(rewriter, loc, getIndexType(),
                                        rewriter.getIndexAttr(3));
  auto buffer = LLVM::AllocaOp::create(rewriter, loc, llvmPointerType,
                                       llvmInt64Type, three, /*alignment=*/16);

  auto rowsPtr = LLVM::GEPOp::create(
      rewriter, loc, llvmPointerType, llvmPointerType, buffer,
      ValueRange{LLVM::ConstantOp::create(rewriter, loc, getIndexType(),
                                          rewriter.getIndexAttr(0))});
  auto colsPtr = LLVM::GEPOp::create(
      rewriter, loc, llvmPointerType, llvmPointerType, buffer,
      ValueRange{LLVM::ConstantOp::create(rewriter, loc, getIndexType(),
                                          rewriter.getIndexAttr(1))});
  auto nnzsPtr = LLVM::GEPOp::create(
      rewriter, loc, llvmPointerType, llvmPointerType, buffer,
      ValueRange{LLVM::ConstantOp::create(rewriter, loc, getIndexType(),
                                          rewriter.getIndexAttr(2))});
  createSpMatGetSizeBuilder.create(
      loc, rewriter, {adaptor.getSpmat(), rowsPtr, colsPtr, nnzsPtr, stream});
  auto rows = LLVM::LoadOp::create(rewriter, loc, llvmInt64Type, rowsPtr);
  auto cols = LLVM::LoadOp::create(rewriter, loc, llvmInt64Type, colsPtr);
  auto nnzs = LLVM::LoadOp::create(rewriter, loc, llvmInt64Type, nnzsPtr);

  replaceAsyncOp(op, stream, {rows, cols, nnzs}, rewriter);
  return success();
}

LogicalResult ConvertSetCsrPointersOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::SetCsrPointersOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  Location loc = op.getLoc();
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  Value pPos =
      MemRefDescriptor(adaptor.getPositions()).allocatedPtr(rewriter, loc);
  Value pCrd =
      MemRefDescriptor(adaptor.getCoordinates()).allocatedPtr(rewriter, loc);
  Value pVal =
      MemRefDescriptor(adaptor.getValues()).allocatedPtr(rewriter, loc);
  createSetCsrPointersBuilder.create(
      loc, rewriter, {adaptor.getSpmat(), pPos, pCrd, pVal, stream});
  replaceAsyncOp(op, stream, {}, rewriter);
  return success();
}

LogicalResult ConvertCreateCscOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::CreateCscOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  Location loc = op.getLoc();
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  Value pColPos =
      MemRefDescriptor(adaptor.getColPos()).allocatedPtr(rewriter, loc);
  Value pRowIdxs =
      MemRefDescriptor(adaptor.getRowIdxs()).allocatedPtr(rewriter, loc);
  Value pValues =
      MemRefDescriptor(adaptor.getValues()).allocatedPtr(rewriter, loc);
  Type pType =
      llvm::cast<MemRefType>(op.getColPos().getType()).getElementType();
  Type iType =
      llvm::cast<MemRefType>(op.getRowIdxs().getType()).getElementType();
  Type dType =
      llvm::cast<MemRefType>(op.getValues().getType()).getElementType();
  auto ptp = genConstInt32From(rewriter, loc, getCuSparseIndexTypeFrom(pType));
  auto itp = genConstInt32From(rewriter, loc, getCuSparseIndexTypeFrom(iType));
  auto dtp = genConstInt32From(rewriter, loc, getCuSparseDataTypeFrom(dType));
  auto handle =
      createCscCallBuilder
          .create(loc, rewriter,
                  {adaptor.getRows(), adaptor.getCols(), adaptor.getNnz(),
                   pColPos, pRowIdxs, pValues, ptp, itp, dtp, stream})
          .getResult();
  replaceAsyncOp(op, stream, {handle}, rewriter);
  return success();
}

LogicalResult ConvertCreateBsrOpToGpuRuntimeCallPattern::matchAndRewrite(
    gpu::CreateBsrOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (failed(areAllLLVMTypes(op, adaptor.getOperands(), rewriter)))
    return failure();
  Location loc = op.getLoc();
  Value stream =
      getStreamForAsyncOp(op, adaptor.getAsyncDependencies(), rewriter);
  Value pRowPos =
      MemRefDescriptor(adaptor.getBRowPos()).allocatedPtr(rewriter, loc);
  Value pColIdxs =
      MemRefDescriptor(adaptor.getBColIdxs()).allocatedPtr(rewriter, loc);
  Value pValues =
      MemRefDescriptor(adaptor.getValues()).allocatedPtr(rewriter, loc);
  Type pType =
      llvm::cast<MemRefType>(op.getBRowPos().getType()).getElementType();
  Type iType =
      llvm::cast<MemRefType>(op.getBColIdxs().getType()).getElementType();
  Type dType =
      llvm::cast<MemRefType>(op.getValues().getType()).getElementType();
  auto ptp = genConstInt32From(rewriter, loc, getCuSparseIndexTypeFrom(pType));
  auto itp = genConstInt32From(rewriter, loc, getCuSparseIndexTypeFrom(iType));
  auto dtp = genConstInt32From(rewriter, loc, getCuSparseDataTypeFrom(dType));
  auto handle =
      createBsrCallBuilder
          .create(loc, rewriter,
                  {adaptor.getBrows(), adaptor.getBcols(), adaptor.getBnnz(),
                   adaptor.getRBlockSize(), adaptor.getCBlockSize(), pRowPos,
                   pColIdxs, pValues, ptp, itp, dtp, stream})
          .getResult();
  replaceAsyncOp(op, stream, {handle}, rewriter);
  return success();
}

void mlir::populateGpuToLLVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns,
    bool kernelBarePtrCallConv, bool kernelIntersperseSizeCallConv) {
  addOpaquePointerConversion<gpu::AsyncTokenType>(converter);
  addOpaquePointerConversion<gpu::SparseDnTensorHandleType>(converter);
  addOpaquePointerConversion<gpu::SparseSpMatHandleType>(converter);
  addOpaquePointerConversion<gpu::SparseSpGEMMOpHandleType>(converter);

  // Higher benefit so this pattern wins over the structural async.yield
  // rewriter from populateAsyncStructuralTypeConversionsAndLegality on yields
  // with gpu.async.token operands. The structural rewriter would silently
  // retype operands without recording an event on the underlying stream.
  patterns.add<ConvertAsyncYieldToGpuRuntimeCallPattern>(converter,
                                                         /*benefit=*/2);

  patterns.add<ConvertAllocOpToGpuRuntimeCallPattern,
               ConvertDeallocOpToGpuRuntimeCallPattern,
               ConvertHostRegisterOpToGpuRuntimeCallPattern,
               ConvertHostUnregisterOpToGpuRuntimeCallPattern,
               ConvertMemcpyOpToGpuRuntimeCallPattern,
               ConvertMemsetOpToGpuRuntimeCallPattern,
               ConvertOnStreamOpToGpuRuntimeCallPattern,
               ConvertSetDefaultDeviceOpToGpuRuntimeCallPattern,
               ConvertWaitAsyncOpToGpuRuntimeCallPattern,
               ConvertWaitOpToGpuRuntimeCallPattern,
               ConvertCreateDnTensorOpToGpuRuntimeCallPattern,
               ConvertDestroyDnTensorOpToGpuRuntimeCallPattern,
               ConvertCreateCooOpToGpuRuntimeCallPattern,
               ConvertCreateCooAoSOpToGpuRuntimeCallPattern,
               ConvertCreateCsrOpToGpuRuntimeCallPattern,
               ConvertCreateCscOpToGpuRuntimeCallPattern,
               ConvertCreateBsrOpToGpuRuntimeCallPattern,
               ConvertCreate2To4SpMatOpToGpuRuntimeCallPattern,
               ConvertDestroySpMatOpToGpuRuntimeCallPattern,
               ConvertSpMVBufferSizeOpToGpuRuntimeCallPattern,
               ConvertSpMVOpToGpuRuntimeCallPattern,
               ConvertSpMMBufferSizeOpToGpuRuntimeCallPattern,
               ConvertSDDMMBufferSizeOpToGpuRuntimeCallPattern,
               ConvertSpMMOpToGpuRuntimeCallPattern,
               ConvertSDDMMOpToGpuRuntimeCallPattern,
               ConvertSpGEMMCreateDescrOpToGpuRuntimeCallPattern,
               ConvertSpGEMMDestroyDescrOpToGpuRuntimeCallPattern,
               ConvertSpGEMMWorkEstimationOrComputeOpToGpuRuntimeCallPattern,
               ConvertSpGEMMCopyOpToGpuRuntimeCallPattern,
               ConvertSpMatGetSizeOpToGpuRuntimeCallPattern,
               ConvertSetCsrPointersOpToGpuRuntimeCallPattern>(converter);
  patterns.add<LegalizeLaunchFuncOpPattern>(converter, kernelBarePtrCallConv,
                                            kernelIntersperseSizeCallConv);
}

//===----------------------------------------------------------------------===//
// GPUModuleOp convert to LLVM op interface
//===----------------------------------------------------------------------===//

namespace {
struct GPUModuleOpConvertToLLVMInterface
    : public ConvertToLLVMOpInterface::ExternalModel<
          GPUModuleOpConvertToLLVMInterface, gpu::GPUModuleOp> {
  /// Get the conversion patterns from the target attribute.
  void getConvertToLLVMConversionAttrs(
      Operation *op, SmallVectorImpl<ConvertToLLVMAttrInterface> &attrs) const;
};
} // namespace

void GPUModuleOpConvertToLLVMInterface::getConvertToLLVMConversionAttrs(
    Operation *op, SmallVectorImpl<ConvertToLLVMAttrInterface> &attrs) const {
  auto module = cast<gpu::GPUModuleOp>(op);
  ArrayAttr targetsAttr = module.getTargetsAttr();
  // Fail if there are no target attributes or there is more than one target.
  if (!targetsAttr || targetsAttr.size() != 1)
    return;
  if (auto patternAttr = dyn_cast<ConvertToLLVMAttrInterface>(targetsAttr[0]))
    attrs.push_back(patternAttr);
}

void mlir::gpu::registerConvertGpuToLLVMInterface(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, gpu::GPUDialect *dialect) {
    gpu::GPUModuleOp::attachInterface<GPUModuleOpConvertToLLVMInterface>(*ctx);
  });
}
