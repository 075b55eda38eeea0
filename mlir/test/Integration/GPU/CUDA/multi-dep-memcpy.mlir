// RUN: mlir-opt %s \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=%gpu_compilation_format" \
// RUN: | mlir-runner \
// RUN:   --shared-libs=%mlir_cuda_runtime \
// RUN:   --shared-libs=%mlir_runner_utils \
// RUN:   --entry-point-result=void \
// RUN: | FileCheck %s

// A copy with two async dependencies on two streams: it must wait for both
// memsets. Were it to run after the memset of its destination only, or
// before that memset, the result would hold 1.0 instead of 2.0.

// CHECK: [2, 2, 2, 2, 2, 2, 2, 2]
// CHECK: [2, 2, 2, 2, 2, 2, 2, 2]
// CHECK: [1, 1, 1, 1, 1, 1, 1, 1]
func.func @main() {
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %host = memref.alloc() : memref<8xf32>
  %host_cast = memref.cast %host : memref<8xf32> to memref<*xf32>
  gpu.host_register %host_cast : memref<*xf32>

  %s0 = gpu.wait async
  %a, %ta = gpu.alloc async [%s0] () : memref<8xf32>
  %tma = gpu.memset async [%ta] %a, %one : memref<8xf32>, f32
  %s1 = gpu.wait async
  %b, %tb = gpu.alloc async [%s1] () : memref<8xf32>
  %tmb = gpu.memset async [%tb] %b, %two : memref<8xf32>, f32
  // B -> A, after both memsets.
  %tc = gpu.memcpy async [%tma, %tmb] %a, %b : memref<8xf32>, memref<8xf32>
  %td = gpu.memcpy async [%tc] %host, %a : memref<8xf32>, memref<8xf32>
  gpu.wait [%td]
  call @printMemrefF32(%host_cast) : (memref<*xf32>) -> ()

  // The same through the token-less forms, with dependencies.
  %s2 = gpu.wait async
  %tmc = gpu.memset async [%s2] %a, %one : memref<8xf32>, f32
  gpu.memcpy [%tmc, %tmb] %host, %b : memref<8xf32>, memref<8xf32>
  call @printMemrefF32(%host_cast) : (memref<*xf32>) -> ()
  gpu.wait [%tmc]

  // And without dependencies: on the null stream, which the host then
  // synchronizes with. The CUDA runtime wrappers make a context current for
  // that; without one, the memset and the copy fail and the host keeps 2.0.
  gpu.memset %b, %one : memref<8xf32>, f32
  gpu.memcpy %host, %b : memref<8xf32>, memref<8xf32>
  call @printMemrefF32(%host_cast) : (memref<*xf32>) -> ()
  gpu.dealloc %a : memref<8xf32>
  gpu.dealloc %b : memref<8xf32>
  gpu.host_unregister %host_cast : memref<*xf32>
  memref.dealloc %host : memref<8xf32>
  return
}

func.func private @printMemrefF32(memref<*xf32>)
