//===- GPUCommonPass.h - MLIR GPU runtime support -------------------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#ifndef MLIR_CONVERSION_GPUCOMMON_GPUCOMMONPASS_H_
#define MLIR_CONVERSION_GPUCOMMON_GPUCOMMONPASS_H_

#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include <functional>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir {

class LLVMTypeConverter;
class Location;
class ModuleOp;
class Operation;
class RewritePatternSet;
class TypeConverter;

class Pass;

namespace gpu {
enum class AddressSpace : uint32_t;
class GPUModuleOp;
} // namespace gpu

namespace LLVM {
class LLVMDialect;
} // namespace LLVM

#define GEN_PASS_DECL_GPUTOLLVMCONVERSIONPASS
#include "mlir/Conversion/Passes.h.inc"

using LoweringCallback = std::function<std::unique_ptr<llvm::Module>(
    Operation *, llvm::LLVMContext &, StringRef)>;

struct FunctionCallBuilder {
  FunctionCallBuilder(StringRef functionName, Type returnType,
                      ArrayRef<Type> argumentTypes)
      : functionName(functionName),
        functionType(LLVM::LLVMFunctionType::get(returnType, argumentTypes)) {}
  /// Creates a call of the function, declaring it in the module if needed. A
  /// pointer argument outside the default address space is cast to a generic
  /// pointer where the parameter is one (as the runtime functions take).
  LLVM::CallOp create(Location loc, OpBuilder &builder,
                      ArrayRef<Value> arguments) const;

  StringRef functionName;
  LLVM::LLVMFunctionType functionType;
};

/// Rewrites the async tokens of the host code nested in `root` (not of
/// gpu.module ops) into the form that the patterns of
/// populateGpuToLLVMConversionPatterns expect: each event token (a token that
/// no async GPU op produced: a block argument, the result of a call or of a
/// region op) gets exactly one user, in its block, and an op that would run on
/// the stream of a dependency after unrelated work gets a stream of its own
/// (a `gpu.wait async` on that dependency); an `arith.select` of two tokens
/// becomes a `gpu.wait async` on both; the host waits for a token used in a
/// region of the terminator of the token's block (as in scf.reduce, whose
/// region may run any number of times) before that terminator. Emits an error
/// and fails on a token it cannot lower (such as an async token as the
/// explicit stream of a launch that is not an argument of the function).
LogicalResult prepareGpuAsyncTokensForLLVM(Operation *root);

/// Completes the lowering of async tokens in `root` after a conversion with
/// populateGpuToLLVMConversionPatterns and `converter`: an async.execute body
/// that uses a stream created outside of it gets a stream of its own, which
/// waits for an event recorded on the outer one; a stream that would leave its
/// region (through a terminator, a branch or a call) is passed as an event
/// recorded on it; and each stream that the patterns created is destroyed
/// exactly once on every path, after its last use.
void finalizeGpuStreamLifetimes(Operation *root,
                                const LLVMTypeConverter &converter);

/// Collect a set of patterns to convert from the GPU dialect to LLVM and
/// populate converter for gpu types. Async tokens lower to streams (the tokens
/// of async GPU ops) and events (all other tokens). The patterns destroy each
/// event they consume and no stream. Run prepareGpuAsyncTokensForLLVM on the
/// input before the conversion and finalizeGpuStreamLifetimes after it, as
/// -gpu-to-llvm does: without the former, an event token with several users
/// is destroyed once per user; without the latter, every stream leaks, and
/// the mark that the patterns put on the streams they create
/// (`gpu.lowered_stream`) fails the verifier after the pass. The conversion
/// and finalizeGpuStreamLifetimes must run in one pass.
void populateGpuToLLVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns,
    bool kernelBarePtrCallConv = false,
    bool kernelIntersperseSizeCallConv = false);

/// A function that maps a MemorySpace enum to a target-specific integer value.
using MemorySpaceMapping = std::function<unsigned(gpu::AddressSpace)>;

/// Populates memory space attribute conversion rules for lowering
/// gpu.address_space to integer values.
void populateGpuMemorySpaceAttributeConversions(
    TypeConverter &typeConverter, const MemorySpaceMapping &mapping);
} // namespace mlir

#endif // MLIR_CONVERSION_GPUCOMMON_GPUCOMMONPASS_H_
