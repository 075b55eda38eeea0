//===- GPUCheckRuntime.cpp - Host-only checking GPU runtime ---------------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A GPU runtime without a GPU, for testing the host code that -gpu-to-llvm
// produces. It exports the `mgpu*` functions of the CUDA runtime wrappers
// (streams, events, memory, host registration, modules, kernel launches,
// cuSPARSE and cuSPARSELt descriptors and operations), so that mlir-runner
// can execute lowered programs with it:
//
//  - device memory is host memory; copies and memsets happen when they are
//    enqueued; kernel launches and sparse operations are recorded, not run;
//    sparse buffer-size queries return a small fixed size and sparse matrix
//    size queries return 0;
//  - every stream, event and sparse descriptor handle is tracked (a
//    cuSPARSELt handle is the storage the program passes in). Use after
//    destroy, double destroy, a handle of the wrong kind (an event function
//    given a stream or the reverse), a pointer that is not a handle, waiting
//    for an event that was never recorded, freeing memory twice, and
//    streams, events or sparse handles left at exit are violations: each
//    prints one line starting with "gpu-check: error:" and makes the process
//    exit with status 1 (device memory left at exit is only noted: it is the
//    program's to free);
//  - happens-before between streams, events and the host is tracked with
//    vector clocks: mgpuCheckOrdered(a, b) says whether recorded operation a
//    is ordered before another one, b (an operation number that was not
//    recorded is an "invalid-operation" violation);
//  - streams and events come from the pools of GPURuntimePool.h, as in the
//    CUDA and ROCm wrappers, and are counted the same way (mgpuPoolPrintStats
//    prints the counts). Every create still returns a new handle, so that a
//    use after destroy is reported, and a reused stream adds no ordering (the
//    checks do not rely on the ordering that reuse adds on a GPU);
//  - mgpuStreamBeginCapture/EndCapture capture a stream, as CUDA and HIP graph
//    capture does: a stream joins the capture when it waits for an event
//    recorded on a captured stream. During a capture, what the drivers forbid
//    or what breaks the graph is a violation: synchronizing the host
//    (mgpuStreamSynchronize, mgpuEventSynchronize, allocating or freeing
//    synchronously: without a stream, host-shared memory, memory not
//    allocated on a stream), creating a stream or event for real (the pool
//    had none free; HIP forbids creating streams), work on the null stream,
//    and work on a stream that is not in the capture (it would run once, now,
//    and not when the graph is launched). Ending the capture reports each
//    joined stream with work that the capture stream does not wait for. The
//    graph that mgpuStreamEndCapture returns is one operation when launched:
//    the copies and memsets in it happened when they were captured;
//  - allocating and freeing on a stream are allowed during a capture: the
//    wrappers do it in stream order, as graph memory nodes. Freeing memory on
//    a captured stream is a violation unless it was allocated in a capture
//    (a free node must free a graph allocation) other than another one going
//    on, and so is memory allocated in a capture and not freed in it when the
//    capture ends (the graph could not be launched again before that memory
//    is freed);
//  - streams may be captured concurrently, each capture with its own joined
//    streams. A stream in a capture cannot begin another one, and may only
//    wait for events recorded in its capture: only the order within a stream
//    crosses the boundary of a capture (CUDA's isolation rule), which also
//    keeps a stream from joining two captures;
//  - mgpuStreamBeginCaptureWithMode takes the capture mode, numbered as CUDA
//    and HIP do: 0 global (the mode of mgpuStreamBeginCapture), 1
//    thread-local, 2 relaxed. Synchronizing the host with a stream in a
//    capture or an event recorded in one, work on the null stream and work on
//    a stream in no capture are violations in every mode. The other calls
//    above, which the drivers call potentially unsafe, are violations in every
//    thread during a global capture, only in the thread that began it during
//    a thread-local one, and in none during a relaxed one. Only the thread
//    that began a capture may end it, unless the capture is relaxed;
//  - at exit (and on mgpuCheckReport()) it prints the number of calls of each
//    function, the pools' counts and the number of each kind of violation.
//
// Environment:
//   MLIR_GPU_CHECK_TRACE=<file>  write every call as Chrome trace JSON (one
//                                track per stream; open it in Perfetto)
//   MLIR_GPU_CHECK_VERBOSE=1     print every device operation as recorded
//   MLIR_GPU_CHECK_LEAKS=report  report leaks without failing
//
// Host threads (async.execute regions run on a thread pool) are treated as
// one host: calls are serialized and ordered in the order they happen. Only
// the capture modes tell threads apart.
//
//===----------------------------------------------------------------------===//

#include "GPURuntimePool.h"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#ifdef _WIN32
#define MLIR_GPU_CHECK_EXPORT __declspec(dllexport)
#else
#define MLIR_GPU_CHECK_EXPORT __attribute__((visibility("default")))
#endif

namespace {

/// A vector clock: one logical time per clock (0 is the host, then one per
/// stream).
using VectorClock = std::vector<uint64_t>;

void joinInto(VectorClock &dst, const VectorClock &src) {
  if (dst.size() < src.size())
    dst.resize(src.size(), 0);
  for (size_t i = 0, e = src.size(); i < e; ++i)
    dst[i] = std::max(dst[i], src[i]);
}

enum class Kind {
  Stream,
  Event,
  Module,
  Function,
  Graph,
  // cuSPARSE descriptors, which the create functions return.
  SpMat,
  DnVec,
  DnMat,
  SpGEMMDescr,
  // cuSPARSELt descriptors, in storage that the program passes in.
  LtSpMat,
  LtDnMat,
};

constexpr int numKinds = static_cast<int>(Kind::LtDnMat) + 1;

const char *kindName(Kind kind) {
  switch (kind) {
  case Kind::Stream:
    return "stream";
  case Kind::Event:
    return "event";
  case Kind::Module:
    return "module";
  case Kind::Function:
    return "function";
  case Kind::Graph:
    return "graph";
  case Kind::SpMat:
    return "sparse matrix";
  case Kind::DnVec:
    return "dense vector";
  case Kind::DnMat:
    return "dense matrix";
  case Kind::SpGEMMDescr:
    return "SpGEMM descriptor";
  case Kind::LtSpMat:
    return "cuSPARSELt sparse matrix";
  case Kind::LtDnMat:
    return "cuSPARSELt dense matrix";
  }
  return "handle";
}

/// Returns whether handles of `kind` are sparse descriptors.
bool isSparseKind(Kind kind) {
  return static_cast<int>(kind) >= static_cast<int>(Kind::SpMat);
}

/// Returns whether handles of `kind` left at exit are leaks. Modules are
/// unloaded by global destructors and functions are never destroyed.
bool isLeakChecked(Kind kind) {
  return kind == Kind::Stream || kind == Kind::Event || kind == Kind::Graph ||
         isSparseKind(kind);
}

/// The size that the sparse buffer-size functions return, in bytes.
constexpr intptr_t sparseBufferSize = 16;

/// What a handle returned to the program points to. Handles are never freed
/// before exit, so that a destroyed one can still be recognized.
struct Handle {
  Kind kind;
  uint64_t id;
  bool destroyed = false;
  /// Stream: its clock index and current time. Event: the time it captured.
  size_t clock = 0;
  VectorClock time;
  bool recorded = false;
  std::string name; // Function: kernel name.
  /// Stream or event: the pool entry it was acquired as.
  uint64_t poolEntry = 0;
  /// Event: the number of the capture it was last recorded in (0: none).
  uint64_t recordedInCapture = 0;
};

/// Pool entries are numbers: only the counts matter here.
using Pool = mlir::gpu_runtime::RuntimePool<uint64_t>;

/// A recorded device operation.
struct Operation {
  std::string what;
  uint64_t stream;
  size_t clock;
  VectorClock time;
};

class Checker {
public:
  Checker() {
    if (const char *path = std::getenv("MLIR_GPU_CHECK_TRACE"))
      tracePath = path;
    if (const char *verbose = std::getenv("MLIR_GPU_CHECK_VERBOSE"))
      this->verbose = std::strcmp(verbose, "0") != 0;
    if (const char *leaks = std::getenv("MLIR_GPU_CHECK_LEAKS"))
      leaksAreErrors = std::strcmp(leaks, "report") != 0;
    hostTime.assign(1, 0);
    std::atexit([] { instance().finish(); });
  }

  static Checker &instance() {
    static Checker *checker = new Checker();
    return *checker;
  }

  std::mutex mutex;
  /// Events are reused as CUDA reuses them (the order changes no count).
  mlir::gpu_runtime::RuntimePools<uint64_t, uint64_t> pools{
      mlir::gpu_runtime::ReuseOrder::LastReleasedFirst};
  uint64_t numPoolEntries = 0;

  void count(const char *function) {
    ++calls[function];
    ++hostTime[0];
    trace(function, 0);
  }

  void violation(const char *what, const std::string &detail) {
    ++violations[what];
    std::fprintf(stderr, "gpu-check: error: %s: %s\n", what, detail.c_str());
    std::fflush(stderr);
  }

  Handle *create(Kind kind, const char *function) {
    std::unique_ptr<Handle> handle = makeHandle(kind);
    if (Pool *pool = poolOf(kind))
      handle->poolEntry = pool->acquire(/*key=*/0, [&] {
        return createPoolEntry(function, describe(handle.get()) +
                                             " for real (none was free in "
                                             "the pool)");
      });
    Handle *result = handle.get();
    handles.emplace(result, std::move(handle));
    return result;
  }

  /// Fills the pool of `kind` (streams or events) until `count` are free, as
  /// mgpuStreamPoolReserve and mgpuEventPoolReserve do.
  void reserve(Kind kind, int32_t count, const char *function) {
    std::string what = std::string(kind == Kind::Event ? "an " : "a ") +
                       kindName(kind) + " for real";
    poolOf(kind)->reserve(/*key=*/0, count,
                          [&] { return createPoolEntry(function, what); });
  }

  /// Tracks `storage`, which the program provides, as a new handle of `kind`
  /// (the cuSPARSELt wrappers initialize a descriptor in the caller's memory
  /// instead of returning one). The storage of a destroyed handle may be
  /// reused; reusing that of a live one leaks it. Returns null, and reports
  /// why, if `storage` is null or one of this runtime's own handles.
  Handle *createAt(void *storage, Kind kind, const char *function) {
    if (!storage) {
      violation("invalid-handle", std::string(function) + " given null " +
                                      kindName(kind) + " storage");
      return nullptr;
    }
    auto it = handles.find(storage);
    if (it != handles.end()) {
      Handle *old = it->second.get();
      if (old == storage) {
        violation("invalid-handle", std::string(function) + " given " +
                                        describe(old) + " as " +
                                        kindName(kind) + " storage");
        return nullptr;
      }
      if (!old->destroyed)
        leak(old, std::string(" never destroyed before ") + function +
                      " reused its storage");
    }
    std::unique_ptr<Handle> handle = makeHandle(kind);
    Handle *result = handle.get();
    handles[storage] = std::move(handle);
    return result;
  }

  /// The null (default) stream: always there, never created or destroyed.
  /// Work on it is ordered like work on any other stream.
  Handle *getDefaultStream() {
    if (!defaultStream) {
      defaultStream = std::make_unique<Handle>();
      defaultStream->kind = Kind::Stream;
      defaultStream->id = 0;
      defaultStream->clock = numClocks++;
      defaultStream->time = hostTime;
      defaultStream->name = "default";
    }
    return defaultStream.get();
  }

  /// Returns `ptr` as a live handle of `kind`, or reports why it is not one.
  /// A null stream is the default stream.
  Handle *lookup(void *ptr, Kind kind, const char *function) {
    if (!ptr && kind == Kind::Stream)
      return getDefaultStream();
    auto it = handles.find(ptr);
    if (it == handles.end()) {
      violation("invalid-handle", std::string(function) + " given " +
                                      pointerString(ptr) + ", which is not a " +
                                      kindName(kind) +
                                      " created by this runtime");
      return nullptr;
    }
    Handle *handle = it->second.get();
    if (handle->kind != kind) {
      violation("wrong-handle-kind", std::string(function) + " given " +
                                         describe(handle) + ", expected a " +
                                         kindName(kind));
      return nullptr;
    }
    if (handle->destroyed) {
      violation("use-after-destroy",
                std::string(function) + " given destroyed " + describe(handle));
      return nullptr;
    }
    return handle;
  }

  void destroy(void *ptr, Kind kind, const char *function) {
    if (!ptr && kind == Kind::Stream) {
      violation("destroy-default-stream",
                std::string(function) + " given the null (default) stream");
      return;
    }
    auto it = handles.find(ptr);
    if (it != handles.end() && it->second->kind == kind &&
        it->second->destroyed) {
      violation("double-destroy", std::string(function) + " given " +
                                      describe(it->second.get()) +
                                      ", already destroyed");
      return;
    }
    Handle *handle = lookup(ptr, kind, function);
    if (!handle)
      return;
    // A double destroy is reported above: the pool never finds it free.
    handle->destroyed = true;
    if (Pool *pool = poolOf(kind))
      (void)pool->release(handle->poolEntry);
  }

  /// The pool that creates and destroys of `kind` use, if any.
  Pool *poolOf(Kind kind) {
    if (kind == Kind::Stream)
      return &pools.streams;
    if (kind == Kind::Event)
      return &pools.events;
    return nullptr;
  }

  /// Records a device operation enqueued on `stream` (nullptr: the host runs
  /// it synchronously, as for allocations). Returns its id.
  int64_t enqueue(Handle *stream, const std::string &what,
                  const char *function) {
    if (!captures.empty()) {
      if (!stream)
        forbidUnsafe(function, "ran " + what + " on the host");
      else if (stream == defaultStream.get())
        forbidInCapture(captures.begin()->second.stream, function,
                        "enqueued " + what + " on the null stream");
      else if (!captureOf(stream))
        violation("capture-escape",
                  std::string(function) + " enqueued " + what + " on " +
                      describe(stream) + ", which is not in the capture of " +
                      describe(captures.begin()->second.stream) +
                      ": it runs now, not when the graph is launched");
    }
    Operation op;
    op.what = what;
    if (stream) {
      joinInto(stream->time, hostTime);
      if (stream->time.size() <= stream->clock)
        stream->time.resize(stream->clock + 1, 0);
      ++stream->time[stream->clock];
      op.stream = stream->id;
      op.clock = stream->clock;
      op.time = stream->time;
    } else {
      op.stream = 0;
      op.clock = 0;
      op.time = hostTime;
    }
    operations.push_back(std::move(op));
    int64_t id = static_cast<int64_t>(operations.size()) - 1;
    if (verbose) {
      if (!stream)
        std::fprintf(stderr, "gpu-check: op %" PRId64 ": %s on the host\n", id,
                     what.c_str());
      else if (stream == defaultStream.get())
        std::fprintf(stderr,
                     "gpu-check: op %" PRId64 ": %s on the default stream\n",
                     id, what.c_str());
      else
        std::fprintf(stderr,
                     "gpu-check: op %" PRId64 ": %s on stream %" PRIu64 "\n",
                     id, what.c_str(), operations.back().stream);
    }
    trace(what.c_str(), stream == defaultStream.get()
                            ? kDefaultStreamTrack
                            : operations.back().stream);
    return id;
  }

  /// Synchronizes the host with `handle`, a stream or a recorded event. With
  /// a stream in a capture, or an event recorded in one, that is forbidden in
  /// every capture mode; otherwise it is a potentially unsafe call.
  void synchronizeHostWith(Handle *handle, const char *function) {
    Capture *in = handle->kind == Kind::Stream
                      ? captureOf(handle)
                      : findCapture(handle->recordedInCapture);
    if (in)
      forbidInCapture(in->stream, function, "synchronized the host");
    else
      forbidUnsafe(function, "synchronized the host");
    joinInto(hostTime, handle->time);
  }

  /// Returns a new pool entry: a stream or event that `function` creates for
  /// real (`what`), which a capture forbids.
  uint64_t createPoolEntry(const char *function, const std::string &what) {
    forbidUnsafe(function, "created " + what);
    return ++numPoolEntries;
  }

  /// Reports `function`, which did `what` during the capture of `captured`.
  void forbidInCapture(Handle *captured, const char *function,
                       const std::string &what) {
    violation("capture-forbidden", std::string(function) + " " + what +
                                       " during the capture of " +
                                       describe(captured));
  }

  /// Reports `function`, which did `what`, a potentially unsafe call, if a
  /// capture forbids it in this thread: a global one in every thread, a
  /// thread-local one in the thread that began it, a relaxed one nowhere.
  void forbidUnsafe(const char *function, const std::string &what) {
    std::thread::id self = std::this_thread::get_id();
    for (auto &[number, capture] : captures)
      if (capture.mode == CaptureMode::Global ||
          (capture.mode == CaptureMode::ThreadLocal && capture.thread == self))
        return forbidInCapture(capture.stream, function, what);
  }

  /// Starts capturing `stream` in capture mode `mode`.
  void beginCapture(Handle *stream, int32_t mode, const char *function) {
    if (mode < 0 || mode > static_cast<int32_t>(CaptureMode::Relaxed)) {
      violation("capture", std::string(function) + " given capture mode " +
                               std::to_string(mode) +
                               ", expected 0 (global), 1 (thread-local) or "
                               "2 (relaxed)");
      return;
    }
    if (stream == defaultStream.get()) {
      violation("capture", std::string(function) +
                               " given the null stream, which "
                               "cannot be captured");
      return;
    }
    if (Capture *in = captureOf(stream)) {
      violation("capture", std::string(function) + " given " +
                               describe(stream) +
                               ", which is already in the capture of " +
                               describe(in->stream));
      return;
    }
    Capture &capture = captures[++numCaptures];
    capture.stream = stream;
    capture.number = numCaptures;
    capture.mode = static_cast<CaptureMode>(mode);
    capture.thread = std::this_thread::get_id();
    capture.joined = {{stream, ownTime(stream)}};
  }

  /// Ends the capture of `stream`; returns whether it was being captured.
  bool endCapture(Handle *stream, const char *function) {
    Capture *capture = captureOf(stream);
    if (!capture || capture->stream != stream) {
      std::string which =
          capture ? "did not begin the capture of " + describe(capture->stream)
                  : "is not captured";
      violation("capture", std::string(function) + " given " +
                               describe(stream) + ", which " + which);
      return false;
    }
    if (capture->mode != CaptureMode::Relaxed &&
        capture->thread != std::this_thread::get_id())
      violation("capture", std::string(function) + " given " +
                               describe(stream) +
                               " in another thread than the one that began "
                               "its capture, which is not relaxed");
    // The drivers fail a capture that leaves work of a joined stream out of
    // the capture stream's order.
    std::vector<Handle *> unjoined;
    for (auto [joined, since] : capture->joined) {
      uint64_t time = ownTime(joined);
      if (time > since && (joined->clock >= stream->time.size() ||
                           stream->time[joined->clock] < time))
        unjoined.push_back(joined);
    }
    std::sort(unjoined.begin(), unjoined.end(),
              [](Handle *a, Handle *b) { return a->id < b->id; });
    for (Handle *joined : unjoined)
      violation("capture-unjoined", std::string(function) + ": " +
                                        describe(joined) + " has work that " +
                                        describe(stream) +
                                        " does not wait for");
    // The wrappers instantiate graphs without freeing their memory on launch.
    std::vector<Allocation> kept;
    for (auto &[ptr, allocation] : allocations)
      if (allocation.capture == capture->number)
        kept.push_back(allocation);
    std::sort(
        kept.begin(), kept.end(),
        [](const Allocation &a, const Allocation &b) { return a.id < b.id; });
    for (const Allocation &allocation : kept)
      violation("capture-alloc",
                std::string(function) + ": " + describe(allocation) +
                    ", allocated in the capture of " + describe(stream) +
                    ", is not freed in it: the graph cannot be launched "
                    "again before it is freed");
    captures.erase(capture->number);
    return true;
  }

  /// Records that `event` was recorded on `stream`.
  void recordInCapture(Handle *event, Handle *stream) {
    Capture *in = captureOf(stream);
    event->recordedInCapture = in ? in->number : 0;
  }

  /// Records that `stream` waits for `event`. A stream in no capture that
  /// waits for an event recorded in one joins it; a stream in a capture may
  /// only wait for events recorded in that capture (CUDA's isolation rule).
  void waitInCapture(Handle *stream, Handle *event, const char *function) {
    Capture *from = findCapture(event->recordedInCapture);
    Capture *in = captureOf(stream);
    if (in && in != from)
      violation(
          "capture-isolation",
          std::string(function) + " made " + describe(stream) +
              ", which is in the capture of " + describe(in->stream) +
              ", wait for " + describe(event) +
              (from ? ", recorded in the capture of " + describe(from->stream)
                    : ", recorded outside it"));
    else if (!in && from && stream != defaultStream.get())
      from->joined.try_emplace(stream, ownTime(stream));
  }

  bool ordered(int64_t a, int64_t b) {
    if (a < 0 || b < 0 || a >= static_cast<int64_t>(operations.size()) ||
        b >= static_cast<int64_t>(operations.size())) {
      violation("invalid-operation", "mgpuCheckOrdered given " +
                                         std::to_string(a) + ", " +
                                         std::to_string(b));
      return false;
    }
    if (a == b)
      return false;
    const Operation &first = operations[a];
    const Operation &second = operations[b];
    return first.clock < second.time.size() &&
           first.time[first.clock] <= second.time[first.clock];
  }

  /// Tracks `ptr`, `size` bytes that mgpuMemAlloc allocated on `stream`
  /// (null: synchronously).
  void allocate(void *ptr, uint64_t size, Handle *stream) {
    Capture *in = stream ? captureOf(stream) : nullptr;
    allocations[ptr] = {++numAllocations, size, stream != nullptr,
                        in ? in->number : 0};
  }

  /// Frees `ptr` as mgpuMemFree does: in stream order on `stream` if it was
  /// allocated in stream order, otherwise synchronously. Reports a free of
  /// memory not allocated (or already freed) and, during a capture, a free
  /// that the graph cannot have.
  void free(void *ptr, Handle *stream, const char *function) {
    auto it = allocations.find(ptr);
    if (it == allocations.end()) {
      violation(freed.count(ptr) ? "double-free" : "invalid-free",
                std::string(function) + " given " + pointerString(ptr));
      return;
    }
    Allocation allocation = it->second;
    allocations.erase(it);
    freed.insert(ptr);
    std::free(ptr);
    std::string what = "free";
    if (stream && !allocation.streamOrdered) {
      what = "free of synchronously allocated memory";
      stream = nullptr;
    }
    Capture *in = stream ? captureOf(stream) : nullptr;
    Capture *from = findCapture(allocation.capture);
    if (in && (!allocation.capture || (from && from != in)))
      violation("capture-alloc",
                std::string(function) + " freed " + describe(allocation) +
                    " on " + describe(stream) + " during the capture of " +
                    describe(in->stream) +
                    (from ? ", but the capture of " + describe(from->stream) +
                                " allocated it"
                          : ", but it was not allocated in a capture") +
                    ": a free node must free a graph allocation");
    enqueue(stream, what, function);
  }

  void report(const char *when) {
    std::fprintf(stderr, "gpu-check: report (%s)\n", when);
    for (auto &[function, n] : calls)
      std::fprintf(stderr, "gpu-check: calls %s %" PRIu64 "\n",
                   function.c_str(), n);
    uint64_t live[numKinds] = {};
    for (auto &[ptr, handle] : handles)
      if (!handle->destroyed)
        ++live[static_cast<int>(handle->kind)];
    std::fprintf(stderr,
                 "gpu-check: live streams %" PRIu64 ", events %" PRIu64
                 ", allocations %zu\n",
                 live[0], live[1], allocations.size());
    if (createdSparseHandles())
      std::fprintf(stderr,
                   "gpu-check: live sparse matrices %" PRIu64
                   ", dense vectors %" PRIu64 ", dense matrices %" PRIu64
                   ", SpGEMM descriptors %" PRIu64
                   ", cuSPARSELt sparse matrices %" PRIu64
                   ", cuSPARSELt dense matrices %" PRIu64 "\n",
                   live[static_cast<int>(Kind::SpMat)],
                   live[static_cast<int>(Kind::DnVec)],
                   live[static_cast<int>(Kind::DnMat)],
                   live[static_cast<int>(Kind::SpGEMMDescr)],
                   live[static_cast<int>(Kind::LtSpMat)],
                   live[static_cast<int>(Kind::LtDnMat)]);
    pools.printStats(stderr);
    uint64_t total = 0;
    for (auto &[what, n] : violations) {
      std::fprintf(stderr, "gpu-check: violations %s %" PRIu64 "\n",
                   what.c_str(), n);
      total += n;
    }
    std::fprintf(stderr, "gpu-check: %" PRIu64 " violation(s)\n", total);
    std::fflush(stderr);
  }

private:
  void finish() {
    std::lock_guard<std::mutex> lock(mutex);
    // The program's own output comes first.
    std::fflush(stdout);
    std::vector<Handle *> leaked;
    for (auto &[ptr, handle] : handles)
      if (!handle->destroyed && isLeakChecked(handle->kind))
        leaked.push_back(handle.get());
    std::sort(leaked.begin(), leaked.end(), [](Handle *a, Handle *b) {
      return a->kind != b->kind ? a->kind < b->kind : a->id < b->id;
    });
    for (Handle *handle : leaked)
      leak(handle, " never destroyed");
    // Device memory is the program's to free, not the lowering's: report it
    // without failing.
    if (!allocations.empty())
      std::fprintf(stderr,
                   "gpu-check: note: %zu device allocation(s) never freed\n",
                   allocations.size());
    writeTrace();
    report("exit");
    if (!violations.empty())
      std::_Exit(1);
  }

  /// Returns a new handle of `kind`, not yet tracked.
  std::unique_ptr<Handle> makeHandle(Kind kind) {
    auto handle = std::make_unique<Handle>();
    handle->kind = kind;
    handle->id = ++ids[static_cast<int>(kind)];
    if (kind == Kind::Stream) {
      handle->clock = numClocks++;
      handle->time = hostTime;
    }
    return handle;
  }

  /// Reports that `handle` leaked (`how` says how): a violation, or only a
  /// line of output with MLIR_GPU_CHECK_LEAKS=report.
  void leak(Handle *handle, const std::string &how) {
    if (leaksAreErrors)
      violation("leak", describe(handle) + how);
    else
      std::fprintf(stderr, "gpu-check: leak: %s%s\n", describe(handle).c_str(),
                   how.c_str());
  }

  /// Returns whether the program created any sparse handle.
  bool createdSparseHandles() const {
    for (int kind = 0; kind < numKinds; ++kind)
      if (ids[kind] && isSparseKind(static_cast<Kind>(kind)))
        return true;
    return false;
  }

  static std::string pointerString(void *ptr) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%p", ptr);
    return buffer;
  }

  static std::string describe(Handle *handle) {
    std::string result =
        std::string(kindName(handle->kind)) + " #" + std::to_string(handle->id);
    if (!handle->name.empty())
      result += " (" + handle->name + ")";
    return result;
  }

  /// The trace track of the default stream (0 is the host's; a stream's is
  /// its id); written as the track after the last stream's.
  static constexpr uint64_t kDefaultStreamTrack = UINT64_MAX;

  void trace(const char *what, uint64_t stream) {
    if (tracePath.empty())
      return;
    traceEvents.push_back({what, stream, traceClock++});
  }

  static std::string jsonEscape(const std::string &text) {
    std::string result;
    for (char c : text) {
      if (c == '"' || c == '\\')
        result += '\\';
      if (static_cast<unsigned char>(c) >= 0x20)
        result += c;
    }
    return result;
  }

  void writeTrace() {
    if (tracePath.empty())
      return;
    FILE *file = std::fopen(tracePath.c_str(), "w");
    if (!file) {
      violation("trace", "cannot write " + tracePath);
      return;
    }
    std::fprintf(file, "{\"traceEvents\":[\n");
    std::fprintf(file, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,"
                       "\"tid\":0,\"args\":{\"name\":\"host\"}}");
    uint64_t numStreams = ids[static_cast<int>(Kind::Stream)];
    for (uint64_t i = 1; i <= numStreams; ++i)
      std::fprintf(file,
                   ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,"
                   "\"tid\":%" PRIu64 ",\"args\":{\"name\":\"stream %" PRIu64
                   "\"}}",
                   i, i);
    if (defaultStream)
      std::fprintf(file,
                   ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,"
                   "\"tid\":%" PRIu64 ",\"args\":{\"name\":\"default "
                   "stream\"}}",
                   numStreams + 1);
    for (const TraceEvent &event : traceEvents)
      std::fprintf(file,
                   ",\n{\"name\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%" PRIu64
                   ",\"ts\":%" PRIu64 ",\"dur\":1}",
                   jsonEscape(event.what).c_str(),
                   event.stream == kDefaultStreamTrack ? numStreams + 1
                                                       : event.stream,
                   event.time);
    std::fprintf(file, "\n]}\n");
    std::fclose(file);
  }

  struct TraceEvent {
    std::string what;
    uint64_t stream;
    uint64_t time;
  };

  /// The time of `stream`'s own clock: how much work was enqueued on it.
  static uint64_t ownTime(Handle *stream) {
    return stream->clock < stream->time.size() ? stream->time[stream->clock]
                                               : 0;
  }

  /// The capture modes, numbered as CUDA's CUstreamCaptureMode and HIP's
  /// hipStreamCaptureMode.
  enum class CaptureMode { Global, ThreadLocal, Relaxed };

  /// A capture going on: the stream that began it, its number (from 1), its
  /// mode, the thread that began it, and the streams in it, with the time of
  /// their own clock when they joined.
  struct Capture {
    Handle *stream = nullptr;
    uint64_t number = 0;
    CaptureMode mode = CaptureMode::Global;
    std::thread::id thread;
    std::map<Handle *, uint64_t> joined;
  };
  /// The captures going on, by number.
  std::map<uint64_t, Capture> captures;
  uint64_t numCaptures = 0;

  /// The capture that `stream` is in, if any.
  Capture *captureOf(Handle *stream) {
    for (auto &[number, capture] : captures)
      if (capture.joined.count(stream))
        return &capture;
    return nullptr;
  }

  /// The capture numbered `number`, if it is going on.
  Capture *findCapture(uint64_t number) {
    auto it = captures.find(number);
    return it == captures.end() ? nullptr : &it->second;
  }

  /// Device memory that mgpuMemAlloc returned: its number (from 1), its
  /// size, whether it was allocated in stream order (on a stream, not
  /// host-shared), and the number of the capture it was allocated in (0:
  /// none).
  struct Allocation {
    uint64_t id;
    uint64_t size;
    bool streamOrdered;
    uint64_t capture;
  };
  uint64_t numAllocations = 0;

  static std::string describe(const Allocation &allocation) {
    return "allocation #" + std::to_string(allocation.id) + " (" +
           std::to_string(allocation.size) + " bytes)";
  }

  std::unordered_map<void *, std::unique_ptr<Handle>> handles;
  uint64_t ids[numKinds] = {};
  size_t numClocks = 1;
  std::unique_ptr<Handle> defaultStream;
  VectorClock hostTime;
  std::vector<Operation> operations;
  std::unordered_map<void *, Allocation> allocations;
  std::unordered_set<void *> freed;
  std::map<std::string, uint64_t> calls;
  std::map<std::string, uint64_t> violations;
  std::string tracePath;
  std::vector<TraceEvent> traceEvents;
  uint64_t traceClock = 0;
  bool verbose = false;
  bool leaksAreErrors = true;
};

/// Locks the checker and counts the call for the duration of an API function;
/// violations found through it name the function.
struct Call {
  explicit Call(const char *function)
      : function(function), checker(Checker::instance()), lock(checker.mutex) {
    checker.count(function);
  }

  Handle *lookup(void *ptr, Kind kind) {
    return checker.lookup(ptr, kind, function);
  }
  void destroy(void *ptr, Kind kind) { checker.destroy(ptr, kind, function); }
  Handle *createAt(void *storage, Kind kind) {
    return checker.createAt(storage, kind, function);
  }

  /// Returns `ptr` as a live event that was recorded, or reports why not.
  Handle *recordedEvent(void *ptr) {
    Handle *event = lookup(ptr, Kind::Event);
    if (event && !event->recorded) {
      checker.violation("wait-unrecorded-event",
                        std::string(function) + " given event #" +
                            std::to_string(event->id) + ", never recorded");
      return nullptr;
    }
    return event;
  }

  const char *function;
  Checker &checker;
  std::lock_guard<std::mutex> lock;
};

} // namespace

extern "C" {

// The functions of the GPU runtime wrappers, declared from their shared list
// (every handle is a `void *` here): a definition below whose signature
// differs from the list does not compile.
#define MGPU_MODULE void *
#define MGPU_KERNEL void *
#define MGPU_STREAM void *
#define MGPU_EVENT void *
#define MGPU_GRAPH void *
#define MGPU_MEMREF void *
#define MGPU_FUNCTION(ReturnType, Name, Parameters)                            \
  MLIR_GPU_CHECK_EXPORT ReturnType Name Parameters;
#include "GPURuntimeFunctions.def"

//===----------------------------------------------------------------------===//
// Modules and kernels.
//===----------------------------------------------------------------------===//

MLIR_GPU_CHECK_EXPORT void *mgpuModuleLoad(void *data, size_t size) {
  Call call("mgpuModuleLoad");
  (void)data;
  (void)size;
  return call.checker.create(Kind::Module, call.function);
}

MLIR_GPU_CHECK_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel,
                                              size_t size) {
  Call call("mgpuModuleLoadJIT");
  (void)data;
  (void)optLevel;
  (void)size;
  return call.checker.create(Kind::Module, call.function);
}

MLIR_GPU_CHECK_EXPORT void mgpuModuleUnload(void *module) {
  Call call("mgpuModuleUnload");
  call.destroy(module, Kind::Module);
}

MLIR_GPU_CHECK_EXPORT void *mgpuModuleGetFunction(void *module,
                                                  const char *name) {
  Call call("mgpuModuleGetFunction");
  if (!call.lookup(module, Kind::Module))
    return nullptr;
  Handle *function = call.checker.create(Kind::Function, call.function);
  function->name = name ? name : "";
  return function;
}

/// Records device operation `what` on `stream` (null: the default stream),
/// or reports why `stream` is not one.
static void enqueueOnStream(Call &call, void *stream, const std::string &what) {
  if (Handle *streamHandle = call.lookup(stream, Kind::Stream))
    call.checker.enqueue(streamHandle, what, call.function);
}

static void launch(Call &call, void *kernel, void *stream) {
  Handle *kernelHandle = call.lookup(kernel, Kind::Function);
  enqueueOnStream(call, stream,
                  std::string("launch ") +
                      (kernelHandle ? kernelHandle->name : "?"));
}

MLIR_GPU_CHECK_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX,
                                            intptr_t gridY, intptr_t gridZ,
                                            intptr_t blockX, intptr_t blockY,
                                            intptr_t blockZ, int32_t smem,
                                            void *stream, void **params,
                                            void **extra, size_t paramsCount) {
  Call call("mgpuLaunchKernel");
  (void)gridX, (void)gridY, (void)gridZ, (void)blockX, (void)blockY,
      (void)blockZ, (void)smem, (void)params, (void)extra, (void)paramsCount;
  launch(call, function, stream);
}

MLIR_GPU_CHECK_EXPORT void
mgpuLaunchClusterKernel(void *function, intptr_t clusterX, intptr_t clusterY,
                        intptr_t clusterZ, intptr_t gridX, intptr_t gridY,
                        intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                        intptr_t blockZ, int32_t smem, void *stream,
                        void **params, void **extra, size_t paramsCount) {
  Call call("mgpuLaunchClusterKernel");
  (void)clusterX, (void)clusterY, (void)clusterZ, (void)gridX, (void)gridY,
      (void)gridZ, (void)blockX, (void)blockY, (void)blockZ, (void)smem,
      (void)params, (void)extra, (void)paramsCount;
  launch(call, function, stream);
}

MLIR_GPU_CHECK_EXPORT void mgpuLaunchKernelCooperative(
    void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
    intptr_t clusterX, intptr_t clusterY, intptr_t clusterZ, intptr_t blockX,
    intptr_t blockY, intptr_t blockZ, int32_t smem, void *stream, void **params,
    void **extra) {
  Call call("mgpuLaunchKernelCooperative");
  (void)gridX, (void)gridY, (void)gridZ, (void)clusterX, (void)clusterY,
      (void)clusterZ, (void)blockX, (void)blockY, (void)blockZ, (void)smem,
      (void)params, (void)extra;
  launch(call, function, stream);
}

//===----------------------------------------------------------------------===//
// Streams and events.
//===----------------------------------------------------------------------===//

MLIR_GPU_CHECK_EXPORT void *mgpuStreamCreate() {
  Call call("mgpuStreamCreate");
  return call.checker.create(Kind::Stream, call.function);
}

MLIR_GPU_CHECK_EXPORT void mgpuStreamDestroy(void *stream) {
  Call call("mgpuStreamDestroy");
  call.destroy(stream, Kind::Stream);
}

MLIR_GPU_CHECK_EXPORT void mgpuStreamPoolReserve(int32_t count) {
  Call call("mgpuStreamPoolReserve");
  call.checker.reserve(Kind::Stream, count, call.function);
}

MLIR_GPU_CHECK_EXPORT void mgpuStreamSynchronize(void *stream) {
  Call call("mgpuStreamSynchronize");
  if (Handle *handle = call.lookup(stream, Kind::Stream))
    call.checker.synchronizeHostWith(handle, call.function);
}

MLIR_GPU_CHECK_EXPORT void mgpuStreamWaitEvent(void *stream, void *event) {
  Call call("mgpuStreamWaitEvent");
  Handle *streamHandle = call.lookup(stream, Kind::Stream);
  Handle *eventHandle = call.recordedEvent(event);
  if (!streamHandle || !eventHandle)
    return;
  joinInto(streamHandle->time, eventHandle->time);
  call.checker.waitInCapture(streamHandle, eventHandle, call.function);
}

MLIR_GPU_CHECK_EXPORT void *mgpuEventCreate() {
  Call call("mgpuEventCreate");
  return call.checker.create(Kind::Event, call.function);
}

MLIR_GPU_CHECK_EXPORT void mgpuEventDestroy(void *event) {
  Call call("mgpuEventDestroy");
  call.destroy(event, Kind::Event);
}

MLIR_GPU_CHECK_EXPORT void mgpuEventPoolReserve(int32_t count) {
  Call call("mgpuEventPoolReserve");
  call.checker.reserve(Kind::Event, count, call.function);
}

MLIR_GPU_CHECK_EXPORT void mgpuEventSynchronize(void *event) {
  Call call("mgpuEventSynchronize");
  if (Handle *handle = call.recordedEvent(event))
    call.checker.synchronizeHostWith(handle, call.function);
}

MLIR_GPU_CHECK_EXPORT void mgpuEventRecord(void *event, void *stream) {
  Call call("mgpuEventRecord");
  Handle *eventHandle = call.lookup(event, Kind::Event);
  Handle *streamHandle = call.lookup(stream, Kind::Stream);
  if (!eventHandle || !streamHandle)
    return;
  // The event completes with the work enqueued on the stream so far.
  eventHandle->time = streamHandle->time;
  eventHandle->recorded = true;
  call.checker.recordInCapture(eventHandle, streamHandle);
}

//===----------------------------------------------------------------------===//
// Graph capture.
//===----------------------------------------------------------------------===//

MLIR_GPU_CHECK_EXPORT void mgpuStreamBeginCapture(void *stream) {
  Call call("mgpuStreamBeginCapture");
  if (Handle *streamHandle = call.lookup(stream, Kind::Stream))
    call.checker.beginCapture(streamHandle, /*mode=*/0, call.function);
}

MLIR_GPU_CHECK_EXPORT void mgpuStreamBeginCaptureWithMode(void *stream,
                                                          int32_t mode) {
  Call call("mgpuStreamBeginCaptureWithMode");
  if (Handle *streamHandle = call.lookup(stream, Kind::Stream))
    call.checker.beginCapture(streamHandle, mode, call.function);
}

MLIR_GPU_CHECK_EXPORT void *mgpuStreamEndCapture(void *stream) {
  Call call("mgpuStreamEndCapture");
  Handle *streamHandle = call.lookup(stream, Kind::Stream);
  if (!streamHandle || !call.checker.endCapture(streamHandle, call.function))
    return nullptr;
  return call.checker.create(Kind::Graph, call.function);
}

MLIR_GPU_CHECK_EXPORT void mgpuGraphLaunch(void *graph, void *stream) {
  Call call("mgpuGraphLaunch");
  if (call.lookup(graph, Kind::Graph))
    enqueueOnStream(call, stream, "graph launch");
}

MLIR_GPU_CHECK_EXPORT void mgpuGraphDestroy(void *graph) {
  Call call("mgpuGraphDestroy");
  call.destroy(graph, Kind::Graph);
}

//===----------------------------------------------------------------------===//
// Memory.
//===----------------------------------------------------------------------===//

/// The stream of an allocation or deallocation: null means none (the
/// wrappers then allocate or free synchronously).
static Handle *optionalStream(Call &call, void *stream) {
  return stream ? call.lookup(stream, Kind::Stream) : nullptr;
}

MLIR_GPU_CHECK_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                                         bool isHostShared) {
  Call call("mgpuMemAlloc");
  Handle *streamHandle = optionalStream(call, stream);
  // Host-shared memory has no stream-ordered form: the wrappers allocate it
  // synchronously, whatever the stream.
  if (isHostShared)
    streamHandle = nullptr;
  void *ptr = std::calloc(std::max<uint64_t>(sizeBytes, 1), 1);
  call.checker.allocate(ptr, sizeBytes, streamHandle);
  call.checker.enqueue(streamHandle,
                       isHostShared ? "host-shared alloc" : "alloc",
                       call.function);
  return ptr;
}

MLIR_GPU_CHECK_EXPORT void mgpuMemFree(void *ptr, void *stream) {
  Call call("mgpuMemFree");
  call.checker.free(ptr, optionalStream(call, stream), call.function);
}

MLIR_GPU_CHECK_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                                      void *stream) {
  Call call("mgpuMemcpy");
  std::memmove(dst, src, sizeBytes);
  enqueueOnStream(call, stream, "memcpy");
}

MLIR_GPU_CHECK_EXPORT void mgpuMemset32(void *dst, unsigned int value,
                                        size_t count, void *stream) {
  Call call("mgpuMemset32");
  auto *words = static_cast<uint32_t *>(dst);
  std::fill(words, words + count, static_cast<uint32_t>(value));
  enqueueOnStream(call, stream, "memset32");
}

MLIR_GPU_CHECK_EXPORT void mgpuMemset16(void *dst, unsigned short value,
                                        size_t count, void *stream) {
  Call call("mgpuMemset16");
  auto *halves = static_cast<uint16_t *>(dst);
  std::fill(halves, halves + count, static_cast<uint16_t>(value));
  enqueueOnStream(call, stream, "memset16");
}

MLIR_GPU_CHECK_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  Call call("mgpuMemHostRegister");
  (void)ptr;
  (void)sizeBytes;
}

MLIR_GPU_CHECK_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank,
                                                     void *descriptor,
                                                     int64_t elementSizeBytes) {
  Call call("mgpuMemHostRegisterMemRef");
  (void)rank;
  (void)descriptor;
  (void)elementSizeBytes;
}

MLIR_GPU_CHECK_EXPORT void mgpuMemHostUnregister(void *ptr) {
  Call call("mgpuMemHostUnregister");
  (void)ptr;
}

MLIR_GPU_CHECK_EXPORT void
mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                            int64_t elementSizeBytes) {
  Call call("mgpuMemHostUnregisterMemRef");
  (void)rank;
  (void)descriptor;
  (void)elementSizeBytes;
}

MLIR_GPU_CHECK_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  Call call("mgpuSetDefaultDevice");
  (void)device;
}

//===----------------------------------------------------------------------===//
// Sparse (cuSPARSE and cuSPARSELt).
//===----------------------------------------------------------------------===//

/// A handle that a sparse function is given, and the kind it must be.
using SparseOperand = std::pair<void *, Kind>;

/// Checks the handles a sparse function is given and its stream (the
/// wrappers run descriptor functions on the host, whatever the stream).
/// Returns the stream, or null if it is not a valid one.
static Handle *checkSparse(Call &call,
                           std::initializer_list<SparseOperand> operands,
                           void *stream) {
  for (const SparseOperand &operand : operands)
    call.lookup(operand.first, operand.second);
  return call.lookup(stream, Kind::Stream);
}

/// Checks like checkSparse, then records device operation `what` on the
/// stream.
static void enqueueSparse(Call &call, const char *what,
                          std::initializer_list<SparseOperand> operands,
                          void *stream) {
  if (Handle *streamHandle = checkSparse(call, operands, stream))
    call.checker.enqueue(streamHandle, what, call.function);
}

/// Returns a new handle of `kind`, for a cuSPARSE create function.
static void *createSparse(Call &call, Kind kind, void *stream) {
  call.lookup(stream, Kind::Stream);
  return call.checker.create(kind, call.function);
}

/// Destroys `handle`, of `kind`, for a sparse destroy function.
static void destroySparse(Call &call, void *handle, Kind kind, void *stream) {
  call.destroy(handle, kind);
  call.lookup(stream, Kind::Stream);
}

MLIR_GPU_CHECK_EXPORT void *mgpuCreateDnVec(intptr_t size, void *values,
                                            int32_t dtp, void *stream) {
  Call call("mgpuCreateDnVec");
  (void)size, (void)values, (void)dtp;
  return createSparse(call, Kind::DnVec, stream);
}

MLIR_GPU_CHECK_EXPORT void mgpuDestroyDnVec(void *v, void *stream) {
  Call call("mgpuDestroyDnVec");
  destroySparse(call, v, Kind::DnVec, stream);
}

MLIR_GPU_CHECK_EXPORT void *mgpuCreateDnMat(intptr_t rows, intptr_t cols,
                                            void *values, int32_t dtp,
                                            void *stream) {
  Call call("mgpuCreateDnMat");
  (void)rows, (void)cols, (void)values, (void)dtp;
  return createSparse(call, Kind::DnMat, stream);
}

MLIR_GPU_CHECK_EXPORT void mgpuDestroyDnMat(void *m, void *stream) {
  Call call("mgpuDestroyDnMat");
  destroySparse(call, m, Kind::DnMat, stream);
}

MLIR_GPU_CHECK_EXPORT void *mgpuCreateCoo(intptr_t rows, intptr_t cols,
                                          intptr_t nnz, void *rowIdxs,
                                          void *colIdxs, void *values,
                                          int32_t itp, int32_t dtp,
                                          void *stream) {
  Call call("mgpuCreateCoo");
  (void)rows, (void)cols, (void)nnz, (void)rowIdxs, (void)colIdxs, (void)values,
      (void)itp, (void)dtp;
  return createSparse(call, Kind::SpMat, stream);
}

MLIR_GPU_CHECK_EXPORT void *mgpuCreateCooAoS(intptr_t rows, intptr_t cols,
                                             intptr_t nnz, void *idxs,
                                             void *values, int32_t itp,
                                             int32_t dtp, void *stream) {
  Call call("mgpuCreateCooAoS");
  (void)rows, (void)cols, (void)nnz, (void)idxs, (void)values, (void)itp,
      (void)dtp;
  return createSparse(call, Kind::SpMat, stream);
}

MLIR_GPU_CHECK_EXPORT void *mgpuCreateCsr(intptr_t rows, intptr_t cols,
                                          intptr_t nnz, void *rowPos,
                                          void *colIdxs, void *values,
                                          int32_t ptp, int32_t itp, int32_t dtp,
                                          void *stream) {
  Call call("mgpuCreateCsr");
  (void)rows, (void)cols, (void)nnz, (void)rowPos, (void)colIdxs, (void)values,
      (void)ptp, (void)itp, (void)dtp;
  return createSparse(call, Kind::SpMat, stream);
}

MLIR_GPU_CHECK_EXPORT void *mgpuCreateCsc(intptr_t rows, intptr_t cols,
                                          intptr_t nnz, void *colPos,
                                          void *rowIdxs, void *values,
                                          int32_t ptp, int32_t itp, int32_t dtp,
                                          void *stream) {
  Call call("mgpuCreateCsc");
  (void)rows, (void)cols, (void)nnz, (void)colPos, (void)rowIdxs, (void)values,
      (void)ptp, (void)itp, (void)dtp;
  return createSparse(call, Kind::SpMat, stream);
}

MLIR_GPU_CHECK_EXPORT void *
mgpuCreateBsr(intptr_t brows, intptr_t bcols, intptr_t bnnz, intptr_t rBsz,
              intptr_t cBsz, void *rowPos, void *colIdxs, void *values,
              int32_t ptp, int32_t itp, int32_t dtp, void *stream) {
  Call call("mgpuCreateBsr");
  (void)brows, (void)bcols, (void)bnnz, (void)rBsz, (void)cBsz, (void)rowPos,
      (void)colIdxs, (void)values, (void)ptp, (void)itp, (void)dtp;
  return createSparse(call, Kind::SpMat, stream);
}

MLIR_GPU_CHECK_EXPORT void mgpuDestroySpMat(void *m, void *stream) {
  Call call("mgpuDestroySpMat");
  destroySparse(call, m, Kind::SpMat, stream);
}

MLIR_GPU_CHECK_EXPORT intptr_t mgpuSpMVBufferSize(int32_t ma, void *a, void *x,
                                                  void *y, int32_t ctp,
                                                  void *stream) {
  Call call("mgpuSpMVBufferSize");
  (void)ma, (void)ctp;
  checkSparse(call, {{a, Kind::SpMat}, {x, Kind::DnVec}, {y, Kind::DnVec}},
              stream);
  return sparseBufferSize;
}

MLIR_GPU_CHECK_EXPORT void mgpuSpMV(int32_t ma, void *a, void *x, void *y,
                                    int32_t ctp, void *buf, void *stream) {
  Call call("mgpuSpMV");
  (void)ma, (void)ctp, (void)buf;
  enqueueSparse(call, "spmv",
                {{a, Kind::SpMat}, {x, Kind::DnVec}, {y, Kind::DnVec}}, stream);
}

MLIR_GPU_CHECK_EXPORT intptr_t mgpuSpMMBufferSize(int32_t ma, int32_t mb,
                                                  void *a, void *b, void *c,
                                                  int32_t ctp, void *stream) {
  Call call("mgpuSpMMBufferSize");
  (void)ma, (void)mb, (void)ctp;
  checkSparse(call, {{a, Kind::SpMat}, {b, Kind::DnMat}, {c, Kind::DnMat}},
              stream);
  return sparseBufferSize;
}

MLIR_GPU_CHECK_EXPORT void mgpuSpMM(int32_t ma, int32_t mb, void *a, void *b,
                                    void *c, int32_t ctp, void *buf,
                                    void *stream) {
  Call call("mgpuSpMM");
  (void)ma, (void)mb, (void)ctp, (void)buf;
  enqueueSparse(call, "spmm",
                {{a, Kind::SpMat}, {b, Kind::DnMat}, {c, Kind::DnMat}}, stream);
}

MLIR_GPU_CHECK_EXPORT intptr_t mgpuSDDMMBufferSize(int32_t ma, int32_t mb,
                                                   void *a, void *b, void *c,
                                                   int32_t ctp, void *stream) {
  Call call("mgpuSDDMMBufferSize");
  (void)ma, (void)mb, (void)ctp;
  checkSparse(call, {{a, Kind::DnMat}, {b, Kind::DnMat}, {c, Kind::SpMat}},
              stream);
  return sparseBufferSize;
}

MLIR_GPU_CHECK_EXPORT void mgpuSDDMM(int32_t ma, int32_t mb, void *a, void *b,
                                     void *c, int32_t ctp, void *buf,
                                     void *stream) {
  Call call("mgpuSDDMM");
  (void)ma, (void)mb, (void)ctp, (void)buf;
  enqueueSparse(call, "sddmm",
                {{a, Kind::DnMat}, {b, Kind::DnMat}, {c, Kind::SpMat}}, stream);
}

MLIR_GPU_CHECK_EXPORT void *mgpuSpGEMMCreateDescr(void *stream) {
  Call call("mgpuSpGEMMCreateDescr");
  return createSparse(call, Kind::SpGEMMDescr, stream);
}

MLIR_GPU_CHECK_EXPORT void mgpuSpGEMMDestroyDescr(void *s, void *stream) {
  Call call("mgpuSpGEMMDestroyDescr");
  destroySparse(call, s, Kind::SpGEMMDescr, stream);
}

MLIR_GPU_CHECK_EXPORT intptr_t mgpuSpGEMMWorkEstimation(
    void *s, int32_t ma, int32_t mb, void *a, void *b, void *c, int32_t ctp,
    intptr_t bs, void *buf, void *stream) {
  Call call("mgpuSpGEMMWorkEstimation");
  (void)ma, (void)mb, (void)ctp, (void)bs, (void)buf;
  enqueueSparse(call, "spgemm work estimation",
                {{s, Kind::SpGEMMDescr},
                 {a, Kind::SpMat},
                 {b, Kind::SpMat},
                 {c, Kind::SpMat}},
                stream);
  return sparseBufferSize;
}

MLIR_GPU_CHECK_EXPORT intptr_t mgpuSpGEMMCompute(void *s, int32_t ma,
                                                 int32_t mb, void *a, void *b,
                                                 void *c, int32_t ctp,
                                                 intptr_t bsz2, void *buf2,
                                                 void *stream) {
  Call call("mgpuSpGEMMCompute");
  (void)ma, (void)mb, (void)ctp, (void)bsz2, (void)buf2;
  enqueueSparse(call, "spgemm compute",
                {{s, Kind::SpGEMMDescr},
                 {a, Kind::SpMat},
                 {b, Kind::SpMat},
                 {c, Kind::SpMat}},
                stream);
  return sparseBufferSize;
}

MLIR_GPU_CHECK_EXPORT void mgpuSpGEMMCopy(void *s, int32_t ma, int32_t mb,
                                          void *a, void *b, void *c,
                                          int32_t ctp, void *stream) {
  Call call("mgpuSpGEMMCopy");
  (void)ma, (void)mb, (void)ctp;
  enqueueSparse(call, "spgemm copy",
                {{s, Kind::SpGEMMDescr},
                 {a, Kind::SpMat},
                 {b, Kind::SpMat},
                 {c, Kind::SpMat}},
                stream);
}

MLIR_GPU_CHECK_EXPORT void mgpuSpMatGetSize(void *m, void *r, void *c, void *n,
                                            void *stream) {
  Call call("mgpuSpMatGetSize");
  checkSparse(call, {{m, Kind::SpMat}}, stream);
  for (void *size : {r, c, n})
    if (size)
      *static_cast<int64_t *>(size) = 0;
}

MLIR_GPU_CHECK_EXPORT void mgpuSetCsrPointers(void *m, void *p, void *c,
                                              void *v, void *stream) {
  Call call("mgpuSetCsrPointers");
  (void)p, (void)c, (void)v;
  checkSparse(call, {{m, Kind::SpMat}}, stream);
}

MLIR_GPU_CHECK_EXPORT void mgpuCreateCuSparseLtDnMat(void *dh, intptr_t rows,
                                                     intptr_t cols,
                                                     void *values, int32_t dtp,
                                                     void *stream) {
  Call call("mgpuCreateCuSparseLtDnMat");
  (void)rows, (void)cols, (void)values, (void)dtp;
  call.createAt(dh, Kind::LtDnMat);
  call.lookup(stream, Kind::Stream);
}

MLIR_GPU_CHECK_EXPORT void mgpuDestroyCuSparseLtDnMat(void *dh, void *stream) {
  Call call("mgpuDestroyCuSparseLtDnMat");
  destroySparse(call, dh, Kind::LtDnMat, stream);
}

MLIR_GPU_CHECK_EXPORT void
mgpuCusparseLtCreate2To4SpMat(void *sh, intptr_t rows, intptr_t cols,
                              void *values, int32_t dtp, void *stream) {
  Call call("mgpuCusparseLtCreate2To4SpMat");
  (void)rows, (void)cols, (void)values, (void)dtp;
  call.createAt(sh, Kind::LtSpMat);
  call.lookup(stream, Kind::Stream);
}

MLIR_GPU_CHECK_EXPORT void mgpuDestroyCuSparseLtSpMat(void *sh, void *stream) {
  Call call("mgpuDestroyCuSparseLtSpMat");
  destroySparse(call, sh, Kind::LtSpMat, stream);
}

/// Writes the workspace, compressed matrix and compression buffer sizes to
/// `bs[0..2]`. Pruning (`pruneFlag` > 0) runs on the stream; checking the
/// pruned matrix (`pruneFlag` == 2) also synchronizes the host with it.
MLIR_GPU_CHECK_EXPORT void
mgpuCuSparseLtSpMMBufferSize(void *bs, int32_t ma, int32_t mb, void *a, void *b,
                             void *c, int32_t ctp, int32_t pruneFlag,
                             void *stream) {
  Call call("mgpuCuSparseLtSpMMBufferSize");
  (void)ma, (void)mb, (void)ctp;
  Handle *streamHandle = checkSparse(
      call, {{a, Kind::LtSpMat}, {b, Kind::LtDnMat}, {c, Kind::LtDnMat}},
      stream);
  if (bs)
    std::fill_n(static_cast<size_t *>(bs), 3,
                static_cast<size_t>(sparseBufferSize));
  if (!streamHandle || pruneFlag <= 0)
    return;
  call.checker.enqueue(streamHandle, "cusparselt prune", call.function);
  if (pruneFlag == 2)
    call.checker.synchronizeHostWith(streamHandle, call.function);
}

MLIR_GPU_CHECK_EXPORT void mgpuCuSparseLtSpMM(void *a, void *b, void *c,
                                              void *workspace, void *compressed,
                                              void *compressedBuffer,
                                              void *stream) {
  Call call("mgpuCuSparseLtSpMM");
  (void)workspace, (void)compressed, (void)compressedBuffer;
  enqueueSparse(call, "cusparselt spmm",
                {{a, Kind::LtSpMat}, {b, Kind::LtDnMat}, {c, Kind::LtDnMat}},
                stream);
}

//===----------------------------------------------------------------------===//
// Queries for tests.
//===----------------------------------------------------------------------===//

/// Prints the report (call counts, live handles, violations) now.
MLIR_GPU_CHECK_EXPORT void mgpuPoolPrintStats() {
  Call call("mgpuPoolPrintStats");
  call.checker.pools.printStats(stderr);
}

/// Forgets the free pool entries, as the wrappers destroy their free streams
/// and events; returns how many are still out.
MLIR_GPU_CHECK_EXPORT int64_t mgpuPoolDrain() {
  Call call("mgpuPoolDrain");
  auto forget = [](uintptr_t, uint64_t) {};
  return call.checker.pools.streams.drain(forget) +
         call.checker.pools.events.drain(forget);
}

MLIR_GPU_CHECK_EXPORT void mgpuCheckReport() {
  Call call("mgpuCheckReport");
  call.checker.report("on demand");
}

/// Returns whether recorded device operation `a` happens before `b`
/// (operations are numbered from 0 in the order they are enqueued).
MLIR_GPU_CHECK_EXPORT bool mgpuCheckOrdered(int64_t a, int64_t b) {
  Call call("mgpuCheckOrdered");
  return call.checker.ordered(a, b);
}

} // extern "C"
