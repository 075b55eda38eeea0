//===- GPURuntimePool.h - Pools of GPU streams and events -------*- C++ -*-===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The pools that the GPU runtime wrappers keep their streams and events in:
// mgpuStreamCreate and mgpuEventCreate acquire from a pool, mgpuStreamDestroy
// and mgpuEventDestroy release to it, and a stream or event is created for
// real only when none is free. Real creations are thus bounded by the peak
// number of streams (events) live at once. Code that only acquires and
// releases creates nothing, so it can run while a stream is captured into a
// graph, which HIP forbids stream creation during; mgpuStreamPoolReserve and
// mgpuEventPoolReserve fill the pools ahead; mgpuPoolDrain, also run at exit,
// destroys the free ones.
//
// A handle is out (acquired) or free: releasing a free one is refused (the
// wrappers report it), and a null one (a failed creation) is never pooled.
// Handles are kept per key (CUDA: the context; ROCm: the device) and reused
// only under the key they were created under. acquire and drain skip, and
// keep, the free handles that the wrapper's predicate rejects: a stream still
// in a capture (a capture joins a stream that waits for an event recorded on
// a captured stream, and another thread may have released it meanwhile).
// Reading a stream's capture status is allowed during a capture; querying or
// waiting for its work (cuStreamQuery, cuStreamSynchronize) is not, so the
// pools make no other query.
//
// Streams are reused first released, first reused. A released stream may
// still run the work enqueued on it before it was released; work enqueued
// after it is reused then waits for that work. This only adds ordering,
// never a deadlock: every wait is for work enqueued earlier.
//
// Events are reused in the order each runtime picks. CUDA documents
// (cuEventRecord) that a wait uses the state an event captured when the wait
// was enqueued, unaffected by later records: CUDA reuses events last
// released, first reused. HIP documents no such rule, and leaves recording an
// event that is still being recorded undefined (hipEventRecord): ROCm reuses
// events first released, first reused, which leaves an earlier record of an
// event the longest time to complete.
//
// This header is included by the runtime wrapper libraries only; it depends
// on the C++ standard library alone.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_LIB_EXECUTIONENGINE_GPURUNTIMEPOOL_H
#define MLIR_LIB_EXECUTIONENGINE_GPURUNTIMEPOOL_H

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>
#include <unordered_map>

namespace mlir {
namespace gpu_runtime {

/// The order in which a pool hands its free handles out again.
enum class ReuseOrder { FirstReleasedFirst, LastReleasedFirst };

/// What `RuntimePool::release` did with a handle.
enum class ReleaseResult {
  /// The pool did not create the handle: the caller destroys it.
  NotOurs,
  /// The handle was out; it is free now.
  Released,
  /// The handle was already free: the release is refused.
  AlreadyFree,
};

/// A thread-safe pool of `HandleT` (a stream or an event), keyed by an opaque
/// key (a context or a device). A null `HandleT` is a failed creation.
template <typename HandleT>
class RuntimePool {
public:
  /// What the pool did so far.
  struct Stats {
    /// Handles created for real (failed creations excluded).
    uint64_t created = 0;
    /// Handles that `acquire` returned.
    uint64_t acquired = 0;
    /// Handles out now.
    uint64_t live = 0;
    /// Handles out at most.
    uint64_t peakLive = 0;
  };

  /// The predicate of `acquire` and `drain` that accepts every free handle.
  struct AnyHandle {
    /// Accepts any handle.
    bool operator()(HandleT) const { return true; }
  };

  /// Creates an empty pool that reuses its free handles in `order`.
  explicit RuntimePool(ReuseOrder order) : order(order) {}

  /// Returns the first free handle of `key`, in the pool's order, that
  /// `usable` accepts, or else a new one from `create` (which creates it under
  /// `key`). Returns null, and records nothing, if `create` fails.
  template <typename CreateFn, typename UsableFn = AnyHandle>
  HandleT acquire(uintptr_t key, CreateFn create, UsableFn usable = {}) {
    std::lock_guard<std::mutex> lock(mutex);
    std::deque<HandleT> &free = freeHandles[key];
    auto it = free.end();
    if (order == ReuseOrder::FirstReleasedFirst) {
      it = std::find_if(free.begin(), free.end(), usable);
    } else {
      auto rit = std::find_if(free.rbegin(), free.rend(), usable);
      if (rit != free.rend())
        it = std::prev(rit.base());
    }
    HandleT handle = it == free.end() ? createFor(key, create) : *it;
    if (!handle)
      return handle;
    if (it != free.end())
      free.erase(it);
    entries[handle].out = true;
    ++stats.acquired;
    stats.peakLive = std::max(stats.peakLive, ++stats.live);
    return handle;
  }

  /// Returns `handle`, which must be out, to the pool. Does nothing if the
  /// pool did not create it or if it is already free, and says which.
  [[nodiscard]] ReleaseResult release(HandleT handle) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = entries.find(handle);
    if (it == entries.end())
      return ReleaseResult::NotOurs;
    if (!it->second.out)
      return ReleaseResult::AlreadyFree;
    it->second.out = false;
    --stats.live;
    freeHandles[it->second.key].push_back(handle);
    return ReleaseResult::Released;
  }

  /// Creates handles of `key` with `create` until at least `count` are free
  /// (none for a count of 0 or less); stops at the first failed creation.
  template <typename CreateFn>
  void reserve(uintptr_t key, int64_t count, CreateFn create) {
    std::lock_guard<std::mutex> lock(mutex);
    std::deque<HandleT> &free = freeHandles[key];
    while (static_cast<int64_t>(free.size()) < count) {
      HandleT handle = createFor(key, create);
      if (!handle)
        return;
      free.push_back(handle);
    }
  }

  /// Destroys every free handle that `usable` accepts, once, with
  /// `destroy(key, handle)`, and forgets it. Returns the number of handles
  /// still out: they stay the pool's, and are pooled again when released.
  template <typename DestroyFn, typename UsableFn = AnyHandle>
  uint64_t drain(DestroyFn destroy, UsableFn usable = {}) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto &[key, free] : freeHandles) {
      auto kept = std::stable_partition(free.begin(), free.end(),
                                        [&](HandleT h) { return !usable(h); });
      for (auto it = kept; it != free.end(); ++it) {
        entries.erase(*it);
        destroy(key, *it);
      }
      free.erase(kept, free.end());
    }
    return stats.live;
  }

  /// Returns the counts so far.
  Stats getStats() {
    std::lock_guard<std::mutex> lock(mutex);
    return stats;
  }

private:
  /// A handle that the pool created: its key, and whether it is out.
  struct Entry {
    uintptr_t key = 0;
    bool out = false;
  };

  /// Creates a handle of `key` with `create` and records it as free; returns
  /// null, and records nothing, if `create` fails.
  template <typename CreateFn>
  HandleT createFor(uintptr_t key, CreateFn &create) {
    HandleT handle = create();
    if (!handle)
      return handle;
    entries[handle].key = key;
    ++stats.created;
    return handle;
  }

  std::mutex mutex;
  const ReuseOrder order;
  std::map<uintptr_t, std::deque<HandleT>> freeHandles;
  std::unordered_map<HandleT, Entry> entries;
  Stats stats;
};

/// Releases `handle` to `pool` for `function` (mgpuStreamDestroy or
/// mgpuEventDestroy, destroying a `what`). Returns true if the pool did not
/// create it, for the caller to destroy it; reports a handle already free.
template <typename HandleT>
bool releaseToPool(RuntimePool<HandleT> &pool, HandleT handle,
                   const char *function, const char *what) {
  ReleaseResult result = pool.release(handle);
  if (result == ReleaseResult::AlreadyFree)
    std::fprintf(stderr, "%s: %s %p released twice\n", function, what,
                 static_cast<void *>(handle));
  return result == ReleaseResult::NotOurs;
}

/// The stream pool and the event pool of a runtime.
template <typename StreamT, typename EventT>
struct RuntimePools {
  /// Creates the pools; events are reused in `eventOrder` (see the file
  /// comment).
  explicit RuntimePools(ReuseOrder eventOrder) : events(eventOrder) {}

  /// The streams, reused first released, first reused.
  RuntimePool<StreamT> streams{ReuseOrder::FirstReleasedFirst};
  /// The events.
  RuntimePool<EventT> events;

  /// Prints one line with the counts of both pools, the same for every
  /// runtime:
  ///   gpu-pool: streams created C, acquired A, peak live P; events ...
  void printStats(FILE *file) {
    auto s = streams.getStats();
    auto e = events.getStats();
    std::fprintf(file,
                 "gpu-pool: streams created %" PRIu64 ", acquired %" PRIu64
                 ", peak live %" PRIu64 "; events created %" PRIu64
                 ", acquired %" PRIu64 ", peak live %" PRIu64 "\n",
                 s.created, s.acquired, s.peakLive, e.created, e.acquired,
                 e.peakLive);
    std::fflush(file);
  }
};

} // namespace gpu_runtime
} // namespace mlir

#endif // MLIR_LIB_EXECUTIONENGINE_GPURUNTIMEPOOL_H
