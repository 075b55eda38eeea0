// Runs the host code that -gpu-to-llvm makes of an async program (two
// streams joined by multi-dependency ops, token-less ops, a kernel launch)
// with the checking runtime, without a GPU: copies and memsets really
// happen, the kernel launch is recorded, and the runtime checks the stream
// and event handles: a leak or any misuse fails the run.

// REQUIRES: host-supports-nvptx
// RUN: mlir-opt %s -gpu-lower-to-nvvm-pipeline="cubin-format=isa" \
// RUN: | env MLIR_GPU_CHECK_VERBOSE=1 \
// RUN:   mlir-runner --entry-point-result=void \
// RUN:   --shared-libs=%mlir_gpu_check_runtime \
// RUN:   --shared-libs=%mlir_runner_utils 2>&1 \
// RUN: | FileCheck %s --implicit-check-not="gpu-check: error"

// CHECK-DAG: gpu-check: op {{[0-9]+}}: launch kernel on stream [[S:[0-9]+]]
// CHECK-DAG: gpu-check: op {{[0-9]+}}: memset32 on stream [[S1:[0-9]+]]
// CHECK-DAG: gpu-check: op {{[0-9]+}}: memcpy on the default stream
// CHECK-DAG: gpu-check: op {{[0-9]+}}: free on the host
// CHECK-DAG: [2,  2,  2,  2,  2,  2,  2,  2]
// CHECK-DAG: [3,  3,  3,  3,  3,  3,  3,  3]
// CHECK-DAG: gpu-check: calls mgpuLaunchKernel 1
// CHECK-DAG: gpu-check: calls mgpuEventRecord 1
// CHECK-DAG: gpu-check: calls mgpuStreamWaitEvent 1
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
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %three = arith.constant 3.0 : f32
    %host = memref.alloc() : memref<8xf32>
    %host_cast = memref.cast %host : memref<8xf32> to memref<*xf32>

    %s0 = gpu.wait async
    %a, %ta = gpu.alloc async [%s0] () : memref<8xf32>
    %tma = gpu.memset async [%ta] %a, %one : memref<8xf32>, f32
    %s1 = gpu.wait async
    %b, %tb = gpu.alloc async [%s1] () : memref<8xf32>
    %tmb = gpu.memset async [%tb] %b, %two : memref<8xf32>, f32
    // Join: runs on the first stream, waits for an event of the second.
    %tc = gpu.memcpy async [%tma, %tmb] %a, %b : memref<8xf32>, memref<8xf32>
    %tk = gpu.launch_func async [%tc] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<8xf32>)
    %td = gpu.memcpy async [%tk] %host, %a : memref<8xf32>, memref<8xf32>
    gpu.wait [%td]
    call @printMemrefF32(%host_cast) : (memref<*xf32>) -> ()

    // Token-less forms: one with a dependency runs on the dependency's
    // stream, one without on the default stream; the host waits for both.
    gpu.memset [%tmb] %b, %three : memref<8xf32>, f32
    gpu.memcpy %host, %b : memref<8xf32>, memref<8xf32>
    call @printMemrefF32(%host_cast) : (memref<*xf32>) -> ()
    gpu.dealloc %a : memref<8xf32>
    gpu.dealloc %b : memref<8xf32>
    memref.dealloc %host : memref<8xf32>
    return
  }

  func.func private @printMemrefF32(memref<*xf32>)
}
