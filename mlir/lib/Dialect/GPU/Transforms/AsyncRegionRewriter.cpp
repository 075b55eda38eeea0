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
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
#define GEN_PASS_DEF_GPUASYNCREGIONPASS
#include "mlir/Dialect/GPU/Transforms/Passes.h.inc"
} // namespace mlir

using namespace mlir;

namespace {
class GpuAsyncRegionPass
    : public impl::GpuAsyncRegionPassBase<GpuAsyncRegionPass> {
  using Base::Base;
  struct ThreadTokenCallback;
  struct DeferWaitCallback;
  struct SingleTokenUseCallback;
  void runOnOperation() override;
};
} // namespace

static bool isTerminator(Operation *op) {
  return op->mightHaveTrait<OpTrait::IsTerminator>();
}
static bool hasSideEffects(Operation *op) { return !isMemoryEffectFree(op); }

/// Adds `count` to the number of async dependencies of `op`, the first
/// operand segment of ops with segment sizes (as gpu::addAsyncDependencies
/// assumes).
static void addToAsyncDependencySegment(Operation *op, unsigned count) {
  if (!op->hasTrait<OpTrait::AttrSizedOperandSegments>())
    return;
  StringRef name =
      OpTrait::AttrSizedOperandSegments<void>::getOperandSegmentSizeAttr();
  auto sizes = op->getAttrOfType<DenseI32ArrayAttr>(name);
  if (!sizes)
    return;
  SmallVector<int32_t, 8> newSizes(sizes.asArrayRef());
  newSizes.front() += count;
  op->setAttr(name, DenseI32ArrayAttr::get(op->getContext(), newSizes));
}

/// Returns `op` if it is a GPU op that can execute asynchronously. A
/// host-shared `gpu.alloc` has no asynchronous form: it stays a host op.
static gpu::AsyncOpInterface getAsyncOp(Operation *op) {
  auto alloc = dyn_cast<gpu::AllocOp>(op);
  if (alloc && alloc.getHostShared() && !alloc.getAsyncToken())
    return {};
  return dyn_cast<gpu::AsyncOpInterface>(op);
}

// Region walk callback which makes GPU ops implementing the AsyncOpInterface
// execute asynchronously.
struct GpuAsyncRegionPass::ThreadTokenCallback {
  ThreadTokenCallback(MLIRContext &context, AliasAnalysis &aliasAnalysis,
                      unsigned maxStreams)
      : builder(&context), aliasAnalysis(aliasAnalysis),
        maxStreams(maxStreams) {}

  WalkResult operator()(Block *block) {
    for (Operation &op : make_early_inc_range(*block)) {
      if (failed(maxStreams == 1 ? visit(&op) : visitByDependences(&op)))
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
      if (!currentToken)
        inFlight.clear();
      return success();
    }
    builder.setInsertionPoint(op);
    if (auto asyncOp = getAsyncOp(op)) {
      // Replace GPU op with async version, which then produces the current
      // token.
      if (failed(rewriteAsyncOp(asyncOp)))
        return failure();
      Operation *newOp = currentToken.getDefiningOp();
      for (Value value :
           llvm::concat<Value>(newOp->getOperands(), newOp->getResults()))
        if (isa<BaseMemRefType>(value.getType()))
          inFlight.insert(value);
      return success();
    }
    if (!currentToken)
      return success();
    // Insert host synchronization before terminator or op with side effects.
    if (isTerminator(op) || mayTouchInFlightMemory(op)) {
      currentToken = createWaitOp(op->getLoc(), Type(), {currentToken});
      inFlight.clear();
    }
    return success();
  }

  /// The memory a GPU op or a host op may access: (memref, writes) pairs, or
  /// everything.
  struct Accesses {
    SmallVector<std::pair<Value, bool>> values;
    bool everything = false;
  };

  /// The memory host op `op` may access; fresh allocations excluded.
  Accesses hostAccesses(Operation *op) {
    Accesses result;
    std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
        getEffectsRecursively(op);
    if (!effects) {
      result.everything = true;
      return result;
    }
    for (const MemoryEffects::EffectInstance &effect : *effects) {
      Value value = effect.getValue();
      if (!value) {
        result.everything = true;
        return result;
      }
      // A fresh allocation (by `op` or an op nested in it) is not in flight.
      Operation *definer = value.getDefiningOp();
      if (isa<MemoryEffects::Allocate>(effect.getEffect()) && definer &&
          op->isAncestor(definer))
        continue;
      result.values.push_back(
          {value, !isa<MemoryEffects::Read>(effect.getEffect())});
    }
    return result;
  }

  //===--------------------------------------------------------------------===//
  // Dependence mode (max-streams != 1): each GPU op depends only on the
  // earlier GPU ops of its block whose memory accesses conflict with its own
  // (read after write, write after read or write), and the host waits only
  // for the GPU ops whose memory the next host op may touch.
  //===--------------------------------------------------------------------===//

  /// The GPU ops of the block that accessed a buffer (a memref followed
  /// back through view-like ops) and that the host has not waited for: the
  /// last writer and the readers since.
  struct BufferState {
    Value lastWrite;
    SmallVector<Value> reads;
  };

  static Value getBuffer(Value value) {
    while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
      value = view.getViewSource();
    return value;
  }

  /// The reads and writes of kernel `kernel`'s arguments, from the memory
  /// effects of its body, followed through view-like ops to the arguments
  /// (memoized). Memory that the kernel allocates (attributions, allocas) is
  /// its own. Anything else (globals, effects on no particular value, ops
  /// with unknown effects) makes the kernel access everything.
  const Accesses &kernelEffects(gpu::GPUFuncOp kernel) {
    auto [it, inserted] = kernelCache.try_emplace(kernel);
    if (!inserted)
      return it->second;
    Accesses &result = it->second;
    DenseMap<unsigned, bool> argWrites;
    Block &entry = kernel.front();
    kernel.walk([&](Operation *op) {
      if (op == kernel || op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
          op->hasTrait<OpTrait::IsTerminator>())
        return;
      auto iface = dyn_cast<MemoryEffectOpInterface>(op);
      if (!iface) {
        result.everything = true;
        return;
      }
      SmallVector<MemoryEffects::EffectInstance> effects;
      iface.getEffects(effects);
      for (const MemoryEffects::EffectInstance &effect : effects) {
        if (isa<MemoryEffects::Allocate, MemoryEffects::Free>(
                effect.getEffect()))
          continue;
        Value value = effect.getValue();
        if (!value) {
          result.everything = true;
          continue;
        }
        while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
          value = view.getViewSource();
        auto arg = dyn_cast<BlockArgument>(value);
        if (arg && arg.getOwner() == &entry) {
          // Workgroup and private attributions follow the arguments.
          if (arg.getArgNumber() < kernel.getNumArguments())
            argWrites[arg.getArgNumber()] |=
                isa<MemoryEffects::Write>(effect.getEffect());
          continue;
        }
        Operation *definer = value.getDefiningOp();
        if (definer && kernel->isAncestor(definer) &&
            hasSingleEffect<MemoryEffects::Allocate>(definer, value))
          continue;
        result.everything = true;
      }
    });
    for (auto [index, writes] : argWrites)
      result.values.push_back({kernel.getArgument(index), writes});
    return result;
  }

  /// The memory GPU op `op` accesses.
  Accesses gpuAccesses(Operation *op) {
    Accesses result;
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      auto [it, inserted] = launchedKernels.try_emplace(launch.getKernel());
      if (inserted)
        it->second = symbolTables.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
            op, launch.getKernel());
      gpu::GPUFuncOp kernel = it->second;
      if (!kernel || kernel.isExternal()) {
        for (Value operand : launch.getKernelOperands())
          if (isa<BaseMemRefType>(operand.getType()))
            result.values.push_back({operand, true});
        return result;
      }
      const Accesses &effects = kernelEffects(kernel);
      result.everything = effects.everything;
      for (auto [arg, writes] : effects.values) {
        unsigned index = cast<BlockArgument>(arg).getArgNumber();
        if (index < launch.getNumKernelOperands())
          result.values.push_back({launch.getKernelOperand(index), writes});
      }
      return result;
    }
    if (auto memcpy = dyn_cast<gpu::MemcpyOp>(op)) {
      result.values = {{memcpy.getDst(), true}, {memcpy.getSrc(), false}};
      return result;
    }
    if (isa<gpu::WaitOp>(op))
      return result;
    // gpu.memset, gpu.alloc, gpu.dealloc, and conservatively any other async
    // op: it writes every memref it has.
    for (Value value : llvm::concat<Value>(op->getOperands(), op->getResults()))
      if (isa<BaseMemRefType>(value.getType()))
        result.values.push_back({value, true});
    return result;
  }

  /// The buffers seen so far that may alias `buffer`, itself included.
  /// Alias analysis is asked once per pair of buffers.
  ArrayRef<Value> aliasingBuffers(Value buffer) {
    auto [it, inserted] = mayAlias.try_emplace(buffer);
    if (inserted) {
      it->second.push_back(buffer);
      for (Value known : seenBuffers) {
        if (aliasAnalysis.alias(known, buffer).isNo())
          continue;
        it->second.push_back(known);
        mayAlias[known].push_back(buffer);
      }
      seenBuffers.push_back(buffer);
      // `mayAlias` may have grown: look the entry up again.
      return mayAlias[buffer];
    }
    return it->second;
  }

  /// The tokens of the pending GPU ops that conflict with `accesses`. The
  /// results of `op` (a fresh allocation) conflict with nothing earlier.
  llvm::SmallSetVector<Value, 8> conflictingTokens(const Accesses &accesses,
                                                   Operation *op = nullptr) {
    llvm::SmallSetVector<Value, 8> tokens;
    if (accesses.everything) {
      for (Value token : openChains())
        tokens.insert(token);
      return tokens;
    }
    if (barrier)
      tokens.insert(barrier);
    for (auto [value, writes] : accesses.values) {
      if (op && value.getDefiningOp() == op)
        continue;
      for (Value buffer : aliasingBuffers(getBuffer(value))) {
        auto it = buffers.find(buffer);
        if (it == buffers.end())
          continue;
        BufferState &state = it->second;
        if (state.lastWrite)
          tokens.insert(state.lastWrite);
        if (writes)
          tokens.insert(state.reads.begin(), state.reads.end());
      }
    }
    return tokens;
  }

  /// Records that the GPU op producing `token` made `accesses`.
  void recordAccesses(Value token, const Accesses &accesses) {
    if (accesses.everything) {
      // Everything before is ordered before it, everything after will be
      // ordered after it.
      buffers.clear();
      barrier = token;
      return;
    }
    for (auto [value, writes] : accesses.values) {
      Value buffer = getBuffer(value);
      BufferState &state = buffers[buffer];
      if (writes) {
        state.lastWrite = token;
        state.reads.clear();
      } else {
        state.reads.push_back(token);
      }
    }
  }

  /// Waits on the host for `tokens` (which then no longer need a wait).
  void hostWait(Location loc, ArrayRef<Value> tokens) {
    SmallVector<Value> waited;
    for (Value token : tokens)
      if (!completed.contains(token))
        waited.push_back(token);
    if (waited.empty())
      return;
    createWaitOp(loc, Type(), waited);
    for (Value token : waited) {
      completed.insert(token);
      open.erase(token);
    }
  }

  /// The open chains, oldest first.
  SmallVector<Value> openChains() const {
    SmallVector<std::pair<unsigned, Value>> chains;
    chains.reserve(open.size());
    for (auto [token, order] : open)
      chains.push_back({order, token});
    llvm::sort(chains, llvm::less_first());
    return llvm::map_to_vector(chains, [](auto chain) { return chain.second; });
  }

  /// The oldest open chain.
  Value oldestOpenChain() const {
    auto oldest = llvm::min_element(
        open, [](auto lhs, auto rhs) { return lhs.second < rhs.second; });
    return oldest == open.end() ? Value() : oldest->first;
  }

  void openChain(Value token) { open.try_emplace(token, numChains++); }

  /// Forgets the state of the block (after a wait for everything).
  void resetDependenceState() {
    buffers.clear();
    open.clear();
    completed.clear();
    barrier = Value();
  }

  LogicalResult visitByDependences(Operation *op) {
    if (isa<gpu::LaunchOp>(op))
      return op->emitOpError("replace with gpu.launch_func first");
    builder.setInsertionPoint(op);
    if (auto waitOp = dyn_cast<gpu::WaitOp>(op)) {
      // A user's wait joins everything pending.
      for (Value token : openChains())
        waitOp.addAsyncDependency(token);
      if (!waitOp.getAsyncToken()) {
        resetDependenceState();
        return success();
      }
      open.clear();
      openChain(waitOp.getAsyncToken());
      return success();
    }
    if (auto asyncOp = getAsyncOp(op)) {
      OperandRange existing = asyncOp.getAsyncDependencies();
      bool hadDependencies = !existing.empty();
      Accesses accesses = gpuAccesses(op);
      llvm::SmallSetVector<Value, 8> conflicts =
          conflictingTokens(accesses, op);
      // A dependency that another one has as a direct dependency is implied.
      SmallVector<Value, 8> implied;
      if (conflicts.size() > 1)
        for (Value token : conflicts)
          if (auto producer = token.getDefiningOp<gpu::AsyncOpInterface>())
            llvm::append_range(implied, producer.getAsyncDependencies());
      SmallVector<Value> deps;
      for (Value token : conflicts)
        if (!completed.contains(token) && !llvm::is_contained(implied, token) &&
            !llvm::is_contained(existing, token))
          deps.push_back(token);
      // Independent work starts a new stream, unless `maxStreams` chains are
      // open already: it then continues the oldest one.
      if (deps.empty() && !hadDependencies && maxStreams != 0 &&
          open.size() >= maxStreams)
        deps.push_back(oldestOpenChain());
      // Accesses to results of `op` name the results of the async clone.
      SmallVector<std::pair<unsigned, unsigned>> resultAccesses;
      for (auto [index, access] : llvm::enumerate(accesses.values))
        if (auto result = dyn_cast<OpResult>(access.first);
            result && result.getOwner() == op)
          resultAccesses.push_back({index, result.getResultNumber()});
      auto newOp = cast<gpu::AsyncOpInterface>(makeAsync(asyncOp, deps));
      for (auto [index, number] : resultAccesses)
        accesses.values[index].first = newOp->getResult(number);
      Value token = newOp.getAsyncToken();
      for (Value dep : newOp.getAsyncDependencies())
        open.erase(dep);
      openChain(token);
      recordAccesses(token, accesses);
      return success();
    }
    if (open.empty())
      return success();
    if (isTerminator(op)) {
      hostWait(op->getLoc(), openChains());
      resetDependenceState();
      return success();
    }
    if (isMemoryEffectFree(op))
      return success();
    Accesses accesses = hostAccesses(op);
    if (accesses.everything) {
      hostWait(op->getLoc(), openChains());
      resetDependenceState();
      return success();
    }
    hostWait(op->getLoc(), conflictingTokens(accesses).getArrayRef());
    return success();
  }

  // Returns whether host op `op` may access memory that GPU work since the
  // last host synchronization uses. Pure ops and fresh allocations do not;
  // other effects on a value do if the value may alias a memref operand or
  // result of that GPU work (MLIR's alias analysis); effects on no particular
  // value, and ops whose effects are unknown, may.
  bool mayTouchInFlightMemory(Operation *op) {
    if (isMemoryEffectFree(op))
      return false;
    Accesses accesses = hostAccesses(op);
    if (accesses.everything)
      return true;
    return llvm::any_of(accesses.values, [&](auto access) {
      return llvm::any_of(inFlight, [&](Value gpuValue) {
        return !aliasAnalysis.alias(access.first, gpuValue).isNo();
      });
    });
  }

  // Replaces asyncOp with a clone that returns a token.
  LogicalResult rewriteAsyncOp(gpu::AsyncOpInterface asyncOp) {
    auto *op = asyncOp.getOperation();
    auto tokenType = builder.getType<gpu::AsyncTokenType>();

    // If there is no current token, insert a `gpu.wait async` without
    // dependencies to create one, unless the op is async already: it then
    // depends on what it should, and no earlier GPU work of this block is
    // pending.
    if (!currentToken && asyncOp.getAsyncDependencies().empty())
      currentToken = createWaitOp(op->getLoc(), tokenType, {});
    SmallVector<Value, 1> deps;
    if (currentToken &&
        !llvm::is_contained(asyncOp.getAsyncDependencies(), currentToken))
      deps.push_back(currentToken);

    currentToken =
        cast<gpu::AsyncOpInterface>(makeAsync(asyncOp, deps)).getAsyncToken();
    return success();
  }

  // Adds `deps` to the front of the async dependencies of `asyncOp`. Returns
  // `asyncOp` if it returns a token already; otherwise replaces it with a
  // clone that returns a token in addition to the other results, and returns
  // the clone.
  Operation *makeAsync(gpu::AsyncOpInterface asyncOp, ValueRange deps) {
    auto *op = asyncOp.getOperation();
    if (asyncOp.getAsyncToken()) {
      gpu::addAsyncDependencies(op, deps);
      return op;
    }
    auto tokenType = builder.getType<gpu::AsyncTokenType>();

    // Clone the op to return a token in addition to the other results. The
    // clone gets the dependencies as it is created (inserting them later
    // would move every other operand).
    SmallVector<Type, 1> resultTypes;
    resultTypes.reserve(1 + op->getNumResults());
    copy(op->getResultTypes(), std::back_inserter(resultTypes));
    resultTypes.push_back(tokenType);
    SmallVector<Value> operands(deps);
    llvm::append_range(operands, op->getOperands());
    auto *newOp = Operation::create(
        op->getLoc(), op->getName(), resultTypes, operands,
        op->getDiscardableAttrDictionary(), op->getPropertiesStorage(),
        op->getSuccessors(), op->getNumRegions());
    if (!deps.empty())
      addToAsyncDependencySegment(newOp, deps.size());

    // Clone regions into new op.
    IRMapping mapping;
    for (auto pair : llvm::zip_first(op->getRegions(), newOp->getRegions()))
      std::get<0>(pair).cloneInto(&std::get<1>(pair), mapping);

    // Replace the op with the async clone.
    auto results = newOp->getResults();
    builder.insert(newOp);
    op->replaceAllUsesWith(results.drop_back());
    op->erase();
    return newOp;
  }

  Value createWaitOp(Location loc, Type resultType, ValueRange operands) {
    return gpu::WaitOp::create(builder, loc, resultType, operands)
        .getAsyncToken();
  }

  OpBuilder builder;
  AliasAnalysis &aliasAnalysis;
  // 1: one chain of GPU work per block; 0: unbounded; N: at most N chains.
  unsigned maxStreams;

  // Dependence mode: per buffer, the GPU ops that accessed it since the
  // host last waited; the tokens no other GPU op depends on (the open
  // chains, oldest first); the tokens the host waited for; the last op that
  // accessed everything; the accesses of each kernel.
  DenseMap<Value, BufferState> buffers;
  // The buffers seen in the function, and which of them may alias.
  SmallVector<Value> seenBuffers;
  DenseMap<Value, SmallVector<Value>> mayAlias;
  // The open chains: their last token, and the order in which they were
  // opened.
  DenseMap<Value, unsigned> open;
  unsigned numChains = 0;
  DenseSet<Value> completed;
  Value barrier;
  DenseMap<Operation *, Accesses> kernelCache;
  SymbolTableCollection symbolTables;
  DenseMap<SymbolRefAttr, gpu::GPUFuncOp> launchedKernels;

  // The memref operands and results of the GPU ops since the last host
  // synchronization.
  SetVector<Value> inFlight;

  // The token that represents the current asynchronous dependency. It's valid
  // range starts with a `gpu.wait async` op, and ends with a `gpu.wait` op.
  // In between, each gpu::AsyncOpInterface depends on the current token and
  // produces the new one.
  Value currentToken = {};
};

/// Erases `executeOp` and returns a clone with additional `results`.
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
  IRMapping mapper;
  newOp.getRegion().getBlocks().clear();
  executeOp.getRegion().cloneInto(&newOp.getRegion(), mapper);

  // Replace executeOp with cloned one.
  executeOp.getOperation()->replaceAllUsesWith(
      newOp.getResults().drop_back(results.size()));
  executeOp.erase();

  return newOp;
}

// Callback for `async.execute` ops which tries to push the contained
// synchronous `gpu.wait` op to the dependencies of the `async.execute`.
struct GpuAsyncRegionPass::DeferWaitCallback {
  // If the `executeOp`s token is used only in `async.execute` or `async.await`
  // ops, add the region's last `gpu.wait` op to the worklist if it is
  // synchronous and is the last op with side effects.
  void operator()(async::ExecuteOp executeOp) {
    if (!areAllUsersExecuteOrAwait(executeOp.getToken()))
      return;
    // async.execute's region is currently restricted to one block.
    for (auto &op : llvm::reverse(executeOp.getBody()->without_terminator())) {
      if (auto waitOp = dyn_cast<gpu::WaitOp>(op)) {
        if (!waitOp.getAsyncToken())
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

      // Erase `gpu.wait` and return async dependencies from execute op instead.
      SmallVector<Value, 4> dependencies = waitOp.getAsyncDependencies();
      waitOp.erase();
      executeOp = addExecuteResults(executeOp, dependencies);

      // Add the async dependency to each user of the `async.execute` token.
      auto asyncTokens = executeOp.getResults().take_back(dependencies.size());
      SmallVector<Operation *, 4> users(executeOp.getToken().user_begin(),
                                        executeOp.getToken().user_end());
      for (Operation *user : users)
        addAsyncDependencyAfter(asyncTokens, user);
    }
  }

private:
  // Returns whether all token users are either 'async.execute' or 'async.await'
  // ops. This is used as a requirement for pushing 'gpu.wait' ops from a
  // 'async.execute' body to it's users. Specifically, we do not allow
  // terminator users, because it could mean that the `async.execute` is inside
  // control flow code.
  static bool areAllUsersExecuteOrAwait(Value token) {
    return !token.use_empty() &&
           llvm::all_of(token.getUsers(),
                        llvm::IsaPred<async::ExecuteOp, async::AwaitOp>);
  }

  // Add the `asyncToken` as dependency as needed after `op`.
  void addAsyncDependencyAfter(ValueRange asyncTokens, Operation *op) {
    OpBuilder builder(op->getContext());
    auto loc = op->getLoc();

    Block::iterator it;
    SmallVector<Value, 1> tokens;
    tokens.reserve(asyncTokens.size());
    TypeSwitch<Operation *>(op)
        .Case<async::AwaitOp>([&](auto awaitOp) {
          // Add async.await ops to wait for the !gpu.async.tokens.
          builder.setInsertionPointAfter(op);
          for (auto asyncToken : asyncTokens)
            tokens.push_back(
                async::AwaitOp::create(builder, loc, asyncToken).getResult());
          // Set `it` after the inserted async.await ops.
          it = builder.getInsertionPoint();
        })
        .Case<async::ExecuteOp>([&](auto executeOp) {
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

    // Advance `it` to terminator or op with side-effects.
    it = std::find_if(it, Block::iterator(), [](Operation &op) {
      return isTerminator(&op) || hasSideEffects(&op);
    });

    // If `op` implements the AsyncOpInterface, add `token` to the list of async
    // dependencies.
    if (auto asyncOp = dyn_cast<gpu::AsyncOpInterface>(*it)) {
      for (auto token : tokens)
        asyncOp.addAsyncDependency(token);
      return;
    }

    // Otherwise, insert a gpu.wait before 'it'.
    builder.setInsertionPoint(it->getBlock(), it);
    auto waitOp = gpu::WaitOp::create(builder, loc, Type{}, tokens);

    // If the new waitOp is at the end of an async.execute region, add it to the
    // worklist. 'operator()(executeOp)' would do the same, but this is faster.
    auto executeOp = dyn_cast<async::ExecuteOp>(it->getParentOp());
    if (executeOp && areAllUsersExecuteOrAwait(executeOp.getToken()) &&
        !it->getNextNode())
      worklist.push_back(waitOp);
  }

  SmallVector<gpu::WaitOp, 8> worklist;
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

// Replaces synchronous GPU ops in the op's region with asynchronous ones and
// inserts the necessary synchronization (as gpu.wait ops). Assumes sequential
// execution semantics and that no GPU ops are asynchronous yet.
void GpuAsyncRegionPass::runOnOperation() {
  AliasAnalysis &aliasAnalysis = getAnalysis<AliasAnalysis>();
  if (getOperation()
          ->walk(ThreadTokenCallback(getContext(), aliasAnalysis, maxStreams))
          .wasInterrupted())
    return signalPassFailure();

  // Collect gpu.wait ops that we can move out of async.execute regions.
  getOperation().getRegion().walk(DeferWaitCallback());
  // Makes each !gpu.async.token returned from async.execute op have single use.
  getOperation().getRegion().walk(SingleTokenUseCallback());
}
