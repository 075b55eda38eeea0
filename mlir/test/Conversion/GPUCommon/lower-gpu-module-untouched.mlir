// RUN: mlir-opt %s --gpu-to-llvm | FileCheck %s

// -gpu-to-llvm lowers host code only: the bodies of gpu.module ops are left
// for the device lowering, unchecked and unchanged, even where the same ops
// in host code would be rejected.

module attributes {gpu.container_module} {
  // CHECK: gpu.module @kernels
  // CHECK: gpu.func @memset_i8
  // CHECK-NEXT: gpu.memset %{{.*}}, %{{.*}} : memref<16xi8>, i8
  gpu.module @kernels {
    gpu.func @memset_i8(%m : memref<16xi8>, %v : i8) {
      gpu.memset %m, %v : memref<16xi8>, i8
      gpu.return
    }
    // Two users of one token on the host run on separate streams: the
    // second gets a gpu.wait async of its own. Not here.
    // CHECK: gpu.func @fork
    // CHECK-NEXT: %[[T0:.*]] = gpu.wait async
    // CHECK-NEXT: %[[T1:.*]] = gpu.memset async [%[[T0]]]
    // CHECK-NEXT: %[[T2:.*]] = gpu.memset async [%[[T0]]]
    // CHECK-NEXT: gpu.wait [%[[T1]], %[[T2]]]
    gpu.func @fork(%m : memref<16xi32>, %v : i32) {
      %t0 = gpu.wait async
      %t1 = gpu.memset async [%t0] %m, %v : memref<16xi32>, i32
      %t2 = gpu.memset async [%t0] %m, %v : memref<16xi32>, i32
      gpu.wait [%t1, %t2]
      gpu.return
    }
    // A gpu.conditional_execution on the host must be resolved before
    // -gpu-to-llvm; in device code it is left for the device lowering.
    // CHECK: gpu.func @conditional
    // CHECK-NEXT: gpu.conditional_execution device
    // CHECK-NEXT: gpu.barrier
    gpu.func @conditional() {
      gpu.conditional_execution device {
        gpu.barrier
        gpu.yield
      }
      gpu.return
    }
    // An unused token argument on the host gets a gpu.wait that releases
    // its event; here nothing is added (the function itself is converted
    // by the func dialect's patterns, as everywhere).
    // CHECK: llvm.func @unused_token(%{{.*}}: !llvm.ptr)
    // CHECK-NEXT: llvm.return
    func.func @unused_token(%t : !gpu.async.token) {
      return
    }
  }
}
