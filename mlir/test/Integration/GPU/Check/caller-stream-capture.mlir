// A function that runs on its caller's stream, captured into a graph: with
// the pools filled by a first, direct call, the lowered function neither
// synchronizes the host nor creates a stream or event for real, and all its
// work is joined into the caller's stream. The checking runtime's capture
// mode finds 0 violations.

// REQUIRES: host-supports-nvptx
// RUN: mlir-opt %s -gpu-async-region="max-streams=0" \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=isa" > %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=LOWERED
// RUN: mlir-runner %t.mlir --entry-point-result=void \
// RUN:   --shared-libs=%mlir_gpu_check_runtime \
// RUN:   --shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --implicit-check-not="gpu-check: error"

// The lowered @step: an event recorded on the caller's stream, waited for
// by a stream of the lowering's own that runs the first kernel; the second
// kernel on another stream forked from that one before the first kernel;
// the caller's stream waits for both. No host synchronization, no
// synchronous allocation.
// LOWERED-LABEL: llvm.func @step(
// LOWERED-SAME:    %[[S:arg0]]: !llvm.ptr
// LOWERED-NOT:     Synchronize
// LOWERED-NOT:     mgpuMemAlloc
// LOWERED:         %[[E0:.*]] = llvm.call @mgpuEventCreate()
// LOWERED-NEXT:    llvm.call @mgpuEventRecord(%[[E0]], %[[S]])
// LOWERED-NEXT:    %[[A:.*]] = llvm.call @mgpuStreamCreate()
// LOWERED-NEXT:    llvm.call @mgpuStreamWaitEvent(%[[A]], %[[E0]])
// LOWERED-NOT:     Synchronize
// LOWERED:         gpu.launch_func <%[[A]] : !llvm.ptr> @kernels::@inc
// LOWERED-NEXT:    %[[B:.*]] = llvm.call @mgpuStreamCreate()
// LOWERED-NOT:     Synchronize
// LOWERED:         gpu.launch_func <%[[B]] : !llvm.ptr> @kernels::@inc
// LOWERED-NOT:     Synchronize
// LOWERED:         llvm.call @mgpuStreamWaitEvent(%[[S]], %{{.*}})
// LOWERED-NOT:     Synchronize
// LOWERED:         llvm.call @mgpuStreamWaitEvent(%[[S]], %{{.*}})
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

  // Written as synchronous code in a region on the caller's stream %s: the
  // two launches touch memory that does not alias, so -gpu-async-region runs
  // them concurrently, and the region hands both back to %s.
  func.func @step(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                  %b : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%entry: !gpu.async.token):
      gpu.launch_func @kernels::@inc blocks in (%c1, %c1, %c1)
          threads in (%c16, %c1, %c1) args(%a : memref<16xf32>)
      gpu.launch_func @kernels::@inc blocks in (%c1, %c1, %c1)
          threads in (%c16, %c1, %c1) args(%b : memref<16xf32>)
      gpu.on_stream.yield
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    %a = gpu.alloc host_shared () : memref<16xf32>
    %b = gpu.alloc host_shared () : memref<16xf32>
    // A direct call: fills the pools.
    call @step(%s, %a, %b)
        : (!llvm.ptr, memref<16xf32>, memref<16xf32>) -> ()
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
    llvm.call @mgpuPoolPrintStats() : () -> ()
    llvm.call @mgpuStreamBeginCapture(%s) : (!llvm.ptr) -> ()
    call @step(%s, %a, %b)
        : (!llvm.ptr, memref<16xf32>, memref<16xf32>) -> ()
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
