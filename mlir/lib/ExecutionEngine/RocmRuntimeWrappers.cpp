//===- RocmRuntimeWrappers.cpp - MLIR ROCM runtime wrapper library --------===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Implements C wrappers around the ROCM library for easy linking in ORC jit.
// Also adds some debugging helpers that are helpful when writing MLIR code to
// run on GPUs.
//
//===----------------------------------------------------------------------===//

#include <cassert>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unordered_set>

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include "GPURuntimePool.h"

#include "hip/hip_runtime.h"

#define HIP_REPORT_IF_ERROR(expr)                                              \
  [](hipError_t result) {                                                      \
    if (!result)                                                               \
      return;                                                                  \
    const char *name = hipGetErrorName(result);                                \
    if (!name)                                                                 \
      name = "<unknown>";                                                      \
    fprintf(stderr, "'%s' failed with '%s'\n", #expr, name);                   \
  }(expr)

thread_local static int32_t defaultDevice = 0;

extern "C" hipModule_t mgpuModuleLoad(void *data, size_t /*gpuBlobSize*/) {
  hipModule_t module = nullptr;
  HIP_REPORT_IF_ERROR(hipModuleLoadData(&module, data));
  return module;
}

extern "C" hipModule_t mgpuModuleLoadJIT(void *data, int optLevel,
                                         size_t /*assmeblySize*/) {
  assert(false && "This function is not available in HIP.");
  return nullptr;
}

extern "C" void mgpuModuleUnload(hipModule_t module) {
  HIP_REPORT_IF_ERROR(hipModuleUnload(module));
}

extern "C" hipFunction_t mgpuModuleGetFunction(hipModule_t module,
                                               const char *name) {
  hipFunction_t function = nullptr;
  HIP_REPORT_IF_ERROR(hipModuleGetFunction(&function, module, name));
  return function;
}

// The wrapper uses intptr_t instead of ROCM's unsigned int to match
// the type of MLIR's index type. This avoids the need for casts in the
// generated MLIR code.
extern "C" void mgpuLaunchKernel(hipFunction_t function, intptr_t gridX,
                                 intptr_t gridY, intptr_t gridZ,
                                 intptr_t blockX, intptr_t blockY,
                                 intptr_t blockZ, int32_t smem,
                                 hipStream_t stream, void **params,
                                 void **extra, size_t /*paramsCount*/) {
  HIP_REPORT_IF_ERROR(hipModuleLaunchKernel(function, gridX, gridY, gridZ,
                                            blockX, blockY, blockZ, smem,
                                            stream, params, extra));
}

// Cooperative launch entry point. The cluster dimensions are accepted to
// match the CUDA wrapper signature, but HIP does not support thread block
// clusters; passing nonzero cluster dimensions is a usage error.
extern "C" void mgpuLaunchKernelCooperative(
    hipFunction_t function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
    intptr_t clusterX, intptr_t clusterY, intptr_t clusterZ, intptr_t blockX,
    intptr_t blockY, intptr_t blockZ, int32_t smem, hipStream_t stream,
    void **params, void ** /*extra*/) {
  if (clusterX != 0 || clusterY != 0 || clusterZ != 0) {
    fprintf(stderr,
            "mgpuLaunchKernelCooperative: HIP does not support thread block "
            "clusters (got cluster=%ld,%ld,%ld)\n",
            clusterX, clusterY, clusterZ);
    abort();
  }
  HIP_REPORT_IF_ERROR(
      hipModuleLaunchCooperativeKernel(function, gridX, gridY, gridZ, blockX,
                                       blockY, blockZ, smem, stream, params));
}

/// The current device, which new streams and events belong to.
static int getCurrentDevice() {
  int device = 0;
  HIP_REPORT_IF_ERROR(hipGetDevice(&device));
  return device;
}

// The pools that streams and events come from (GPURuntimePool.h), keyed by
// the current device; events are reused first released, first reused.
using RuntimePools = mlir::gpu_runtime::RuntimePools<hipStream_t, hipEvent_t>;
using mlir::gpu_runtime::releaseToPool;

extern "C" int64_t mgpuPoolDrain();

static RuntimePools &getPools() {
  // Never deleted: a static destructor could run after the runtime is torn
  // down. An exit handler destroys the free streams and events instead,
  // registered once the runtime is initialized (hipGetDevice) so that it runs
  // before the runtime's own if the runtime tears down in one.
  static RuntimePools *pools = [] {
    (void)getCurrentDevice();
    std::atexit([] { mgpuPoolDrain(); });
    return new RuntimePools(mlir::gpu_runtime::ReuseOrder::FirstReleasedFirst);
  }();
  return *pools;
}

static hipStream_t createStream() {
  hipStream_t stream = nullptr;
  HIP_REPORT_IF_ERROR(hipStreamCreate(&stream));
  return stream;
}

/// Whether the free `stream` is in no capture, so that it may be reused or
/// destroyed (not if its status cannot be read). hipStreamIsCapturing only
/// reads the capture status, which is allowed during a capture.
static bool isNotCapturing(hipStream_t stream) {
  hipStreamCaptureStatus status = hipStreamCaptureStatusActive;
  return hipStreamIsCapturing(stream, &status) == hipSuccess &&
         status == hipStreamCaptureStatusNone;
}

static hipEvent_t createEvent() {
  hipEvent_t event = nullptr;
  HIP_REPORT_IF_ERROR(hipEventCreateWithFlags(&event, hipEventDisableTiming));
  return event;
}

extern "C" hipStream_t mgpuStreamCreate() {
  return getPools().streams.acquire(getCurrentDevice(), createStream,
                                    isNotCapturing);
}

extern "C" void mgpuStreamDestroy(hipStream_t stream) {
  // A stream that the pool did not create is destroyed.
  if (releaseToPool(getPools().streams, stream, "mgpuStreamDestroy", "stream"))
    HIP_REPORT_IF_ERROR(hipStreamDestroy(stream));
}

/// Creates streams on the current device until at least `count` are free in
/// its pool, so that the next `count` calls of mgpuStreamCreate create none
/// (call it before a stream capture, during which HIP forbids creating
/// streams).
extern "C" void mgpuStreamPoolReserve(int32_t count) {
  getPools().streams.reserve(getCurrentDevice(), count, createStream);
}

extern "C" void mgpuStreamSynchronize(hipStream_t stream) {
  return HIP_REPORT_IF_ERROR(hipStreamSynchronize(stream));
}

extern "C" void mgpuStreamWaitEvent(hipStream_t stream, hipEvent_t event) {
  HIP_REPORT_IF_ERROR(hipStreamWaitEvent(stream, event, /*flags=*/0));
}

extern "C" hipEvent_t mgpuEventCreate() {
  return getPools().events.acquire(getCurrentDevice(), createEvent);
}

extern "C" void mgpuEventDestroy(hipEvent_t event) {
  // An event that the pool did not create is destroyed.
  if (releaseToPool(getPools().events, event, "mgpuEventDestroy", "event"))
    HIP_REPORT_IF_ERROR(hipEventDestroy(event));
}

/// Creates events on the current device until at least `count` are free in
/// its pool.
extern "C" void mgpuEventPoolReserve(int32_t count) {
  getPools().events.reserve(getCurrentDevice(), count, createEvent);
}

/// Prints how many streams and events the pools created and handed out.
extern "C" void mgpuPoolPrintStats() { getPools().printStats(stderr); }

/// Destroys the free streams and events of the pools, except streams in a
/// capture; returns how many are still out. Errors are ignored: destroying a
/// free one fails only if the runtime is gone (as may be at exit).
extern "C" int64_t mgpuPoolDrain() {
  RuntimePools &pools = getPools();
  auto destroyStream = [](uintptr_t, hipStream_t stream) {
    (void)hipStreamDestroy(stream);
  };
  auto destroyEvent = [](uintptr_t, hipEvent_t event) {
    (void)hipEventDestroy(event);
  };
  return pools.streams.drain(destroyStream, isNotCapturing) +
         pools.events.drain(destroyEvent);
}

extern "C" void mgpuEventSynchronize(hipEvent_t event) {
  HIP_REPORT_IF_ERROR(hipEventSynchronize(event));
}

extern "C" void mgpuEventRecord(hipEvent_t event, hipStream_t stream) {
  HIP_REPORT_IF_ERROR(hipEventRecord(event, stream));
}

static_assert(hipStreamCaptureModeGlobal == 0 &&
                  hipStreamCaptureModeThreadLocal == 1 &&
                  hipStreamCaptureModeRelaxed == 2,
              "mgpuStreamBeginCaptureWithMode takes HIP's capture modes");

/// Starts capturing `stream` into a graph in capture mode `mode`: 0 global
/// (while the capture lasts, the potentially unsafe calls, such as a
/// synchronous allocation, fail in any thread), 1 thread-local (only in this
/// thread), 2 relaxed (in none). Unless the mode is relaxed, the capture must
/// end in this thread.
extern "C" void mgpuStreamBeginCaptureWithMode(hipStream_t stream,
                                               int32_t mode) {
  HIP_REPORT_IF_ERROR(
      hipStreamBeginCapture(stream, static_cast<hipStreamCaptureMode>(mode)));
}

/// Starts capturing `stream` into a graph in the global capture mode.
extern "C" void mgpuStreamBeginCapture(hipStream_t stream) {
  mgpuStreamBeginCaptureWithMode(stream, hipStreamCaptureModeGlobal);
}

/// Ends the capture of `stream` and returns the captured graph, instantiated
/// (null if the capture failed).
extern "C" hipGraphExec_t mgpuStreamEndCapture(hipStream_t stream) {
  hipGraph_t graph = nullptr;
  HIP_REPORT_IF_ERROR(hipStreamEndCapture(stream, &graph));
  if (!graph)
    return nullptr;
  hipGraphExec_t graphExec = nullptr;
  HIP_REPORT_IF_ERROR(hipGraphInstantiateWithFlags(&graphExec, graph, 0));
  HIP_REPORT_IF_ERROR(hipGraphDestroy(graph));
  return graphExec;
}

/// Enqueues the work of a graph returned by mgpuStreamEndCapture on `stream`.
extern "C" void mgpuGraphLaunch(hipGraphExec_t graphExec, hipStream_t stream) {
  HIP_REPORT_IF_ERROR(hipGraphLaunch(graphExec, stream));
}

extern "C" void mgpuGraphDestroy(hipGraphExec_t graphExec) {
  HIP_REPORT_IF_ERROR(hipGraphExecDestroy(graphExec));
}

/// Adds `ptr` to (`allocated`) or removes it from the memory that
/// mgpuMemAlloc allocated in stream order; returns whether it was there.
/// mgpuMemFree frees only that memory in stream order: other memory
/// (allocated without a stream, or host-shared) may not come from the
/// stream-ordered allocator.
static bool updateStreamOrdered(void *ptr, bool allocated) {
  static std::mutex mutex;
  static auto *ptrs = new std::unordered_set<void *>();
  std::lock_guard<std::mutex> lock(mutex);
  return allocated ? !ptrs->insert(ptr).second : ptrs->erase(ptr) != 0;
}

/// Allocates `sizeBytes` of device memory (host-shared memory too, with
/// hipMalloc). On a stream, and unless it is host-shared, which has no
/// stream-ordered form, the memory is allocated in stream order
/// (hipMallocAsync): work enqueued on `stream` after the call may use it,
/// work on other streams once ordered after it (by an event). During a stream
/// capture it becomes an allocation node of the graph; the synchronous
/// hipMalloc is forbidden there (global capture mode) and would not be
/// replayed when the graph is launched. Without a stream, the allocation is
/// synchronous.
extern "C" void *mgpuMemAlloc(uint64_t sizeBytes, hipStream_t stream,
                              bool isHostShared) {
  void *ptr = nullptr;
  if (stream && !isHostShared && sizeBytes != 0) {
    HIP_REPORT_IF_ERROR(hipMallocAsync(&ptr, sizeBytes, stream));
    if (ptr)
      updateStreamOrdered(ptr, /*allocated=*/true);
    return ptr;
  }
  HIP_REPORT_IF_ERROR(hipMalloc(&ptr, sizeBytes));
  return ptr;
}

/// Frees memory that mgpuMemAlloc returned: in stream order on `stream`
/// (hipFreeAsync; a free node during a capture, which must free an allocation
/// made in a capture) if it was allocated in stream order, synchronously
/// otherwise.
extern "C" void mgpuMemFree(void *ptr, hipStream_t stream) {
  if (ptr && updateStreamOrdered(ptr, /*allocated=*/false) && stream) {
    HIP_REPORT_IF_ERROR(hipFreeAsync(ptr, stream));
    return;
  }
  HIP_REPORT_IF_ERROR(hipFree(ptr));
}

extern "C" void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                           hipStream_t stream) {
  HIP_REPORT_IF_ERROR(
      hipMemcpyAsync(dst, src, sizeBytes, hipMemcpyDefault, stream));
}

extern "C" void mgpuMemset32(void *dst, int value, size_t count,
                             hipStream_t stream) {
  HIP_REPORT_IF_ERROR(hipMemsetD32Async(reinterpret_cast<hipDeviceptr_t>(dst),
                                        value, count, stream));
}

extern "C" void mgpuMemset16(void *dst, int short value, size_t count,
                             hipStream_t stream) {
  HIP_REPORT_IF_ERROR(hipMemsetD16Async(reinterpret_cast<hipDeviceptr_t>(dst),
                                        value, count, stream));
}

/// Helper functions for writing mlir example code

// Allows to register byte array with the ROCM runtime. Helpful until we have
// transfer functions implemented.
extern "C" void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  HIP_REPORT_IF_ERROR(hipHostRegister(ptr, sizeBytes, /*flags=*/0));
}

// Allows to register a MemRef with the ROCm runtime. Helpful until we have
// transfer functions implemented.
extern "C" void
mgpuMemHostRegisterMemRef(int64_t rank, StridedMemRefType<char, 1> *descriptor,
                          int64_t elementSizeBytes) {
  int64_t *sizes = descriptor->sizes;
  [[maybe_unused]] int64_t *strides = &sizes[rank];
  int64_t runningStride = 1;
  // Only densely packed tensors are currently supported.
  for (int64_t i = rank - 1; i >= 0; --i) {
    assert(strides[i] == runningStride && "Mismatch in computed dense strides");
    runningStride *= sizes[i];
  }
  uint64_t sizeBytes = runningStride * elementSizeBytes;

  auto *ptr = descriptor->data + descriptor->offset * elementSizeBytes;
  mgpuMemHostRegister(ptr, sizeBytes);
}

// Allows to unregister byte array with the ROCM runtime. Helpful until we have
// transfer functions implemented.
extern "C" void mgpuMemHostUnregister(void *ptr) {
  HIP_REPORT_IF_ERROR(hipHostUnregister(ptr));
}

// Allows to unregister a MemRef with the ROCm runtime. Helpful until we have
// transfer functions implemented.
extern "C" void
mgpuMemHostUnregisterMemRef(int64_t rank,
                            StridedMemRefType<char, 1> *descriptor,
                            int64_t elementSizeBytes) {
  auto ptr = descriptor->data + descriptor->offset * elementSizeBytes;
  mgpuMemHostUnregister(ptr);
}

template <typename T>
void mgpuMemGetDevicePointer(T *hostPtr, T **devicePtr) {
  HIP_REPORT_IF_ERROR(hipSetDevice(0));
  HIP_REPORT_IF_ERROR(
      hipHostGetDevicePointer((void **)devicePtr, hostPtr, /*flags=*/0));
}

extern "C" StridedMemRefType<float, 1>
mgpuMemGetDeviceMemRef1dFloat(float *allocated, float *aligned, int64_t offset,
                              int64_t size, int64_t stride) {
  float *devicePtr = nullptr;
  mgpuMemGetDevicePointer(aligned, &devicePtr);
  return {devicePtr, devicePtr, offset, {size}, {stride}};
}

extern "C" StridedMemRefType<int32_t, 1>
mgpuMemGetDeviceMemRef1dInt32(int32_t *allocated, int32_t *aligned,
                              int64_t offset, int64_t size, int64_t stride) {
  int32_t *devicePtr = nullptr;
  mgpuMemGetDevicePointer(aligned, &devicePtr);
  return {devicePtr, devicePtr, offset, {size}, {stride}};
}

extern "C" void mgpuSetDefaultDevice(int32_t device) {
  defaultDevice = device;
  HIP_REPORT_IF_ERROR(hipSetDevice(device));
}
