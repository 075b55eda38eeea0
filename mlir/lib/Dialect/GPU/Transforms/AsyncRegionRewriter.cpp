//===- AsyncRegionRewriter.cpp - Implementation of GPU async rewriters ----===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the GPU dialect pattern rewriters that make GPU op
// within a region execute asynchronously.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/GPU/Transforms/Passes.h"

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/Async/IR/Async.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/GpuAccessAnalysis.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Threading.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/PointerIntPair.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/DebugLog.h"
#include <atomic>

#define DEBUG_TYPE "gpu-async-region"

namespace mlir {
#define GEN_PASS_DEF_GPUASYNCREGIONPASS
#include "mlir/Dialect/GPU/Transforms/Passes.h.inc"
} // namespace mlir

using namespace mlir;
using gpu::GpuAccessAnalysis;
using gpu::MemoryAccesses;

namespace {
class StreamArguments;

class GpuAsyncRegionPass
    : public impl::GpuAsyncRegionPassBase<GpuAsyncRegionPass> {
  using Base::Base;
  struct ThreadTokenCallback;
  struct DeferWaitCallback;
  struct SingleTokenUseCallback;
  void runOnOperation() override;
  LogicalResult runOnFunction(func::FuncOp function,
                              const StreamArguments *streamArguments,
                              const gpu::FunctionAccessSummaries *summaries);
};
} // namespace

static bool isTerminator(Operation *op) {
  return op->mightHaveTrait<OpTrait::IsTerminator>();
}
static bool hasSideEffects(Operation *op) { return !isMemoryEffectFree(op); }

/// Counts the token result that `newOp`, the async clone of an op with
/// several variadic results (gpu.spmm_buffer_size), has in addition: the
/// token is the last result segment.
static void growAsyncTokenSegment(Operation *newOp) {
  if (!newOp->hasTrait<OpTrait::AttrSizedResultSegments>())
    return;
  StringRef attrName =
      OpTrait::AttrSizedResultSegments<void>::getResultSegmentSizeAttr();
  auto sizeAttr = newOp->getAttrOfType<DenseI32ArrayAttr>(attrName);
  if (!sizeAttr)
    return;
  SmallVector<int32_t> sizes(sizeAttr.asArrayRef());
  sizes.back() = 1;
  newOp->setAttr(attrName, DenseI32ArrayAttr::get(newOp->getContext(), sizes));
}

/// Returns `op` if it is a GPU op that can execute asynchronously. A
/// host-shared `gpu.alloc` has no asynchronous form, and a launch on an
/// explicit stream is ordered by that stream: both stay host ops.
static gpu::AsyncOpInterface getAsyncOp(Operation *op) {
  auto alloc = dyn_cast<gpu::AllocOp>(op);
  if (alloc && alloc.getHostShared() && !alloc.getAsyncToken())
    return {};
  auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
  if (launch && launch.getAsyncObject())
    return {};
  return dyn_cast<gpu::AsyncOpInterface>(op);
}

static Value createWaitOp(OpBuilder &builder, Location loc, Type resultType,
                          ValueRange operands) {
  return gpu::WaitOp::create(builder, loc, resultType, operands)
      .getAsyncToken();
}

/// Returns the entry token of the innermost gpu.on_stream whose body holds
/// `block`, or null.
static Value getStreamEntryToken(Block *block) {
  for (Operation *op = block->getParentOp(); op; op = op->getParentOp())
    if (auto onStreamOp = dyn_cast<gpu::OnStreamOp>(op))
      return onStreamOp.getEntryToken();
  return {};
}

/// Creates a token of no pending work before the current insertion point:
/// inside the body of gpu.on_stream, the work starts after the stream's
/// earlier work (its entry token), elsewhere on a new stream.
static Value createStartToken(OpBuilder &builder, Location loc, Operation *op) {
  Value entry = getStreamEntryToken(op->getBlock());
  return createWaitOp(builder, loc, builder.getType<gpu::AsyncTokenType>(),
                      entry ? ValueRange(entry) : ValueRange());
}

/// Makes the host wait, at the insertion point of `builder`, for the work
/// enqueued on `stream` so far (the work an earlier gpu.on_stream handed to
/// it), with a gpu.on_stream whose body waits for its entry token.
static void createStreamHostWait(OpBuilder &builder, Value stream,
                                 Location loc) {
  auto onStreamOp = gpu::OnStreamOp::create(builder, loc, TypeRange(), stream);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&onStreamOp.getBody().front());
  gpu::WaitOp::create(builder, loc, Type(), onStreamOp.getEntryToken());
  gpu::OnStreamYieldOp::create(builder, loc, ValueRange(), ValueRange());
}

/// Returns whether the host can wait for the work enqueued on `stream` (with
/// a gpu.on_stream): the stream is an LLVM pointer in address space 0.
static bool canWaitForStream(Value stream) {
  auto type = dyn_cast<LLVM::LLVMPointerType>(stream.getType());
  return type && type.getAddressSpace() == 0;
}

/// Checks that the host can wait, before `op`, for the work enqueued on
/// `stream`: with a gpu.on_stream, whose stream is an LLVM pointer in address
/// space 0. A launch may name a stream of another type (a token that stands
/// for the caller's stream, say); no wait for it can be expressed.
static LogicalResult checkStreamHostWait(Value stream, Operation *op) {
  if (canWaitForStream(stream))
    return success();
  return op->emitOpError()
         << "needs the host to wait for GPU work launched on a stream of type "
         << stream.getType()
         << ", which -gpu-async-region cannot express; pass the stream as "
            "'!llvm.ptr'";
}

/// Returns whether branch `branch` passes operand `use` to a successor block.
static bool isForwardedToSuccessor(BranchOpInterface branch, OpOperand &use) {
  for (unsigned i = 0, e = branch->getNumSuccessors(); i != e; ++i) {
    OperandRange forwarded =
        branch.getSuccessorOperands(i).getForwardedOperands();
    if (forwarded.empty())
      continue;
    unsigned begin = forwarded.getBeginOperandIndex();
    if (use.getOperandNumber() >= begin &&
        use.getOperandNumber() < begin + forwarded.size())
      return true;
  }
  return false;
}

/// Returns whether the op of `use` takes its value only as the address of
/// memory it reads or writes (an llvm.load or llvm.store through it).
static bool isAccessedThrough(OpOperand &use) {
  auto effectOp = dyn_cast<MemoryEffectOpInterface>(use.getOwner());
  if (!effectOp || llvm::count(use.getOwner()->getOperands(), use.get()) != 1)
    return false;
  SmallVector<MemoryEffects::EffectInstance> effects;
  effectOp.getEffectsOnValue(use.get(), effects);
  return !effects.empty() &&
         llvm::all_of(effects, [](const MemoryEffects::EffectInstance &e) {
           return isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect());
         });
}

/// Returns whether `use`, of a value the host could wait for as a stream,
/// may end that stream or let code the pass does not see end it: a use by
/// an op of unknown effects (a runtime call that synchronizes the stream,
/// begins or ends a capture of it or destroys it; a call that may do so; a
/// store that lets it escape). Not a use by a GPU op (as a stream, or as
/// memory that a kernel accesses: device code ends no stream), nor an
/// operand that a branch passes to a successor or a region op to a region
/// (or out of one), nor one of an op without memory effects or that only
/// accesses memory through it, nor one in the body of a gpu.on_stream on the
/// value: the region's exit uses the stream after it.
static bool isStreamEndingUse(OpOperand &use) {
  Operation *user = use.getOwner();
  auto branch = dyn_cast<BranchOpInterface>(user);
  if (isa<gpu::GPUDialect>(user->getDialect()) ||
      isa<RegionBranchOpInterface, RegionBranchTerminatorOpInterface>(user) ||
      (branch && isForwardedToSuccessor(branch, use)) ||
      isMemoryEffectFree(user) || isAccessedThrough(use))
    return false;
  for (auto region = user->getParentOfType<gpu::OnStreamOp>(); region;
       region = region->getParentOfType<gpu::OnStreamOp>())
    if (region.getStream() == use.get())
      return false;
  return true;
}

/// Returns the values in `function` that the host could wait for as streams
/// and that a use for which `mayEnd` holds may end (see isStreamEndingUse).
static SmallVector<Value>
getEndedStreams(Operation *function, function_ref<bool(OpOperand &)> mayEnd) {
  SetVector<Value> ended;
  function->walk([&](Operation *op) {
    for (OpOperand &use : op->getOpOperands())
      if (canWaitForStream(use.get()) && mayEnd(use))
        ended.insert(use.get());
  });
  return ended.takeVector();
}

/// Returns whether `onStreamOp` hands GPU work to its stream: one of its
/// terminators lists a token.
static bool handsOverWork(gpu::OnStreamOp onStreamOp) {
  return llvm::any_of(onStreamOp.getBody(), [](Block &block) {
    auto yield = dyn_cast<gpu::OnStreamYieldOp>(block.getTerminator());
    return yield && !yield.getAsyncDependencies().empty();
  });
}

/// Returns the stream of `op` if it is a launch on a stream
/// (`gpu.launch_func <%s>`), or null.
static Value getLaunchStream(Operation *op) {
  auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
  return launch ? launch.getAsyncObject() : Value();
}

/// Returns the stream of the innermost gpu.on_stream whose body holds `op`, or
/// null.
static Value getEnclosingStream(Operation *op) {
  auto onStreamOp = op->getParentOfType<gpu::OnStreamOp>();
  return onStreamOp ? onStreamOp.getStream() : Value();
}

/// Returns everything as accesses.
static MemoryAccesses getEverything() {
  MemoryAccesses everything;
  everything.everything = true;
  return everything;
}

namespace {
/// GPU work handed to a stream that the host has not waited for: the exits of
/// gpu.on_stream ops (the work includes the stream's earlier work: it may
/// access anything) and launches on the stream (what their kernels access).
struct HandedWork {
  Value stream;
  MemoryAccesses accesses;
  /// Whether an op of unknown effects may have handed some of it (see
  /// OpaqueStreamUsers): such an op may also have ended the stream.
  bool byOpaqueOp = false;
};
} // namespace

/// Records that GPU work with `accesses` was handed to `stream`, by an op of
/// unknown effects if `byOpaqueOp`.
static void addHandedWork(SmallVectorImpl<HandedWork> &handed, Value stream,
                          const MemoryAccesses &accesses,
                          bool byOpaqueOp = false) {
  for (HandedWork &work : handed) {
    if (work.stream == stream) {
      work.accesses.append(accesses);
      work.byOpaqueOp |= byOpaqueOp;
      return;
    }
  }
  handed.push_back({stream, accesses, byOpaqueOp});
}

/// Returns whether work was handed to `stream` in `handed`.
static bool isHandedTo(ArrayRef<HandedWork> handed, Value stream) {
  return llvm::any_of(
      handed, [&](const HandedWork &work) { return work.stream == stream; });
}

/// Adds `deps` to the front of the async dependencies of `asyncOp`. Returns
/// the token of `asyncOp` if it returns one already; otherwise replaces it
/// with a clone that returns a token, of type `tokenType`, in addition to the
/// other results, and returns the clone's token.
static Value makeAsync(OpBuilder &builder, gpu::AsyncOpInterface asyncOp,
                       ValueRange deps, Type tokenType) {
  Operation *op = asyncOp.getOperation();
  if (Value token = asyncOp.getAsyncToken()) {
    gpu::addAsyncDependencies(op, deps);
    return token;
  }

  // Clone the op to return a token in addition to the other results. The
  // clone gets the dependencies as it is created (inserting them later would
  // move every other operand).
  SmallVector<Type, 1> resultTypes;
  resultTypes.reserve(1 + op->getNumResults());
  llvm::append_range(resultTypes, op->getResultTypes());
  resultTypes.push_back(tokenType);
  SmallVector<Value> operands;
  operands.reserve(deps.size() + op->getNumOperands());
  llvm::append_range(operands, deps);
  llvm::append_range(operands, op->getOperands());
  Operation *newOp = Operation::create(
      op->getLoc(), op->getName(), resultTypes, operands,
      op->getDiscardableAttrDictionary(), op->getPropertiesStorage(),
      op->getSuccessors(), op->getNumRegions());
  gpu::growAsyncDependencySegment(newOp, deps.size());
  growAsyncTokenSegment(newOp);

  // Clone regions into new op.
  IRMapping mapping;
  for (auto [from, to] : llvm::zip_first(op->getRegions(), newOp->getRegions()))
    from.cloneInto(&to, mapping);

  // Replace the op with the async clone.
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(op);
  builder.insert(newOp);
  op->replaceAllUsesWith(newOp->getResults().drop_back());
  op->erase();
  return newOp->getResults().back();
}

/// Returns whether `op` is in the body of an scf.for or scf.while inside the
/// innermost gpu.on_stream or function around it. The work handed to streams
/// in such a body is pending at the start of the next iteration, where it is
/// known before the body is scheduled (see collectHandedWork).
static bool isInLoopBody(Operation *op) {
  for (Operation *parent = op->getParentOp();
       parent && !isa<gpu::OnStreamOp, FunctionOpInterface>(parent);
       parent = parent->getParentOp())
    if (isa<scf::ForOp, scf::WhileOp>(parent))
      return true;
  return false;
}

/// Returns the stream after whose handed work GPU op `op`, which accesses
/// `opAccesses`, runs on that stream, in a gpu.on_stream of its own (see
/// moveOntoStream), rather than the host waiting for that work: the first
/// stream in `handed` the host could wait for (see canWaitForStream) whose
/// work `op` may conflict with and that no op of unknown effects may have
/// handed work to (it may have ended the stream: a call that destroys it or
/// returns it to a pool). Null if there is none, if `op` has a token
/// that others use (a gpu.on_stream passes no token out), if it takes or
/// makes a sparse handle (which belongs to the token work that made it), or
/// if it is in a loop body (see isInLoopBody): an earlier op of the body
/// would have to be ordered after the work it hands over in the previous
/// iteration.
static Value getStreamToFollow(ArrayRef<HandedWork> handed, Operation *op,
                               const MemoryAccesses &opAccesses,
                               GpuAccessAnalysis &accesses) {
  if (handed.empty())
    return {};
  auto asyncOp = cast<gpu::AsyncOpInterface>(op);
  if (Value token = asyncOp.getAsyncToken(); token && !token.use_empty())
    return {};
  auto isHandle = [](Type type) {
    return isa<gpu::GPUDialect>(type.getDialect()) &&
           !isa<gpu::AsyncTokenType>(type);
  };
  if (llvm::any_of(op->getOperandTypes(), isHandle) ||
      llvm::any_of(op->getResultTypes(), isHandle))
    return {};
  if (isInLoopBody(op))
    return {};
  for (const HandedWork &work : handed)
    if (!work.byOpaqueOp && canWaitForStream(work.stream) &&
        accesses.mayConflict(work.accesses, opAccesses))
      return work.stream;
  return {};
}

/// Moves GPU op `asyncOp` into a new gpu.on_stream on `stream` at its place
/// and makes it async, depending on the region's entry token and on `deps`:
/// it runs after the work enqueued on `stream` so far without the host
/// waiting for that work, and the region hands its work to the stream. Its
/// other results leave the region as the region's results. Returns the async
/// op.
static Operation *moveOntoStream(OpBuilder &builder,
                                 gpu::AsyncOpInterface asyncOp, Value stream,
                                 ValueRange deps) {
  Operation *op = asyncOp.getOperation();
  Location loc = op->getLoc();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(op);
  SmallVector<Type> resultTypes;
  for (Type type : op->getResultTypes())
    if (!isa<gpu::AsyncTokenType>(type))
      resultTypes.push_back(type);
  auto onStreamOp = gpu::OnStreamOp::create(builder, loc, resultTypes, stream);
  builder.setInsertionPointToStart(&onStreamOp.getBody().front());
  auto yield =
      gpu::OnStreamYieldOp::create(builder, loc, ValueRange(), ValueRange());
  op->moveBefore(yield);
  SmallVector<Value> allDeps = {onStreamOp.getEntryToken()};
  llvm::append_range(allDeps, deps);
  Value token = makeAsync(builder, asyncOp, allDeps,
                          onStreamOp.getEntryToken().getType());
  Operation *newOp = token.getDefiningOp();
  yield.getAsyncDependenciesMutable().append(token);
  for (auto [result, regionResult] : llvm::zip_equal(
           newOp->getResults().drop_back(), onStreamOp.getResults())) {
    result.replaceAllUsesWith(regionResult);
    yield.getValuesMutable().append(result);
  }
  return newOp;
}

/// Hands `tokens` over to `stream` at the insertion point of `builder`, with
/// a gpu.on_stream whose body lists them at its exit: the stream's later work
/// runs after them, and the host does not wait for them.
static void createStreamHandOver(OpBuilder &builder, Value stream,
                                 ValueRange tokens, Location loc) {
  auto onStreamOp = gpu::OnStreamOp::create(builder, loc, TypeRange(), stream);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&onStreamOp.getBody().front());
  gpu::OnStreamYieldOp::create(builder, loc, tokens, ValueRange());
}

/// Returns whether `op` is a region op whose regions the dependence mode can
/// pass tokens through: scf.for, scf.while, scf.if, scf.index_switch and
/// scf.execute_region, with single-block regions.
static bool passesTokens(Operation *op) {
  return isa<scf::ForOp, scf::WhileOp, scf::IfOp, scf::IndexSwitchOp,
             scf::ExecuteRegionOp>(op) &&
         llvm::all_of(op->getRegions(), [](Region &region) {
           return region.empty() || region.hasOneBlock();
         });
}

/// Returns whether `op` is a GPU op the dependence mode schedules, or holds
/// one in a region it passes tokens through (see passesTokens).
static bool holdsCarriedGpuWork(Operation *op) {
  if (getAsyncOp(op))
    return true;
  if (!passesTokens(op))
    return false;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (Operation &nested : block)
        if (holdsCarriedGpuWork(&nested))
          return true;
  return false;
}

/// Returns whether `op`, in the body of a gpu.on_stream, is GPU work that the
/// body hands over: a GPU op other than gpu.wait, which this pass makes
/// async, or a launch on a stream.
static bool isHandedOverWork(Operation *op) {
  return (getAsyncOp(op) && !isa<gpu::WaitOp>(op)) || getLaunchStream(op);
}

/// Returns what the GPU work of `op` and the ops nested in it accesses, also
/// the work it launches on streams (see isHandedOverWork).
static MemoryAccesses getHandedOverWork(GpuAccessAnalysis &accesses,
                                        Operation *op) {
  MemoryAccesses result;
  op->walk([&](Operation *nested) {
    if (isHandedOverWork(nested))
      result.append(accesses.getGpuAccesses(nested));
  });
  return result;
}

/// Returns the blocks from which `block` can be reached (`block` too if it
/// is in a cycle).
static SmallVector<Block *> getReachingBlocks(Block *block) {
  SmallVector<Block *> reaching;
  SmallVector<Block *> worklist(block->getPredecessors());
  DenseSet<Block *> visited;
  while (!worklist.empty()) {
    Block *pred = worklist.pop_back_val();
    if (!visited.insert(pred).second)
      continue;
    reaching.push_back(pred);
    llvm::append_range(worklist, pred->getPredecessors());
  }
  return reaching;
}

/// Returns whether `onStreamOp` may hand GPU work to its stream: an exit lists
/// a token, or its body holds GPU work that it hands over (see
/// isHandedOverWork).
static bool mayHandOverWork(gpu::OnStreamOp onStreamOp) {
  if (handsOverWork(onStreamOp))
    return true;
  return onStreamOp.getBody()
      .walk([](Operation *op) {
        return isHandedOverWork(op) ? WalkResult::interrupt()
                                    : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Returns whether the work handed to streams in the regions of `op` can stay
/// pending after it, rather than be waited for at the end of each block: `op`
/// is an scf.for, scf.while, scf.if, scf.index_switch or scf.execute_region,
/// which the host executes in place.
static bool passesHandedWork(Operation *op) {
  return isa<scf::ForOp, scf::WhileOp, scf::IfOp, scf::IndexSwitchOp,
             scf::ExecuteRegionOp>(op);
}

/// Returns whether the work handed to streams in `block` stays pending at its
/// end: the block returns control to its parent op (see passesHandedWork) or
/// to the next iteration of the loop. Work handed to a stream defined in the
/// parent op is waited for all the same (see isDefinedIn).
static bool keepsHandedWork(Block *block) {
  return passesHandedWork(block->getParentOp()) && !block->empty() &&
         isa<RegionBranchTerminatorOpInterface>(block->back());
}

/// Returns whether `value` is defined in `scope`: by an op nested in it, or
/// as an argument of one of its blocks (a loop's iter_arg).
static bool isDefinedIn(Value value, Operation *scope) {
  return scope->isAncestor(value.getParentBlock()->getParentOp());
}

/// Returns the values that may flow into `value` where control reaches its
/// definition: the operands of a select, the values that branches, region
/// entries and region exits pass to a block argument or to a result of a
/// RegionBranchOpInterface op. Empty for other values.
static SmallVector<Value> getIncomingValues(Value value) {
  if (auto select = value.getDefiningOp<SelectLikeOpInterface>())
    return {select.getTrueValue(), select.getFalseValue()};
  SmallVector<Value> incoming;
  // The values passed to `value` as an input of `successor`, if it is one.
  auto addPredecessorValues = [&](RegionBranchOpInterface op,
                                  RegionSuccessor successor) {
    ValueRange inputs = op.getSuccessorInputs(successor);
    auto it = llvm::find(inputs, value);
    if (it != inputs.end())
      op.getPredecessorValues(successor, it - inputs.begin(), incoming);
  };
  if (auto result = dyn_cast<OpResult>(value)) {
    if (auto op = dyn_cast<RegionBranchOpInterface>(result.getOwner()))
      addPredecessorValues(op, RegionSuccessor(op.getOperation()));
    return incoming;
  }
  auto argument = cast<BlockArgument>(value);
  Block *block = argument.getOwner();
  if (block->isEntryBlock()) {
    if (auto op = dyn_cast<RegionBranchOpInterface>(block->getParentOp()))
      addPredecessorValues(op, RegionSuccessor(block->getParent()));
    return incoming;
  }
  for (auto it = block->pred_begin(); it != block->pred_end(); ++it) {
    auto branch = dyn_cast<BranchOpInterface>((*it)->getTerminator());
    if (!branch)
      continue;
    SuccessorOperands operands =
        branch.getSuccessorOperands(it.getSuccessorIndex());
    if (Value operand = operands[argument.getArgNumber()])
      incoming.push_back(operand);
  }
  return incoming;
}

namespace {
/// The kinds of ops in a function that steps of the pass look for, found in
/// one walk: each step whose ops the function does not hold is skipped, with
/// its walk.
struct FunctionShape {
  FunctionShape() = default;
  explicit FunctionShape(func::FuncOp function) {
    function.walk([&](Operation *op) { add(op, getLaunchStream(op)); });
  }

  /// Notes the kind of `op`, whose stream as a launch is `launchStream` (see
  /// getLaunchStream).
  void add(Operation *op, Value launchStream) {
    onStreamOps |= isa<gpu::OnStreamOp>(op);
    executeOps |= isa<async::ExecuteOp>(op);
    launchStreams |= launchStream != nullptr;
    stackMemory |=
        llvm::any_of(op->getResults(), GpuAccessAnalysis::isStackAllocation);
  }

  /// gpu.on_stream ops.
  bool onStreamOps = false;
  /// async.execute ops.
  bool executeOps = false;
  /// Launches on a stream (see getLaunchStream).
  bool launchStreams = false;
  /// Ops that allocate stack memory (see GpuAccessAnalysis::isStackAllocation).
  bool stackMemory = false;
};

/// The arguments that the functions of a symbol table use as streams: as the
/// stream of a gpu.on_stream or of a launch, or passed on as such an argument
/// of a function of the table, directly or through selects, branches and the
/// arguments and results of region ops (see getIncomingValues); and those
/// that they may end (see mayEndStream). Only the func.func ops with a body
/// that are direct children of the symbol table are looked into, and calls
/// are resolved by their callee's flat symbol name. Computed before any
/// function is rewritten, and looked up by that name alone: the pass on one
/// function reads no other function's body. Its walk of each function also
/// finds the function's shape.
class StreamArguments {
public:
  explicit StreamArguments(Operation *symbolTable) {
    // The values that each function uses as streams itself, its calls, and
    // its uses of values the host could wait for as streams.
    struct FunctionUses {
      func::FuncOp function;
      SmallVector<Value> streams;
      SmallVector<CallOpInterface> calls;
      SmallVector<OpOperand *> streamUses;
    };
    SmallVector<FunctionUses> functions;
    DenseMap<StringAttr, unsigned> indexOf;
    for (Region &region : symbolTable->getRegions()) {
      for (auto function : region.getOps<func::FuncOp>()) {
        if (function.isExternal())
          continue;
        indexOf[function.getSymNameAttr()] = functions.size();
        FunctionUses &uses = functions.emplace_back();
        uses.function = function;
        FunctionShape &shape = shapes[function.getSymNameAttr()];
        streamArgumentsOf[function.getSymNameAttr()].resize(
            function.getNumArguments());
        endedArgumentsOf[function.getSymNameAttr()].resize(
            function.getNumArguments());
        function.walk([&](Operation *op) {
          auto onStreamOp = dyn_cast<gpu::OnStreamOp>(op);
          Value launchStream = onStreamOp ? Value() : getLaunchStream(op);
          if (Value stream = onStreamOp ? onStreamOp.getStream() : launchStream)
            uses.streams.push_back(stream);
          else if (auto call = dyn_cast<CallOpInterface>(op))
            uses.calls.push_back(call);
          appendStreamUses(op, uses.streamUses);
          shape.add(op, launchStream);
        });
      }
    }
    // The functions that call each function of the table.
    SmallVector<SmallVector<unsigned>> callers(functions.size());
    for (auto [index, uses] : llvm::enumerate(functions))
      for (CallOpInterface call : uses.calls)
        if (StringAttr callee = gpu::getFlatCalleeName(call))
          if (auto it = indexOf.find(callee); it != indexOf.end())
            callers[it->second].push_back(index);
    // A value passed on as a stream is one, and one passed to an argument
    // that may be ended may be ended: find the arguments of each function
    // again where those of a callee grew.
    SmallVector<unsigned> worklist =
        llvm::to_vector(llvm::seq<unsigned>(0, functions.size()));
    BitVector queued(functions.size(), true);
    while (!worklist.empty()) {
      unsigned index = worklist.pop_back_val();
      queued.reset(index);
      FunctionUses &uses = functions[index];
      SmallVector<Value> streams = uses.streams;
      for (CallOpInterface call : uses.calls)
        llvm::append_range(streams, getStreamOperands(call));
      StringAttr name = uses.function.getSymNameAttr();
      bool grew = false;
      auto add = [&](BitVector &found, ArrayRef<Value> values) {
        for (unsigned argument : getArgumentSources(uses.function, values)) {
          grew |= !found.test(argument);
          found.set(argument);
        }
      };
      add(streamArgumentsOf[name], streams);
      add(endedArgumentsOf[name], getEndedValues(uses.streamUses));
      if (!grew)
        continue;
      for (unsigned caller : callers[index]) {
        if (!queued.test(caller)) {
          queued.set(caller);
          worklist.push_back(caller);
        }
      }
    }
  }

  /// Returns whether `use`, of a value the host could wait for as a stream,
  /// may end that stream (see isStreamEndingUse); a call of a function of the
  /// table does if that function may end its argument.
  bool mayEndStream(OpOperand &use) const {
    if (!isStreamEndingUse(use))
      return false;
    auto call = dyn_cast<CallOpInterface>(use.getOwner());
    StringAttr callee = call ? gpu::getFlatCalleeName(call) : StringAttr();
    auto it = callee ? endedArgumentsOf.find(callee) : endedArgumentsOf.end();
    if (it == endedArgumentsOf.end())
      return true;
    unsigned index =
        use.getOperandNumber() - call.getArgOperands().getBeginOperandIndex();
    return index >= it->second.size() || it->second.test(index);
  }

  /// Returns the operands of `call` that its callee uses as streams: none
  /// unless the callee is a function with a body in the symbol table.
  SmallVector<Value> getStreamOperands(CallOpInterface call) const {
    SmallVector<Value> streams;
    StringAttr callee = gpu::getFlatCalleeName(call);
    auto it = callee ? streamArgumentsOf.find(callee) : streamArgumentsOf.end();
    if (it == streamArgumentsOf.end())
      return streams;
    for (auto [index, operand] : llvm::enumerate(call.getArgOperands()))
      if (index < it->second.size() && it->second.test(index))
        streams.push_back(operand);
    return streams;
  }

  /// Returns the shape of `function`, a function of the table with a body.
  const FunctionShape &getShape(func::FuncOp function) const {
    auto it = shapes.find(function.getSymNameAttr());
    assert(it != shapes.end() && "not a function of the table with a body");
    return it->second;
  }

private:
  /// Appends the uses by `op` of values the host could wait for as streams
  /// to `streamUses`.
  static void appendStreamUses(Operation *op,
                               SmallVectorImpl<OpOperand *> &streamUses) {
    for (OpOperand &use : op->getOpOperands())
      if (canWaitForStream(use.get()))
        streamUses.push_back(&use);
  }

  /// Returns the values of `streamUses` that a use may end (see
  /// mayEndStream).
  SmallVector<Value> getEndedValues(ArrayRef<OpOperand *> streamUses) const {
    SmallVector<Value> ended;
    for (OpOperand *use : streamUses)
      if (mayEndStream(*use))
        ended.push_back(use->get());
    return ended;
  }

  /// Returns the values that may flow into `values` (see getIncomingValues),
  /// `values` included.
  static DenseSet<Value> getSources(ArrayRef<Value> values) {
    SmallVector<Value> worklist(values);
    DenseSet<Value> visited;
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      if (visited.insert(value).second)
        llvm::append_range(worklist, getIncomingValues(value));
    }
    return visited;
  }

  /// Returns the indices of the arguments of `function` that may flow into
  /// `values`.
  static SmallVector<unsigned> getArgumentSources(func::FuncOp function,
                                                  ArrayRef<Value> values) {
    SmallVector<unsigned> indices;
    for (Value value : getSources(values)) {
      auto argument = dyn_cast<BlockArgument>(value);
      if (argument && argument.getOwner() == &function.front())
        indices.push_back(argument.getArgNumber());
    }
    return indices;
  }

  /// The arguments of each function with a body that it uses as streams, and
  /// those that it may end, and its shape, by its name.
  DenseMap<StringAttr, BitVector> streamArgumentsOf;
  DenseMap<StringAttr, BitVector> endedArgumentsOf;
  DenseMap<StringAttr, FunctionShape> shapes;
};
} // namespace

namespace {
/// The streams of a function on which code that the pass cannot see may
/// enqueue GPU work: the streams of its gpu.on_stream ops and of its launches
/// on a stream, where the host can wait for them (LLVM pointers in address
/// space 0). A call or another op of unknown effects that such a stream
/// dominates may have launched work on it (a launcher that finds the stream
/// in memory) and left that work pending, as a function compiled by this
/// pass does where it returns: the op hands work of unknown accesses to the
/// stream. With `streamArguments`, a call also hands such work to each
/// operand that its callee uses as a stream (and the host can wait for);
/// such an operand is a stream of that call only, not of the function:
/// another op of unknown effects hands nothing to it. Neither hands work to
/// a stream that may alias a value that a use in the function may end (see
/// isStreamEndingUse): the host must not wait for a stream that code it
/// does not see may have destroyed or be capturing, and the function
/// manages such a stream itself.
class OpaqueStreamUsers {
public:
  /// Without `mayUseStreams` (the function has no gpu.on_stream and no
  /// launch on a stream), the function is not searched for streams.
  OpaqueStreamUsers(Operation *function, GpuAccessAnalysis &accesses,
                    AliasAnalysis &aliasAnalysis,
                    const StreamArguments *streamArguments, bool mayUseStreams)
      : function(function), accesses(accesses), aliasAnalysis(aliasAnalysis),
        dominance(function), streamArguments(streamArguments) {
    if (!mayUseStreams)
      return;
    function->walk([&](Operation *op) {
      auto onStreamOp = dyn_cast<gpu::OnStreamOp>(op);
      Value stream = onStreamOp ? onStreamOp.getStream() : getLaunchStream(op);
      if (stream && canWaitForStream(stream))
        streams.insert(stream);
    });
  }

  /// Records in `handed` the work that `op` may hand to streams (see
  /// getReachedStreams).
  void recordHandedWork(Operation *op, SmallVectorImpl<HandedWork> &handed) {
    for (Value stream : getReachedStreams(op)) {
      LDBG() << "an op of unknown effects may hand work to a stream: "
             << OpWithFlags(op, OpPrintingFlags().skipRegions());
      addHandedWork(handed, stream, getEverything(), /*byOpaqueOp=*/true);
    }
  }

  /// Returns whether an op nested in `op` may hand work to a stream as an op
  /// of unknown effects.
  bool mayHandOverWorkIn(Operation *op) {
    return op
        ->walk([&](Operation *nested) {
          return nested != op && !getReachedStreams(nested).empty()
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        })
        .wasInterrupted();
  }

private:
  /// Returns the streams to which `op` may hand work: none unless it is a
  /// host op of unknown effects, then each stream of the function that
  /// dominates it and, for a call, each operand that its callee uses as a
  /// stream.
  SmallVector<Value> getReachedStreams(Operation *op) {
    SmallVector<Value> reached;
    bool mayPassStreams = streamArguments && isa<CallOpInterface>(op);
    if ((streams.empty() && !mayPassStreams) || getAsyncOp(op) ||
        getLaunchStream(op) || isa<gpu::OnStreamOp, gpu::WaitOp>(op) ||
        !accesses.getOwnHostAccesses(op).everything)
      return reached;
    for (Value stream : streams)
      if (dominance.properlyDominates(stream, op) && !mayBeEnded(stream))
        reached.push_back(stream);
    if (!mayPassStreams)
      return reached;
    for (Value stream :
         streamArguments->getStreamOperands(cast<CallOpInterface>(op)))
      if (canWaitForStream(stream) && !mayBeEnded(stream) &&
          !llvm::is_contained(reached, stream))
        reached.push_back(stream);
    return reached;
  }

  /// Returns whether a use in the function may end `stream`: whether
  /// `stream` may alias a value that such a use takes (see getEnded). Alias
  /// analysis, not the flow of values, decides: a stream reloaded from
  /// memory, cast through an integer or returned by a callee may be one that
  /// the function ends under another value.
  bool mayBeEnded(Value stream) {
    auto [it, inserted] = endedStreams.try_emplace(stream, false);
    if (inserted)
      it->second = llvm::any_of(getEnded(), [&](Value ended) {
        return !aliasAnalysis.alias(ended, stream).isNo();
      });
    return it->second;
  }

  /// Returns the values that a use that may end a stream takes, found on
  /// the first call (a walk of the function that most functions, those with
  /// no stream and no call that passes one, do not need). In the single
  /// chain that call comes during the rewrite, which has then replaced GPU
  /// ops (none has a result the host could wait for as a stream) and added
  /// uses by gpu.on_stream ops and of tokens (none may end a stream): the
  /// values found are those found before it.
  ArrayRef<Value> getEnded() {
    if (!ended)
      ended = getEndedStreams(function, [&](OpOperand &use) {
        return streamArguments ? streamArguments->mayEndStream(use)
                               : isStreamEndingUse(use);
      });
    return *ended;
  }

  Operation *function;
  GpuAccessAnalysis &accesses;
  AliasAnalysis &aliasAnalysis;
  DominanceInfo dominance;
  llvm::SetVector<Value> streams;
  const StreamArguments *streamArguments;
  /// The values that a use that may end a stream takes, once found (see
  /// getEnded).
  std::optional<SmallVector<Value>> ended;
  /// Whether a use may end each stream asked about (see mayBeEnded).
  DenseMap<Value, bool> endedStreams;
};
} // namespace

/// Returns the work that the exits of `op` may hand to its stream: what the
/// GPU work in its body accesses (see isHandedOverWork; the bodies of
/// gpu.on_stream ops in it included), or everything if an op of unknown
/// effects there may have launched work (see OpaqueStreamUsers). The
/// stream's earlier work, which the body starts after, is no part of it:
/// code after the op is no more ordered with that work than code before it.
static MemoryAccesses getHandedAccesses(gpu::OnStreamOp op,
                                        GpuAccessAnalysis &accesses,
                                        OpaqueStreamUsers &opaque) {
  if (opaque.mayHandOverWorkIn(op))
    return getEverything();
  return getHandedOverWork(accesses, op);
}

/// Returns the work that the blocks of a gpu.on_stream body from which
/// `block` can be reached may have handed to the stream at their branches:
/// what their GPU work accesses, or everything if an op of unknown effects in
/// the body may have launched work (see getHandedAccesses).
static MemoryAccesses getHandedBefore(Block *block, GpuAccessAnalysis &accesses,
                                      OpaqueStreamUsers &opaque) {
  auto onStreamOp = cast<gpu::OnStreamOp>(block->getParentOp());
  if (opaque.mayHandOverWorkIn(onStreamOp))
    return getEverything();
  MemoryAccesses result;
  for (Block *pred : getReachingBlocks(block))
    for (Operation &op : *pred)
      result.append(getHandedOverWork(accesses, &op));
  return result;
}

/// Collects into `handed` the work that the ops nested in `op` may hand to
/// streams: what their launches on streams (and the GPU ops in
/// `movedOntoStreams`, which the dependence mode will move onto one, see
/// moveOntoStream) access, what the bodies of the gpu.on_stream ops that may
/// hand work over hand (see getHandedAccesses), and everything for each op of
/// unknown effects that may (see OpaqueStreamUsers). This is the work pending
/// after `op` and, if `op` is a loop, at the start of each iteration. A
/// stream defined in `op` is left out: after `op` its value is gone, and in
/// the next iteration it may name another stream; the work handed to it is
/// waited for at the end of its block.
static void
collectHandedWork(Operation *op, GpuAccessAnalysis &accesses,
                  OpaqueStreamUsers &opaque,
                  SmallVectorImpl<HandedWork> &handed,
                  const DenseMap<Operation *, Value> *movedOntoStreams = {}) {
  op->walk([&](Operation *nested) {
    if (nested == op)
      return;
    Value stream = getLaunchStream(nested);
    if (!stream && movedOntoStreams)
      stream = movedOntoStreams->lookup(nested);
    if (stream) {
      addHandedWork(handed, stream, accesses.getGpuAccesses(nested));
      return;
    }
    auto onStreamOp = dyn_cast<gpu::OnStreamOp>(nested);
    if (onStreamOp && mayHandOverWork(onStreamOp))
      addHandedWork(handed, onStreamOp.getStream(),
                    getHandedAccesses(onStreamOp, accesses, opaque));
    else
      opaque.recordHandedWork(nested, handed);
  });
  // The entries there were before are of streams defined outside `op`.
  llvm::erase_if(handed, [&](const HandedWork &work) {
    return isDefinedIn(work.stream, op);
  });
}

/// Returns whether `buffer` is memory allocated inside `scope` that is only
/// accessed there: used by GPU ops, loads, stores and deallocations, directly
/// or through views, never passed on (yielded, stored, passed to a call), and,
/// for stack memory, freed at the end of `scope`. Each execution of `scope`
/// has its own.
static bool isLocalAllocation(Value buffer, Operation *scope) {
  Operation *definer = buffer.getDefiningOp();
  if (!definer || !scope->isProperAncestor(definer) ||
      !GpuAccessAnalysis::isAllocation(buffer))
    return false;
  // Stack memory lives until the end of its automatic allocation scope, which
  // may come after `scope`: that end must still see the accesses.
  if (GpuAccessAnalysis::isStackAllocation(buffer) &&
      definer->getParentWithTrait<OpTrait::AutomaticAllocationScope>() != scope)
    return false;
  SmallVector<Value> worklist = {buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == value) {
        llvm::append_range(worklist, user->getResults());
        continue;
      }
      if (getAsyncOp(user) || isa<memref::LoadOp, memref::DeallocOp>(user))
        continue;
      if (auto store = dyn_cast<memref::StoreOp>(user);
          store && store.getMemRef() == value)
        continue;
      return false;
    }
  }
  return true;
}

/// The memory that the GPU ops nested in `op` access, except in the bodies of
/// gpu.on_stream ops: their work is handed to the stream, no token passes it
/// on.
static MemoryAccesses getNestedGpuAccesses(GpuAccessAnalysis &accesses,
                                           Operation *op) {
  MemoryAccesses result;
  op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    if (isa<gpu::OnStreamOp>(nested))
      return WalkResult::skip();
    if (nested == op || !getAsyncOp(nested))
      return WalkResult::advance();
    MemoryAccesses nestedAccesses = accesses.getGpuAccesses(nested);
    // Memory allocated and used only inside `op` is not reachable after it,
    // nor (for a loop) from another iteration.
    llvm::erase_if(nestedAccesses.values, [&](auto access) {
      return isLocalAllocation(GpuAccessAnalysis::getBuffer(access.first), op);
    });
    result.append(nestedAccesses);
    return result.everything ? WalkResult::interrupt() : WalkResult::advance();
  });
  return result;
}

//===----------------------------------------------------------------------===//
// Splitting gpu.on_stream bodies.
//===----------------------------------------------------------------------===//

/// Returns whether `type` is a GPU dialect type (an async token, a sparse
/// handle) or an async dialect type: a value of it does not cross from one
/// piece of a split body to another (an async token cannot be a result of
/// gpu.on_stream; a handle belongs to the token work that made it).
static bool isTokenLike(Type type) {
  return isa<gpu::GPUDialect, async::AsyncDialect>(type.getDialect());
}

/// Returns the results of the ops in `ops` (consecutive ops of one block) that
/// are used after them; fails if one of them is token-like (see isTokenLike).
static FailureOr<SmallVector<Value>>
getEscapingValues(ArrayRef<Operation *> ops) {
  SmallVector<Value> escaping;
  if (ops.empty())
    return escaping;
  Block *block = ops.front()->getBlock();
  DenseSet<Operation *> inRun(ops.begin(), ops.end());
  for (Operation *op : ops) {
    for (Value result : op->getResults()) {
      bool escapes = llvm::any_of(result.getUsers(), [&](Operation *user) {
        return !inRun.contains(block->findAncestorOpInBlock(*user));
      });
      if (!escapes)
        continue;
      if (isTokenLike(result.getType()))
        return failure();
      escaping.push_back(result);
    }
  }
  return escaping;
}

/// Moves `ops`, consecutive ops of one block, into the body of a new
/// gpu.on_stream on `stream` created in their place, which yields the values
/// they define that are used after them. Returns the new op.
static gpu::OnStreamOp wrapInOnStream(OpBuilder &builder, Value stream,
                                      ArrayRef<Operation *> ops,
                                      ArrayRef<Value> escaping) {
  Location loc = ops.front()->getLoc();
  builder.setInsertionPoint(ops.front());
  auto onStreamOp = gpu::OnStreamOp::create(
      builder, loc, ValueRange(escaping).getTypes(), stream);
  Block &body = onStreamOp.getBody().front();
  for (Operation *op : ops)
    op->moveBefore(&body, body.end());
  builder.setInsertionPointToEnd(&body);
  gpu::OnStreamYieldOp::create(builder, loc, ValueRange(), escaping);
  for (auto [index, value] : llvm::enumerate(escaping))
    Value(value).replaceUsesWithIf(
        onStreamOp.getResult(index), [&](OpOperand &use) {
          return !onStreamOp->isAncestor(use.getOwner());
        });
  return onStreamOp;
}

/// Returns the ops of `block` but its terminator.
static SmallVector<Operation *> getOpsButTerminator(Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  return ops;
}

/// Returns whether `ops`, consecutive ops of a gpu.on_stream body on `stream`
/// or those of a block nested in it, must stay in a body on the stream: only
/// there are they ordered after the work enqueued on it before. Ops without
/// memory effects, and launches on `stream` (which it orders itself), need
/// not.
static bool needBody(ArrayRef<Operation *> ops, Value stream) {
  return llvm::any_of(ops, [&](Operation *op) {
    return !isMemoryEffectFree(op) && getLaunchStream(op) != stream;
  });
}

/// Moves the ops but the terminator of each block of `op`, an op nested in a
/// gpu.on_stream body on `stream`, into a gpu.on_stream on `stream` of their
/// own where they need one (see needBody), and appends the new ops to
/// `worklist`. The values they define that are used after them (none may be
/// token-like, see getEscapingValues) become its results.
static void wrapBlocksInOnStream(OpBuilder &builder, Value stream,
                                 Operation *op,
                                 SmallVectorImpl<gpu::OnStreamOp> &worklist) {
  for (Region &region : op->getRegions()) {
    for (Block &block : region) {
      SmallVector<Operation *> ops = getOpsButTerminator(block);
      if (!needBody(ops, stream))
        continue;
      SmallVector<Value> values = *getEscapingValues(ops);
      worklist.push_back(wrapInOnStream(builder, stream, ops, values));
    }
  }
}

/// Returns the memory that `op` and the ops nested in it access as GPU work
/// that this pass makes async.
static MemoryAccesses getAsyncWorkAccesses(GpuAccessAnalysis &accesses,
                                           Operation *op) {
  MemoryAccesses result;
  op->walk([&](Operation *nested) {
    if (getAsyncOp(nested) && !isa<gpu::WaitOp>(nested))
      result.append(accesses.getGpuAccesses(nested));
  });
  return result;
}

/// Returns whether a gpu.on_stream body can be split at `op` (see
/// splitOnStreamBody): `op` is an SCF op whose regions the pass passes tokens
/// through (see passesTokens), it holds an op for which `wanted` holds, and no
/// token-like value enters or leaves it or one of its blocks.
static bool isScfSplitPoint(Operation *op,
                            function_ref<bool(Operation *)> wanted) {
  if (!passesTokens(op) || isa<gpu::OnStreamOp>(op))
    return false;
  auto tokenLike = [](Value value) { return isTokenLike(value.getType()); };
  if (llvm::any_of(op->getOperands(), tokenLike) ||
      llvm::any_of(op->getResults(), tokenLike))
    return false;
  bool holdsWanted = false;
  for (Region &region : op->getRegions()) {
    for (Block &block : region) {
      if (failed(getEscapingValues(getOpsButTerminator(block))))
        return false;
      block.walk([&](Operation *nested) { holdsWanted |= wanted(nested); });
    }
  }
  return holdsWanted;
}

/// In the body of `onStreamOp`, of several blocks, gives each block of an SCF
/// op that holds GPU work (see isScfSplitPoint) a gpu.on_stream on the body's
/// stream, where the ops of the block need one (see needBody):
/// - in the dependence mode, where the SCF op is or holds a loop whose GPU
///   work may conflict with earlier GPU work of the body (of the blocks from
///   which its block can be reached, which hand it to the stream at their
///   branches, or of the ops before it) or that launches on a stream: the
///   stream orders each iteration after that work, where the host would wait
///   for it otherwise (a GPU op in a loop body does not move onto the stream,
///   see getStreamToFollow);
/// - with `atScfOps` (the single chain, which waits at the end of each block
///   of an SCF op), in every block.
/// Appends the new gpu.on_stream ops to `worklist`.
static void wrapScfBlocks(gpu::OnStreamOp onStreamOp,
                          GpuAccessAnalysis &accesses, bool atScfOps,
                          SmallVectorImpl<gpu::OnStreamOp> &worklist) {
  Value stream = onStreamOp.getStream();
  auto holds = [](Operation *op, function_ref<bool(Operation *)> wanted) {
    return op
        ->walk([&](Operation *nested) {
          return wanted(nested) ? WalkResult::interrupt()
                                : WalkResult::advance();
        })
        .wasInterrupted();
  };
  auto isLoop = [](Operation *op) { return isa<scf::ForOp, scf::WhileOp>(op); };
  auto isLaunchOnStream = [](Operation *op) { return !!getLaunchStream(op); };
  DenseMap<Block *, MemoryAccesses> blockWork;
  for (Block &block : onStreamOp.getBody())
    for (Operation &op : block)
      blockWork[&block].append(getHandedOverWork(accesses, &op));
  OpBuilder builder(onStreamOp);
  for (Block &block : onStreamOp.getBody()) {
    MemoryAccesses earlier;
    for (Block *pred : getReachingBlocks(&block))
      earlier.append(blockWork[pred]);
    for (Operation *op : getOpsButTerminator(block)) {
      MemoryAccesses opWork = getHandedOverWork(accesses, op);
      if (isScfSplitPoint(op, isHandedOverWork) &&
          (atScfOps ||
           (holds(op, isLoop) && (accesses.mayConflict(earlier, opWork) ||
                                  holds(op, isLaunchOnStream))))) {
        LDBG() << "the blocks of an SCF op in a body of several blocks go "
                  "on the body's stream";
        wrapBlocksInOnStream(builder, stream, op, worklist);
      }
      earlier.append(opWork);
    }
  }
}

/// Splits the body of `onStreamOp`, of one block (for a body of several, see
/// wrapScfBlocks), so that the stream, not the host, orders its GPU work
/// with
/// - a launch on the op's stream that may conflict with GPU work of the body
///   before or after it (the host would wait for one of them), or with any
///   GPU work of the body if nested in an SCF op (see isScfSplitPoint), and,
/// - with `atScfOps` (the single chain, which never passes a token across a
///   block boundary), the GPU work before, inside and after an SCF op that
///   holds some.
/// The runs of ops between those split points become gpu.on_stream ops on the
/// same stream, the split points move between them, and the ops of each block
/// of an SCF op but the terminator become a gpu.on_stream too, where they need
/// a body (see needBody). The stream runs the pieces and the launches in
/// program order. Appends the gpu.on_stream ops of the blocks to `worklist`.
/// Leaves the op as it is if a token-like value would cross from one piece to
/// another.
static void splitOnStreamBody(gpu::OnStreamOp onStreamOp,
                              AliasAnalysis &aliasAnalysis, bool atScfOps,
                              SmallVectorImpl<gpu::OnStreamOp> &worklist) {
  Region &region = onStreamOp.getBody();
  // An analysis of its own: its memos hold values that earlier splits erased.
  GpuAccessAnalysis accesses(aliasAnalysis);
  if (!region.hasOneBlock()) {
    wrapScfBlocks(onStreamOp, accesses, atScfOps, worklist);
    return;
  }
  Block &body = region.front();
  Value stream = onStreamOp.getStream();
  SmallVector<Operation *> ops = getOpsButTerminator(body);
  SmallVector<MemoryAccesses> work = llvm::map_to_vector(
      ops, [&](Operation *op) { return getAsyncWorkAccesses(accesses, op); });
  // The launches on the stream that may conflict with GPU work after them
  // (the host would wait for the launch before that work), and the GPU work
  // of the whole body.
  DenseSet<Operation *> launchesBeforeConflicts;
  MemoryAccesses bodyWork;
  for (size_t index = ops.size(); index-- > 0;) {
    if (getLaunchStream(ops[index]) == stream &&
        accesses.mayConflict(bodyWork, accesses.getGpuAccesses(ops[index])))
      launchesBeforeConflicts.insert(ops[index]);
    bodyWork.append(work[index]);
  }
  SmallVector<SmallVector<Operation *>> runs(1);
  SmallVector<Operation *> splitPoints;
  auto wanted = [&](Operation *nested) {
    if (atScfOps && getAsyncOp(nested) && !isa<gpu::WaitOp>(nested))
      return true;
    return getLaunchStream(nested) == stream &&
           accesses.mayConflict(bodyWork, accesses.getGpuAccesses(nested));
  };
  MemoryAccesses pending;
  for (auto [op, opWork] : llvm::zip_equal(ops, work)) {
    bool conflictingLaunch =
        getLaunchStream(op) == stream &&
        (launchesBeforeConflicts.contains(op) ||
         accesses.mayConflict(pending, accesses.getGpuAccesses(op)));
    if (conflictingLaunch || isScfSplitPoint(op, wanted)) {
      splitPoints.push_back(op);
      runs.emplace_back();
      pending = MemoryAccesses();
      continue;
    }
    runs.back().push_back(op);
    pending.append(opWork);
  }
  if (splitPoints.empty())
    return;
  // The entry token stands for the stream's earlier work in the first run
  // only; the last run's values and tokens leave through the terminator.
  Value entry = onStreamOp.getEntryToken();
  Operation *yield = body.getTerminator();
  if (llvm::any_of(entry.getUsers(), [&](Operation *user) {
        return !llvm::is_contained(runs.front(),
                                   body.findAncestorOpInBlock(*user));
      }))
    return;
  runs.back().push_back(yield);
  if (llvm::any_of(runs, [](ArrayRef<Operation *> run) {
        return failed(getEscapingValues(run));
      }))
    return;
  LDBG() << "splitting the body of a gpu.on_stream at " << splitPoints.size()
         << " op(s)";

  // Ops without effects or regions whose operands are defined above the op
  // move out first: their values need not be results of a piece.
  for (SmallVector<Operation *> &run : runs) {
    llvm::erase_if(run, [&](Operation *op) {
      if (op == yield || op->getNumRegions() != 0 || !isMemoryEffectFree(op) ||
          llvm::any_of(op->getOperands(), [&](Value operand) {
            return isDefinedIn(operand, onStreamOp);
          }))
        return false;
      op->moveBefore(onStreamOp);
      return true;
    });
  }
  SmallVector<SmallVector<Value>> escaping;
  for (ArrayRef<Operation *> run : runs)
    escaping.push_back(*getEscapingValues(run));

  OpBuilder builder(onStreamOp);
  for (auto [index, run] : llvm::enumerate(runs)) {
    bool last = index + 1 == runs.size();
    if (last)
      run.pop_back();
    // A run that needs no body moves out.
    if (!needBody(run, stream) && (index != 0 || entry.use_empty())) {
      for (Operation *op : run)
        op->moveBefore(onStreamOp);
    } else if (!last) {
      gpu::OnStreamOp piece =
          wrapInOnStream(builder, stream, run, escaping[index]);
      if (index == 0)
        entry.replaceAllUsesWith(piece.getEntryToken());
      piece->moveBefore(onStreamOp);
    } else {
      // The last piece takes the terminator; its results replace the op's.
      builder.setInsertionPoint(onStreamOp);
      auto piece = gpu::OnStreamOp::create(builder, onStreamOp.getLoc(),
                                           onStreamOp.getResultTypes(), stream);
      Block &pieceBody = piece.getBody().front();
      for (Operation *op : run)
        op->moveBefore(&pieceBody, pieceBody.end());
      yield->moveBefore(&pieceBody, pieceBody.end());
      onStreamOp.replaceAllUsesWith(piece.getResults());
    }
    if (last)
      break;
    Operation *splitPoint = splitPoints[index];
    splitPoint->moveBefore(onStreamOp);
    wrapBlocksInOnStream(builder, stream, splitPoint, worklist);
  }
  // The op's results are now those of its last piece, or the values its
  // terminator yields if the last run moved out.
  if (!onStreamOp.use_empty())
    onStreamOp.replaceAllUsesWith(
        cast<gpu::OnStreamYieldOp>(yield).getValues());
  onStreamOp.erase();
}

/// Splits the bodies of the gpu.on_stream ops in `root` (see
/// splitOnStreamBody), and those of the ops it creates.
static void splitOnStreamBodies(Operation *root, AliasAnalysis &aliasAnalysis,
                                bool atScfOps) {
  SmallVector<gpu::OnStreamOp> worklist;
  root->walk([&](gpu::OnStreamOp op) { worklist.push_back(op); });
  while (!worklist.empty())
    splitOnStreamBody(worklist.pop_back_val(), aliasAnalysis, atScfOps,
                      worklist);
}

/// Returns the stream of `op` if it is a launch on a stream that a
/// gpu.on_stream can take (see canWaitForStream), with neither async
/// dependencies nor an async token, as frontends emit launches; null
/// otherwise.
static Value getWrappableLaunchStream(Operation *op) {
  auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
  if (!launch || !launch.getAsyncObject() || launch.getAsyncToken() ||
      !launch.getAsyncDependencies().empty() ||
      !canWaitForStream(launch.getAsyncObject()))
    return Value();
  return launch.getAsyncObject();
}

/// Returns whether two consecutive launches of `run` may run concurrently
/// once ordered by their accesses: they may not conflict (no launch between
/// them can order them), and neither accesses everything (the dependence
/// mode orders such work after all earlier work, and all later work after
/// it).
static bool hasConcurrentLaunches(GpuAccessAnalysis &accesses,
                                  ArrayRef<Operation *> run) {
  std::optional<MemoryAccesses> previous;
  for (Operation *op : run) {
    if (!isa<gpu::LaunchFuncOp>(op))
      continue;
    MemoryAccesses current = accesses.getGpuAccesses(op);
    if (previous && !previous->everything && !current.everything &&
        !accesses.mayConflict(*previous, current))
      return true;
    previous = std::move(current);
  }
  return false;
}

/// Wraps, in `block`, each run of launches on one stream (see
/// getWrappableLaunchStream) with only ops without memory effects or regions
/// between them into a gpu.on_stream on that stream, if two of its launches
/// may run concurrently (see hasConcurrentLaunches). The body launches the
/// kernels without a stream: the dependence mode orders them by their
/// accesses, after the stream's earlier work, and hands their work back to
/// the stream at the end.
static void wrapStreamLaunches(Block &block, GpuAccessAnalysis &accesses) {
  OpBuilder builder(block.getParent()->getContext());
  SmallVector<Operation *> run;
  Value stream;
  auto flush = [&]() {
    // The ops without effects after the last launch stay where they are.
    while (!run.empty() && !isa<gpu::LaunchFuncOp>(run.back()))
      run.pop_back();
    FailureOr<SmallVector<Value>> escaping = getEscapingValues(run);
    if (succeeded(escaping) && hasConcurrentLaunches(accesses, run)) {
      LDBG() << "wrapping " << run.size() << " op(s) on a stream";
      for (Operation *op : run)
        if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
          launch.getAsyncObjectMutable().clear();
      wrapInOnStream(builder, stream, run, *escaping);
    }
    run.clear();
    stream = Value();
  };
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (Value launchStream = getWrappableLaunchStream(&op)) {
      if (launchStream != stream)
        flush();
      stream = launchStream;
      run.push_back(&op);
    } else if (stream && op.getNumRegions() == 0 &&
               !op.hasTrait<OpTrait::IsTerminator>() &&
               isMemoryEffectFree(&op)) {
      run.push_back(&op);
    } else {
      flush();
    }
  }
  flush();
}

/// Wraps the launches on a stream in the blocks of `root` outside gpu.on_stream
/// and async.execute bodies (see wrapStreamLaunches).
static void wrapStreamLaunches(Operation *root, AliasAnalysis &aliasAnalysis) {
  GpuAccessAnalysis accesses(aliasAnalysis);
  // The blocks that hold a launch to wrap: the others are left as they are,
  // without another pass over them. Wrapping a block changes no other one.
  llvm::SetVector<Block *> blocks;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::OnStreamOp, async::ExecuteOp>(op))
      return WalkResult::skip();
    if (getWrappableLaunchStream(op))
      blocks.insert(op->getBlock());
    return WalkResult::advance();
  });
  for (Block *block : blocks)
    wrapStreamLaunches(*block, accesses);
}

//===----------------------------------------------------------------------===//
// Single chain (max-streams=1).
//===----------------------------------------------------------------------===//

// Region walk callback which makes GPU ops implementing the AsyncOpInterface
// execute asynchronously.
struct GpuAsyncRegionPass::ThreadTokenCallback {
  ThreadTokenCallback(MLIRContext &context, GpuAccessAnalysis &accesses,
                      OpaqueStreamUsers &opaque)
      : builder(&context), accesses(accesses), opaque(opaque) {}

  WalkResult operator()(Block *block) {
    // In the body of gpu.on_stream, the work enqueued on the stream before
    // is pending and may access anything.
    streamEntry = getStreamEntryToken(block);
    handedStreams.clear();
    // A block of a gpu.on_stream body other than its entry block starts after
    // the work the blocks before it may have handed to its stream; if one of
    // them is not rewritten yet (a loop of blocks), its accesses name values
    // the rewrite replaces: everything then.
    auto onStreamOp = dyn_cast<gpu::OnStreamOp>(block->getParentOp());
    if (onStreamOp && !block->isEntryBlock()) {
      bool rewritten = llvm::all_of(getReachingBlocks(block), [&](Block *pred) {
        return visitedBlocks.contains(pred);
      });
      addHandedWork(handedStreams, onStreamOp.getStream(),
                    rewritten ? getHandedBefore(block, accesses, opaque)
                              : getEverything());
    }
    visitedBlocks.insert(block);
    // In a loop, the work that earlier iterations handed to streams is
    // pending.
    if (isa<scf::ForOp, scf::WhileOp>(block->getParentOp()))
      collectHandedWork(block->getParentOp(), accesses, opaque, handedStreams);
    for (Operation &op : make_early_inc_range(*block)) {
      if (failed(visit(&op)) || waitFailed)
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  }

private:
  // If `op` implements the AsyncOpInterface, insert a `gpu.wait async` to
  // create a current token (unless it already exists), and 'thread' that token
  // through the `op` so that it executes asynchronously.
  //
  // If `op` is a terminator or an op whose memory effects may touch memory
  // that GPU work still in flight uses, insert a `gpu.wait` to
  // host-synchronize execution. A `!gpu.async.token` will therefore only be
  // used inside of its block and GPU execution will always synchronize with
  // the host at block boundaries.
  LogicalResult visit(Operation *op) {
    if (isa<gpu::LaunchOp>(op))
      return op->emitOpError("replace with gpu.launch_func first");
    if (auto waitOp = llvm::dyn_cast<gpu::WaitOp>(op)) {
      if (currentToken)
        waitOp.addAsyncDependency(currentToken);
      currentToken = waitOp.getAsyncToken();
      if (!currentToken) {
        // A user's host wait waits for everything, also for the work handed
        // to streams.
        waitForHandedStreams(op, getEverything());
        clearInFlight();
      }
      return success();
    }
    builder.setInsertionPoint(op);
    if (auto asyncOp = getAsyncOp(op)) {
      MemoryAccesses opAccesses = accesses.getGpuAccesses(op);
      Value stream = getStreamToFollow(handedStreams, op, opAccesses, accesses);
      waitForHandedStreams(op, opAccesses, stream);
      if (stream) {
        // The op runs after the work handed to `stream` on that stream, and
        // after the chain (or, before it starts, the earlier work of the
        // enclosing body's stream, if that is another one).
        LDBG() << "GPU op runs on a stream after the work handed to it: "
               << OpWithFlags(op, OpPrintingFlags().skipRegions());
        Value after = currentToken;
        if (!after && getEnclosingStream(op) != stream)
          after = streamEntry;
        if (after && llvm::is_contained(asyncOp.getAsyncDependencies(), after))
          after = {};
        Operation *moved = moveOntoStream(
            builder, asyncOp, stream, after ? ValueRange(after) : ValueRange());
        // The op's results are new values: the accesses name them.
        addHandedWork(handedStreams, stream, accesses.getGpuAccesses(moved));
        return success();
      }
      // Replace GPU op with async version, which then produces the current
      // token.
      rewriteAsyncOp(asyncOp);
      addInFlight(accesses.getGpuAccesses(currentToken.getDefiningOp()));
      return success();
    }
    if (auto yield = dyn_cast<gpu::OnStreamYieldOp>(op)) {
      // Work handed to other streams in the body is not the stream's.
      waitForHandedStreams(
          op, getEverything(),
          yield->getParentOfType<gpu::OnStreamOp>().getStream());
      handOver(yield);
      return success();
    }
    auto onStreamOp = dyn_cast<gpu::OnStreamOp>(op->getParentOp());
    if (onStreamOp && isTerminator(op)) {
      // A branch to another block of the body hands the chain to the stream,
      // which the next block's work follows (see operator()).
      waitForHandedStreams(op, getEverything(), onStreamOp.getStream());
      if (currentToken) {
        LDBG() << "the chain is handed to the stream at a branch of the body";
        handChainOver(op, onStreamOp.getStream());
      }
      return success();
    }
    if (Value stream = getLaunchStream(op)) {
      visitStreamLaunch(cast<gpu::LaunchFuncOp>(op), stream);
      return success();
    }
    if (!currentToken && !streamEntry && handedStreams.empty()) {
      recordHandedWork(op);
      return success();
    }
    MemoryAccesses hostAccesses = accesses.getHostAccesses(op);
    bool returns = op->hasTrait<OpTrait::ReturnLike>() &&
                   isa<FunctionOpInterface>(op->getParentOp());
    // The work handed to a stream is waited for before a host op that may
    // touch it and at the end of a block, except where the function returns
    // it to the stream's owner (but not its stack memory), where control
    // returns to an SCF op or the next iteration (see keepsHandedWork), or
    // where the op is ordered after it by the stream (a gpu.on_stream on the
    // same stream, see getAccessesUnorderedWith).
    bool endsBlock = isTerminator(op) && !keepsHandedWork(op->getBlock());
    if (isTerminator(op) && !endsBlock)
      waitForStreamsDefinedIn(op, op->getParentOp());
    if (endsBlock && returns)
      waitForHandedStreams(op, hostAccesses);
    else if (endsBlock)
      waitForHandedStreams(op, getEverything());
    else if (!endsBlock && op->getNumRegions() == 0)
      waitForHandedStreams(op, hostAccesses);
    else if (!endsBlock)
      waitForHandedStreamsBeforeRegions(op);
    // A host op that accesses memory waits for the stream's earlier work.
    // In the body, what an op with regions holds on the body's stream is
    // ordered after that work by the stream (see getAccessesUnorderedWith),
    // but not after the chain's own work.
    MemoryAccesses entryAccesses = hostAccesses;
    MemoryAccesses chainAccesses = hostAccesses;
    if ((streamEntry || entryInFlight) && op->getNumRegions() != 0) {
      MemoryAccesses streamWork;
      entryAccesses =
          getAccessesUnorderedWith(op, getEnclosingStream(op), &streamWork);
      chainAccesses = entryAccesses;
      chainAccesses.append(streamWork);
    }
    if (streamEntry && !entryAccesses.empty()) {
      LDBG() << "host waits for the stream's earlier work before "
             << OpWithFlags(op, OpPrintingFlags().skipRegions());
      createWaitOp(builder, op->getLoc(), Type(), streamEntry);
      streamEntry = {};
    }
    recordHandedWork(op);
    if (!currentToken)
      return success();
    bool touchesInFlight = mayTouchInFlightMemory(chainAccesses, entryAccesses);
    // Where only the op's work on the body's stream may touch the chain's
    // memory, the stream orders that work after the chain, handed to it.
    Value stream = getEnclosingStream(op);
    if (touchesInFlight && stream && !isTerminator(op) &&
        op->getNumRegions() != 0 &&
        !mayTouchInFlightMemory(getAccessesUnorderedWith(op, stream))) {
      LDBG() << "the chain is handed to the stream before "
             << OpWithFlags(op, OpPrintingFlags().skipRegions());
      handChainOver(op, stream);
      return success();
    }
    // Insert host synchronization before terminator or op with side effects.
    if (isTerminator(op) || touchesInFlight) {
      LDBG() << "host waits before "
             << OpWithFlags(op, OpPrintingFlags().skipRegions())
             << (touchesInFlight ? ": it may touch memory of GPU work in flight"
                                 : ": the end of the block");
      currentToken =
          createWaitOp(builder, op->getLoc(), Type(), {currentToken});
      clearInFlight();
    }
    return success();
  }

  // Hands the current token over to the stream of the enclosing gpu.on_stream
  // at its terminator `yield`: no host wait.
  void handOver(gpu::OnStreamYieldOp yield) {
    if (currentToken &&
        !llvm::is_contained(yield.getAsyncDependencies(), currentToken))
      yield.getAsyncDependenciesMutable().append(currentToken);
    currentToken = {};
    clearInFlight();
  }

  // Hands the chain over to `stream` before `op` (see createStreamHandOver):
  // its work is then work handed to the stream, and the stream's earlier
  // work, which the chain may have started after, is pending as such again.
  void handChainOver(Operation *op, Value stream) {
    builder.setInsertionPoint(op);
    createStreamHandOver(builder, stream, currentToken, op->getLoc());
    addHandedWork(handedStreams, stream, inFlight);
    if (entryInFlight)
      streamEntry = getStreamEntryToken(op->getBlock());
    currentToken = {};
    clearInFlight();
  }

  // Makes the host wait, before `op`, for the work handed to streams other
  // than `except` that may conflict with `opAccesses`.
  void waitForHandedStreams(Operation *op, const MemoryAccesses &opAccesses,
                            Value except = {}) {
    waitForHandedWorkIf(op, [&](const HandedWork &work) {
      return work.stream != except &&
             accesses.mayConflict(work.accesses, opAccesses);
    });
  }

  // Makes the host wait, before `op`, an op with regions, for the work handed
  // to each stream that `op` may conflict with.
  void waitForHandedStreamsBeforeRegions(Operation *op) {
    waitForHandedWorkIf(op, [&](const HandedWork &work) {
      return accesses.mayConflict(work.accesses,
                                  getAccessesUnorderedWith(op, work.stream));
    });
  }

  // Returns what `op` and the ops nested in it may access that `stream` does
  // not order after the work enqueued on it: all but its launches on `stream`
  // and its gpu.on_stream ops on `stream`, whose accesses go to `streamWork`
  // if given. A host wait accesses everything.
  MemoryAccesses
  getAccessesUnorderedWith(Operation *op, Value stream,
                           MemoryAccesses *streamWork = nullptr) {
    MemoryAccesses result;
    op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
      auto onStreamOp = dyn_cast<gpu::OnStreamOp>(nested);
      if (getLaunchStream(nested) == stream ||
          (onStreamOp && onStreamOp.getStream() == stream)) {
        if (streamWork)
          streamWork->append(onStreamOp ? getEverything()
                                        : accesses.getGpuAccesses(nested));
        return WalkResult::skip();
      }
      auto wait = dyn_cast<gpu::WaitOp>(nested);
      if (wait && !wait.getAsyncToken())
        result.everything = true;
      else if (getAsyncOp(nested) || getLaunchStream(nested))
        result.append(accesses.getGpuAccesses(nested));
      else
        result.append(accesses.getOwnHostAccesses(nested));
      return result.everything ? WalkResult::interrupt()
                               : WalkResult::advance();
    });
    return result;
  }

  // Makes the host wait, before `op`, for the work handed to streams defined
  // in `scope` (see collectHandedWork).
  void waitForStreamsDefinedIn(Operation *op, Operation *scope) {
    waitForHandedWorkIf(op, [&](const HandedWork &work) {
      return isDefinedIn(work.stream, scope);
    });
  }

  // Makes the host wait, before `op`, for the work handed to each stream for
  // which `needsWait` holds, and forgets that work.
  void waitForHandedWorkIf(Operation *op,
                           function_ref<bool(const HandedWork &)> needsWait) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(op);
    llvm::erase_if(handedStreams, [&](const HandedWork &work) {
      if (!needsWait(work))
        return false;
      LDBG() << "host waits for the work handed to a stream before "
             << OpWithFlags(op, OpPrintingFlags().skipRegions());
      if (failed(checkStreamHostWait(work.stream, op)))
        waitFailed = true;
      else
        createStreamHostWait(builder, work.stream, op->getLoc());
      return true;
    });
  }

  // Records the work that `op` hands to streams: a gpu.on_stream its exits,
  // an SCF op the work its regions leave pending (see keepsHandedWork), an op
  // of unknown effects what it may have launched (see OpaqueStreamUsers).
  void recordHandedWork(Operation *op) {
    auto onStreamOp = dyn_cast<gpu::OnStreamOp>(op);
    if (onStreamOp &&
        (mayHandOverWork(onStreamOp) || opaque.mayHandOverWorkIn(onStreamOp)))
      addHandedWork(handedStreams, onStreamOp.getStream(),
                    getHandedAccesses(onStreamOp, accesses, opaque));
    else if (passesHandedWork(op))
      collectHandedWork(op, accesses, opaque, handedStreams);
    else
      opaque.recordHandedWork(op, handedStreams);
  }

  // A launch on stream `stream` runs after the work enqueued on it, handed
  // work included, and hands its own work to it. The chain, if the launch may
  // conflict with it, is handed to the stream before it (the host waits for
  // it if the stream is of another type). The host waits before it for the
  // other GPU work it may conflict with: handed to other streams, or, in the
  // body of gpu.on_stream on another stream, that stream's earlier work.
  void visitStreamLaunch(gpu::LaunchFuncOp launch, Value stream) {
    MemoryAccesses launchAccesses = accesses.getGpuAccesses(launch);
    waitForHandedStreams(launch, launchAccesses, stream);
    builder.setInsertionPoint(launch);
    if (streamEntry && !launchAccesses.empty() &&
        getEnclosingStream(launch) != stream) {
      LDBG() << "host waits for the stream's earlier work before a launch on "
                "another stream";
      createWaitOp(builder, launch.getLoc(), Type(), streamEntry);
      streamEntry = {};
    }
    if (currentToken && mayTouchInFlightMemory(
                            launchAccesses, getEnclosingStream(launch) == stream
                                                ? MemoryAccesses()
                                                : launchAccesses)) {
      if (canWaitForStream(stream)) {
        LDBG() << "the chain is handed to the stream of a launch that may "
                  "touch its memory";
        handChainOver(launch, stream);
      } else {
        LDBG() << "host waits before a launch on a stream: it may touch "
                  "memory of GPU work in flight";
        currentToken =
            createWaitOp(builder, launch.getLoc(), Type(), {currentToken});
        clearInFlight();
      }
    }
    addHandedWork(handedStreams, stream, launchAccesses);
  }

  // Adds the accesses of a GPU op to `inFlight`, one entry per buffer.
  void addInFlight(const MemoryAccesses &gpuAccesses) {
    if (inFlight.everything)
      return;
    if (gpuAccesses.everything) {
      clearInFlight();
      inFlight.everything = true;
      return;
    }
    for (auto [value, writes] : gpuAccesses.values) {
      Value buffer = GpuAccessAnalysis::getBuffer(value);
      auto [it, inserted] =
          inFlightBuffers.try_emplace(buffer, inFlight.values.size());
      if (inserted)
        inFlight.values.push_back({buffer, writes});
      else
        inFlight.values[it->second].second |= writes;
    }
  }

  void clearInFlight() {
    inFlight = {};
    inFlightBuffers.clear();
    entryInFlight = false;
  }

  // Returns whether a host op with `hostAccesses` must wait for the GPU work
  // since the last host synchronization: its accesses may conflict with
  // those of that work (as GpuAccessAnalysis answers for both), or its
  // effects are unknown.
  // Of those accesses, the stream orders all but `entryAccesses` after its
  // earlier work (see getAccessesUnorderedWith), with which the chain may
  // have started.
  bool mayTouchInFlightMemory(const MemoryAccesses &hostAccesses,
                              const MemoryAccesses &entryAccesses) {
    return hostAccesses.everything ||
           (entryInFlight && !entryAccesses.empty()) ||
           accesses.mayConflict(inFlight, hostAccesses);
  }
  bool mayTouchInFlightMemory(const MemoryAccesses &hostAccesses) {
    return mayTouchInFlightMemory(hostAccesses, hostAccesses);
  }

  // Replaces asyncOp with a clone that returns a token.
  void rewriteAsyncOp(gpu::AsyncOpInterface asyncOp) {
    Operation *op = asyncOp.getOperation();

    // If there is no current token, insert a `gpu.wait async` to create one
    // (see createStartToken), unless the op is async already: it then
    // depends on what it should, and no earlier GPU work of this block is
    // pending.
    if (!currentToken && asyncOp.getAsyncDependencies().empty()) {
      currentToken = createStartToken(builder, op->getLoc(), op);
      // The chain starts with the stream's earlier work, which may access
      // anything: waiting for the chain waits for it.
      if (streamEntry) {
        entryInFlight = true;
        streamEntry = {};
      }
    }
    SmallVector<Value, 1> deps;
    if (currentToken &&
        !llvm::is_contained(asyncOp.getAsyncDependencies(), currentToken))
      deps.push_back(currentToken);

    currentToken = makeAsync(builder, asyncOp, deps,
                             builder.getType<gpu::AsyncTokenType>());
  }

  OpBuilder builder;
  GpuAccessAnalysis &accesses;
  OpaqueStreamUsers &opaque;

  // The memory that the GPU work since the last host synchronization
  // accesses, one entry per buffer, and the entry of each buffer.
  MemoryAccesses inFlight;
  DenseMap<Value, unsigned> inFlightBuffers;
  // Whether the chain started from the stream's earlier work (the entry
  // token of the enclosing gpu.on_stream), which may access anything.
  bool entryInFlight = false;

  // In the body of gpu.on_stream, its entry token until the host or the
  // chain waits for it.
  Value streamEntry;

  // The work handed to streams in this block that the host has not waited
  // for.
  SmallVector<HandedWork> handedStreams;

  // The blocks visited so far, whose ops are rewritten.
  DenseSet<Block *> visitedBlocks;

  // Whether a host wait for a stream could not be expressed (an error was
  // emitted).
  bool waitFailed = false;

  // The token that represents the current asynchronous dependency. It's valid
  // range starts with a `gpu.wait async` op, and ends with a `gpu.wait` op.
  // In between, each gpu::AsyncOpInterface depends on the current token and
  // produces the new one.
  Value currentToken = {};
};

//===----------------------------------------------------------------------===//
// Dependence mode (max-streams != 1): analysis.
//===----------------------------------------------------------------------===//

namespace {
/// A token the schedule refers to: the token of a GPU op, the token that a
/// region op (see passesTokens) gets as a result for the GPU work of its
/// regions, the token an scf.for or scf.while gets as an iter_arg for the GPU
/// work of the previous iterations (in the `before` region of scf.while), or
/// the token the `before` region of scf.while forwards to its `after` region,
/// or the token a block of a function body gets as an argument for the GPU
/// work its predecessors leave pending (see findTokenBlocks), named by the
/// block's first op. The ops are those of the IR before the rewrite. A region
/// op passes one token per class of the buffers its GPU work accesses (see
/// getTokenClasses): the other kinds have an index, that of the class.
/// The analysis numbers the tokens it makes (see
/// AsyncDependenceAnalysis::number), to keep what it knows of each in
/// vectors; the number is not part of the token's identity.
enum class TokenKind : unsigned { Op, Result, Carried, Forwarded, Block };
struct TokenNode {
  TokenNode() = default;
  TokenNode(Operation *op, TokenKind kind, unsigned index = 0)
      : opAndKind(op, kind), index(index) {}
  Operation *getPointer() const { return opAndKind.getPointer(); }
  TokenKind getInt() const { return opAndKind.getInt(); }
  unsigned getIndex() const { return index; }
  bool operator==(const TokenNode &other) const {
    return opAndKind == other.opAndKind && index == other.index;
  }

  llvm::PointerIntPair<Operation *, 3, TokenKind> opAndKind;
  unsigned index = 0;
  static constexpr unsigned kNoNumber = ~0u;
  unsigned number = kNoNumber;
};
} // namespace

template <>
struct llvm::DenseMapInfo<TokenNode> {
  static unsigned getHashValue(const TokenNode &token) {
    return detail::combineHashValue(
        DenseMapInfo<void *>::getHashValue(token.opAndKind.getOpaqueValue()),
        token.index);
  }
  static bool isEqual(const TokenNode &lhs, const TokenNode &rhs) {
    return lhs == rhs;
  }
};

namespace {

/// One step of the rewrite, in program order.
struct ScheduleStep {
  enum class Kind {
    /// Make GPU op `op` async (or add to the dependencies of an async one),
    /// depending on `tokens`; with a `stream`, in a gpu.on_stream of its own
    /// on that stream (see moveOntoStream).
    MakeAsync,
    /// Wait on the host for `tokens`, before `op` (at the end of `block` if
    /// `op` is null).
    HostWait,
    /// Give scf.for or scf.while `op` its token iter_arg `index` of
    /// `numTokens`, initialized with the join of `tokens` (and scf.while a
    /// token its `before` region forwards); the loop is rewritten at the last
    /// one.
    CarryIntoLoop,
    /// Yield the join of `tokens` from region `region` of `op` as its token
    /// `index` (for a loop with no tokens, the iter_arg).
    Yield,
    /// Give `op` (scf.if, scf.index_switch, scf.execute_region) `numTokens`
    /// token results, the values its regions yield; for a loop, only record
    /// its token results.
    AddResult,
    /// Make the entry token of gpu.on_stream `op` known.
    EnterStream,
    /// Add `tokens` to the dependencies of gpu.on_stream.yield `op`.
    HandOver,
    /// Hand `tokens` over to `stream` before `op` (see createStreamHandOver).
    HandOverTo,
    /// Make the token of the block of `op`, its first op, known: a new last
    /// argument of the block.
    EnterBlock,
    /// Pass the join of `tokens` to each successor of branch `op` as the
    /// successor's token argument.
    PassToSuccessors,
    /// Wait on the host for the work enqueued on `stream` so far, before `op`.
    StreamHostWait,
  };
  Kind kind;
  Operation *op;
  Block *block = nullptr;
  unsigned region = 0;
  /// Owned by the analysis (see AsyncDependenceAnalysis::keep).
  ArrayRef<TokenNode> tokens;
  Value stream = {};
  /// For MakeAsync of an op that gets a token, EnterStream and EnterBlock:
  /// the token the step makes.
  TokenNode made = {};
  /// For MakeAsync of a GPU op other than a user's gpu.wait: `op`, through
  /// the interface that the analysis looked up.
  gpu::AsyncOpInterface asyncOp = {};
  /// For CarryIntoLoop, Yield and AddResult: the token class (see
  /// getTokenClasses) and the number of classes.
  unsigned index = 0;
  unsigned numTokens = 1;
};

/// Returns a CarryIntoLoop, Yield or AddResult step for token `index` of
/// `numTokens`; `tokens` is owned by the analysis.
static ScheduleStep makeTokenStep(ScheduleStep::Kind kind, Operation *op,
                                  unsigned region, ArrayRef<TokenNode> tokens,
                                  unsigned index, unsigned numTokens) {
  ScheduleStep step{kind, op, nullptr, region, tokens};
  step.index = index;
  step.numTokens = numTokens;
  return step;
}

/// Per buffer, the GPU work that may have written it last and that read it
/// since, that the host has not waited for.
struct BufferState {
  SmallVector<TokenNode, 1> writes;
  SmallVector<TokenNode> reads;
};

/// The accesses of an op (see gpu::MemoryAccesses) with the buffer of each
/// accessed value (see GpuAccessAnalysis::getBuffer), found once for the
/// conflicts of the op and for the record of its work.
struct BufferAccesses {
  struct Access {
    Value buffer;
    bool writes;
    /// The value is a result of the op (a fresh allocation): no earlier work
    /// accessed it.
    bool fresh;
  };
  bool everything = false;
  SmallVector<Access, 4> values;
};

/// The GPU work pending at a point of the program, from the host's view. A
/// region starts with a copy of the state before its op (a region isolated
/// from above, with an empty one); which work the host has waited for is kept
/// apart (see AsyncDependenceAnalysis::completed), and the state forgets it
/// before it is copied (see copyForRegion), so that a copy costs what is
/// pending, not what completed before.
struct PendingWork {
  DenseMap<Value, BufferState> buffers;
  /// Work that accessed everything.
  SmallVector<TokenNode, 1> barriers;
  /// Tokens no later GPU op depends on (the open chains), with the order in
  /// which they were opened.
  DenseMap<TokenNode, unsigned> open;
  /// In the body of gpu.on_stream, its entry token.
  std::optional<TokenNode> streamEntry;
  /// The work handed to streams that the host has not waited for.
  SmallVector<HandedWork, 1> handedStreams;
};

/// Computes, without changing the IR, which GPU work each GPU op of a function
/// must wait for (the earlier GPU work whose accesses conflict with its own:
/// read after write, write after read or write), where the host must wait for
/// GPU work (before a host op that may touch memory it uses, and at the end of
/// a block whose work cannot be passed on), and which region ops pass tokens
/// out of their regions:
///  - scf.if, scf.index_switch and scf.execute_region get a token result, the
///    join of the work each region leaves pending;
///  - scf.for gets a token iter_arg standing for the work of the previous
///    iterations (conflicting with what its body accesses) and a token result;
///    scf.while gets it in its `before` region, which forwards it to the
///    `after` region and as the token result;
///  - gpu.on_stream's body starts with its entry token, GPU work of unknown
///    accesses, and each exit hands the work its block leaves pending to the
///    stream; that work stays pending, as work on the stream, for later host
///    and GPU ops that access memory, and for the end of the block;
///  - a block of a function body that GPU work may reach through branches
///    gets a token argument, the join of the work they leave pending (see
///    findTokenBlocks);
///  - other region ops see the pending work of the enclosing block; the host
///    waits for the work of their blocks at each block's end.
/// GPU work pending at the entry of a region can be depended on directly inside
/// it: its tokens dominate the region.
class AsyncDependenceAnalysis {
public:
  /// Without `stackMemory` (no op of the function allocates stack memory),
  /// the ends of scopes are not searched for what they free.
  AsyncDependenceAnalysis(GpuAccessAnalysis &accesses,
                          OpaqueStreamUsers &opaque, unsigned maxStreams,
                          bool stackMemory)
      : accesses(accesses), opaque(opaque), maxStreams(maxStreams),
        stackMemory(stackMemory) {}

  /// Schedules the blocks of `region`, a function body. Fails (with a
  /// diagnostic) on a gpu.launch.
  LogicalResult scheduleFunctionBody(Region &region);

  ArrayRef<ScheduleStep> getSchedule() const { return schedule; }
  /// The blocks of the function body that get a token argument.
  const DenseSet<Block *> &getTokenBlocks() const { return tokenBlocks; }
  /// The number of tokens; each has a number below.
  unsigned getNumTokens() const { return dependencies.size(); }
  /// Returns token `token` of a region op with its number.
  TokenNode getNumbered(TokenNode token) const {
    token.number = numbers.at(token);
    return token;
  }

private:
  LogicalResult scheduleBlock(Block &block, PendingWork &pending);
  LogicalResult scheduleOp(Operation *op, PendingWork &pending);
  void scheduleGpuOp(gpu::AsyncOpInterface op, PendingWork &pending);
  void scheduleUserWait(gpu::WaitOp wait, PendingWork &pending);
  void scheduleHostOp(Operation *op, const MemoryAccesses &hostAccesses,
                      PendingWork &pending);
  LogicalResult scheduleLoop(Operation *loop, PendingWork &pending);
  /// Returns the classes into which the dependence mode divides
  /// `regionAccesses`, what the GPU work in the regions of a region op
  /// accesses, to pass one token per class through the op: buffers that may
  /// alias are in one class, at most `maxStreams` classes less the
  /// `openBeside` chains that stay open next to the op's results, but at
  /// least one (kMaxTokenClasses if `maxStreams` is 0), the buffers beyond in
  /// the last one. One class if the work accesses everything.
  SmallVector<MemoryAccesses>
  getTokenClasses(const MemoryAccesses &regionAccesses, unsigned openBeside);
  /// Returns, for each class of `classes`, the tokens defined in `block`
  /// whose work on that class's buffers `pending` (the state at the end of
  /// `block`) has not completed: what the block passes on as that class's
  /// token. An open token of the block in no class goes with the first.
  SmallVector<SmallVector<TokenNode>>
  getClassTokens(const PendingWork &pending, Block &block,
                 ArrayRef<MemoryAccesses> classes);
  /// Schedules the AddResult step of region op `op` and opens its token
  /// result of each class of `classes`, pending on that class's buffers.
  void addClassResults(Operation *op, ArrayRef<MemoryAccesses> classes,
                       PendingWork &pending);
  LogicalResult scheduleBranches(Operation *op, PendingWork &pending);
  LogicalResult scheduleNested(Operation *op, PendingWork &pending);
  LogicalResult scheduleOnStream(gpu::OnStreamOp op, PendingWork &pending);
  void scheduleStreamLaunch(gpu::LaunchFuncOp launch, Value stream,
                            PendingWork &pending);
  /// Waits on the host, before `op`, for the work handed to streams other
  /// than `except` that may conflict with `opAccesses`.
  void waitForHandedStreams(PendingWork &pending, Operation *op,
                            const MemoryAccesses &opAccesses,
                            Value except = {});
  /// Waits on the host, before `op`, for the work handed to streams defined
  /// in `scope` (see collectHandedWork).
  void waitForStreamsDefinedIn(PendingWork &pending, Operation *op,
                               Operation *scope);
  /// Waits on the host, before `op`, for the work handed to each stream for
  /// which `needsWait` holds, and forgets that work.
  void waitForHandedWorkIf(PendingWork &pending, Operation *op,
                           function_ref<bool(const HandedWork &)> needsWait);

  /// Returns `opAccesses`, the accesses of `op` if it is not null, with the
  /// buffer of each value; the alias cache then knows each buffer but the
  /// fresh ones (results of `op`), which `record` makes known.
  BufferAccesses resolve(const MemoryAccesses &opAccesses,
                         Operation *op = nullptr);
  /// The tokens of `pending` whose accesses conflict with `opAccesses`, except
  /// for fresh accesses.
  SmallVector<TokenNode> getConflicts(const PendingWork &pending,
                                      const BufferAccesses &opAccesses);
  /// The same for accesses not resolved yet (none of them fresh).
  SmallVector<TokenNode> getConflicts(const PendingWork &pending,
                                      const MemoryAccesses &opAccesses) {
    return getConflicts(pending, resolve(opAccesses));
  }
  /// Records that the work of `token` made `opAccesses`. With `merge`, the
  /// work pending on the same buffers before stays pending (it is not known to
  /// be ordered before `token`).
  void record(PendingWork &pending, TokenNode token,
              const BufferAccesses &opAccesses, bool merge);
  /// The same for accesses not resolved yet (none of them fresh).
  void record(PendingWork &pending, TokenNode token,
              const MemoryAccesses &opAccesses, bool merge) {
    record(pending, token, resolve(opAccesses), merge);
  }
  /// Waits on the host for `tokens`, before `op` or at the end of `block`;
  /// a token that another one of them depends on directly is not waited for
  /// again.
  void hostWait(PendingWork &pending, ArrayRef<TokenNode> tokens, Operation *op,
                Block *block = nullptr);
  /// Waits on the host for all pending work and forgets it.
  void hostWaitAll(PendingWork &pending, Operation *op);
  /// The open tokens of `pending`, oldest first; only those defined in
  /// `block` if it is not null.
  SmallVector<TokenNode> getOpenTokens(const PendingWork &pending,
                                       Block *block = nullptr) const;
  void open(PendingWork &pending, TokenNode token);
  /// Drops the tokens that another one depends on directly.
  void dropImplied(SmallVectorImpl<TokenNode> &tokens);
  /// Returns a copy of `tokens` that lives as long as the analysis, for the
  /// schedule and the dependencies.
  ArrayRef<TokenNode> keep(ArrayRef<TokenNode> tokens) {
    return tokens.copy(tokenLists);
  }

  /// Returns the state a region of an op starts with, a copy of `pending`,
  /// the op's, once `pending` has forgotten the work the host waited for.
  PendingWork copyForRegion(PendingWork &pending) const;

  /// Returns `token`, which the analysis makes once (the token of an op it
  /// schedules, the entry of a gpu.on_stream body, of a block), with a new
  /// number.
  TokenNode numberNew(TokenNode token);
  /// Returns `token` (the token of a region op, which the analysis names
  /// where it makes it and where it records what it depends on) with its
  /// number, a new one if the analysis has not seen it before.
  TokenNode number(TokenNode token);
  /// The tokens that numbered token `token` depends on directly.
  ArrayRef<TokenNode> getDependencies(TokenNode token) const {
    assert(token.number != TokenNode::kNoNumber && "token not numbered");
    return dependencies[token.number];
  }
  void setDependencies(TokenNode token, ArrayRef<TokenNode> deps) {
    assert(token.number != TokenNode::kNoNumber && "token not numbered");
    dependencies[token.number] = deps;
  }
  /// Whether the host has waited for numbered token `token` on the path
  /// being scheduled.
  bool isCompleted(TokenNode token) const {
    assert(token.number != TokenNode::kNoNumber && "token not numbered");
    return completed.test(token.number);
  }
  /// Records that the host has waited for `token`; returns false if it had.
  bool complete(TokenNode token);

  /// While it lives, the tokens that the host waits for are those of the
  /// state of a region, and are forgotten when it dies: it lives as long as
  /// that state.
  class RegionScope {
  public:
    explicit RegionScope(AsyncDependenceAnalysis &analysis)
        : analysis(analysis), mark(analysis.completedOrder.size()) {}
    ~RegionScope();
    RegionScope(const RegionScope &) = delete;
    RegionScope &operator=(const RegionScope &) = delete;

  private:
    AsyncDependenceAnalysis &analysis;
    size_t mark;
  };

  GpuAccessAnalysis &accesses;
  OpaqueStreamUsers &opaque;
  unsigned maxStreams;
  bool stackMemory;
  SmallVector<ScheduleStep> schedule;
  DenseSet<Block *> tokenBlocks;
  /// The numbers of the tokens of region ops (see number).
  DenseMap<TokenNode, unsigned> numbers;
  /// By token number, the tokens each token depends on directly.
  SmallVector<ArrayRef<TokenNode>> dependencies;
  /// The lists of tokens of the schedule's steps and of `dependencies`.
  llvm::BumpPtrAllocator tokenLists;
  /// By token number, whether the host has waited for each token on the path
  /// being scheduled, and the tokens in the order in which it did. The states
  /// of nested regions live one at a time, each within its parent's, and
  /// share them: a region's tokens are forgotten with its state (see
  /// RegionScope). A copy for each region would make the analysis quadratic
  /// in the length of the function.
  llvm::BitVector completed;
  SmallVector<TokenNode> completedOrder;
  /// By token number, the marks of dropImplied (see there).
  llvm::BitVector notImplied;
  /// By token number, the tokens that getConflicts has found, cleared after
  /// each call.
  llvm::BitVector conflicting;
  /// The GPU ops that run on a stream after the work handed to it (see
  /// getStreamToFollow), and that stream: what they access is handed to it,
  /// also after the SCF ops around them (see collectHandedWork).
  DenseMap<Operation *, Value> movedOntoStreams;
  /// Whether a host wait for a stream could not be expressed (an error was
  /// emitted).
  bool waitFailed = false;
  unsigned numOpened = 0;
};
} // namespace

static TokenNode opToken(Operation *op) { return {op, TokenKind::Op}; }

/// The block in which `token` is defined.
static Block *getDefiningBlock(TokenNode token) {
  if (token.getInt() == TokenKind::Carried)
    return &token.getPointer()->getRegion(0).front();
  if (token.getInt() == TokenKind::Forwarded)
    return &token.getPointer()->getRegion(1).front();
  return token.getPointer()->getBlock();
}

/// The value of `token` in the IR before the rewrite: the token of an op that
/// is async already, or null.
static Value getExistingValue(TokenNode token) {
  if (token.getInt() != TokenKind::Op)
    return {};
  return cast<gpu::AsyncOpInterface>(token.getPointer()).getAsyncToken();
}

BufferAccesses
AsyncDependenceAnalysis::resolve(const MemoryAccesses &opAccesses,
                                 Operation *op) {
  BufferAccesses result;
  result.everything = opAccesses.everything;
  if (result.everything)
    return result;
  result.values.reserve(opAccesses.values.size());
  for (auto [value, writes] : opAccesses.values) {
    Value buffer = GpuAccessAnalysis::getBuffer(value);
    bool fresh = op && value.getDefiningOp() == op;
    if (!fresh)
      (void)accesses.getAliasingBuffers(buffer);
    result.values.push_back({buffer, writes, fresh});
  }
  return result;
}

SmallVector<TokenNode>
AsyncDependenceAnalysis::getConflicts(const PendingWork &pending,
                                      const BufferAccesses &opAccesses) {
  if (opAccesses.everything)
    return getOpenTokens(pending);
  // The tokens that have not completed, each once, in the order found.
  SmallVector<TokenNode> tokens;
  auto add = [&](ArrayRef<TokenNode> found) {
    for (TokenNode token : found) {
      if (isCompleted(token) || conflicting.test(token.number))
        continue;
      conflicting.set(token.number);
      tokens.push_back(token);
    }
  };
  for (const BufferAccesses::Access &access : opAccesses.values) {
    if (access.fresh)
      continue;
    // Work that accessed everything conflicts with any access (and only with
    // an access).
    add(pending.barriers);
    for (Value buffer : accesses.getAliasingBuffers(access.buffer)) {
      auto it = pending.buffers.find(buffer);
      if (it == pending.buffers.end())
        continue;
      add(it->second.writes);
      if (access.writes)
        add(it->second.reads);
    }
  }
  for (TokenNode token : tokens)
    conflicting.reset(token.number);
  return tokens;
}

void AsyncDependenceAnalysis::record(PendingWork &pending, TokenNode token,
                                     const BufferAccesses &opAccesses,
                                     bool merge) {
  if (opAccesses.everything) {
    // Unless merged, everything before is ordered before `token`.
    if (!merge) {
      pending.buffers.clear();
      pending.barriers.clear();
    }
    pending.barriers.push_back(token);
    return;
  }
  for (const BufferAccesses::Access &access : opAccesses.values) {
    // Make a fresh allocation known to the alias cache, so that buffers
    // looked up later are compared with it.
    if (access.fresh)
      (void)accesses.getAliasingBuffers(access.buffer);
    BufferState &state = pending.buffers[access.buffer];
    if (!access.writes) {
      state.reads.push_back(token);
    } else if (merge) {
      state.writes.push_back(token);
    } else {
      state.writes.assign(1, token);
      state.reads.clear();
    }
  }
}

SmallVector<TokenNode>
AsyncDependenceAnalysis::getOpenTokens(const PendingWork &pending,
                                       Block *block) const {
  SmallVector<std::pair<unsigned, TokenNode>> tokens;
  for (auto [token, order] : pending.open)
    if (!block || getDefiningBlock(token) == block)
      tokens.push_back({order, token});
  llvm::sort(tokens, llvm::less_first());
  return llvm::to_vector(llvm::make_second_range(tokens));
}

TokenNode AsyncDependenceAnalysis::numberNew(TokenNode token) {
  token.number = dependencies.size();
  dependencies.emplace_back();
  completed.push_back(false);
  notImplied.push_back(false);
  conflicting.push_back(false);
  return token;
}

TokenNode AsyncDependenceAnalysis::number(TokenNode token) {
  auto [it, inserted] = numbers.try_emplace(token);
  if (inserted)
    it->second = numberNew(token).number;
  token.number = it->second;
  return token;
}

bool AsyncDependenceAnalysis::complete(TokenNode token) {
  if (isCompleted(token))
    return false;
  completed.set(token.number);
  completedOrder.push_back(token);
  return true;
}

AsyncDependenceAnalysis::RegionScope::~RegionScope() {
  while (analysis.completedOrder.size() > mark)
    analysis.completed.reset(analysis.completedOrder.pop_back_val().number);
}

PendingWork AsyncDependenceAnalysis::copyForRegion(PendingWork &pending) const {
  auto isDone = [&](TokenNode token) { return isCompleted(token); };
  pending.buffers.remove_if([&](auto &entry) {
    llvm::erase_if(entry.second.writes, isDone);
    llvm::erase_if(entry.second.reads, isDone);
    return entry.second.writes.empty() && entry.second.reads.empty();
  });
  llvm::erase_if(pending.barriers, isDone);
  return pending;
}

void AsyncDependenceAnalysis::open(PendingWork &pending, TokenNode token) {
  pending.open.try_emplace(token, numOpened++);
}

void AsyncDependenceAnalysis::dropImplied(SmallVectorImpl<TokenNode> &tokens) {
  if (tokens.size() < 2)
    return;
  // Mark the tokens, unmark what they depend on directly, and drop the
  // unmarked ones: linear in the tokens and their dependencies (a host wait
  // may be given many tokens). A call reads only the marks of its own tokens,
  // which it sets first: the marks it leaves need no clearing.
  for (TokenNode token : tokens)
    notImplied.set(token.number);
  for (TokenNode token : tokens)
    for (TokenNode dep : getDependencies(token))
      notImplied.reset(dep.number);
  llvm::erase_if(
      tokens, [&](TokenNode token) { return !notImplied.test(token.number); });
}

void AsyncDependenceAnalysis::hostWait(PendingWork &pending,
                                       ArrayRef<TokenNode> tokens,
                                       Operation *op, Block *block) {
  SmallVector<TokenNode> waited;
  for (TokenNode token : tokens)
    if (complete(token))
      waited.push_back(token);
  if (waited.empty())
    return;
  // The work they depend on has completed too (each token is visited once:
  // what a completed token depends on is completed).
  SmallVector<TokenNode> worklist(waited);
  while (!worklist.empty()) {
    TokenNode token = worklist.pop_back_val();
    pending.open.erase(token);
    for (TokenNode dep : getDependencies(token))
      if (complete(dep))
        worklist.push_back(dep);
  }
  // Waiting for a token waits for what it depends on.
  dropImplied(waited);
  LDBG() << "host waits for " << waited.size() << " token(s) before "
         << (op ? OpWithFlags(op, OpPrintingFlags().skipRegions())
                : OpWithFlags(block->getParentOp(),
                              OpPrintingFlags().skipRegions()));
  schedule.push_back(
      {ScheduleStep::Kind::HostWait, op, block, 0, keep(waited)});
}

void AsyncDependenceAnalysis::hostWaitAll(PendingWork &pending, Operation *op) {
  hostWait(pending, getOpenTokens(pending), op);
  pending.buffers.clear();
  pending.barriers.clear();
  pending.open.clear();
}

void AsyncDependenceAnalysis::scheduleGpuOp(gpu::AsyncOpInterface asyncOp,
                                            PendingWork &pending) {
  Operation *op = asyncOp.getOperation();
  OperandRange existing = asyncOp.getAsyncDependencies();
  MemoryAccesses opAccesses = accesses.getGpuAccesses(op);
  Value stream =
      getStreamToFollow(pending.handedStreams, op, opAccesses, accesses);
  waitForHandedStreams(pending, op, opAccesses, stream);
  BufferAccesses opBuffers = resolve(opAccesses, op);
  SmallVector<TokenNode> deps = getConflicts(pending, opBuffers);
  dropImplied(deps);
  if (!existing.empty())
    llvm::erase_if(deps, [&](TokenNode dep) {
      Value value = getExistingValue(dep);
      return value && llvm::is_contained(existing, value);
    });
  // In the body of gpu.on_stream, all GPU work starts from the stream's
  // earlier work, also work that accesses no memory or that follows a host
  // wait for it: a stream that does not would not be part of a capture. On
  // the body's own stream, the stream orders it so.
  if (deps.empty() && existing.empty() && pending.streamEntry &&
      !(stream && getEnclosingStream(op) == stream))
    deps.push_back(*pending.streamEntry);
  if (stream) {
    // The op runs after the work handed to `stream` on that stream, and
    // hands its own work to it. The work it depends on stays open: only the
    // stream waits for the op.
    if (pending.streamEntry && getEnclosingStream(op) == stream)
      llvm::erase(deps, *pending.streamEntry);
    LDBG() << "GPU op " << OpWithFlags(op, OpPrintingFlags().skipRegions())
           << " runs on a stream after the work handed to it, depending on "
           << deps.size() << " token(s)";
    ScheduleStep step{
        ScheduleStep::Kind::MakeAsync, op, nullptr, 0, keep(deps), stream};
    step.asyncOp = asyncOp;
    schedule.push_back(step);
    addHandedWork(pending.handedStreams, stream, opAccesses);
    movedOntoStreams[op] = stream;
    return;
  }
  // Independent work starts a new stream, unless `maxStreams` chains are
  // open already: it then continues the oldest one.
  if (deps.empty() && existing.empty() && maxStreams != 0 &&
      pending.open.size() >= maxStreams)
    deps.push_back(getOpenTokens(pending).front());
  LDBG() << "GPU op " << OpWithFlags(op, OpPrintingFlags().skipRegions())
         << " depends on " << deps.size() << " token(s)";

  for (TokenNode dep : deps)
    pending.open.erase(dep);
  for (Value value : existing)
    if (Operation *definer = value.getDefiningOp())
      pending.open.erase(opToken(definer));
  TokenNode token = numberNew(opToken(op));
  ArrayRef<TokenNode> kept = keep(deps);
  setDependencies(token, kept);
  ScheduleStep step{ScheduleStep::Kind::MakeAsync, op, nullptr, 0, kept};
  step.made = token;
  step.asyncOp = asyncOp;
  schedule.push_back(step);
  open(pending, token);
  record(pending, token, opBuffers, /*merge=*/false);
}

void AsyncDependenceAnalysis::scheduleUserWait(gpu::WaitOp wait,
                                               PendingWork &pending) {
  // A user's wait waits for everything pending.
  SmallVector<TokenNode> deps = getOpenTokens(pending);
  llvm::erase_if(deps, [&](TokenNode dep) {
    Value value = getExistingValue(dep);
    return value && llvm::is_contained(wait.getAsyncDependencies(), value);
  });
  ScheduleStep step{ScheduleStep::Kind::MakeAsync, wait, nullptr, 0,
                    keep(deps)};
  if (wait.getAsyncToken())
    step.made = numberNew(opToken(wait));
  schedule.push_back(step);
  if (!wait.getAsyncToken()) {
    waitForHandedStreams(pending, wait, getEverything());
    for (auto [token, order] : pending.open)
      complete(token);
    pending.buffers.clear();
    pending.barriers.clear();
    pending.open.clear();
    return;
  }
  TokenNode token = step.made;
  setDependencies(token, keep(getOpenTokens(pending)));
  pending.open.clear();
  open(pending, token);
}

void AsyncDependenceAnalysis::waitForHandedStreams(
    PendingWork &pending, Operation *op, const MemoryAccesses &opAccesses,
    Value except) {
  waitForHandedWorkIf(pending, op, [&](const HandedWork &work) {
    return work.stream != except &&
           accesses.mayConflict(work.accesses, opAccesses);
  });
}

void AsyncDependenceAnalysis::waitForStreamsDefinedIn(PendingWork &pending,
                                                      Operation *op,
                                                      Operation *scope) {
  waitForHandedWorkIf(pending, op, [&](const HandedWork &work) {
    return isDefinedIn(work.stream, scope);
  });
}

void AsyncDependenceAnalysis::waitForHandedWorkIf(
    PendingWork &pending, Operation *op,
    function_ref<bool(const HandedWork &)> needsWait) {
  if (pending.handedStreams.empty())
    return;
  llvm::erase_if(pending.handedStreams, [&](const HandedWork &work) {
    if (!needsWait(work))
      return false;
    LDBG() << "host waits for the work handed to a stream before "
           << OpWithFlags(op, OpPrintingFlags().skipRegions());
    if (failed(checkStreamHostWait(work.stream, op)))
      waitFailed = true;
    schedule.push_back(
        {ScheduleStep::Kind::StreamHostWait, op, nullptr, 0, {}, work.stream});
    return true;
  });
}

void AsyncDependenceAnalysis::scheduleStreamLaunch(gpu::LaunchFuncOp launch,
                                                   Value stream,
                                                   PendingWork &pending) {
  // The launch runs after the work enqueued on its stream, handed work and
  // the entry of a gpu.on_stream on that stream included, and after the
  // other GPU work it may conflict with, handed to the stream before it (the
  // host waits for that work if the stream is of another type). It hands its
  // own work to the stream.
  MemoryAccesses launchAccesses = accesses.getGpuAccesses(launch);
  waitForHandedStreams(pending, launch, launchAccesses, stream);
  SmallVector<TokenNode> conflicts = getConflicts(pending, launchAccesses);
  if (pending.streamEntry && getEnclosingStream(launch) == stream)
    llvm::erase(conflicts, *pending.streamEntry);
  if (!conflicts.empty() && canWaitForStream(stream)) {
    dropImplied(conflicts);
    LDBG() << "the launch's stream takes over " << conflicts.size()
           << " token(s) before it";
    schedule.push_back({ScheduleStep::Kind::HandOverTo, launch, nullptr, 0,
                        keep(conflicts), stream});
  } else {
    hostWait(pending, conflicts, launch);
  }
  addHandedWork(pending.handedStreams, stream, launchAccesses);
}

void AsyncDependenceAnalysis::scheduleHostOp(Operation *op,
                                             const MemoryAccesses &hostAccesses,
                                             PendingWork &pending) {
  waitForHandedStreams(pending, op, hostAccesses);
  if (hostAccesses.everything)
    hostWaitAll(pending, op);
  else
    hostWait(pending, getConflicts(pending, hostAccesses), op);
}

/// The number of token classes of a region op in the dependence mode without
/// a limit on the streams (see getTokenClasses).
static constexpr unsigned kMaxTokenClasses = 8;

SmallVector<MemoryAccesses>
AsyncDependenceAnalysis::getTokenClasses(const MemoryAccesses &regionAccesses,
                                         unsigned openBeside) {
  unsigned limit = maxStreams == 0
                       ? kMaxTokenClasses
                       : maxStreams - std::min(openBeside, maxStreams - 1);
  if (regionAccesses.everything || regionAccesses.values.size() < 2 ||
      limit < 2)
    return {regionAccesses};
  // Union the buffers that may alias: an access to one of them conflicts
  // with work on the other, which its class's token must cover.
  SmallVector<Value> buffers;
  DenseMap<Value, unsigned> indexOf;
  for (auto [value, writes] : regionAccesses.values) {
    Value buffer = GpuAccessAnalysis::getBuffer(value);
    if (indexOf.try_emplace(buffer, buffers.size()).second)
      buffers.push_back(buffer);
  }
  llvm::EquivalenceClasses<unsigned> unions;
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    unions.insert(index);
    for (Value other : accesses.getAliasingBuffers(buffer))
      if (auto it = indexOf.find(other); it != indexOf.end())
        unions.unionSets(index, it->second);
  }
  // Number the classes in the order of their first buffer.
  DenseMap<unsigned, unsigned> classOf;
  SmallVector<MemoryAccesses> classes;
  for (auto [value, writes] : regionAccesses.values) {
    unsigned leader = unions.getLeaderValue(
        indexOf.lookup(GpuAccessAnalysis::getBuffer(value)));
    auto [it, inserted] = classOf.try_emplace(
        leader, std::min<unsigned>(classOf.size(), limit - 1));
    if (it->second == classes.size())
      classes.emplace_back();
    classes[it->second].values.push_back({value, writes});
  }
  return classes;
}

SmallVector<SmallVector<TokenNode>>
AsyncDependenceAnalysis::getClassTokens(const PendingWork &pending,
                                        Block &block,
                                        ArrayRef<MemoryAccesses> classes) {
  auto isPassedOn = [&](TokenNode token) {
    return getDefiningBlock(token) == &block && !isCompleted(token);
  };
  SmallVector<llvm::SmallSetVector<TokenNode, 4>> sets(classes.size());
  for (auto [set, regionClass] : llvm::zip_equal(sets, classes)) {
    for (TokenNode token : pending.barriers)
      if (isPassedOn(token))
        set.insert(token);
    for (auto [value, writes] : regionClass.values) {
      for (Value buffer :
           accesses.getAliasingBuffers(GpuAccessAnalysis::getBuffer(value))) {
        auto it = pending.buffers.find(buffer);
        if (it == pending.buffers.end())
          continue;
        for (TokenNode token :
             llvm::concat<const TokenNode>(it->second.writes, it->second.reads))
          if (isPassedOn(token))
            set.insert(token);
      }
    }
  }
  // Work of no class (a user's gpu.wait async, which accesses nothing) must
  // still be passed on.
  for (TokenNode token : getOpenTokens(pending, &block))
    if (llvm::none_of(sets, [&](auto &set) { return set.contains(token); }))
      sets.front().insert(token);
  return llvm::map_to_vector(sets, [&](auto &set) {
    SmallVector<TokenNode> tokens = set.takeVector();
    dropImplied(tokens);
    return tokens;
  });
}

void AsyncDependenceAnalysis::addClassResults(Operation *op,
                                              ArrayRef<MemoryAccesses> classes,
                                              PendingWork &pending) {
  schedule.push_back(makeTokenStep(ScheduleStep::Kind::AddResult, op, 0, {}, 0,
                                   classes.size()));
  for (auto [index, regionClass] : llvm::enumerate(classes)) {
    TokenNode result = number(TokenNode(op, TokenKind::Result, index));
    open(pending, result);
    record(pending, result, regionClass, /*merge=*/true);
  }
}

LogicalResult AsyncDependenceAnalysis::scheduleLoop(Operation *loop,
                                                    PendingWork &pending) {
  // Each iter_arg stands for the work of the previous iterations on the
  // buffers of its class, which accessed what the loop's regions access
  // there; before the first iteration, for the pending work that conflicts
  // with those accesses. scf.for's body starts with them. scf.while's
  // `before` region does, and forwards, per class, the join of the work it
  // leaves pending on the class's buffers (with the iter_arg's) to the
  // `after` region and, once the loop ends, as the token results; the last
  // region yields that of its work to the next iteration. Work after the
  // loop waits only for the classes it conflicts with.
  // The open chains that no class's initial value consumes stay open beside
  // the loop's results.
  MemoryAccesses loopAccesses = getNestedGpuAccesses(accesses, loop);
  SmallVector<TokenNode> consumed = getConflicts(pending, loopAccesses);
  unsigned openBeside = llvm::count_if(pending.open, [&](const auto &entry) {
    return !llvm::is_contained(consumed, entry.first);
  });
  SmallVector<MemoryAccesses> classes =
      getTokenClasses(loopAccesses, openBeside);
  unsigned numTokens = classes.size();
  SmallVector<TokenNode, 2> kinds = {TokenNode(loop, TokenKind::Carried)};
  if (isa<scf::WhileOp>(loop))
    kinds.push_back(TokenNode(loop, TokenKind::Forwarded));
  SmallVector<ArrayRef<TokenNode>> inits;
  for (auto [index, regionClass] : llvm::enumerate(classes)) {
    SmallVector<TokenNode> conflicts = getConflicts(pending, regionClass);
    dropImplied(conflicts);
    ArrayRef<TokenNode> init = keep(conflicts);
    LDBG() << OpWithFlags(loop, OpPrintingFlags().skipRegions())
           << " carries token " << index << " of " << numTokens
           << ", initialized with " << init.size() << " token(s)";
    schedule.push_back(makeTokenStep(ScheduleStep::Kind::CarryIntoLoop, loop, 0,
                                     init, index, numTokens));
    for (TokenNode kind : kinds)
      setDependencies(number(TokenNode(loop, kind.getInt(), index)), init);
    setDependencies(number(TokenNode(loop, TokenKind::Result, index)), init);
    inits.push_back(init);
  }
  for (ArrayRef<TokenNode> init : inits)
    for (TokenNode token : init)
      pending.open.erase(token);

  for (auto [regionIndex, kind] : llvm::enumerate(kinds)) {
    Block &block = loop->getRegion(regionIndex).front();
    RegionScope scope(*this);
    PendingWork inner = copyForRegion(pending);
    for (auto [index, regionClass] : llvm::enumerate(classes)) {
      TokenNode token = number(TokenNode(loop, kind.getInt(), index));
      open(inner, token);
      record(inner, token, regionClass, /*merge=*/true);
    }
    if (failed(scheduleBlock(block, inner)))
      return failure();
    for (auto [index, tokens] :
         llvm::enumerate(getClassTokens(inner, block, classes)))
      schedule.push_back(makeTokenStep(ScheduleStep::Kind::Yield, loop,
                                       regionIndex, keep(tokens), index,
                                       numTokens));
  }
  addClassResults(loop, classes, pending);
  return success();
}

LogicalResult AsyncDependenceAnalysis::scheduleBranches(Operation *op,
                                                        PendingWork &pending) {
  // Each region starts with the work pending before `op` and yields, per
  // class of the buffers the regions' GPU work accesses, the join of the
  // work it leaves pending on them; a class for which no region leaves work
  // gets no result.
  SmallVector<MemoryAccesses> classes = getTokenClasses(
      getNestedGpuAccesses(accesses, op), /*openBeside=*/pending.open.size());
  SmallVector<SmallVector<SmallVector<TokenNode>>> yields;
  for (Region &region : op->getRegions()) {
    yields.emplace_back(classes.size());
    if (region.empty())
      continue;
    Block &block = region.front();
    RegionScope scope(*this);
    PendingWork inner = copyForRegion(pending);
    if (failed(scheduleBlock(block, inner)))
      return failure();
    yields.back() = getClassTokens(inner, block, classes);
  }
  // A class for which every region passes on the same tokens as an earlier
  // one (or none) joins that class: one token stands for both.
  SmallVector<unsigned> passed;
  SmallVector<MemoryAccesses> passedClasses;
  for (unsigned index : llvm::seq<unsigned>(0, classes.size())) {
    if (llvm::all_of(yields,
                     [&](auto &tokens) { return tokens[index].empty(); }))
      continue;
    auto *same = llvm::find_if(passed, [&](unsigned earlier) {
      return llvm::all_of(yields, [&](auto &tokens) {
        return tokens[index] == tokens[earlier];
      });
    });
    if (same != passed.end()) {
      passedClasses[same - passed.begin()].append(classes[index]);
      continue;
    }
    passed.push_back(index);
    passedClasses.push_back(classes[index]);
  }
  if (passed.empty())
    return success();
  LDBG() << "region op " << OpWithFlags(op, OpPrintingFlags().skipRegions())
         << " gets " << passed.size() << " token result(s)";
  unsigned numTokens = passed.size();
  for (auto [regionIndex, tokens] : llvm::enumerate(yields)) {
    if (op->getRegion(regionIndex).empty())
      continue;
    for (auto [index, classIndex] : llvm::enumerate(passed))
      schedule.push_back(makeTokenStep(ScheduleStep::Kind::Yield, op,
                                       regionIndex, keep(tokens[classIndex]),
                                       index, numTokens));
  }
  addClassResults(op, passedClasses, pending);
  return success();
}

LogicalResult AsyncDependenceAnalysis::scheduleNested(Operation *op,
                                                      PendingWork &pending) {
  // What the op itself accesses, apart from its regions.
  MemoryAccesses own = accesses.getOwnHostAccesses(op);
  if (own.everything || !own.values.empty())
    scheduleHostOp(op, own, pending);
  // Regions of ops isolated from above cannot use the tokens outside.
  bool isolated = op->hasTrait<OpTrait::IsIsolatedFromAbove>();
  for (Region &region : op->getRegions()) {
    for (Block &block : region) {
      RegionScope scope(*this);
      PendingWork inner = isolated ? PendingWork() : copyForRegion(pending);
      if (failed(scheduleBlock(block, inner)))
        return failure();
      // The work of the block cannot be passed on: the host waits for it.
      Operation *terminator = !block.empty() && isTerminator(&block.back())
                                  ? &block.back()
                                  : nullptr;
      hostWait(inner, getOpenTokens(inner, &block), terminator, &block);
    }
  }
  return success();
}

LogicalResult AsyncDependenceAnalysis::scheduleOnStream(gpu::OnStreamOp op,
                                                        PendingWork &pending) {
  // Work handed to other streams may conflict with the body's; the stream's
  // own is ordered before the body by the stream.
  MemoryAccesses everything = getEverything();
  waitForHandedStreams(pending, op, everything, op.getStream());
  TokenNode entry = numberNew(TokenNode(op, TokenKind::Carried));
  ScheduleStep step{ScheduleStep::Kind::EnterStream, op, nullptr, 0, {}};
  step.made = entry;
  schedule.push_back(step);
  bool handsOver = false;
  for (Block &block : op.getBody()) {
    RegionScope scope(*this);
    PendingWork inner = copyForRegion(pending);
    inner.handedStreams.clear();
    // A block other than the entry block starts after the work the blocks
    // before it may have handed to the stream (at a branch, see below).
    if (!block.isEntryBlock())
      addHandedWork(inner.handedStreams, op.getStream(),
                    getHandedBefore(&block, accesses, opaque));
    inner.streamEntry = entry;
    open(inner, entry);
    record(inner, entry, everything, /*merge=*/true);
    if (failed(scheduleBlock(block, inner)))
      return failure();
    // Launches on the stream in the body hand their work to it.
    handsOver |= isHandedTo(inner.handedStreams, op.getStream());
    SmallVector<TokenNode> tokens = getOpenTokens(inner, &block);
    llvm::erase(tokens, entry);
    Operation *terminator =
        block.mightHaveTerminator() ? block.getTerminator() : nullptr;
    if (auto yield = dyn_cast_or_null<gpu::OnStreamYieldOp>(terminator)) {
      if (tokens.empty())
        continue;
      LDBG() << "gpu.on_stream hands " << tokens.size()
             << " token(s) over to its stream";
      schedule.push_back(
          {ScheduleStep::Kind::HandOver, yield, nullptr, 0, keep(tokens)});
      handsOver = true;
      continue;
    }
    // A branch to another block of the body hands the block's work to the
    // stream, which that block's work follows.
    if (terminator && !tokens.empty()) {
      LDBG() << "gpu.on_stream hands " << tokens.size()
             << " token(s) over to its stream at a branch";
      schedule.push_back({ScheduleStep::Kind::HandOverTo, terminator, nullptr,
                          0, keep(tokens), op.getStream()});
      handsOver = true;
      continue;
    }
    // The work of the block cannot be passed on: the host waits for it.
    hostWait(inner, tokens, terminator, &block);
  }
  if (handsOver)
    addHandedWork(pending.handedStreams, op.getStream(),
                  getHandedAccesses(op, accesses, opaque));
  return success();
}

LogicalResult AsyncDependenceAnalysis::scheduleOp(Operation *op,
                                                  PendingWork &pending) {
  if (isa<gpu::LaunchOp>(op))
    return op->emitOpError("replace with gpu.launch_func first");
  if (auto wait = dyn_cast<gpu::WaitOp>(op)) {
    scheduleUserWait(wait, pending);
    return success();
  }
  if (auto asyncOp = getAsyncOp(op)) {
    scheduleGpuOp(asyncOp, pending);
    return success();
  }
  if (Value stream = getLaunchStream(op)) {
    scheduleStreamLaunch(cast<gpu::LaunchFuncOp>(op), stream, pending);
    return success();
  }
  if (auto onStreamOp = dyn_cast<gpu::OnStreamOp>(op))
    return scheduleOnStream(onStreamOp, pending);
  if (op->getNumRegions() != 0) {
    if (isMemoryEffectFree(op))
      return success();
    LogicalResult result = failure();
    if (!holdsCarriedGpuWork(op))
      result = scheduleNested(op, pending);
    else if (isa<scf::ForOp, scf::WhileOp>(op))
      result = scheduleLoop(op, pending);
    else
      result = scheduleBranches(op, pending);
    // The work that the regions handed to streams stays pending.
    if (succeeded(result) && passesHandedWork(op))
      collectHandedWork(op, accesses, opaque, pending.handedStreams,
                        &movedOntoStreams);
    else if (succeeded(result))
      opaque.recordHandedWork(op, pending.handedStreams);
    return result;
  }
  if (!isMemoryEffectFree(op)) {
    scheduleHostOp(op, accesses.getHostAccesses(op), pending);
    opaque.recordHandedWork(op, pending.handedStreams);
  }
  return success();
}

LogicalResult AsyncDependenceAnalysis::scheduleBlock(Block &block,
                                                     PendingWork &pending) {
  // In a loop, the work that earlier iterations handed to streams is pending.
  if (isa<scf::ForOp, scf::WhileOp>(block.getParentOp()))
    collectHandedWork(block.getParentOp(), accesses, opaque,
                      pending.handedStreams, &movedOntoStreams);
  for (Operation &op : block) {
    if (&op == &block.back() && isTerminator(&op)) {
      // The end of an automatic allocation scope (an scf.for iteration) frees
      // its stack memory: the GPU work that uses it must be complete.
      if (stackMemory) {
        MemoryAccesses freed = accesses.getScopeEndAccesses(&op);
        if (!freed.empty())
          scheduleHostOp(&op, freed, pending);
      }
      // Work handed to a stream is left to the stream's owner where the
      // function returns, to the stream itself at the end of a block of a
      // gpu.on_stream body on that stream (at a branch, the next block's work
      // follows it, see scheduleOnStream), and to the parent op where control
      // returns to an SCF op or the next iteration (see keepsHandedWork); at
      // any other end of a block, the host waits for it.
      if (!(op.hasTrait<OpTrait::ReturnLike>() &&
            isa<FunctionOpInterface>(op.getParentOp())) &&
          !keepsHandedWork(&block)) {
        auto onStreamOp = dyn_cast<gpu::OnStreamOp>(op.getParentOp());
        waitForHandedStreams(pending, &op, getEverything(),
                             onStreamOp ? onStreamOp.getStream() : Value());
      } else if (keepsHandedWork(&block)) {
        waitForStreamsDefinedIn(pending, &op, block.getParentOp());
      }
      break;
    }
    if (failed(scheduleOp(&op, pending)))
      return failure();
  }
  return success();
}

/// Returns the blocks of function body `body` that get a token argument for
/// the GPU work their predecessors leave pending: those that such work may
/// reach (a predecessor holds GPU work, or gets a token itself) and whose
/// predecessors all end with a cf branch op, which passes operands of any
/// type.
static DenseSet<Block *> findTokenBlocks(Region &body) {
  auto isCfBranch = [](Block *pred) {
    return isa<cf::BranchOp, cf::CondBranchOp, cf::SwitchOp>(
        pred->getTerminator());
  };
  DenseSet<Block *> result;
  SmallVector<Block *> worklist;
  for (Block &block : body)
    if (llvm::any_of(block,
                     [](Operation &op) { return holdsCarriedGpuWork(&op); }))
      worklist.push_back(&block);
  while (!worklist.empty()) {
    Block *block = worklist.pop_back_val();
    for (Block *successor : block->getSuccessors())
      if (!result.contains(successor) &&
          llvm::all_of(successor->getPredecessors(), isCfBranch)) {
        result.insert(successor);
        worklist.push_back(successor);
      }
  }
  return result;
}

LogicalResult AsyncDependenceAnalysis::scheduleFunctionBody(Region &region) {
  tokenBlocks = findTokenBlocks(region);
  for (Block &block : region) {
    RegionScope scope(*this);
    PendingWork pending;
    // The work that the predecessors leave pending may access anything.
    if (tokenBlocks.contains(&block)) {
      TokenNode token = numberNew(TokenNode(&block.front(), TokenKind::Block));
      ScheduleStep step{
          ScheduleStep::Kind::EnterBlock, &block.front(), nullptr, 0, {}};
      step.made = token;
      schedule.push_back(step);
      open(pending, token);
      record(pending, token, getEverything(), /*merge=*/true);
    }
    if (failed(scheduleBlock(block, pending)))
      return failure();
    Operation *terminator =
        !block.empty() && isTerminator(&block.back()) ? &block.back() : nullptr;
    // A branch passes the work left pending to its successors if they all
    // take a token, instead of the host waiting for it; if only some do, it
    // passes them a token of no work after the host wait.
    SmallVector<TokenNode> tokens = getOpenTokens(pending);
    auto takesToken = [&](Block *successor) {
      return tokenBlocks.contains(successor);
    };
    if (!terminator || llvm::none_of(terminator->getSuccessors(), takesToken)) {
      hostWait(pending, tokens, terminator, &block);
      continue;
    }
    if (llvm::all_of(terminator->getSuccessors(), takesToken)) {
      dropImplied(tokens);
    } else {
      hostWait(pending, tokens, terminator, &block);
      tokens.clear();
    }
    LDBG() << "branch " << OpWithFlags(terminator, OpPrintingFlags())
           << " passes " << tokens.size() << " token(s) to its successors";
    schedule.push_back({ScheduleStep::Kind::PassToSuccessors, terminator,
                        nullptr, 0, keep(tokens)});
  }
  return failure(waitFailed);
}

//===----------------------------------------------------------------------===//
// Dependence mode: rewrite.
//===----------------------------------------------------------------------===//

namespace {
/// Applies a schedule of AsyncDependenceAnalysis, step by step in program
/// order, so that each token exists when it is used.
class AsyncScheduleRewriter {
public:
  AsyncScheduleRewriter(MLIRContext *context,
                        const AsyncDependenceAnalysis &analysis)
      : rewriter(context), analysis(analysis) {
    values.resize(analysis.getNumTokens());
  }

  /// Applies the analysis's schedule.
  void apply();

private:
  /// The values of `tokens`, joined by a `gpu.wait async` before the current
  /// insertion point if there are several (or none).
  Value join(Location loc, ArrayRef<TokenNode> tokens);
  SmallVector<Value> getValues(ArrayRef<TokenNode> tokens) const;
  /// The op that replaced `op` (a region op), or `op`.
  Operation *getCurrent(Operation *op) const {
    Operation *replacement = replacements.lookup(op);
    return replacement ? replacement : op;
  }
  /// The value that replaced `value`, a value of the IR before the rewrite
  /// (a result of a region op), or `value`. Each op is replaced once; a
  /// replacement is not looked up again (a new op may reuse the memory of
  /// an erased one, and with it the keys of its results).
  Value getCurrent(Value value) const {
    Value replacement = replacedValues.lookup(value);
    return replacement ? replacement : value;
  }
  /// Replaces region op `op` with `newOp`, whose first results replace its
  /// results.
  void replaceRegionOp(Operation *op, Operation *newOp);
  /// Recreates `op` with `numTokens` token results in addition.
  void addResults(Operation *op, unsigned numTokens);
  /// Recreates `loop` (scf.for or scf.while) with token iter_args initialized
  /// with `inits`, which each region passes on until its Yield steps.
  void carryIntoLoop(Operation *loop, ArrayRef<Value> inits);

  IRRewriter rewriter;
  /// The token type, looked up once, where the rewrite first needs it (a
  /// function with no GPU op may be in a context that has not loaded the GPU
  /// dialect).
  Type tokenType;
  Type getTokenType() {
    if (!tokenType)
      tokenType = rewriter.getType<gpu::AsyncTokenType>();
    return tokenType;
  }
  const AsyncDependenceAnalysis &analysis;
  /// By token number, the value of each token made so far.
  SmallVector<Value> values;
  Value getValue(TokenNode token) const {
    assert(token.number != TokenNode::kNoNumber && "token not numbered");
    Value value = values[token.number];
    assert(value && "token used before it was created");
    return value;
  }
  void setValue(TokenNode token, Value value) {
    assert(token.number != TokenNode::kNoNumber && "token not numbered");
    values[token.number] = value;
  }
  /// The initial values of the token iter_args of a loop, until the last
  /// CarryIntoLoop step.
  DenseMap<Operation *, SmallVector<Value>> loopInits;
  /// The token of no work that the iter_args of a loop start with, if any.
  DenseMap<Operation *, Value> loopNoWork;
  /// The token arguments of the blocks of the function body that get one
  /// (see findTokenBlocks), added where a branch or the block's first step
  /// needs one.
  DenseMap<Block *, Value> blockTokens;
  Value getBlockToken(Block *block);
  /// A token of no work at the start of the function body, which branches
  /// pass where they leave no work pending.
  Value functionNoWork;
  DenseMap<Operation *, Operation *> replacements;
  /// The results of the replaced ops (never dereferenced) and their
  /// replacements: a stream that a later step names may be one of them.
  DenseMap<Value, Value> replacedValues;
};
} // namespace

SmallVector<Value>
AsyncScheduleRewriter::getValues(ArrayRef<TokenNode> tokens) const {
  return llvm::map_to_vector(tokens,
                             [&](TokenNode token) { return getValue(token); });
}

Value AsyncScheduleRewriter::join(Location loc, ArrayRef<TokenNode> tokens) {
  if (tokens.size() == 1)
    return getValue(tokens.front());
  return createWaitOp(rewriter, loc, getTokenType(), getValues(tokens));
}

Value AsyncScheduleRewriter::getBlockToken(Block *block) {
  Value &token = blockTokens[block];
  if (!token)
    token = block->addArgument(getTokenType(), block->getParentOp()->getLoc());
  return token;
}

void AsyncScheduleRewriter::replaceRegionOp(Operation *op, Operation *newOp) {
  for (auto [from, to] : llvm::zip(op->getResults(), newOp->getResults()))
    replacedValues[from] = to;
  rewriter.replaceOp(op, newOp->getResults().take_front(op->getNumResults()));
  replacements[op] = newOp;
}

void AsyncScheduleRewriter::addResults(Operation *op, unsigned numTokens) {
  // Create the op anew with token results, taking the regions along.
  SmallVector<Type> resultTypes(op->getResultTypes());
  resultTypes.append(numTokens, getTokenType());
  Operation *newOp = Operation::create(
      op->getLoc(), op->getName(), resultTypes, op->getOperands(),
      op->getDiscardableAttrDictionary(), op->getPropertiesStorage(),
      op->getSuccessors(), op->getNumRegions());
  rewriter.setInsertionPoint(op);
  rewriter.insert(newOp);
  for (auto [from, to] : llvm::zip_equal(op->getRegions(), newOp->getRegions()))
    to.takeBody(from);
  // A missing `else` yields tokens of no work.
  for (Region &region : newOp->getRegions()) {
    if (!region.empty())
      continue;
    rewriter.setInsertionPointToStart(rewriter.createBlock(&region));
    Value token = createWaitOp(rewriter, op->getLoc(), getTokenType(), {});
    scf::YieldOp::create(rewriter, op->getLoc(),
                         SmallVector<Value>(numTokens, token));
  }
  replaceRegionOp(op, newOp);
  for (auto [index, result] :
       llvm::enumerate(newOp->getResults().take_back(numTokens)))
    setValue(analysis.getNumbered(TokenNode(op, TokenKind::Result, index)),
             result);
}

void AsyncScheduleRewriter::carryIntoLoop(Operation *loop,
                                          ArrayRef<Value> inits) {
  Location loc = loop->getLoc();
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> operands(loop->getOperands());
  llvm::append_range(operands, inits);
  SmallVector<Type> resultTypes(loop->getResultTypes());
  llvm::append_range(resultTypes, ValueRange(inits).getTypes());
  Operation *newLoop = Operation::create(
      loc, loop->getName(), resultTypes, operands,
      loop->getDiscardableAttrDictionary(), loop->getPropertiesStorage(),
      /*successors=*/{}, loop->getNumRegions());
  rewriter.insert(newLoop);
  // The regions move as they are: their blocks, block arguments and ops stay
  // those that later steps name (a stream carried by the loop included).
  for (auto [from, to] :
       llvm::zip_equal(loop->getRegions(), newLoop->getRegions()))
    to.takeBody(from);
  // Until the Yield steps, each region passes on the tokens it got.
  for (auto [regionIndex, region] : llvm::enumerate(newLoop->getRegions())) {
    Block &block = region.front();
    Operation *terminator = block.getTerminator();
    TokenKind kind =
        regionIndex == 0 ? TokenKind::Carried : TokenKind::Forwarded;
    for (auto [index, init] : llvm::enumerate(inits)) {
      BlockArgument argument = block.addArgument(init.getType(), loc);
      terminator->insertOperands(terminator->getNumOperands(), argument);
      setValue(analysis.getNumbered(TokenNode(loop, kind, index)), argument);
    }
  }
  replaceRegionOp(loop, newLoop);
}

void AsyncScheduleRewriter::apply() {
  ArrayRef<ScheduleStep> schedule = analysis.getSchedule();
  // The host waits for streams come first: the other steps replace loops and
  // branches, and with them the streams that are their results.
  for (const ScheduleStep &step : schedule) {
    if (step.kind != ScheduleStep::Kind::StreamHostWait)
      continue;
    rewriter.setInsertionPoint(step.op);
    createStreamHostWait(rewriter, step.stream, step.op->getLoc());
  }
  for (const ScheduleStep &step : schedule) {
    switch (step.kind) {
    case ScheduleStep::Kind::MakeAsync: {
      if (auto wait = dyn_cast<gpu::WaitOp>(step.op)) {
        // A user's wait stays as it is, with more dependencies.
        gpu::addAsyncDependencies(wait, getValues(step.tokens));
        if (wait.getAsyncToken())
          setValue(step.made, wait.getAsyncToken());
        break;
      }
      gpu::AsyncOpInterface asyncOp = step.asyncOp;
      assert(asyncOp && "MakeAsync step of a GPU op without the op");
      if (step.stream) {
        // No later step names the op's token: the stream took it over.
        moveOntoStream(rewriter, asyncOp, getCurrent(step.stream),
                       getValues(step.tokens));
        break;
      }
      setValue(step.made, makeAsync(rewriter, asyncOp, getValues(step.tokens),
                                    getTokenType()));
      break;
    }
    case ScheduleStep::Kind::HostWait:
      if (step.op)
        rewriter.setInsertionPoint(step.op);
      else
        rewriter.setInsertionPointToEnd(step.block);
      createWaitOp(rewriter,
                   (step.op ? step.op : step.block->getParentOp())->getLoc(),
                   Type(), getValues(step.tokens));
      break;
    case ScheduleStep::Kind::CarryIntoLoop: {
      rewriter.setInsertionPoint(step.op);
      SmallVector<Value> &inits = loopInits[step.op];
      // Iter_args that start with no work share one token of none.
      Value &noWork = loopNoWork[step.op];
      if (step.tokens.empty() && !noWork)
        noWork = join(step.op->getLoc(), {});
      inits.push_back(
          step.tokens.empty() ? noWork : join(step.op->getLoc(), step.tokens));
      if (inits.size() == step.numTokens)
        carryIntoLoop(step.op, inits);
      break;
    }
    case ScheduleStep::Kind::Yield: {
      Operation *op = getCurrent(step.op);
      Operation *terminator =
          op->getRegion(step.region).front().getTerminator();
      rewriter.setInsertionPoint(terminator);
      if (isa<scf::ForOp, scf::WhileOp>(op)) {
        // Replaces the iter_arg that CarryIntoLoop passed on.
        if (!step.tokens.empty())
          terminator->setOperand(terminator->getNumOperands() - step.numTokens +
                                     step.index,
                                 join(op->getLoc(), step.tokens));
        break;
      }
      terminator->insertOperands(terminator->getNumOperands(),
                                 join(op->getLoc(), step.tokens));
      break;
    }
    case ScheduleStep::Kind::EnterStream:
      setValue(step.made, cast<gpu::OnStreamOp>(step.op).getEntryToken());
      break;
    case ScheduleStep::Kind::HandOver:
      cast<gpu::OnStreamYieldOp>(step.op).getAsyncDependenciesMutable().append(
          getValues(step.tokens));
      break;
    case ScheduleStep::Kind::HandOverTo:
      rewriter.setInsertionPoint(step.op);
      createStreamHandOver(rewriter, getCurrent(step.stream),
                           getValues(step.tokens), step.op->getLoc());
      break;
    case ScheduleStep::Kind::StreamHostWait:
      break;
    case ScheduleStep::Kind::EnterBlock:
      setValue(step.made, getBlockToken(step.op->getBlock()));
      break;
    case ScheduleStep::Kind::PassToSuccessors: {
      if (step.tokens.empty() && !functionNoWork) {
        rewriter.setInsertionPointToStart(&step.op->getParentRegion()->front());
        functionNoWork = join(step.op->getLoc(), {});
      }
      rewriter.setInsertionPoint(step.op);
      Value token = step.tokens.empty() ? functionNoWork
                                        : join(step.op->getLoc(), step.tokens);
      auto branch = cast<BranchOpInterface>(step.op);
      for (auto [index, successor] : llvm::enumerate(step.op->getSuccessors()))
        if (analysis.getTokenBlocks().contains(successor)) {
          (void)getBlockToken(successor);
          branch.getSuccessorOperands(index).append(token);
        }
      break;
    }
    case ScheduleStep::Kind::AddResult:
      // A loop got its token results with its iter_args.
      if (Operation *loop = getCurrent(step.op);
          isa<scf::ForOp, scf::WhileOp>(loop)) {
        for (auto [index, result] :
             llvm::enumerate(loop->getResults().take_back(step.numTokens)))
          setValue(analysis.getNumbered(
                       TokenNode(step.op, TokenKind::Result, index)),
                   result);
        break;
      }
      addResults(step.op, step.numTokens);
      break;
    }
  }
}

/// Erases `executeOp` and returns a new one, with its body and additional
/// `results`.
static async::ExecuteOp addExecuteResults(async::ExecuteOp executeOp,
                                          ValueRange results) {
  // Add values to async.yield op.
  Operation *yieldOp = executeOp.getBody()->getTerminator();
  yieldOp->insertOperands(yieldOp->getNumOperands(), results);

  // Construct new result type list with additional types.
  SmallVector<Type, 2> resultTypes;
  resultTypes.reserve(executeOp.getNumResults() + results.size());
  transform(executeOp.getResultTypes(), std::back_inserter(resultTypes),
            [](Type type) {
              // Extract value type from !async.value.
              if (auto valueType = dyn_cast<async::ValueType>(type))
                return valueType.getValueType();
              assert(isa<async::TokenType>(type) && "expected token type");
              return type;
            });
  transform(results, std::back_inserter(resultTypes),
            [](Value value) { return value.getType(); });

  // Clone executeOp with the extra results.
  OpBuilder builder(executeOp);
  auto newOp = async::ExecuteOp::create(
      builder, executeOp.getLoc(),
      TypeRange{resultTypes}.drop_front() /*drop token*/,
      executeOp.getDependencies(), executeOp.getBodyOperands());
  // Move the body over: the ops in it keep their identity.
  newOp.getRegion().takeBody(executeOp.getRegion());

  // Replace executeOp with the new one.
  executeOp.getOperation()->replaceAllUsesWith(
      newOp.getResults().drop_back(results.size()));
  executeOp.erase();

  return newOp;
}

// Callback for `async.execute` ops which tries to push the contained
// synchronous `gpu.wait` op to the dependencies of the `async.execute`.
//
// The moved wait stands for the GPU work of the body. After each
// `async.await` of the `async.execute`, that work is in flight: each GPU op
// of the block that may conflict with it depends on it unless it is ordered
// after one that does (in the single chain mode, the first GPU op does, and
// the chain goes on from it); the host waits for it before the first host op
// that may conflict with it or has unknown effects (or merges it into the
// first host wait, or waits at the end of the block). A dependent
// `async.execute` gets the tokens, and its body is treated the same way.
struct GpuAsyncRegionPass::DeferWaitCallback {
  /// With `chain`, the GPU work after an `async.await` is one chain (the
  /// single chain mode): its first GPU op depends on the awaited work, and
  /// the rest of the chain with it.
  DeferWaitCallback(GpuAccessAnalysis &accesses, bool chain)
      : accesses(accesses), chain(chain) {}

  // If the results of `executeOp` are used only in `async.execute` or
  // `async.await` ops, add the region's last `gpu.wait` op to the worklist if
  // it is synchronous and is the last op with side effects.
  void operator()(async::ExecuteOp executeOp) {
    if (!areAllUsersExecuteOrAwait(executeOp))
      return;
    // async.execute's region is currently restricted to one block.
    for (auto &op : llvm::reverse(executeOp.getBody()->without_terminator())) {
      if (auto waitOp = dyn_cast<gpu::WaitOp>(op)) {
        if (isHostWait(waitOp))
          worklist.push_back(waitOp);
        return;
      }
      if (hasSideEffects(&op))
        return;
    }
  }

  // The destructor performs the actual rewrite work.
  ~DeferWaitCallback() {
    for (size_t i = 0; i < worklist.size(); ++i) {
      auto waitOp = worklist[i];
      auto executeOp = waitOp->getParentOfType<async::ExecuteOp>();

      // The GPU work of the body, and what it inherited from the bodies it
      // depends on. Work on the stack memory of the body must end with it.
      MemoryAccesses work = getBodyGpuAccesses(executeOp);
      if (auto it = inherited.find(executeOp); it != inherited.end())
        work.append(it->second);
      Operation *yieldOp = executeOp.getBody()->getTerminator();
      if (accesses.mayConflict(work, accesses.getScopeEndAccesses(yieldOp))) {
        LDBG() << "not deferring a wait that stack memory of its body needs";
        continue;
      }

      // Erase `gpu.wait` and return async dependencies from execute op instead.
      SmallVector<Value, 4> dependencies = waitOp.getAsyncDependencies();
      waitOp.erase();
      executeOp = addExecuteResults(executeOp, dependencies);

      // Add the async dependency to each user of the `async.execute` token or
      // of its values: each of them sees the end of the body.
      auto asyncTokens = executeOp.getResults().take_back(dependencies.size());
      SetVector<Operation *> users;
      for (Value result : executeOp->getResults().drop_back(asyncTokens.size()))
        users.insert(result.user_begin(), result.user_end());
      for (Operation *user : users) {
        // An `async.await` after another one in its block needs nothing: the
        // host waits for the work before it (its effects are unknown).
        if (isa<async::AwaitOp>(user) &&
            llvm::any_of(users, [&](Operation *other) {
              return isa<async::AwaitOp>(other) &&
                     other->getBlock() == user->getBlock() &&
                     other->isBeforeInBlock(user);
            }))
          continue;
        addAsyncDependencyAfter(asyncTokens, user, work);
      }
    }
  }

private:
  // Returns whether the results of `executeOp` (its token and its values)
  // have users, and all of them are either 'async.execute' or 'async.await'
  // ops: each of them sees the end of the body. This is used as a requirement
  // for pushing 'gpu.wait' ops from a 'async.execute' body to its users.
  // Specifically, we do not allow terminator users, because it could mean that
  // the `async.execute` is inside control flow code.
  static bool areAllUsersExecuteOrAwait(async::ExecuteOp executeOp) {
    bool used = false;
    for (Operation *user : executeOp->getUsers()) {
      if (!isa<async::ExecuteOp, async::AwaitOp>(user))
        return false;
      used = true;
    }
    return used;
  }

  // Returns whether `op` is a `gpu.wait` on the host.
  static bool isHostWait(Operation *op) {
    auto waitOp = dyn_cast<gpu::WaitOp>(op);
    return waitOp && !waitOp.getAsyncToken();
  }

  // The memory that the GPU ops in `executeOp`'s body access, memory that
  // the body allocates included (its stack memory is freed at its end).
  MemoryAccesses getBodyGpuAccesses(async::ExecuteOp executeOp) {
    MemoryAccesses result;
    executeOp.getBody()->walk([&](Operation *op) {
      if (!getAsyncOp(op))
        return WalkResult::advance();
      result.append(accesses.getGpuAccesses(op));
      return result.everything ? WalkResult::interrupt()
                               : WalkResult::advance();
    });
    return result;
  }

  // Makes the code after `op`, an `async.await` of the `async.execute` or a
  // dependent `async.execute`, wait for the GPU work of `asyncTokens`, which
  // accesses `work`, where it needs to.
  void addAsyncDependencyAfter(ValueRange asyncTokens, Operation *op,
                               const MemoryAccesses &work) {
    OpBuilder builder(op->getContext());
    auto loc = op->getLoc();

    Block::iterator it;
    SmallVector<Value, 1> tokens;
    tokens.reserve(asyncTokens.size());
    TypeSwitch<Operation *>(op)
        .Case([&](async::AwaitOp awaitOp) {
          // Add async.await ops to wait for the !gpu.async.tokens.
          builder.setInsertionPointAfter(op);
          for (auto asyncToken : asyncTokens)
            tokens.push_back(
                async::AwaitOp::create(builder, loc, asyncToken).getResult());
          // Set `it` after the inserted async.await ops.
          it = builder.getInsertionPoint();
        })
        .Case([&](async::ExecuteOp executeOp) {
          // Set `it` to the beginning of the region and add asyncTokens to the
          // async.execute operands.
          it = executeOp.getBody()->begin();
          executeOp.getBodyOperandsMutable().append(asyncTokens);
          SmallVector<Type, 1> tokenTypes(
              asyncTokens.size(), builder.getType<gpu::AsyncTokenType>());
          SmallVector<Location, 1> tokenLocs(asyncTokens.size(),
                                             executeOp.getLoc());
          copy(executeOp.getBody()->addArguments(tokenTypes, tokenLocs),
               std::back_inserter(tokens));
        });

    // The tokens of the GPU ops that depend on `tokens`.
    DenseSet<Value> ordered(tokens.begin(), tokens.end());
    auto dependsOnWork = [&](gpu::AsyncOpInterface asyncOp) {
      return llvm::any_of(asyncOp.getAsyncDependencies(),
                          [&](Value dep) { return ordered.contains(dep); });
    };
    bool first = true;
    for (; !isTerminator(&*it); ++it) {
      auto asyncOp = getAsyncOp(&*it);
      // The first host wait waits for the work as well.
      if (isHostWait(&*it)) {
        if (!dependsOnWork(asyncOp))
          for (Value token : tokens)
            asyncOp.addAsyncDependency(token);
        inheritAt(&*it, work);
        return;
      }
      // A GPU op that may conflict with the work depends on it, unless it is
      // ordered after one that does; in a single chain, so does the first
      // GPU op (the GPU work of the block goes on from it).
      if (asyncOp && asyncOp.getAsyncToken()) {
        if (!dependsOnWork(asyncOp) &&
            ((chain && first) ||
             gpuOpConflicts(accesses.getGpuAccesses(&*it), work)))
          for (Value token : tokens)
            asyncOp.addAsyncDependency(token);
        first = false;
        if (dependsOnWork(asyncOp))
          ordered.insert(asyncOp.getAsyncToken());
        continue;
      }
      // A host op that may conflict with the work, or whose effects are
      // unknown, waits.
      MemoryAccesses hostAccesses = accesses.getHostAccesses(&*it);
      if (hostAccesses.everything || accesses.mayConflict(work, hostAccesses))
        break;
    }

    // Insert a gpu.wait before 'it'.
    builder.setInsertionPoint(it->getBlock(), it);
    auto waitOp = gpu::WaitOp::create(builder, loc, Type{}, tokens);
    inheritAt(waitOp, work);

    // If the new waitOp is at the end of an async.execute region, add it to the
    // worklist. 'operator()(executeOp)' would do the same, but this is faster.
    auto executeOp = dyn_cast<async::ExecuteOp>(it->getParentOp());
    if (executeOp && areAllUsersExecuteOrAwait(executeOp) && !it->getNextNode())
      worklist.push_back(waitOp);
  }

  // Records that host wait `waitOp`, if it is in the body of an
  // `async.execute`, waits for `work` too: should that wait be deferred as
  // well, it stands for `work`.
  void inheritAt(Operation *waitOp, const MemoryAccesses &work) {
    if (auto executeOp = dyn_cast<async::ExecuteOp>(waitOp->getParentOp()))
      inherited[executeOp].append(work);
  }

  // Returns whether a GPU op that accesses `op` may conflict with the work:
  // work that may access everything conflicts with any work.
  bool gpuOpConflicts(const MemoryAccesses &op, const MemoryAccesses &work) {
    return op.everything || accesses.mayConflict(op, work);
  }

  GpuAccessAnalysis &accesses;
  bool chain;
  SmallVector<gpu::WaitOp, 8> worklist;
  // The GPU work of other bodies that host waits in the body of an
  // `async.execute` wait for.
  DenseMap<Operation *, MemoryAccesses> inherited;
};

// Callback for `async.execute` ops which repeats !gpu.async.token results
// so that each of them is only used once.
struct GpuAsyncRegionPass::SingleTokenUseCallback {
  void operator()(async::ExecuteOp executeOp) {
    // Extract !gpu.async.token results which have multiple uses.
    auto multiUseResults = llvm::make_filter_range(
        executeOp.getBodyResults(), [](OpResult result) {
          if (result.use_empty() || result.hasOneUse())
            return false;
          auto valueType = dyn_cast<async::ValueType>(result.getType());
          return valueType &&
                 isa<gpu::AsyncTokenType>(valueType.getValueType());
        });
    if (multiUseResults.empty())
      return;

    // Indices within !async.execute results (i.e. without the async.token).
    SmallVector<int, 4> indices;
    transform(multiUseResults, std::back_inserter(indices),
              [](OpResult result) {
                return result.getResultNumber() - 1; // Index without token.
              });

    for (auto index : indices) {
      assert(!executeOp.getBodyResults()[index].getUses().empty());
      // Repeat async.yield token result, one for each use after the first one.
      auto uses = llvm::drop_begin(executeOp.getBodyResults()[index].getUses());
      auto count = std::distance(uses.begin(), uses.end());
      auto yieldOp = cast<async::YieldOp>(executeOp.getBody()->getTerminator());
      SmallVector<Value, 4> operands(count, yieldOp.getOperand(index));
      executeOp = addExecuteResults(executeOp, operands);
      // Update 'uses' to refer to the new executeOp.
      uses = llvm::drop_begin(executeOp.getBodyResults()[index].getUses());
      auto results = executeOp.getBodyResults().take_back(count);
      for (auto pair : llvm::zip(uses, results))
        std::get<0>(pair).set(std::get<1>(pair));
    }
  }
};

// Replaces synchronous GPU ops in the function's region with asynchronous ones
// and inserts the necessary synchronization (as gpu.wait ops). Assumes
// sequential execution semantics and that no GPU ops are asynchronous yet.
// With `streamArguments`, a call also hands work to the operands that its
// callee uses as streams (see OpaqueStreamUsers); with `summaries`, a call
// of a summarized function accesses only what its callee does through the
// call's operands.
LogicalResult GpuAsyncRegionPass::runOnFunction(
    func::FuncOp function, const StreamArguments *streamArguments,
    const gpu::FunctionAccessSummaries *summaries) {
  AliasAnalysis aliasAnalysis(function);
  FunctionShape shape = streamArguments ? streamArguments->getShape(function)
                                        : FunctionShape(function);
  // Let the dependence mode order launches on a stream by their accesses.
  if (maxStreams != 1 && shape.launchStreams) {
    wrapStreamLaunches(function, aliasAnalysis);
    // It may have wrapped launches in gpu.on_stream ops.
    shape.onStreamOps = true;
  }
  // Let the streams of gpu.on_stream ops order what the host would wait for
  // otherwise: split their bodies before the analyses see them.
  if (shape.onStreamOps)
    splitOnStreamBodies(function, aliasAnalysis, /*atScfOps=*/maxStreams == 1);
  GpuAccessAnalysis accesses(aliasAnalysis, summaries);
  OpaqueStreamUsers opaque(function, accesses, aliasAnalysis, streamArguments,
                           shape.onStreamOps || shape.launchStreams);
  if (maxStreams == 1) {
    if (function->walk(ThreadTokenCallback(getContext(), accesses, opaque))
            .wasInterrupted())
      return failure();
  } else {
    // Analyse first, then rewrite: the analysis sees the IR unchanged.
    AsyncDependenceAnalysis analysis(accesses, opaque, maxStreams,
                                     shape.stackMemory);
    if (failed(analysis.scheduleFunctionBody(function.getBody())))
      return failure();
    AsyncScheduleRewriter(&getContext(), analysis).apply();
  }

  // The rest is about async.execute ops.
  if (!shape.executeOps)
    return success();
  // Collect gpu.wait ops that we can move out of async.execute regions.
  // The rewrite replaced ops: the waits moved out of bodies ask an analysis
  // of their own.
  GpuAccessAnalysis deferAccesses(aliasAnalysis, summaries);
  function.getRegion().walk(
      DeferWaitCallback(deferAccesses, /*chain=*/maxStreams == 1));
  // Makes each !gpu.async.token returned from async.execute op have single use.
  function.getRegion().walk(SingleTokenUseCallback());
  return success();
}

void GpuAsyncRegionPass::runOnOperation() {
  // On a function, the pass sees no callee: another function may be
  // rewritten at the same time.
  if (auto function = dyn_cast<func::FuncOp>(getOperation())) {
    if (!function.isExternal() &&
        failed(runOnFunction(function, nullptr, nullptr)))
      signalPassFailure();
    return;
  }
  // On a symbol table, it finds the arguments that the functions use as
  // streams before it rewrites any of them; then the rewrite of one function
  // reads no other function's body, and they run in parallel.
  StreamArguments streamArguments(getOperation());
  gpu::FunctionAccessSummaries summaries(getOperation());
  SmallVector<func::FuncOp> functions;
  for (Region &region : getOperation()->getRegions())
    for (auto function : region.getOps<func::FuncOp>())
      if (!function.isExternal())
        functions.push_back(function);
  // Rewrite every function, as the pass manager does for a pass nested on
  // them: each failure reports its diagnostics.
  std::atomic<bool> failedAny = false;
  parallelForEach(&getContext(), functions, [&](func::FuncOp function) {
    if (failed(runOnFunction(function, &streamArguments, &summaries)))
      failedAny = true;
  });
  if (failedAny)
    signalPassFailure();
}
