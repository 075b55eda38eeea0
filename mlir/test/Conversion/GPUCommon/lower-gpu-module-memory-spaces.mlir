// RUN: mlir-opt %s --gpu-to-llvm | FileCheck %s

// Device code in GPU memory spaces stays for the device pipeline: its types
// have no host address space, but the pass lowers the host code and succeeds.

// CHECK: gpu.module @kernels
// CHECK: func.func @device_helper
// CHECK: memref<4xf32, #gpu.address_space<global>>
gpu.module @kernels {
  func.func @device_helper(%w : memref<4xf32, #gpu.address_space<workgroup>>) {
    return
  }
  gpu.func @kernel(%arg0 : memref<4xf32, #gpu.address_space<global>>,
                   %i : index)
      workgroup(%w : memref<4xf32, #gpu.address_space<workgroup>>) kernel {
    %v = memref.load %arg0[%i] : memref<4xf32, #gpu.address_space<global>>
    memref.store %v, %w[%i] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// CHECK: llvm.func @host
func.func @host(%m : memref<4xf32>) {
  return
}
