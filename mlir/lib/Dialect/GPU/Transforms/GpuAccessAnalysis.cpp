//===- GpuAccessAnalysis.cpp - What GPU and host ops access ---------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/GPU/Transforms/GpuAccessAnalysis.h"

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/DebugLog.h"

#define DEBUG_TYPE "gpu-access-analysis"

using namespace mlir;
using namespace mlir::gpu;

void MemoryAccesses::append(const MemoryAccesses &other) {
  everything |= other.everything;
  if (!everything)
    llvm::append_range(values, other.values);
}

Value GpuAccessAnalysis::getBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

bool GpuAccessAnalysis::isAllocation(Value value) {
  Operation *definer = value.getDefiningOp();
  return definer && hasSingleEffect<MemoryEffects::Allocate>(definer, value);
}

/// Appends the accesses of `effects` to `result`. Effects on no particular
/// value access everything; allocations of values defined in `scope` are
/// fresh memory and skipped.
static void appendHostEffects(ArrayRef<MemoryEffects::EffectInstance> effects,
                              Operation *scope, MemoryAccesses &result) {
  for (const MemoryEffects::EffectInstance &effect : effects) {
    Value value = effect.getValue();
    if (!value) {
      result.everything = true;
      return;
    }
    Operation *definer = value.getDefiningOp();
    if (isa<MemoryEffects::Allocate>(effect.getEffect()) && definer &&
        scope->isAncestor(definer))
      continue;
    result.values.push_back(
        {value, !isa<MemoryEffects::Read>(effect.getEffect())});
  }
}

/// Collects the effects of `op` itself, without those of the ops nested in
/// it; returns false if they are unknown. An op with recursive memory effects
/// has none of its own unless it declares some (linalg ops declare those on
/// their operands).
static bool
getOwnEffects(Operation *op,
              SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  if (auto iface = dyn_cast<MemoryEffectOpInterface>(op)) {
    iface.getEffects(effects);
    return true;
  }
  return op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
}

bool GpuAccessAnalysis::isStackAllocation(Value value) {
  auto iface = value.getDefiningOp<MemoryEffectOpInterface>();
  if (!iface)
    return false;
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffectsOnValue(value, effects);
  return llvm::any_of(effects, [](const MemoryEffects::EffectInstance &effect) {
    return isa<MemoryEffects::Allocate>(effect.getEffect()) &&
           effect.getResource() ==
               SideEffects::AutomaticAllocationScopeResource::get();
  });
}

MemoryAccesses GpuAccessAnalysis::getScopeEndAccesses(Operation *op) {
  MemoryAccesses result;
  Operation *scope = op->getParentOp();
  if (!op->hasTrait<OpTrait::IsTerminator>() || !scope ||
      !scope->hasTrait<OpTrait::AutomaticAllocationScope>())
    return result;
  // Allocations of nested scopes end with those.
  scope->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    // An op without results or regions (a launch, a copy) allocates nothing.
    if (nested->getNumResults() == 0 && nested->getNumRegions() == 0)
      return WalkResult::advance();
    if (nested != scope &&
        nested->hasTrait<OpTrait::AutomaticAllocationScope>())
      return WalkResult::skip();
    for (Value value : nested->getResults())
      if (isStackAllocation(value))
        result.values.push_back({value, true});
    return WalkResult::advance();
  });
  return result;
}

std::optional<MemoryAccesses>
GpuAccessAnalysis::getSummarizedCallAccesses(Operation *op) const {
  auto call = dyn_cast<CallOpInterface>(op);
  if (!call || !summaries)
    return std::nullopt;
  return summaries->getCallAccesses(call);
}

MemoryAccesses GpuAccessAnalysis::getHostAccesses(Operation *op) {
  if (std::optional<MemoryAccesses> result = getSummarizedCallAccesses(op))
    return *result;
  MemoryAccesses result;
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  if (!effects)
    result.everything = true;
  else
    appendHostEffects(*effects, op, result);
  result.append(getScopeEndAccesses(op));
  return result;
}

MemoryAccesses GpuAccessAnalysis::getOwnHostAccesses(Operation *op) {
  if (std::optional<MemoryAccesses> result = getSummarizedCallAccesses(op))
    return *result;
  MemoryAccesses result;
  SmallVector<MemoryEffects::EffectInstance> effects;
  if (!getOwnEffects(op, effects)) {
    result.everything = true;
    return result;
  }
  appendHostEffects(effects, op, result);
  result.append(getScopeEndAccesses(op));
  return result;
}

bool GpuAccessAnalysis::mayConflict(const MemoryAccesses &lhs,
                                    const MemoryAccesses &rhs) {
  if (lhs.empty() || rhs.empty())
    return false;
  if (lhs.everything || rhs.everything)
    return true;
  return llvm::any_of(lhs.values, [&](auto lhsAccess) {
    return llvm::any_of(rhs.values, [&](auto rhsAccess) {
      return (lhsAccess.second || rhsAccess.second) &&
             mayAlias(lhsAccess.first, rhsAccess.first);
    });
  });
}

/// Returns whether `value` is workgroup or private memory: memory of one
/// launch of a kernel, which the host and other launches cannot reach.
static bool isLaunchLocalMemory(Value value) {
  auto type = dyn_cast<BaseMemRefType>(value.getType());
  auto space = type ? dyn_cast_or_null<AddressSpaceAttr>(type.getMemorySpace())
                    : nullptr;
  return space && (space.getValue() == AddressSpace::Workgroup ||
                   space.getValue() == AddressSpace::Private);
}

const MemoryAccesses &GpuAccessAnalysis::getKernelAccesses(GPUFuncOp kernel) {
  auto [it, inserted] = kernelAccesses.try_emplace(kernel);
  if (!inserted)
    return it->second;
  MemoryAccesses &result = it->second;
  DenseMap<unsigned, bool> argWrites;
  Block &entry = kernel.front();
  kernel.walk([&](Operation *op) {
    // A barrier orders the accesses of the work items of one launch; it
    // accesses no memory itself.
    if (op == kernel || op->hasTrait<OpTrait::IsTerminator>() ||
        isa<BarrierOp>(op))
      return;
    // Inline assembly declares only whether it has side effects, not what it
    // accesses: through an operand or with a memory clobber it may reach any
    // memory.
    if (auto inlineAsm = dyn_cast<LLVM::InlineAsmOp>(op)) {
      if (inlineAsm.getHasSideEffects() || !inlineAsm->getOperands().empty() ||
          inlineAsm.getConstraints().contains("~{memory}"))
        result.everything = true;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    if (!getOwnEffects(op, effects)) {
      result.everything = true;
      return;
    }
    for (const MemoryEffects::EffectInstance &effect : effects) {
      if (isa<MemoryEffects::Allocate, MemoryEffects::Free>(effect.getEffect()))
        continue;
      Value value = effect.getValue();
      if (!value) {
        result.everything = true;
        continue;
      }
      // Workgroup and private memory (attributions, gpu.dynamic_shared_memory,
      // globals in those address spaces) are the launch's own.
      if (isLaunchLocalMemory(value))
        continue;
      value = getBuffer(value);
      if (isLaunchLocalMemory(value))
        continue;
      auto arg = dyn_cast<BlockArgument>(value);
      if (arg && arg.getOwner() == &entry &&
          arg.getArgNumber() < kernel.getNumArguments()) {
        argWrites[arg.getArgNumber()] |=
            isa<MemoryEffects::Write>(effect.getEffect());
        continue;
      }
      // Memory the kernel allocates is its own.
      if (isAllocation(value) && kernel->isAncestor(value.getDefiningOp()))
        continue;
      result.everything = true;
    }
  });
  for (auto [index, writes] : argWrites)
    result.values.push_back({kernel.getArgument(index), writes});
  LDBG() << "kernel @" << kernel.getName() << " accesses "
         << (result.everything
                 ? "everything"
                 : std::to_string(result.values.size()) + " argument(s)");
  return result;
}

MemoryAccesses GpuAccessAnalysis::getLaunchAccesses(LaunchFuncOp launch) {
  MemoryAccesses result;
  auto [it, inserted] = kernels.try_emplace(launch.getKernel());
  if (inserted)
    it->second = symbolTables.lookupNearestSymbolFrom(launch.getOperation(),
                                                      launch.getKernel());
  auto kernel = dyn_cast_or_null<GPUFuncOp>(it->second);
  if (kernel && !kernel.isExternal()) {
    const MemoryAccesses &effects = getKernelAccesses(kernel);
    result.everything = effects.everything;
    OperandRange operands = launch.getKernelOperands();
    for (auto [arg, writes] : effects.values) {
      unsigned index = cast<BlockArgument>(arg).getArgNumber();
      if (index < operands.size())
        result.values.push_back({operands[index], writes});
    }
    return result;
  }
  // The body is not visible (a kernel in a gpu.binary, an external gpu.func,
  // an llvm.func): it may access any memory, through pointers, integers or
  // globals, unless the launch or the module holding the kernel says that it
  // accesses only the memory of its memref operands.
  Operation *container = symbolTables.lookupNearestSymbolFrom(
      launch.getOperation(), launch.getKernelModuleName());
  GPUDialect::OnlyMemrefOperandAccessesAttrHelper onlyMemrefOperandAccesses(
      launch.getContext());
  if (!onlyMemrefOperandAccesses.isAttrPresent(launch) &&
      !(container && onlyMemrefOperandAccesses.isAttrPresent(container))) {
    result.everything = true;
    return result;
  }
  for (Value operand : launch.getKernelOperands())
    if (isa<BaseMemRefType>(operand.getType()))
      result.values.push_back({operand, true});
  return result;
}

MemoryAccesses GpuAccessAnalysis::getGpuAccesses(Operation *op) {
  MemoryAccesses result;
  TypeSwitch<Operation *>(op)
      .Case([&](LaunchFuncOp launch) { result = getLaunchAccesses(launch); })
      .Case([&](MemcpyOp memcpy) {
        result.values = {{memcpy.getDst(), true}, {memcpy.getSrc(), false}};
      })
      .Case([&](MemsetOp memset) { result.values = {{memset.getDst(), true}}; })
      .Case([&](AllocOp alloc) { result.values = {{alloc.getMemref(), true}}; })
      .Case([&](DeallocOp dealloc) {
        result.values = {{dealloc.getMemref(), true}};
      })
      .Case([&](WaitOp) {})
      // Other GPU ops (the sparse ones) reach memory through handles.
      .Default([&](Operation *) { result.everything = true; });
  return result;
}

/// Returns whether `value` is an argument of the function it is used in.
static bool isFunctionArgument(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  return arg && arg.getOwner()->isEntryBlock() &&
         isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
}

/// Returns whether function argument `arg` is marked `llvm.noalias`.
static bool isNoaliasArgument(Value arg) {
  auto blockArg = cast<BlockArgument>(arg);
  auto func = cast<FunctionOpInterface>(blockArg.getOwner()->getParentOp());
  // The attribute of the LLVM dialect, as EliminateBarriers.cpp reads it.
  return func.getArgAttr(blockArg.getArgNumber(), "llvm.noalias") != nullptr;
}

bool GpuAccessAnalysis::mayAliasBuffers(Value lhs, Value rhs) {
  // A buffer aliases itself, an `llvm.noalias` argument too.
  if (lhs == rhs)
    return true;
  if (aliasAnalysis.alias(lhs, rhs).isNo())
    return false;
  bool lhsIsArg = isFunctionArgument(lhs), rhsIsArg = isFunctionArgument(rhs);
  // Memory accessed through an `llvm.noalias` argument is not accessed
  // through pointers that are not based on it (LLVM's definition), such as
  // another argument.
  if (lhsIsArg && rhsIsArg &&
      (isNoaliasArgument(lhs) || isNoaliasArgument(rhs)))
    return false;
  // Memory allocated in the function cannot be reached through an argument.
  if ((lhsIsArg && isAllocation(rhs)) || (rhsIsArg && isAllocation(lhs)))
    return false;
  return true;
}

bool GpuAccessAnalysis::mayAlias(Value lhs, Value rhs) {
  return mayAliasBuffers(getBuffer(lhs), getBuffer(rhs));
}

ArrayRef<Value> GpuAccessAnalysis::getAliasingBuffers(Value buffer) {
  auto [it, inserted] = aliasingBuffers.try_emplace(buffer);
  if (!inserted)
    return it->second;
  it->second.push_back(buffer);
  for (Value known : seenBuffers) {
    if (!mayAliasBuffers(known, buffer))
      continue;
    aliasingBuffers[buffer].push_back(known);
    aliasingBuffers[known].push_back(buffer);
  }
  seenBuffers.push_back(buffer);
  // The map may have grown: look the entry up again.
  return aliasingBuffers[buffer];
}

StringAttr gpu::getFlatCalleeName(CallOpInterface call) {
  auto callee = dyn_cast_if_present<FlatSymbolRefAttr>(
      dyn_cast<SymbolRefAttr>(call.getCallableForCallee()));
  return callee ? callee.getAttr() : StringAttr();
}

FunctionAccessSummaries::FunctionAccessSummaries(Operation *symbolTable) {
  for (Region &region : symbolTable->getRegions())
    for (auto function : region.getOps<func::FuncOp>())
      if (!function.isExternal())
        functions[function.getSymNameAttr()] = function;
  // A function calls no other function of the table if there is none.
  if (functions.size() < 2)
    return;
  // One analysis for all functions: the kernels they launch are looked up
  // once.
  AliasAnalysis aliasAnalysis(symbolTable);
  GpuAccessAnalysis accesses(aliasAnalysis);
  symbolTable->walk([&](CallOpInterface call) {
    if (StringAttr callee = getFlatCalleeName(call))
      if (Operation *function = functions.lookup(callee))
        (void)summarize(function, accesses);
  });
}

MemoryAccesses FunctionAccessSummaries::getCallAccesses(const Summary &summary,
                                                        CallOpInterface call) {
  MemoryAccesses result;
  result.everything = summary.everything;
  OperandRange operands = call.getArgOperands();
  for (auto [index, writes] : summary.arguments) {
    if (index >= operands.size()) {
      result.everything = true;
      break;
    }
    result.values.push_back({operands[index], writes});
  }
  if (result.everything)
    result.values.clear();
  return result;
}

std::optional<MemoryAccesses>
FunctionAccessSummaries::getCallAccesses(CallOpInterface call) const {
  StringAttr callee = getFlatCalleeName(call);
  Operation *function = callee ? functions.lookup(callee) : nullptr;
  auto it = function ? summaries.find(function) : summaries.end();
  if (it == summaries.end())
    return std::nullopt;
  return getCallAccesses(it->second, call);
}

const FunctionAccessSummaries::Summary &
FunctionAccessSummaries::summarize(Operation *function,
                                   GpuAccessAnalysis &accesses) {
  if (auto it = summaries.find(function); it != summaries.end())
    return it->second;
  static const Summary unknown = {{}, /*everything=*/true};
  // A call on a cycle of calls (recursion) accesses everything.
  if (!inProgress.insert(function).second)
    return unknown;
  Summary result;
  Block &entry = function->getRegion(0).front();
  DenseMap<unsigned, bool> argumentWrites;
  auto add = [&](Value value, bool writes) {
    Value buffer = GpuAccessAnalysis::getBuffer(value);
    auto argument = dyn_cast<BlockArgument>(buffer);
    if (argument && argument.getOwner() == &entry) {
      argumentWrites[argument.getArgNumber()] |= writes;
      return;
    }
    // Memory the function allocates is new to each call.
    if (GpuAccessAnalysis::isAllocation(buffer) &&
        function->isAncestor(buffer.getDefiningOp()))
      return;
    result.everything = true;
  };
  function->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == function)
      return WalkResult::advance();
    MemoryAccesses opAccesses;
    auto launch = dyn_cast<LaunchFuncOp>(op);
    if (isa<OnStreamOp>(op) || (launch && launch.getAsyncObject())) {
      // Work handed to a stream may still run after the call.
      opAccesses.everything = true;
    } else if (isa<AsyncOpInterface>(op)) {
      opAccesses = accesses.getGpuAccesses(op);
    } else if (auto call = dyn_cast<CallOpInterface>(op)) {
      StringAttr calleeName = getFlatCalleeName(call);
      Operation *callee = calleeName ? functions.lookup(calleeName) : nullptr;
      opAccesses =
          getCallAccesses(callee ? summarize(callee, accesses) : unknown, call);
    } else {
      opAccesses = accesses.getOwnHostAccesses(op);
    }
    result.everything |= opAccesses.everything;
    for (auto [value, writes] : opAccesses.values)
      add(value, writes);
    return result.everything ? WalkResult::interrupt() : WalkResult::advance();
  });
  inProgress.erase(function);
  if (!result.everything)
    for (auto [index, writes] : argumentWrites)
      result.arguments.push_back({index, writes});
  llvm::sort(result.arguments);
  LDBG() << "function @" << cast<SymbolOpInterface>(function).getName()
         << " accesses "
         << (result.everything
                 ? "everything"
                 : std::to_string(result.arguments.size()) + " argument(s)");
  return summaries[function] = std::move(result);
}
