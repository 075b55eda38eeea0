// A function on its caller's stream that allocates a scratch buffer in its
// gpu.on_stream body and frees it there, made async by -gpu-async-region in
// both modes and captured into a graph. The allocation and the free get a
// stream, so the wrappers make them in stream order: during the capture they
// are the graph's allocation and free nodes, which the checking runtime's
// capture mode accepts (a synchronous allocation or free is forbidden in a
// capture, and a graph that keeps memory it allocated cannot be launched
// again). The pools are filled by a first, direct call.

// REQUIRES: host-supports-nvptx
// RUN: mlir-opt %s -gpu-async-region \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=isa" > %t.chain.mlir
// RUN: FileCheck %s --input-file=%t.chain.mlir --check-prefix=LOWERED
// RUN: mlir-runner %t.chain.mlir --entry-point-result=void \
// RUN:   --shared-libs=%mlir_gpu_check_runtime \
// RUN:   --shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --implicit-check-not="gpu-check: error"
// RUN: mlir-opt %s -gpu-async-region="max-streams=0" \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=isa" > %t.deps.mlir
// RUN: FileCheck %s --input-file=%t.deps.mlir --check-prefix=LOWERED
// RUN: mlir-runner %t.deps.mlir --entry-point-result=void \
// RUN:   --shared-libs=%mlir_gpu_check_runtime \
// RUN:   --shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --implicit-check-not="gpu-check: error"

// The allocation and the free are given a stream, and nothing synchronizes
// the host.
// LOWERED-LABEL: llvm.func @step(
// LOWERED-NOT:     Synchronize
// LOWERED:         %[[ZERO:.*]] = llvm.mlir.zero : !llvm.ptr
// LOWERED-NOT:     Synchronize
// LOWERED-NOT:     llvm.call @mgpuMemAlloc(%{{.*}}, %[[ZERO]],
// LOWERED:         llvm.call @mgpuMemAlloc(
// LOWERED-NOT:     Synchronize
// LOWERED-NOT:     llvm.call @mgpuMemFree(%{{.*}}, %[[ZERO]])
// LOWERED:         llvm.call @mgpuMemFree(
// LOWERED-NOT:     Synchronize
// LOWERED:         llvm.return

// The pools' counts after the direct call and after the capture: nothing is
// created during the capture. The graph frees what it allocates, so it is
// launched three times, and no allocation is left. Allocations and frees:
// one in each call of @step (the graph's are not calls) and @main's.
// CHECK: gpu-pool: streams created [[S:[0-9]+]], acquired {{[0-9]+}}, peak live {{[0-9]+}}; events created [[E:[0-9]+]], acquired
// CHECK-NEXT: gpu-pool: streams created [[S]], acquired {{[0-9]+}}, peak live {{[0-9]+}}; events created [[E]], acquired
// CHECK: gpu-check: calls mgpuGraphLaunch 3
// CHECK: gpu-check: calls mgpuMemAlloc 3
// CHECK: gpu-check: calls mgpuMemFree 3
// CHECK: gpu-check: calls mgpuStreamBeginCapture 1
// CHECK: gpu-check: live streams 0, events 0, allocations 0
// CHECK: gpu-check: 0 violation(s)

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // dst[i] = src[i] + 1.
    gpu.func @add_one(%dst : memref<16xi32>, %src : memref<16xi32>) kernel {
      %i = gpu.thread_id x
      %one = arith.constant 1 : i32
      %x = memref.load %src[%i] : memref<16xi32>
      %y = arith.addi %x, %one : i32
      memref.store %y, %dst[%i] : memref<16xi32>
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

  // a += 2 through a scratch buffer allocated and freed in the body.
  func.func @step(%s : !llvm.ptr, %a : memref<16xi32>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%entry: !gpu.async.token):
      %tmp = gpu.alloc () : memref<16xi32>
      gpu.launch_func @kernels::@add_one blocks in (%c1, %c1, %c1)
          threads in (%c16, %c1, %c1)
          args(%tmp : memref<16xi32>, %a : memref<16xi32>)
      gpu.launch_func @kernels::@add_one blocks in (%c1, %c1, %c1)
          threads in (%c16, %c1, %c1)
          args(%a : memref<16xi32>, %tmp : memref<16xi32>)
      gpu.dealloc %tmp : memref<16xi32>
      gpu.on_stream.yield
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    %a = gpu.alloc host_shared () : memref<16xi32>
    // A direct call: fills the pools.
    call @step(%s, %a) : (!llvm.ptr, memref<16xi32>) -> ()
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
    llvm.call @mgpuPoolPrintStats() : () -> ()
    llvm.call @mgpuStreamBeginCapture(%s) : (!llvm.ptr) -> ()
    call @step(%s, %a) : (!llvm.ptr, memref<16xi32>) -> ()
    %graph = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
    llvm.call @mgpuPoolPrintStats() : () -> ()
    scf.for %i = %c0 to %c3 step %c1 {
      llvm.call @mgpuGraphLaunch(%graph, %s) : (!llvm.ptr, !llvm.ptr) -> ()
    }
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
    llvm.call @mgpuGraphDestroy(%graph) : (!llvm.ptr) -> ()
    gpu.dealloc %a : memref<16xi32>
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
    return
  }
}
