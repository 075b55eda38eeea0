//===- GpuAccessAnalysis.h - What GPU and host ops access -------*- C++ -*-===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An analysis of the memory that GPU ops and host ops access, and of which
// buffers may alias, for passes that order GPU work by its memory
// dependences (-gpu-async-region).
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_DIALECT_GPU_TRANSFORMS_GPUACCESSANALYSIS_H_
#define MLIR_DIALECT_GPU_TRANSFORMS_GPUACCESSANALYSIS_H_

#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir {
class AliasAnalysis;
class CallOpInterface;

namespace gpu {
class GPUFuncOp;
class LaunchFuncOp;

/// The memory an op may access: (value, writes) pairs, or everything.
struct MemoryAccesses {
  SmallVector<std::pair<Value, bool>> values;
  bool everything = false;

  /// Returns whether no memory is accessed.
  bool empty() const { return !everything && values.empty(); }

  /// Adds the accesses of `other`.
  void append(const MemoryAccesses &other);
};

class GpuAccessAnalysis;

/// Returns the name of the callee of `call` if it is a flat symbol reference,
/// or null.
StringAttr getFlatCalleeName(CallOpInterface call);

/// What the functions of a symbol table access, as the GPU ops and host ops
/// of their bodies do (see GpuAccessAnalysis), in terms of their arguments:
/// a call of one of them accesses what its operands refer to. Only the
/// func.func ops with a body that are direct children of the symbol table are
/// summarized, and calls are resolved by their callee's flat symbol name. A
/// function accesses everything if an op in it may reach memory other than
/// that of its arguments and of the allocations it makes (a global, a loaded
/// pointer), has unknown effects, calls a function that is not summarized or
/// one on a cycle of calls (recursion), or may hand work to a stream (a
/// gpu.on_stream, a launch on a stream): that work is still running after
/// the call.
class FunctionAccessSummaries {
public:
  /// Summarizes the functions of `symbolTable` that are called in it.
  explicit FunctionAccessSummaries(Operation *symbolTable);

  /// Returns the memory that `call` accesses through its callee if the
  /// callee is summarized: what its operands refer to, or everything.
  std::optional<MemoryAccesses> getCallAccesses(CallOpInterface call) const;

private:
  struct Summary {
    /// The accessed arguments, and whether they are written.
    SmallVector<std::pair<unsigned, bool>> arguments;
    bool everything = false;
  };
  /// Summarizes `function`, asking `accesses` what its ops access.
  const Summary &summarize(Operation *function, GpuAccessAnalysis &accesses);
  /// Returns what `call` accesses if its callee is summarized by `summary`.
  static MemoryAccesses getCallAccesses(const Summary &summary,
                                        CallOpInterface call);

  DenseMap<StringAttr, Operation *> functions;
  DenseMap<Operation *, Summary> summaries;
  /// The functions being summarized (a call of one of them is recursive).
  DenseSet<Operation *> inProgress;
};

/// Answers which memory the GPU ops and the host ops of a function access and
/// which buffers may alias.
///
/// What the analysis cannot see accesses everything: a kernel whose body is
/// not in the module (unless its launch or its module has
/// `gpu.only_memref_operand_accesses`), an effect on no particular value, an
/// op without known effects. In a kernel body, workgroup and private memory
/// (memrefs in those `#gpu.address_space`s) belong to one launch, and
/// `gpu.barrier` only synchronizes its work items: neither is an access of
/// the launch. The terminator of an automatic allocation scope (a function's
/// return, the yield of an `scf.for` iteration or of an `async.execute`
/// body) writes the stack memory allocated in the scope (`memref.alloca`):
/// the memory is gone afterwards.
///
/// Buffers are values followed back through view-like ops. Two buffers may
/// alias unless alias analysis says no, they are distinct function arguments
/// one of which is `llvm.noalias`, or one is allocated in the function and
/// the other is a function argument.
///
/// Queries are memoized per kernel and per pair of buffers: the kernels, and
/// the buffers given to getAliasingBuffers, must not change while the
/// analysis is in use.
class GpuAccessAnalysis {
public:
  /// With `summaries`, a call of a summarized function accesses what its
  /// callee does through the call's operands; otherwise everything.
  explicit GpuAccessAnalysis(AliasAnalysis &aliasAnalysis,
                             const FunctionAccessSummaries *summaries = nullptr)
      : aliasAnalysis(aliasAnalysis), summaries(summaries) {}

  /// The buffer `value` is a view of: `value` followed back through view-like
  /// ops.
  static Value getBuffer(Value value);

  /// Returns whether `value` is the result of an allocation: new memory.
  static bool isAllocation(Value value);

  /// Returns whether `value` is allocated in an automatic allocation scope
  /// (stack memory, such as `memref.alloca`'s): it is freed at the end of the
  /// scope.
  static bool isStackAllocation(Value value);

  /// The memory that GPU op `op` accesses. A launch accesses the operands
  /// whose kernel arguments the kernel body reads or writes; gpu.memcpy writes
  /// its destination and reads its source; gpu.memset, gpu.alloc and
  /// gpu.dealloc write their memref; gpu.wait accesses nothing; other GPU ops
  /// (the sparse ones, which reach memory through handles) access everything.
  MemoryAccesses getGpuAccesses(Operation *op);

  /// The memory that host op `op` may access, ops nested in it included;
  /// memory that `op` or an op nested in it allocates is excluded. A
  /// terminator that ends an automatic allocation scope writes the stack
  /// allocations of that scope.
  MemoryAccesses getHostAccesses(Operation *op);

  /// The memory that host op `op` itself, without the ops nested in it, may
  /// access (a terminator as in getHostAccesses).
  MemoryAccesses getOwnHostAccesses(Operation *op);

  /// The stack memory that terminator `op` frees, as writes: the
  /// allocations in the automatic allocation scope it ends, if any.
  MemoryAccesses getScopeEndAccesses(Operation *op);

  /// Returns whether an op that makes `lhs` and one that makes `rhs` may
  /// conflict: they may access overlapping memory and at least one of them
  /// writes it. Accessing everything conflicts with any access.
  bool mayConflict(const MemoryAccesses &lhs, const MemoryAccesses &rhs);

  /// Returns whether `lhs` and `rhs` may refer to overlapping memory. Not
  /// memoized: the values may be replaced afterwards.
  bool mayAlias(Value lhs, Value rhs);

  /// The buffers seen so far that may alias `buffer`, `buffer` included.
  /// Memoized per pair of buffers.
  ArrayRef<Value> getAliasingBuffers(Value buffer);

private:
  MemoryAccesses getLaunchAccesses(LaunchFuncOp launch);
  const MemoryAccesses &getKernelAccesses(GPUFuncOp kernel);
  bool mayAliasBuffers(Value lhs, Value rhs);
  /// Returns what `op` accesses if it is a call of a summarized function.
  std::optional<MemoryAccesses> getSummarizedCallAccesses(Operation *op) const;

  AliasAnalysis &aliasAnalysis;
  const FunctionAccessSummaries *summaries;
  SymbolTableCollection symbolTables;
  DenseMap<SymbolRefAttr, Operation *> kernels;
  DenseMap<Operation *, MemoryAccesses> kernelAccesses;
  SmallVector<Value> seenBuffers;
  DenseMap<Value, SmallVector<Value>> aliasingBuffers;
};

} // namespace gpu
} // namespace mlir

#endif // MLIR_DIALECT_GPU_TRANSFORMS_GPUACCESSANALYSIS_H_
