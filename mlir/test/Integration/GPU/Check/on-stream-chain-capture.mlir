// A function that runs on its caller's stream, written with a loop and a
// branch of kernels in its gpu.on_stream body and made async by
// -gpu-async-region's single chain (the default), captured into a graph. The
// body is split at the loop and the branch, so the lowered function neither
// synchronizes the host nor creates a stream or event during the capture
// (the pools are filled by a first, direct call). The checking runtime's
// capture mode finds 0 violations.

// REQUIRES: host-supports-nvptx
// RUN: mlir-opt %s -gpu-async-region \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=isa" > %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=LOWERED
// RUN: mlir-runner %t.mlir --entry-point-result=void \
// RUN:   --shared-libs=%mlir_gpu_check_runtime \
// RUN:   --shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --implicit-check-not="gpu-check: error"

// LOWERED-LABEL: llvm.func @step(
// LOWERED-NOT:     Synchronize
// LOWERED-NOT:     mgpuMemAlloc
// LOWERED:         llvm.call @mgpuStreamWaitEvent
// LOWERED-NOT:     Synchronize
// LOWERED-NOT:     mgpuMemFree
// LOWERED:         llvm.return

// The pools' counts after the direct call and after the capture: nothing is
// created during the capture.
// CHECK: gpu-pool: streams created [[S:[0-9]+]], acquired {{[0-9]+}}, peak live {{[0-9]+}}; events created [[E:[0-9]+]], acquired
// CHECK-NEXT: gpu-pool: streams created [[S]], acquired {{[0-9]+}}, peak live {{[0-9]+}}; events created [[E]], acquired
// CHECK: gpu-check: calls mgpuGraphLaunch 3
// CHECK: gpu-check: calls mgpuStreamBeginCapture 1
// CHECK: gpu-check: live streams 0, events 0, allocations 0
// CHECK: gpu-check: 0 violation(s)

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // a[i] += 1
    gpu.func @inc(%a : memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      %x = memref.load %a[%i] : memref<16xf32>
      %y = arith.addf %x, %one : f32
      memref.store %y, %a[%i] : memref<16xf32>
      gpu.return
    }
  }

  llvm.func @mgpuStreamCreate() -> !llvm.ptr
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamBeginCapture(!llvm.ptr)
  llvm.func @mgpuStreamEndCapture(!llvm.ptr) -> !llvm.ptr
  llvm.func @mgpuGraphLaunch(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuGraphDestroy(!llvm.ptr)
  llvm.func @mgpuPoolPrintStats()

  // Written as synchronous code in a region on the caller's stream %s: a
  // kernel, a loop of kernels and a branch with a kernel.
  func.func @step(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                  %b : memref<16xf32> {llvm.noalias}, %p : i1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c16 = arith.constant 16 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%entry: !gpu.async.token):
      gpu.launch_func @kernels::@inc blocks in (%c1, %c1, %c1)
          threads in (%c16, %c1, %c1) args(%a : memref<16xf32>)
      scf.for %i = %c0 to %c3 step %c1 {
        gpu.launch_func @kernels::@inc blocks in (%c1, %c1, %c1)
            threads in (%c16, %c1, %c1) args(%a : memref<16xf32>)
        gpu.launch_func @kernels::@inc blocks in (%c1, %c1, %c1)
            threads in (%c16, %c1, %c1) args(%b : memref<16xf32>)
      }
      scf.if %p {
        gpu.launch_func @kernels::@inc blocks in (%c1, %c1, %c1)
            threads in (%c16, %c1, %c1) args(%b : memref<16xf32>)
      }
      gpu.on_stream.yield
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %true = arith.constant true
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    %a = gpu.alloc host_shared () : memref<16xf32>
    %b = gpu.alloc host_shared () : memref<16xf32>
    // A direct call: fills the pools.
    call @step(%s, %a, %b, %true)
        : (!llvm.ptr, memref<16xf32>, memref<16xf32>, i1) -> ()
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
    llvm.call @mgpuPoolPrintStats() : () -> ()
    llvm.call @mgpuStreamBeginCapture(%s) : (!llvm.ptr) -> ()
    call @step(%s, %a, %b, %true)
        : (!llvm.ptr, memref<16xf32>, memref<16xf32>, i1) -> ()
    %graph = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
    llvm.call @mgpuPoolPrintStats() : () -> ()
    scf.for %i = %c0 to %c3 step %c1 {
      llvm.call @mgpuGraphLaunch(%graph, %s) : (!llvm.ptr, !llvm.ptr) -> ()
    }
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
    llvm.call @mgpuGraphDestroy(%graph) : (!llvm.ptr) -> ()
    gpu.dealloc %a : memref<16xf32>
    gpu.dealloc %b : memref<16xf32>
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
    return
  }
}
