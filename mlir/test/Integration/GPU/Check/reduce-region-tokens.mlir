// RUN: mlir-opt %s -gpu-to-llvm -convert-scf-to-cf -convert-to-llvm \
// RUN:   -reconcile-unrealized-casts \
// RUN: | env MLIR_GPU_CHECK_VERBOSE=1 mlir-runner --entry-point-result=void \
// RUN:   --shared-libs=%mlir_gpu_check_runtime 2>&1 \
// RUN: | FileCheck %s --implicit-check-not="gpu-check: error"

// Tokens of an scf.parallel body used in the region of its scf.reduce,
// lowered by -gpu-to-llvm before the loop is, and run with the checking
// runtime: each of the 4 iterations runs its memset on a stream that the host
// waits for before the reduction, and each run of the reduction region its
// own memset on a new stream. Every stream is destroyed exactly once.

// CHECK: gpu-check: report (exit)
// CHECK-DAG: gpu-check: calls mgpuMemset32 8
// CHECK-DAG: gpu-check: calls mgpuStreamCreate 8
// CHECK-DAG: gpu-check: calls mgpuStreamDestroy 8
// CHECK: gpu-check: live streams 0, events 0, allocations 0
// CHECK: gpu-check: 0 violation(s)
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  %init = arith.constant 0.0 : f32
  %buf = gpu.alloc () : memref<16xf32>
  %r = scf.parallel (%i) = (%c0) to (%c4) step (%c1) init (%init) -> f32 {
    %t0 = gpu.wait async
    %t1 = gpu.memset async [%t0] %buf, %f : memref<16xf32>, f32
    scf.reduce(%f : f32) {
    ^bb0(%a : f32, %b : f32):
      gpu.wait [%t1]
      %m = gpu.memset async [%t1] %buf, %f : memref<16xf32>, f32
      gpu.wait [%m]
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  gpu.dealloc %buf : memref<16xf32>
  return
}
