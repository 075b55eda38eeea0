// Graph capture in the checking runtime: mgpuStreamBeginCapture and
// mgpuStreamEndCapture mark a capture of a stream, as CUDA and HIP stream
// capture does, and what the drivers forbid during it, or what leaves work
// out of the graph, is reported. The programs call the runtime directly, the
// way lowered code does.

// RUN: mlir-opt %s -convert-func-to-llvm -convert-arith-to-llvm \
// RUN:   -reconcile-unrealized-casts > %t.mlir
// DEFINE: %{run} = mlir-runner %t.mlir --entry-point-result=void \
// DEFINE:   --shared-libs=%mlir_gpu_check_runtime

// RUN: %{run} -e fork_and_join 2>&1 \
// RUN:   | FileCheck %s --check-prefix=JOIN --implicit-check-not="gpu-check: error"
// RUN: not %{run} -e forbidden 2>&1 | FileCheck %s --check-prefix=FORBIDDEN
// RUN: not %{run} -e unjoined 2>&1 | FileCheck %s --check-prefix=UNJOINED
// RUN: not %{run} -e misuse 2>&1 | FileCheck %s --check-prefix=MISUSE

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

// Each call that CUDA or HIP forbids during a capture, and work on a stream
// that is not in the capture.
// FORBIDDEN: gpu-check: error: capture-forbidden: mgpuStreamSynchronize synchronized the host during the capture of stream #1
// FORBIDDEN-NEXT: gpu-check: error: capture-forbidden: mgpuEventCreate created event #1 for real (none was free in the pool) during the capture of stream #1
// FORBIDDEN-NEXT: gpu-check: error: capture-forbidden: mgpuEventSynchronize synchronized the host during the capture of stream #1
// FORBIDDEN-NEXT: gpu-check: error: capture-forbidden: mgpuMemAlloc ran alloc on the host during the capture of stream #1
// FORBIDDEN-NEXT: gpu-check: error: capture-forbidden: mgpuMemset32 enqueued memset32 on the null stream during the capture of stream #1
// FORBIDDEN-NEXT: gpu-check: error: capture-forbidden: mgpuMemFree ran free on the host during the capture of stream #1
// FORBIDDEN-NEXT: gpu-check: error: capture-forbidden: mgpuStreamCreate created stream #2 for real (none was free in the pool) during the capture of stream #1
// FORBIDDEN-NEXT: gpu-check: error: capture-escape: mgpuMemset32 enqueued memset32 on stream #2, which is not in the capture of stream #1: it runs now, not when the graph is launched
// FORBIDDEN-NEXT: gpu-check: error: capture-forbidden: mgpuStreamPoolReserve created a stream for real during the capture of stream #1
// FORBIDDEN: gpu-check: violations capture-escape 1
// FORBIDDEN-NEXT: gpu-check: violations capture-forbidden 8
func.func @forbidden() {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4i64 = arith.constant 4 : i64
  %c16 = arith.constant 16 : i64
  %false = arith.constant 0 : i8
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
  %graph = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
  llvm.call @mgpuGraphDestroy(%graph) : (!llvm.ptr) -> ()
  llvm.call @mgpuMemFree(%buf2, %s) : (!llvm.ptr, !llvm.ptr) -> ()
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

// Capturing the null stream, a capture inside a capture, ending a capture
// that is not going on, and a graph never destroyed.
// MISUSE: gpu-check: error: capture: mgpuStreamBeginCapture given the null stream, which cannot be captured
// MISUSE-NEXT: gpu-check: error: capture: mgpuStreamEndCapture given stream #1, which is not captured
// MISUSE-NEXT: gpu-check: error: capture: mgpuStreamBeginCapture given stream #2 during the capture of stream #1
// MISUSE-NEXT: gpu-check: error: capture: mgpuStreamEndCapture given stream #2, which is not captured
// MISUSE-NEXT: gpu-check: error: leak: graph #1 never destroyed
// MISUSE: gpu-check: violations capture 4
// MISUSE-NEXT: gpu-check: violations leak 1
func.func @misuse() {
  %null = llvm.mlir.zero : !llvm.ptr
  %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  %s2 = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  llvm.call @mgpuStreamBeginCapture(%null) : (!llvm.ptr) -> ()
  %g0 = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
  llvm.call @mgpuStreamBeginCapture(%s) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamBeginCapture(%s2) : (!llvm.ptr) -> ()
  %g1 = llvm.call @mgpuStreamEndCapture(%s2) : (!llvm.ptr) -> !llvm.ptr
  %g2 = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
  llvm.call @mgpuStreamDestroy(%s2) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  return
}
