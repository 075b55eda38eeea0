//===- GPURuntimePoolTest.cpp - Tests of the GPU runtime pools ------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Tests the pools of the GPU runtime wrappers with a fake driver: handles are
// numbers, and 0 is a failed creation.
//
//===----------------------------------------------------------------------===//

#include "../../lib/ExecutionEngine/GPURuntimePool.h"

#include "gtest/gtest.h"

#include <set>
#include <vector>

using namespace mlir::gpu_runtime;

namespace {

using Handle = uint64_t;
using Pool = RuntimePool<Handle>;

/// Creates handles 1, 2, ..., failing the next `failures` creations, and says
/// which handles are in a capture.
struct FakeDriver {
  Handle create() { return failures-- > 0 ? 0 : next++; }
  bool isNotCapturing(Handle handle) const { return !capturing.count(handle); }

  Handle next = 1;
  int failures = 0;
  std::set<Handle> capturing;
};

class GPURuntimePoolTest : public ::testing::Test {
protected:
  Handle acquire(Pool &pool, uintptr_t key = 0) {
    return pool.acquire(key, [&] { return driver.create(); });
  }
  Handle acquireNotCapturing(Pool &pool) {
    return pool.acquire(
        0, [&] { return driver.create(); },
        [&](Handle handle) { return driver.isNotCapturing(handle); });
  }

  FakeDriver driver;
};

TEST_F(GPURuntimePoolTest, StreamsAreReusedFirstReleasedFirst) {
  RuntimePools<Handle, Handle> pools(ReuseOrder::LastReleasedFirst);
  Handle a = acquire(pools.streams), b = acquire(pools.streams);
  EXPECT_EQ(pools.streams.release(a), ReleaseResult::Released);
  EXPECT_EQ(pools.streams.release(b), ReleaseResult::Released);
  EXPECT_EQ(acquire(pools.streams), a);
  EXPECT_EQ(acquire(pools.streams), b);
  EXPECT_EQ(acquire(pools.streams), 3u);
}

TEST_F(GPURuntimePoolTest, EventsAreReusedInTheRuntimesOrder) {
  for (ReuseOrder order :
       {ReuseOrder::LastReleasedFirst, ReuseOrder::FirstReleasedFirst}) {
    RuntimePools<Handle, Handle> pools(order);
    Handle a = acquire(pools.events), b = acquire(pools.events);
    EXPECT_EQ(pools.events.release(a), ReleaseResult::Released);
    EXPECT_EQ(pools.events.release(b), ReleaseResult::Released);
    bool lifo = order == ReuseOrder::LastReleasedFirst;
    EXPECT_EQ(acquire(pools.events), lifo ? b : a);
    EXPECT_EQ(acquire(pools.events), lifo ? a : b);
  }
}

TEST_F(GPURuntimePoolTest, HandlesAreReusedUnderTheirKeyOnly) {
  Pool pool(ReuseOrder::FirstReleasedFirst);
  Handle a = acquire(pool, /*key=*/1);
  EXPECT_EQ(pool.release(a), ReleaseResult::Released);
  Handle b = acquire(pool, /*key=*/2);
  EXPECT_NE(b, a);
  EXPECT_EQ(pool.release(b), ReleaseResult::Released);
  EXPECT_EQ(acquire(pool, /*key=*/1), a);
  EXPECT_EQ(acquire(pool, /*key=*/2), b);
  EXPECT_EQ(pool.getStats().created, 2u);
}

TEST_F(GPURuntimePoolTest, DoubleReleaseIsRefused) {
  Pool pool(ReuseOrder::FirstReleasedFirst);
  Handle a = acquire(pool), b = acquire(pool);
  EXPECT_EQ(pool.release(a), ReleaseResult::Released);
  EXPECT_EQ(pool.release(a), ReleaseResult::AlreadyFree);
  EXPECT_EQ(pool.release(42), ReleaseResult::NotOurs);
  EXPECT_EQ(pool.getStats().live, 1u);
  // `a` has one owner again, and is not handed out twice.
  EXPECT_EQ(acquire(pool), a);
  EXPECT_EQ(acquire(pool), 3u);
  EXPECT_EQ(pool.release(b), ReleaseResult::Released);
  EXPECT_EQ(pool.release(b), ReleaseResult::AlreadyFree);
  Pool::Stats stats = pool.getStats();
  EXPECT_EQ(stats.created, 3u);
  EXPECT_EQ(stats.acquired, 4u);
  EXPECT_EQ(stats.live, 2u);
  EXPECT_EQ(stats.peakLive, 3u);
}

TEST_F(GPURuntimePoolTest, FailedCreationIsNotPooled) {
  Pool pool(ReuseOrder::FirstReleasedFirst);
  driver.failures = 1;
  EXPECT_EQ(acquire(pool), 0u);
  Pool::Stats stats = pool.getStats();
  EXPECT_EQ(stats.created, 0u);
  EXPECT_EQ(stats.acquired, 0u);
  EXPECT_EQ(stats.live, 0u);
  EXPECT_EQ(pool.release(0), ReleaseResult::NotOurs);
  EXPECT_EQ(acquire(pool), 1u);
  EXPECT_EQ(acquire(pool), 2u);
}

TEST_F(GPURuntimePoolTest, CapturingHandleIsSkippedAndKept) {
  Pool pool(ReuseOrder::FirstReleasedFirst);
  Handle a = acquire(pool), b = acquire(pool);
  EXPECT_EQ(pool.release(a), ReleaseResult::Released);
  EXPECT_EQ(pool.release(b), ReleaseResult::Released);
  driver.capturing.insert(a);
  EXPECT_EQ(acquireNotCapturing(pool), b);
  EXPECT_EQ(acquireNotCapturing(pool), 3u);
  // Nor is `a` destroyed.
  std::vector<Handle> destroyed;
  EXPECT_EQ(pool.drain([&](uintptr_t, Handle h) { destroyed.push_back(h); },
                       [&](Handle h) { return driver.isNotCapturing(h); }),
            2u);
  EXPECT_TRUE(destroyed.empty());
  driver.capturing.clear();
  EXPECT_EQ(acquireNotCapturing(pool), a);
}

TEST_F(GPURuntimePoolTest, ReserveFillsUpToCountAndStopsAtAFailure) {
  Pool pool(ReuseOrder::FirstReleasedFirst);
  pool.reserve(0, 2, [&] { return driver.create(); });
  pool.reserve(0, 1, [&] { return driver.create(); });
  pool.reserve(0, -1, [&] { return driver.create(); });
  EXPECT_EQ(pool.getStats().created, 2u);
  EXPECT_EQ(acquire(pool), 1u);
  EXPECT_EQ(acquire(pool), 2u);
  EXPECT_EQ(pool.getStats().created, 2u);
  driver.failures = 1;
  pool.reserve(0, 3, [&] { return driver.create(); });
  EXPECT_EQ(pool.getStats().created, 2u);
  EXPECT_EQ(acquire(pool), 3u);
}

TEST_F(GPURuntimePoolTest, DrainDestroysEachFreeHandleOnce) {
  Pool pool(ReuseOrder::FirstReleasedFirst);
  Handle a = acquire(pool, 1), b = acquire(pool, 2), c = acquire(pool, 2);
  EXPECT_EQ(pool.release(a), ReleaseResult::Released);
  EXPECT_EQ(pool.release(b), ReleaseResult::Released);
  using Destroyed = std::vector<std::pair<uintptr_t, Handle>>;
  Destroyed destroyed;
  auto destroy = [&](uintptr_t key, Handle handle) {
    destroyed.push_back({key, handle});
  };
  EXPECT_EQ(pool.drain(destroy), 1u);
  EXPECT_EQ(destroyed, (Destroyed{{1, a}, {2, b}}));
  EXPECT_EQ(pool.drain(destroy), 1u);
  EXPECT_EQ(destroyed.size(), 2u);
  // A drained handle is no longer the pool's; one still out still is.
  EXPECT_EQ(pool.release(a), ReleaseResult::NotOurs);
  EXPECT_EQ(pool.release(c), ReleaseResult::Released);
  EXPECT_EQ(pool.drain(destroy), 0u);
  EXPECT_EQ(destroyed, (Destroyed{{1, a}, {2, b}, {2, c}}));
  EXPECT_EQ(acquire(pool, 1), 4u);
}

} // namespace
