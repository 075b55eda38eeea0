// The stream and event pools of the GPU runtimes, in the checking runtime:
// creates acquire, destroys release, and a stream or event is created for
// real only when none is free. The programs call the runtime directly, the
// way lowered code does.

// RUN: mlir-opt %s -convert-func-to-llvm -convert-arith-to-llvm \
// RUN:   -reconcile-unrealized-casts > %t.mlir
// DEFINE: %{run} = mlir-runner %t.mlir --entry-point-result=void \
// DEFINE:   --shared-libs=%mlir_gpu_check_runtime

// RUN: %{run} -e reuse 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REUSE --implicit-check-not="gpu-check: error"
// RUN: %{run} -e reserve 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RESERVE --implicit-check-not="gpu-check: error"
// RUN: not %{run} -e use_after_release 2>&1 | FileCheck %s --check-prefix=UAR

func.func private @mgpuStreamCreate() -> !llvm.ptr
func.func private @mgpuStreamDestroy(!llvm.ptr)
func.func private @mgpuStreamSynchronize(!llvm.ptr)
func.func private @mgpuStreamPoolReserve(i32)
func.func private @mgpuEventCreate() -> !llvm.ptr
func.func private @mgpuEventDestroy(!llvm.ptr)
func.func private @mgpuEventPoolReserve(i32)
func.func private @mgpuPoolPrintStats()

// Four streams acquired, at most two live at once: two created. The same for
// events.
// REUSE: gpu-pool: streams created 2, acquired 4, peak live 2; events created 2, acquired 4, peak live 2
// REUSE: gpu-check: report (exit)
// REUSE: gpu-check: live streams 0, events 0, allocations 0
// REUSE-NEXT: gpu-pool: streams created 2, acquired 4, peak live 2; events created 2, acquired 4, peak live 2
// REUSE: gpu-check: 0 violation(s)
func.func @reuse() {
  %s0 = call @mgpuStreamCreate() : () -> !llvm.ptr
  %s1 = call @mgpuStreamCreate() : () -> !llvm.ptr
  call @mgpuStreamDestroy(%s0) : (!llvm.ptr) -> ()
  call @mgpuStreamDestroy(%s1) : (!llvm.ptr) -> ()
  %s2 = call @mgpuStreamCreate() : () -> !llvm.ptr
  call @mgpuStreamDestroy(%s2) : (!llvm.ptr) -> ()
  %s3 = call @mgpuStreamCreate() : () -> !llvm.ptr
  call @mgpuStreamDestroy(%s3) : (!llvm.ptr) -> ()
  %e0 = call @mgpuEventCreate() : () -> !llvm.ptr
  %e1 = call @mgpuEventCreate() : () -> !llvm.ptr
  call @mgpuEventDestroy(%e0) : (!llvm.ptr) -> ()
  %e2 = call @mgpuEventCreate() : () -> !llvm.ptr
  call @mgpuEventDestroy(%e1) : (!llvm.ptr) -> ()
  call @mgpuEventDestroy(%e2) : (!llvm.ptr) -> ()
  %e3 = call @mgpuEventCreate() : () -> !llvm.ptr
  call @mgpuEventDestroy(%e3) : (!llvm.ptr) -> ()
  call @mgpuPoolPrintStats() : () -> ()
  return
}

// Reserved ahead, three streams and two events are acquired without a
// creation; the fourth stream is created. A reserve below what is free
// creates nothing.
// RESERVE: gpu-pool: streams created 3, acquired 0, peak live 0; events created 2, acquired 0, peak live 0
// RESERVE: gpu-pool: streams created 3, acquired 3, peak live 3; events created 2, acquired 2, peak live 2
// RESERVE: gpu-pool: streams created 4, acquired 4, peak live 4; events created 2, acquired 2, peak live 2
// RESERVE: gpu-check: 0 violation(s)
func.func @reserve() {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  call @mgpuStreamPoolReserve(%c3) : (i32) -> ()
  call @mgpuStreamPoolReserve(%c1) : (i32) -> ()
  call @mgpuEventPoolReserve(%c2) : (i32) -> ()
  call @mgpuPoolPrintStats() : () -> ()
  %s0 = call @mgpuStreamCreate() : () -> !llvm.ptr
  %s1 = call @mgpuStreamCreate() : () -> !llvm.ptr
  %s2 = call @mgpuStreamCreate() : () -> !llvm.ptr
  %e0 = call @mgpuEventCreate() : () -> !llvm.ptr
  %e1 = call @mgpuEventCreate() : () -> !llvm.ptr
  call @mgpuPoolPrintStats() : () -> ()
  %s3 = call @mgpuStreamCreate() : () -> !llvm.ptr
  call @mgpuPoolPrintStats() : () -> ()
  call @mgpuStreamDestroy(%s0) : (!llvm.ptr) -> ()
  call @mgpuStreamDestroy(%s1) : (!llvm.ptr) -> ()
  call @mgpuStreamDestroy(%s2) : (!llvm.ptr) -> ()
  call @mgpuStreamDestroy(%s3) : (!llvm.ptr) -> ()
  call @mgpuEventDestroy(%e0) : (!llvm.ptr) -> ()
  call @mgpuEventDestroy(%e1) : (!llvm.ptr) -> ()
  return
}

// A stream used after its release is reported even though the pool handed
// its stream out again: each create returns a new handle.
// UAR: gpu-check: error: use-after-destroy: mgpuStreamSynchronize given destroyed stream #1
// UAR: gpu-pool: streams created 1, acquired 2, peak live 1
// UAR: gpu-check: 1 violation(s)
func.func @use_after_release() {
  %s0 = call @mgpuStreamCreate() : () -> !llvm.ptr
  call @mgpuStreamDestroy(%s0) : (!llvm.ptr) -> ()
  %s1 = call @mgpuStreamCreate() : () -> !llvm.ptr
  call @mgpuStreamSynchronize(%s0) : (!llvm.ptr) -> ()
  call @mgpuStreamDestroy(%s1) : (!llvm.ptr) -> ()
  return
}
