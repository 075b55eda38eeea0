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
// number of streams (events) live at once, and none is destroyed before exit.
// Code that only acquires and releases creates nothing, so it can run while
// a stream is captured into a graph, which HIP forbids stream creation
// during; mgpuStreamPoolReserve and mgpuEventPoolReserve fill the pools
// ahead.
//
// Streams are reused first released, first reused. A released stream may
// still run the work enqueued on it before it was released; work enqueued
// after it is reused then waits for that work. This only adds ordering, and
// never a deadlock: every wait is for work enqueued earlier. The stream
// released first is the likeliest to be idle. The pool does not query
// whether a stream is idle, because a query is forbidden during capture.
//
// A pool keeps apart the handles of different devices (or contexts): a
// handle is reused only for the device it was created for.
//
// Events are reused last released, first reused: a stream or the host that
// waits for an event waits for the work it captured when the wait was
// enqueued, so recording a released event again changes no earlier wait.
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
#include <map>
#include <mutex>
#include <unordered_map>

namespace mlir {
namespace gpu_runtime {

/// A thread-safe pool of `HandleT` (a stream or an event), for any number
/// of devices.
template <typename HandleT>
class RuntimePool {
public:
  enum class Order { FirstReleasedFirst, LastReleasedFirst };

  /// What the pool did so far.
  struct Stats {
    /// Handles created for real.
    uint64_t created = 0;
    /// Calls of `acquire`.
    uint64_t acquired = 0;
    /// Handles acquired and not released, now and at most.
    uint64_t live = 0;
    uint64_t peakLive = 0;
  };

  explicit RuntimePool(Order order) : order(order) {}

  /// Returns a free handle of `device`, or a new one from `create` (which
  /// creates it on `device`) when none is free.
  template <typename CreateFn>
  HandleT acquire(int device, CreateFn create) {
    std::lock_guard<std::mutex> lock(mutex);
    ++stats.acquired;
    stats.peakLive = std::max(stats.peakLive, ++stats.live);
    std::deque<HandleT> &free = freeHandles[device];
    if (free.empty())
      return createFor(device, create);
    HandleT handle;
    if (order == Order::FirstReleasedFirst) {
      handle = free.front();
      free.pop_front();
    } else {
      handle = free.back();
      free.pop_back();
    }
    return handle;
  }

  /// Returns `handle` to the pool. Returns false, and does nothing, if the
  /// pool did not hand it out.
  bool release(HandleT handle) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = deviceOf.find(handle);
    if (it == deviceOf.end())
      return false;
    --stats.live;
    freeHandles[it->second].push_back(handle);
    return true;
  }

  /// Creates handles of `device` with `create` until at least `count` are
  /// free (none for a count of 0 or less).
  template <typename CreateFn>
  void reserve(int device, int64_t count, CreateFn create) {
    std::lock_guard<std::mutex> lock(mutex);
    std::deque<HandleT> &free = freeHandles[device];
    while (static_cast<int64_t>(free.size()) < count)
      free.push_back(createFor(device, create));
  }

  Stats getStats() {
    std::lock_guard<std::mutex> lock(mutex);
    return stats;
  }

private:
  template <typename CreateFn>
  HandleT createFor(int device, CreateFn create) {
    HandleT handle = create();
    deviceOf[handle] = device;
    ++stats.created;
    return handle;
  }

  std::mutex mutex;
  const Order order;
  std::map<int, std::deque<HandleT>> freeHandles;
  /// The device of every handle created, which is never destroyed.
  std::unordered_map<HandleT, int> deviceOf;
  Stats stats;
};

/// The stream pool and the event pool of a runtime, each in the order the
/// file comment explains.
template <typename StreamT, typename EventT>
struct RuntimePools {
  RuntimePool<StreamT> streams{RuntimePool<StreamT>::Order::FirstReleasedFirst};
  RuntimePool<EventT> events{RuntimePool<EventT>::Order::LastReleasedFirst};

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
