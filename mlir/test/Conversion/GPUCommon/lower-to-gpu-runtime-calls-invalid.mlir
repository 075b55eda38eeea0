// RUN: mlir-opt %s --gpu-to-llvm -split-input-file -verify-diagnostics
// RUN: not mlir-opt %s --gpu-to-llvm -split-input-file 2>&1 | FileCheck %s

// Host-side GPU ops that -gpu-to-llvm cannot lower make the pass fail with a
// diagnostic naming the op and the reason; none is left in the output of a
// successful run.

// CHECK: error: 'gpu.launch' op cannot be lowered to GPU runtime calls: outline it into a gpu.func first (-gpu-kernel-outlining)
func.func @launch_not_outlined(%sz : index, %mem : memref<?xf32>, %f : f32) {
  // expected-error @+1 {{'gpu.launch' op cannot be lowered to GPU runtime calls: outline it into a gpu.func first (-gpu-kernel-outlining)}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %sz, %gy = %sz, %gz = %sz)
             threads(%tx, %ty, %tz) in (%lx = %sz, %ly = %sz, %lz = %sz) {
    memref.store %f, %mem[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// CHECK: error: 'gpu.alloc' op cannot be lowered to GPU runtime calls: a host-shared allocation cannot be async
func.func @host_shared_async() -> memref<16xf32> {
  %t0 = gpu.wait async
  // expected-error @+1 {{'gpu.alloc' op cannot be lowered to GPU runtime calls: a host-shared allocation cannot be async}}
  %m, %t1 = gpu.alloc async [%t0] host_shared () : memref<16xf32>
  gpu.wait [%t1]
  return %m : memref<16xf32>
}

// -----

// CHECK: error: 'gpu.memcpy' op cannot be lowered to GPU runtime calls: memref 'memref<4x4xf32, strided<[8, 1]>>' does not have an identity layout
func.func @memcpy_strided(%dst : memref<4x4xf32, strided<[8, 1]>>,
                          %src : memref<4x4xf32, strided<[8, 1]>>) {
  // expected-error @+1 {{'gpu.memcpy' op cannot be lowered to GPU runtime calls: memref 'memref<4x4xf32, strided<[8, 1]>>' does not have an identity layout}}
  gpu.memcpy %dst, %src : memref<4x4xf32, strided<[8, 1]>>, memref<4x4xf32, strided<[8, 1]>>
  return
}

// -----

// CHECK: error: 'gpu.memset' op cannot be lowered to GPU runtime calls: the value must be a 16- or 32-bit integer or float
func.func @memset_i8(%dst : memref<16xi8>, %value : i8) {
  // expected-error @+1 {{'gpu.memset' op cannot be lowered to GPU runtime calls: the value must be a 16- or 32-bit integer or float}}
  gpu.memset %dst, %value : memref<16xi8>, i8
  return
}

// -----

// What the checks above do not foresee is still an error: the lowered ops are
// illegal after the pass, so one the patterns leave behind fails the
// conversion (here a kernel operand with no LLVM type).
// CHECK: error: failed to legalize operation 'gpu.launch_func'
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%arg0 : tensor<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @launch_tensor_operand(%sz : index, %t : tensor<4xf32>) {
    %t0 = gpu.wait async
    // expected-error @+1 {{failed to legalize operation 'gpu.launch_func'}}
    %t1 = gpu.launch_func async [%t0] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz)
        args(%t : tensor<4xf32>)
    gpu.wait [%t1]
    return
  }
}

// -----

// An unresolved gpu.conditional_execution in host code is rejected.
// CHECK: error: 'gpu.conditional_execution' op must be resolved before -gpu-to-llvm
module attributes {gpu.container_module} {
  func.func @conditional_execution(%m : memref<index>) {
    // expected-error@+1 {{'gpu.conditional_execution' op must be resolved before -gpu-to-llvm: run --gpu-resolve-conditional-execution first}}
    %val = gpu.conditional_execution device {
      %id = gpu.thread_id x
      gpu.yield %id : index
    } host {
      %c0 = arith.constant 0 : index
      gpu.yield %c0 : index
    } -> index
    memref.store %val, %m[] : memref<index>
    return
  }
}
