// Tests of the checking GPU runtime itself (libmlir_gpu_check_runtime): the
// programs below call the runtime directly, the way lowered code does.

// RUN: mlir-opt %s -convert-func-to-llvm -convert-arith-to-llvm \
// RUN:   -reconcile-unrealized-casts > %t.mlir
// DEFINE: %{run} = mlir-runner %t.mlir --entry-point-result=void \
// DEFINE:   --shared-libs=%mlir_gpu_check_runtime \
// DEFINE:   --shared-libs=%mlir_c_runner_utils

// RUN: env MLIR_GPU_CHECK_TRACE=%t.json %{run} -e clean 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CLEAN \
// RUN:       --implicit-check-not="gpu-check: error"
// RUN: FileCheck %s --check-prefix=TRACE < %t.json
// RUN: %{run} -e ordering 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ORDER --implicit-check-not="gpu-check: error"
// RUN: env MLIR_GPU_CHECK_VERBOSE=1 %{run} -e ordering 2>&1 \
// RUN:   | FileCheck %s --check-prefix=VERBOSE
// RUN: not %{run} -e double_destroy 2>&1 | FileCheck %s --check-prefix=DOUBLE
// RUN: not %{run} -e use_after_destroy 2>&1 | FileCheck %s --check-prefix=UAD
// RUN: not %{run} -e wrong_kind 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not %{run} -e unrecorded 2>&1 | FileCheck %s --check-prefix=UNREC
// RUN: not %{run} -e invalid_handle 2>&1 | FileCheck %s --check-prefix=INVALID
// RUN: env MLIR_GPU_CHECK_TRACE=%t.default.json %{run} -e default_stream 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEFAULT --implicit-check-not="gpu-check: error"
// RUN: FileCheck %s --check-prefix=TRACEDEFAULT < %t.default.json
// RUN: not %{run} -e destroy_default_stream 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DESTROYDEFAULT
// RUN: not %{run} -e leak 2>&1 | FileCheck %s --check-prefix=LEAK
// RUN: env MLIR_GPU_CHECK_LEAKS=report %{run} -e leak 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LEAKREPORT

func.func private @mgpuStreamCreate() -> !llvm.ptr
func.func private @mgpuStreamDestroy(!llvm.ptr)
func.func private @mgpuStreamSynchronize(!llvm.ptr)
func.func private @mgpuStreamWaitEvent(!llvm.ptr, !llvm.ptr)
func.func private @mgpuEventCreate() -> !llvm.ptr
func.func private @mgpuEventDestroy(!llvm.ptr)
func.func private @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
func.func private @mgpuEventSynchronize(!llvm.ptr)
func.func private @mgpuMemAlloc(i64, !llvm.ptr, i8) -> !llvm.ptr
func.func private @mgpuMemFree(!llvm.ptr, !llvm.ptr)
func.func private @mgpuMemset32(!llvm.ptr, i32, i64, !llvm.ptr)
func.func private @mgpuCheckOrdered(i64, i64) -> i1
func.func private @printI64(i64)
func.func private @printNewline()

// Everything created is destroyed: no violation, exit 0, call counts.
// CLEAN: gpu-check: report (exit)
// CLEAN-DAG: gpu-check: calls mgpuEventCreate 1
// CLEAN-DAG: gpu-check: calls mgpuEventRecord 1
// CLEAN-DAG: gpu-check: calls mgpuStreamCreate 2
// CLEAN-DAG: gpu-check: calls mgpuStreamDestroy 2
// CLEAN-DAG: gpu-check: calls mgpuMemset32 1
// CLEAN: gpu-check: live streams 0, events 0, allocations 0
// CLEAN: gpu-check: 0 violation(s)
func.func @clean() {
  %c0 = arith.constant 0 : i8
  %c16 = arith.constant 16 : i64
  %c4 = arith.constant 4 : i64
  %v = arith.constant 7 : i32
  %s0 = call @mgpuStreamCreate() : () -> !llvm.ptr
  %s1 = call @mgpuStreamCreate() : () -> !llvm.ptr
  %m = call @mgpuMemAlloc(%c16, %s0, %c0) : (i64, !llvm.ptr, i8) -> !llvm.ptr
  call @mgpuMemset32(%m, %v, %c4, %s0) : (!llvm.ptr, i32, i64, !llvm.ptr) -> ()
  %e = call @mgpuEventCreate() : () -> !llvm.ptr
  call @mgpuEventRecord(%e, %s0) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuStreamWaitEvent(%s1, %e) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
  call @mgpuStreamSynchronize(%s1) : (!llvm.ptr) -> ()
  call @mgpuMemFree(%m, %s1) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuStreamDestroy(%s0) : (!llvm.ptr) -> ()
  call @mgpuStreamDestroy(%s1) : (!llvm.ptr) -> ()
  return
}

// The trace has a track per stream and the calls on them.
// TRACE: "traceEvents"
// TRACE-DAG: "args":{"name":"host"}
// TRACE-DAG: "args":{"name":"stream 2"}
// TRACE-DAG: {"name":"memset32","ph":"X","pid":1,"tid":1,
// TRACE-DAG: {"name":"free","ph":"X","pid":1,"tid":2,

// Happens-before: work on two streams is unordered until one waits for an
// event recorded on the other.
// ORDER: 0
// ORDER-NEXT: 1
// ORDER-NEXT: 1
// ORDER-NEXT: 0
// ORDER: gpu-check: 0 violation(s)
// Each device operation as it is recorded, with its number.
// VERBOSE:      gpu-check: op 0: alloc on stream 1
// VERBOSE-NEXT: gpu-check: op 1: memset32 on stream 1
// VERBOSE-NEXT: gpu-check: op 2: memset32 on stream 2
// VERBOSE-NEXT: gpu-check: op 3: memset32 on stream 2
// VERBOSE:      gpu-check: op 4: free on stream 2
func.func @ordering() {
  %c0 = arith.constant 0 : i8
  %c16 = arith.constant 16 : i64
  %c4 = arith.constant 4 : i64
  %v = arith.constant 7 : i32
  %i0 = arith.constant 1 : i64
  %i1 = arith.constant 2 : i64
  %i2 = arith.constant 3 : i64
  %s0 = call @mgpuStreamCreate() : () -> !llvm.ptr
  %s1 = call @mgpuStreamCreate() : () -> !llvm.ptr
  // Operation 0 is the allocation on %s0, 1 the memset on %s0.
  %m = call @mgpuMemAlloc(%c16, %s0, %c0) : (i64, !llvm.ptr, i8) -> !llvm.ptr
  call @mgpuMemset32(%m, %v, %c4, %s0) : (!llvm.ptr, i32, i64, !llvm.ptr) -> ()
  %e = call @mgpuEventCreate() : () -> !llvm.ptr
  call @mgpuEventRecord(%e, %s0) : (!llvm.ptr, !llvm.ptr) -> ()
  // Operation 2: on %s1, not ordered after 1.
  call @mgpuMemset32(%m, %v, %c4, %s1) : (!llvm.ptr, i32, i64, !llvm.ptr) -> ()
  call @mgpuStreamWaitEvent(%s1, %e) : (!llvm.ptr, !llvm.ptr) -> ()
  // Operation 3: on %s1, after the wait.
  call @mgpuMemset32(%m, %v, %c4, %s1) : (!llvm.ptr, i32, i64, !llvm.ptr) -> ()
  %o12 = call @mgpuCheckOrdered(%i0, %i1) : (i64, i64) -> i1
  %o13 = call @mgpuCheckOrdered(%i0, %i2) : (i64, i64) -> i1
  %o23 = call @mgpuCheckOrdered(%i1, %i2) : (i64, i64) -> i1
  %o31 = call @mgpuCheckOrdered(%i2, %i0) : (i64, i64) -> i1
  func.call @print(%o12) : (i1) -> ()
  func.call @print(%o13) : (i1) -> ()
  func.call @print(%o23) : (i1) -> ()
  func.call @print(%o31) : (i1) -> ()
  call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
  call @mgpuMemFree(%m, %s1) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuStreamDestroy(%s0) : (!llvm.ptr) -> ()
  call @mgpuStreamDestroy(%s1) : (!llvm.ptr) -> ()
  return
}

func.func @print(%b : i1) {
  %i = arith.extui %b : i1 to i64
  call @printI64(%i) : (i64) -> ()
  call @printNewline() : () -> ()
  return
}

// DOUBLE: gpu-check: error: double-destroy: mgpuStreamDestroy given stream #1, already destroyed
// DOUBLE: gpu-check: violations double-destroy 1
// DOUBLE: gpu-check: 1 violation(s)
func.func @double_destroy() {
  %s = call @mgpuStreamCreate() : () -> !llvm.ptr
  call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  return
}

// UAD: gpu-check: error: use-after-destroy: mgpuStreamSynchronize given destroyed stream #1
func.func @use_after_destroy() {
  %s = call @mgpuStreamCreate() : () -> !llvm.ptr
  call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
  return
}

// KIND: gpu-check: error: wrong-handle-kind: mgpuEventSynchronize given stream #1, expected a event
// KIND: gpu-check: error: wrong-handle-kind: mgpuStreamWaitEvent given stream #1, expected a event
func.func @wrong_kind() {
  %s = call @mgpuStreamCreate() : () -> !llvm.ptr
  call @mgpuEventSynchronize(%s) : (!llvm.ptr) -> ()
  call @mgpuStreamWaitEvent(%s, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  return
}

// UNREC: gpu-check: error: wait-unrecorded-event: mgpuStreamWaitEvent given event #1, never recorded
func.func @unrecorded() {
  %s = call @mgpuStreamCreate() : () -> !llvm.ptr
  %e = call @mgpuEventCreate() : () -> !llvm.ptr
  call @mgpuStreamWaitEvent(%s, %e) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
  call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  return
}

// INVALID: gpu-check: error: invalid-handle: mgpuStreamDestroy given {{.*}}, which is not a stream created by this runtime
func.func @invalid_handle() {
  %c8 = arith.constant 8 : i64
  %bogus = llvm.inttoptr %c8 : i64 to !llvm.ptr
  call @mgpuStreamDestroy(%bogus) : (!llvm.ptr) -> ()
  return
}

// The null stream is the default stream: work can be enqueued on it, events
// recorded on it and waited for by it, and the host can synchronize with it.
// DEFAULT: gpu-check: live streams 0, events 0, allocations 0
// DEFAULT: gpu-check: 0 violation(s)
// The default stream's work has a track of its own, after the one stream's.
// TRACEDEFAULT-DAG: "tid":2,"args":{"name":"default stream"}
// TRACEDEFAULT-DAG: {"name":"memset32","ph":"X","pid":1,"tid":2,
func.func @default_stream() {
  %c0 = arith.constant 0 : i8
  %c16 = arith.constant 16 : i64
  %c4 = arith.constant 4 : i64
  %v = arith.constant 7 : i32
  %null = llvm.mlir.zero : !llvm.ptr
  %s = call @mgpuStreamCreate() : () -> !llvm.ptr
  %m = call @mgpuMemAlloc(%c16, %null, %c0) : (i64, !llvm.ptr, i8) -> !llvm.ptr
  call @mgpuMemset32(%m, %v, %c4, %null) : (!llvm.ptr, i32, i64, !llvm.ptr) -> ()
  %e = call @mgpuEventCreate() : () -> !llvm.ptr
  call @mgpuEventRecord(%e, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuStreamWaitEvent(%s, %e) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
  call @mgpuStreamSynchronize(%null) : (!llvm.ptr) -> ()
  call @mgpuMemFree(%m, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  return
}

// The default stream is never created, so it must not be destroyed.
// DESTROYDEFAULT: gpu-check: error: destroy-default-stream: mgpuStreamDestroy given the null (default) stream
func.func @destroy_default_stream() {
  %null = llvm.mlir.zero : !llvm.ptr
  call @mgpuStreamDestroy(%null) : (!llvm.ptr) -> ()
  return
}

// LEAK: gpu-check: error: leak: stream #2 never destroyed
// LEAK: gpu-check: error: leak: event #1 never destroyed
// LEAK: gpu-check: live streams 1, events 1, allocations 0
// LEAK: gpu-check: violations leak 2
// LEAKREPORT: gpu-check: leak: stream #2 never destroyed
// LEAKREPORT: gpu-check: 0 violation(s)
func.func @leak() {
  %s0 = call @mgpuStreamCreate() : () -> !llvm.ptr
  %s1 = call @mgpuStreamCreate() : () -> !llvm.ptr
  %e = call @mgpuEventCreate() : () -> !llvm.ptr
  call @mgpuStreamDestroy(%s0) : (!llvm.ptr) -> ()
  return
}
