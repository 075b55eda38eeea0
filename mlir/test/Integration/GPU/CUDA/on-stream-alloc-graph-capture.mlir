// GPU code on its caller's stream that allocates a scratch buffer in its
// gpu.on_stream body and frees it there, run directly and captured into a
// CUDA graph. The allocation and the free get a stream, so the wrappers make
// them in stream order (cuMemAllocAsync, cuMemFreeAsync): during the capture
// they become the graph's allocation and free nodes. A synchronous
// cuMemAlloc would be refused during the capture, which would then fail,
// and the replays would compute nothing. Each call adds 2 to a through the
// scratch buffer; the graph is replayed 10 times after a is cleared.
//
// RUN: mlir-opt %s -gpu-async-region \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=%gpu_compilation_format" \
// RUN: | mlir-runner \
// RUN:   --shared-libs=%mlir_cuda_runtime \
// RUN:   --shared-libs=%mlir_c_runner_utils \
// RUN:   --shared-libs=%mlir_runner_utils \
// RUN:   --entry-point-result=void \
// RUN: | FileCheck %s
// RUN: mlir-opt %s -gpu-async-region="max-streams=0" \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=%gpu_compilation_format" \
// RUN: | mlir-runner \
// RUN:   --shared-libs=%mlir_cuda_runtime \
// RUN:   --shared-libs=%mlir_c_runner_utils \
// RUN:   --shared-libs=%mlir_runner_utils \
// RUN:   --entry-point-result=void \
// RUN: | FileCheck %s

// direct:
// CHECK: {{\[2(, +2){15}\]}}
// replayed:
// CHECK: {{\[20(, +20){15}\]}}

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
  func.func private @printMemrefI32(memref<*xi32>)

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

  func.func @clear(%a : memref<16xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0 : i32
    scf.for %i = %c0 to %c16 step %c1 {
      memref.store %zero, %a[%i] : memref<16xi32>
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c10 = arith.constant 10 : index
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    %a = gpu.alloc host_shared () : memref<16xi32>
    %ua = memref.cast %a : memref<16xi32> to memref<*xi32>
    call @clear(%a) : (memref<16xi32>) -> ()
    call @step(%s, %a) : (!llvm.ptr, memref<16xi32>) -> ()
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
    call @printMemrefI32(%ua) : (memref<*xi32>) -> ()

    llvm.call @mgpuStreamBeginCapture(%s) : (!llvm.ptr) -> ()
    call @step(%s, %a) : (!llvm.ptr, memref<16xi32>) -> ()
    %graph = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
    call @clear(%a) : (memref<16xi32>) -> ()
    scf.for %i = %c0 to %c10 step %c1 {
      llvm.call @mgpuGraphLaunch(%graph, %s) : (!llvm.ptr, !llvm.ptr) -> ()
    }
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
    llvm.call @mgpuGraphDestroy(%graph) : (!llvm.ptr) -> ()
    call @printMemrefI32(%ua) : (memref<*xi32>) -> ()
    gpu.dealloc %a : memref<16xi32>
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
    return
  }
}
