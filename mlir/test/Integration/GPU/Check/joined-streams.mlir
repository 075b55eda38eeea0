// The shape from the review of "Handle async in gpu.launch_func lowering":
// two launches on two streams, joined by gpu.wait async, a third launch, a
// synchronous wait. Every stream the lowering creates must be destroyed
// exactly once (this leaked two of the three streams).

// REQUIRES: host-supports-nvptx
// RUN: mlir-opt %s -gpu-lower-to-nvvm-pipeline="cubin-format=isa" \
// RUN: | mlir-runner --entry-point-result=void \
// RUN:   --shared-libs=%mlir_gpu_check_runtime 2>&1 \
// RUN: | FileCheck %s

// CHECK-DAG: gpu-check: calls mgpuStreamCreate 3
// CHECK-DAG: gpu-check: calls mgpuStreamDestroy 3
// CHECK-DAG: gpu-check: calls mgpuLaunchKernel 3
// CHECK: gpu-check: live streams 0, events 0, allocations 0
// CHECK: gpu-check: 0 violation(s)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%arg0 : memref<8xf32>) kernel {
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %m = memref.alloc() : memref<8xf32>
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%m : memref<8xf32>)
    %t2 = gpu.wait async
    %t3 = gpu.launch_func async [%t2] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%m : memref<8xf32>)
    %t4 = gpu.wait async [%t1, %t3]
    %t5 = gpu.launch_func async [%t4] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%m : memref<8xf32>)
    gpu.wait [%t5]
    memref.dealloc %m : memref<8xf32>
    return
  }
}
