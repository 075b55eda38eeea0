// Graph capture in the checking runtime: mgpuStreamBeginCapture and
// mgpuStreamEndCapture mark a capture of a stream, as CUDA and HIP stream
// capture does, and what the drivers forbid during it, or what leaves work
// out of the graph, is reported. The programs call the runtime directly, the
// way lowered code does.

// RUN: mlir-opt %s -async-to-async-runtime -async-runtime-ref-counting \
// RUN:   -async-runtime-ref-counting-opt -convert-async-to-llvm \
// RUN:   -convert-func-to-llvm -convert-arith-to-llvm -convert-cf-to-llvm \
// RUN:   -reconcile-unrealized-casts > %t.mlir
// DEFINE: %{run} = mlir-runner %t.mlir --entry-point-result=void -O0 \
// DEFINE:   --shared-libs=%mlir_gpu_check_runtime \
// DEFINE:   --shared-libs=%mlir_async_runtime

// RUN: %{run} -e fork_and_join 2>&1 \
// RUN:   | FileCheck %s --check-prefix=JOIN --implicit-check-not="gpu-check: error"
// RUN: not %{run} -e forbidden 2>&1 | FileCheck %s --check-prefix=FORBIDDEN
// RUN: not %{run} -e unjoined 2>&1 | FileCheck %s --check-prefix=UNJOINED
// RUN: not %{run} -e misuse 2>&1 | FileCheck %s --check-prefix=MISUSE
// RUN: %{run} -e graph_memory 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MEMORY --implicit-check-not="gpu-check: error"
// RUN: not %{run} -e graph_memory_misuse 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADMEMORY
// RUN: %{run} -e concurrent 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CONCURRENT --implicit-check-not="gpu-check: error"
// RUN: not %{run} -e isolation 2>&1 | FileCheck %s --check-prefix=ISOLATION
// RUN: not %{run} -e modes 2>&1 | FileCheck %s --check-prefix=MODES

llvm.func @mgpuStreamCreate() -> !llvm.ptr
llvm.func @mgpuStreamDestroy(!llvm.ptr)
llvm.func @mgpuStreamSynchronize(!llvm.ptr)
llvm.func @mgpuStreamWaitEvent(!llvm.ptr, !llvm.ptr)
llvm.func @mgpuStreamPoolReserve(i32)
llvm.func @mgpuEventCreate() -> !llvm.ptr
llvm.func @mgpuEventDestroy(!llvm.ptr)
llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
llvm.func @mgpuEventSynchronize(!llvm.ptr)
llvm.func @mgpuEventPoolReserve(i32)
llvm.func @mgpuMemAlloc(i64, !llvm.ptr, i8) -> !llvm.ptr
llvm.func @mgpuMemFree(!llvm.ptr, !llvm.ptr)
llvm.func @mgpuMemset32(!llvm.ptr, i32, i64, !llvm.ptr)
llvm.func @mgpuStreamBeginCapture(!llvm.ptr)
llvm.func @mgpuStreamBeginCaptureWithMode(!llvm.ptr, i32)
llvm.func @mgpuStreamEndCapture(!llvm.ptr) -> !llvm.ptr
llvm.func @mgpuGraphLaunch(!llvm.ptr, !llvm.ptr)
llvm.func @mgpuGraphDestroy(!llvm.ptr)
llvm.func @mgpuPoolPrintStats()

// Work forked onto a side stream and joined back, with the pools filled
// before: nothing forbidden, nothing created during the capture. The graph
// is launched twice.
// JOIN: gpu-pool: streams created 2, acquired 1, peak live 1; events created 1, acquired 0, peak live 0
// JOIN-NEXT: gpu-pool: streams created 2, acquired 2, peak live 2; events created 1, acquired 2, peak live 1
// JOIN: gpu-check: calls mgpuGraphLaunch 2
// JOIN: gpu-check: 0 violation(s)
func.func @fork_and_join() {
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i64
  %c16 = arith.constant 16 : i64
  %false = arith.constant 0 : i8
  %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  llvm.call @mgpuStreamPoolReserve(%c1) : (i32) -> ()
  llvm.call @mgpuEventPoolReserve(%c1) : (i32) -> ()
  %buf = llvm.call @mgpuMemAlloc(%c16, %s, %false) : (i64, !llvm.ptr, i8) -> !llvm.ptr
  llvm.call @mgpuPoolPrintStats() : () -> ()
  llvm.call @mgpuStreamBeginCapture(%s) : (!llvm.ptr) -> ()
  %fork = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
  llvm.call @mgpuEventRecord(%fork, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  %side = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  llvm.call @mgpuStreamWaitEvent(%side, %fork) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuEventDestroy(%fork) : (!llvm.ptr) -> ()
  llvm.call @mgpuMemset32(%buf, %c1, %c4, %side) : (!llvm.ptr, i32, i64, !llvm.ptr) -> ()
  %join = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
  llvm.call @mgpuEventRecord(%join, %side) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamWaitEvent(%s, %join) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuEventDestroy(%join) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%side) : (!llvm.ptr) -> ()
  %graph = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
  llvm.call @mgpuPoolPrintStats() : () -> ()
  llvm.call @mgpuGraphLaunch(%graph, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuGraphLaunch(%graph, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
  llvm.call @mgpuGraphDestroy(%graph) : (!llvm.ptr) -> ()
  llvm.call @mgpuMemFree(%buf, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  return
}

// Each call that CUDA or HIP forbids during a capture (host-shared memory
// has no stream-ordered allocation; memory not allocated on a stream is
// freed synchronously), and work on a stream that is not in the capture.
// FORBIDDEN: gpu-check: error: capture-forbidden: mgpuStreamSynchronize synchronized the host during the capture of stream #1
// FORBIDDEN-NEXT: gpu-check: error: capture-forbidden: mgpuEventCreate created event #1 for real (none was free in the pool) during the capture of stream #1
// FORBIDDEN-NEXT: gpu-check: error: capture-forbidden: mgpuEventSynchronize synchronized the host during the capture of stream #1
// FORBIDDEN-NEXT: gpu-check: error: capture-forbidden: mgpuMemAlloc ran alloc on the host during the capture of stream #1
// FORBIDDEN-NEXT: gpu-check: error: capture-forbidden: mgpuMemset32 enqueued memset32 on the null stream during the capture of stream #1
// FORBIDDEN-NEXT: gpu-check: error: capture-forbidden: mgpuMemFree ran free on the host during the capture of stream #1
// FORBIDDEN-NEXT: gpu-check: error: capture-forbidden: mgpuStreamCreate created stream #2 for real (none was free in the pool) during the capture of stream #1
// FORBIDDEN-NEXT: gpu-check: error: capture-escape: mgpuMemset32 enqueued memset32 on stream #2, which is not in the capture of stream #1: it runs now, not when the graph is launched
// FORBIDDEN-NEXT: gpu-check: error: capture-forbidden: mgpuStreamPoolReserve created a stream for real during the capture of stream #1
// FORBIDDEN-NEXT: gpu-check: error: capture-forbidden: mgpuMemAlloc ran host-shared alloc on the host during the capture of stream #1
// FORBIDDEN-NEXT: gpu-check: error: capture-forbidden: mgpuMemFree ran free of synchronously allocated memory on the host during the capture of stream #1
// FORBIDDEN: gpu-check: violations capture-escape 1
// FORBIDDEN-NEXT: gpu-check: violations capture-forbidden 10
// FORBIDDEN-NEXT: gpu-check: 11 violation(s)
func.func @forbidden() {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4i64 = arith.constant 4 : i64
  %c16 = arith.constant 16 : i64
  %false = arith.constant 0 : i8
  %true = arith.constant 1 : i8
  %null = llvm.mlir.zero : !llvm.ptr
  %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  llvm.call @mgpuStreamBeginCapture(%s) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
  %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
  llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> ()
  %buf = llvm.call @mgpuMemAlloc(%c16, %null, %false) : (i64, !llvm.ptr, i8) -> !llvm.ptr
  llvm.call @mgpuMemset32(%buf, %c0, %c4i64, %null) : (!llvm.ptr, i32, i64, !llvm.ptr) -> ()
  llvm.call @mgpuMemFree(%buf, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  %side = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  %buf2 = llvm.call @mgpuMemAlloc(%c16, %s, %false) : (i64, !llvm.ptr, i8) -> !llvm.ptr
  llvm.call @mgpuMemset32(%buf2, %c0, %c4i64, %side) : (!llvm.ptr, i32, i64, !llvm.ptr) -> ()
  llvm.call @mgpuStreamPoolReserve(%c1) : (i32) -> ()
  %shared = llvm.call @mgpuMemAlloc(%c16, %s, %true) : (i64, !llvm.ptr, i8) -> !llvm.ptr
  llvm.call @mgpuMemFree(%shared, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuMemFree(%buf2, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  %graph = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
  llvm.call @mgpuGraphDestroy(%graph) : (!llvm.ptr) -> ()
  llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%side) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  return
}

// A side stream joins the capture and is not joined back: CUDA and HIP fail
// the capture. Its work from before it joined does not count.
// UNJOINED: gpu-check: error: capture-unjoined: mgpuStreamEndCapture: stream #2 has work that stream #1 does not wait for
// UNJOINED: gpu-check: violations capture-unjoined 1
// UNJOINED-NEXT: gpu-check: 1 violation(s)
func.func @unjoined() {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i64
  %c16 = arith.constant 16 : i64
  %false = arith.constant 0 : i8
  %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  %side = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  %other = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  llvm.call @mgpuEventPoolReserve(%c1) : (i32) -> ()
  %buf = llvm.call @mgpuMemAlloc(%c16, %s, %false) : (i64, !llvm.ptr, i8) -> !llvm.ptr
  llvm.call @mgpuMemset32(%buf, %c0, %c4, %other) : (!llvm.ptr, i32, i64, !llvm.ptr) -> ()
  llvm.call @mgpuStreamBeginCapture(%s) : (!llvm.ptr) -> ()
  %fork = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
  llvm.call @mgpuEventRecord(%fork, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamWaitEvent(%side, %fork) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamWaitEvent(%other, %fork) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuEventDestroy(%fork) : (!llvm.ptr) -> ()
  llvm.call @mgpuMemset32(%buf, %c0, %c4, %side) : (!llvm.ptr, i32, i64, !llvm.ptr) -> ()
  %graph = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
  llvm.call @mgpuGraphDestroy(%graph) : (!llvm.ptr) -> ()
  llvm.call @mgpuMemFree(%buf, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%other) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%side) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  return
}

// Capturing the null stream, ending a capture that is not going on, a second
// capture of a stream in a capture, ending a capture on a stream that joined
// it, an unknown capture mode, and a graph never destroyed.
// MISUSE: gpu-check: error: capture: mgpuStreamBeginCapture given the null stream, which cannot be captured
// MISUSE-NEXT: gpu-check: error: capture: mgpuStreamEndCapture given stream #1, which is not captured
// MISUSE-NEXT: gpu-check: error: capture: mgpuStreamBeginCapture given stream #1, which is already in the capture of stream #1
// MISUSE-NEXT: gpu-check: error: capture: mgpuStreamBeginCapture given stream #2, which is already in the capture of stream #1
// MISUSE-NEXT: gpu-check: error: capture: mgpuStreamEndCapture given stream #2, which did not begin the capture of stream #1
// MISUSE-NEXT: gpu-check: error: capture: mgpuStreamBeginCaptureWithMode given capture mode 3, expected 0 (global), 1 (thread-local) or 2 (relaxed)
// MISUSE-NEXT: gpu-check: error: leak: graph #1 never destroyed
// MISUSE: gpu-check: violations capture 6
// MISUSE-NEXT: gpu-check: violations leak 1
func.func @misuse() {
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %null = llvm.mlir.zero : !llvm.ptr
  %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  %s2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  llvm.call @mgpuEventPoolReserve(%c1) : (i32) -> ()
  llvm.call @mgpuStreamBeginCapture(%null) : (!llvm.ptr) -> ()
  %g0 = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
  llvm.call @mgpuStreamBeginCapture(%s) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamBeginCapture(%s) : (!llvm.ptr) -> ()
  %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
  llvm.call @mgpuEventRecord(%e, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamWaitEvent(%s2, %e) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamBeginCapture(%s2) : (!llvm.ptr) -> ()
  %g1 = llvm.call @mgpuStreamEndCapture(%s2) : (!llvm.ptr) -> !llvm.ptr
  %g2 = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
  llvm.call @mgpuStreamBeginCaptureWithMode(%s, %c3) : (!llvm.ptr, i32) -> ()
  llvm.call @mgpuStreamDestroy(%s2) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  return
}

// Allocating and freeing on the captured streams: the wrappers do it in
// stream order, and the graph gets memory nodes. The graph is launched twice.
// MEMORY: gpu-check: calls mgpuGraphLaunch 2
// MEMORY: gpu-check: live streams 0, events 0, allocations 0
// MEMORY: gpu-check: 0 violation(s)
func.func @graph_memory() {
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i64
  %c16 = arith.constant 16 : i64
  %false = arith.constant 0 : i8
  %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  llvm.call @mgpuStreamPoolReserve(%c1) : (i32) -> ()
  llvm.call @mgpuEventPoolReserve(%c1) : (i32) -> ()
  llvm.call @mgpuStreamBeginCapture(%s) : (!llvm.ptr) -> ()
  %buf = llvm.call @mgpuMemAlloc(%c16, %s, %false) : (i64, !llvm.ptr, i8) -> !llvm.ptr
  %fork = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
  llvm.call @mgpuEventRecord(%fork, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  %side = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  llvm.call @mgpuStreamWaitEvent(%side, %fork) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuEventDestroy(%fork) : (!llvm.ptr) -> ()
  llvm.call @mgpuMemset32(%buf, %c1, %c4, %side) : (!llvm.ptr, i32, i64, !llvm.ptr) -> ()
  %join = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
  llvm.call @mgpuEventRecord(%join, %side) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamWaitEvent(%s, %join) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuEventDestroy(%join) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%side) : (!llvm.ptr) -> ()
  llvm.call @mgpuMemFree(%buf, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  %graph = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
  llvm.call @mgpuGraphLaunch(%graph, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuGraphLaunch(%graph, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
  llvm.call @mgpuGraphDestroy(%graph) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  return
}

// A free node must free memory allocated in a capture, and memory allocated
// in a capture and not freed in it keeps the graph from being launched again
// (it may be freed after the launch).
// BADMEMORY: gpu-check: error: capture-alloc: mgpuMemFree freed allocation #1 (16 bytes) on stream #1 during the capture of stream #1, but it was not allocated in a capture: a free node must free a graph allocation
// BADMEMORY-NEXT: gpu-check: error: capture-alloc: mgpuStreamEndCapture: allocation #2 (16 bytes), allocated in the capture of stream #1, is not freed in it: the graph cannot be launched again before it is freed
// BADMEMORY: gpu-check: violations capture-alloc 2
// BADMEMORY-NEXT: gpu-check: 2 violation(s)
func.func @graph_memory_misuse() {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i64
  %c16 = arith.constant 16 : i64
  %false = arith.constant 0 : i8
  %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  %before = llvm.call @mgpuMemAlloc(%c16, %s, %false) : (i64, !llvm.ptr, i8) -> !llvm.ptr
  llvm.call @mgpuStreamBeginCapture(%s) : (!llvm.ptr) -> ()
  llvm.call @mgpuMemFree(%before, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  %kept = llvm.call @mgpuMemAlloc(%c16, %s, %false) : (i64, !llvm.ptr, i8) -> !llvm.ptr
  llvm.call @mgpuMemset32(%kept, %c0, %c4, %s) : (!llvm.ptr, i32, i64, !llvm.ptr) -> ()
  %graph = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
  llvm.call @mgpuGraphLaunch(%graph, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuMemFree(%kept, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
  llvm.call @mgpuGraphDestroy(%graph) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  return
}

// Two captures at once, each with its own joined streams. The second one is
// thread-local: another thread may allocate synchronously during it.
// CONCURRENT: gpu-check: calls mgpuGraphLaunch 2
// CONCURRENT: gpu-check: 0 violation(s)
func.func @concurrent() {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i64
  %c16 = arith.constant 16 : i64
  %false = arith.constant 0 : i8
  %null = llvm.mlir.zero : !llvm.ptr
  %a = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  %b = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  llvm.call @mgpuStreamPoolReserve(%c1) : (i32) -> ()
  llvm.call @mgpuEventPoolReserve(%c1) : (i32) -> ()
  %buf = llvm.call @mgpuMemAlloc(%c16, %a, %false) : (i64, !llvm.ptr, i8) -> !llvm.ptr
  llvm.call @mgpuStreamBeginCapture(%a) : (!llvm.ptr) -> ()
  %fork = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
  llvm.call @mgpuEventRecord(%fork, %a) : (!llvm.ptr, !llvm.ptr) -> ()
  %side = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  llvm.call @mgpuStreamWaitEvent(%side, %fork) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuEventDestroy(%fork) : (!llvm.ptr) -> ()
  llvm.call @mgpuMemset32(%buf, %c0, %c4, %side) : (!llvm.ptr, i32, i64, !llvm.ptr) -> ()
  llvm.call @mgpuStreamBeginCaptureWithMode(%b, %c1) : (!llvm.ptr, i32) -> ()
  llvm.call @mgpuMemset32(%buf, %c1, %c4, %b) : (!llvm.ptr, i32, i64, !llvm.ptr) -> ()
  %join = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
  llvm.call @mgpuEventRecord(%join, %side) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamWaitEvent(%a, %join) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuEventDestroy(%join) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%side) : (!llvm.ptr) -> ()
  %ga = llvm.call @mgpuStreamEndCapture(%a) : (!llvm.ptr) -> !llvm.ptr
  %token = async.execute {
    %p = llvm.call @mgpuMemAlloc(%c16, %null, %false) : (i64, !llvm.ptr, i8) -> !llvm.ptr
    llvm.call @mgpuMemFree(%p, %null) : (!llvm.ptr, !llvm.ptr) -> ()
    async.yield
  }
  async.await %token : !async.token
  %gb = llvm.call @mgpuStreamEndCapture(%b) : (!llvm.ptr) -> !llvm.ptr
  llvm.call @mgpuGraphLaunch(%ga, %a) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuGraphLaunch(%gb, %a) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamSynchronize(%a) : (!llvm.ptr) -> ()
  llvm.call @mgpuGraphDestroy(%ga) : (!llvm.ptr) -> ()
  llvm.call @mgpuGraphDestroy(%gb) : (!llvm.ptr) -> ()
  llvm.call @mgpuMemFree(%buf, %a) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%a) : (!llvm.ptr) -> ()
  return
}

// A captured stream waits for an event recorded before the capture, one
// recorded on a stream in no capture, and one recorded in another capture
// (which would put it in two captures).
// ISOLATION: gpu-check: error: capture-isolation: mgpuStreamWaitEvent made stream #1, which is in the capture of stream #1, wait for event #1, recorded outside it
// ISOLATION-NEXT: gpu-check: error: capture-isolation: mgpuStreamWaitEvent made stream #1, which is in the capture of stream #1, wait for event #2, recorded outside it
// ISOLATION-NEXT: gpu-check: error: capture-isolation: mgpuStreamWaitEvent made stream #1, which is in the capture of stream #1, wait for event #3, recorded in the capture of stream #2
// ISOLATION: gpu-check: violations capture-isolation 3
// ISOLATION-NEXT: gpu-check: 3 violation(s)
func.func @isolation() {
  %c3 = arith.constant 3 : i32
  %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  %t = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  %other = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  llvm.call @mgpuEventPoolReserve(%c3) : (i32) -> ()
  %before = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
  llvm.call @mgpuEventRecord(%before, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamBeginCapture(%s) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamBeginCapture(%t) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamWaitEvent(%s, %before) : (!llvm.ptr, !llvm.ptr) -> ()
  %outside = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
  llvm.call @mgpuEventRecord(%outside, %other) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamWaitEvent(%s, %outside) : (!llvm.ptr, !llvm.ptr) -> ()
  %other_capture = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
  llvm.call @mgpuEventRecord(%other_capture, %t) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamWaitEvent(%s, %other_capture) : (!llvm.ptr, !llvm.ptr) -> ()
  %gt = llvm.call @mgpuStreamEndCapture(%t) : (!llvm.ptr) -> !llvm.ptr
  %gs = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
  llvm.call @mgpuGraphDestroy(%gt) : (!llvm.ptr) -> ()
  llvm.call @mgpuGraphDestroy(%gs) : (!llvm.ptr) -> ()
  llvm.call @mgpuEventDestroy(%other_capture) : (!llvm.ptr) -> ()
  llvm.call @mgpuEventDestroy(%outside) : (!llvm.ptr) -> ()
  llvm.call @mgpuEventDestroy(%before) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%other) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%t) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  return
}

// Relaxed: synchronous allocation, host synchronization with a stream in no
// capture and real creations are allowed; synchronizing with the captured
// stream and work outside the capture are not. Thread-local: this thread may
// not free synchronously. Global: no thread may allocate synchronously, and
// only the thread that began the capture may end it.
// MODES: gpu-check: error: capture-forbidden: mgpuStreamSynchronize synchronized the host during the capture of stream #1
// MODES-NEXT: gpu-check: error: capture-escape: mgpuMemset32 enqueued memset32 on stream #2, which is not in the capture of stream #1: it runs now, not when the graph is launched
// MODES-NEXT: gpu-check: error: capture-forbidden: mgpuMemFree ran free on the host during the capture of stream #1
// MODES-NEXT: gpu-check: error: capture-forbidden: mgpuMemAlloc ran alloc on the host during the capture of stream #1
// MODES-NEXT: gpu-check: error: capture: mgpuStreamEndCapture given stream #1 in another thread than the one that began its capture, which is not relaxed
// MODES: gpu-check: violations capture 1
// MODES-NEXT: gpu-check: violations capture-escape 1
// MODES-NEXT: gpu-check: violations capture-forbidden 3
func.func @modes() {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i64
  %c16 = arith.constant 16 : i64
  %false = arith.constant 0 : i8
  %null = llvm.mlir.zero : !llvm.ptr
  %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  %other = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  llvm.call @mgpuStreamBeginCaptureWithMode(%s, %c2) : (!llvm.ptr, i32) -> ()
  %buf = llvm.call @mgpuMemAlloc(%c16, %null, %false) : (i64, !llvm.ptr, i8) -> !llvm.ptr
  llvm.call @mgpuStreamSynchronize(%other) : (!llvm.ptr) -> ()
  %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
  llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
  llvm.call @mgpuMemset32(%buf, %c0, %c4, %other) : (!llvm.ptr, i32, i64, !llvm.ptr) -> ()
  %g0 = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
  llvm.call @mgpuStreamBeginCaptureWithMode(%s, %c1) : (!llvm.ptr, i32) -> ()
  llvm.call @mgpuMemFree(%buf, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  %g1 = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
  llvm.call @mgpuStreamBeginCapture(%s) : (!llvm.ptr) -> ()
  %token = async.execute {
    %p = llvm.call @mgpuMemAlloc(%c16, %null, %false) : (i64, !llvm.ptr, i8) -> !llvm.ptr
    %g2 = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
    llvm.call @mgpuMemFree(%p, %null) : (!llvm.ptr, !llvm.ptr) -> ()
    llvm.call @mgpuGraphDestroy(%g2) : (!llvm.ptr) -> ()
    async.yield
  }
  async.await %token : !async.token
  llvm.call @mgpuGraphDestroy(%g1) : (!llvm.ptr) -> ()
  llvm.call @mgpuGraphDestroy(%g0) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%other) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  return
}
