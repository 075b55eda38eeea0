// RUN: mlir-opt %s -split-input-file -test-gpu-async-builders | FileCheck %s
// RUN: mlir-opt %s -split-input-file -test-gpu-async-builders -gpu-kernel-outlining | FileCheck %s --check-prefix=OUTLINED

// gpu.launch_func rebuilt by LaunchFuncOp's builder with an async token type
// and two dependencies.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%arg0 : memref<?xf32>) kernel {
      gpu.return
    }
  }

  // CHECK-LABEL: func @launch_func
  //  CHECK-SAME: (%[[MEM:.*]]: memref<?xf32>, %[[SZ:.*]]: index)
  func.func @launch_func(%mem : memref<?xf32>, %sz : index) {
    // CHECK: %[[D0:.*]] = gpu.wait async
    // CHECK: %[[D1:.*]] = gpu.wait async
    // CHECK: %[[T:.*]] = gpu.launch_func async [%[[D0]], %[[D1]]] @kernels::@kernel
    //  CHECK-SAME: blocks in (%[[SZ]], %[[SZ]], %[[SZ]]) threads in (%[[SZ]], %[[SZ]], %[[SZ]])
    //  CHECK-SAME: args(%[[MEM]] : memref<?xf32>)
    // CHECK: gpu.wait [%[[T]]]
    // CHECK-NOT: gpu.launch_func @
    gpu.launch_func @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz)
        args(%mem : memref<?xf32>)
    return
  }

  // Ops that are already async are left alone.
  // CHECK-LABEL: func @already_async
  func.func @already_async(%mem : memref<?xf32>, %sz : index) {
    // CHECK: %[[T0:.*]] = gpu.wait async
    // CHECK-NEXT: %[[T1:.*]] = gpu.launch_func async [%[[T0]]] @kernels::@kernel
    // CHECK-NEXT: gpu.wait [%[[T1]]]
    // CHECK-NEXT: return
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz)
        args(%mem : memref<?xf32>)
    gpu.wait [%t1]
    return
  }
}

// -----

// gpu.launch rebuilt by LaunchOp's builder with an async token type and two
// dependencies; kernel outlining then turns it into an async gpu.launch_func
// that keeps both dependencies.

// CHECK-LABEL: func @launch
//  CHECK-SAME: (%[[MEM:.*]]: memref<?xf32>, %[[SZ:.*]]: index)
// OUTLINED-LABEL: func @launch
//  OUTLINED-SAME: (%[[MEM:.*]]: memref<?xf32>, %[[SZ:.*]]: index)
func.func @launch(%mem : memref<?xf32>, %sz : index) {
  // CHECK: %[[D0:.*]] = gpu.wait async
  // CHECK: %[[D1:.*]] = gpu.wait async
  // CHECK: %[[T:.*]] = gpu.launch async [%[[D0]], %[[D1]]]
  //  CHECK-SAME: blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[SZ]], %{{.*}} = %[[SZ]], %{{.*}} = %[[SZ]])
  //  CHECK-SAME: workgroup(%[[WG:.*]] : memref<32xf32, #gpu.address_space<workgroup>>)
  // CHECK: %[[V:.*]] = memref.load %[[WG]]
  // CHECK: memref.store %[[V]], %[[MEM]]
  // CHECK: gpu.terminator
  // CHECK: gpu.wait [%[[T]]]

  // OUTLINED: %[[D0:.*]] = gpu.wait async
  // OUTLINED: %[[D1:.*]] = gpu.wait async
  // OUTLINED: %[[T:.*]] = gpu.launch_func async [%[[D0]], %[[D1]]] @launch_kernel::@launch_kernel
  //  OUTLINED-SAME: args(%[[MEM]] : memref<?xf32>)
  // OUTLINED: gpu.wait [%[[T]]]
  // OUTLINED-NOT: gpu.launch blocks
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %sz, %gy = %sz, %gz = %sz)
             threads(%tx, %ty, %tz) in (%lx = %sz, %ly = %sz, %lz = %sz)
             workgroup(%wg : memref<32xf32, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %v = memref.load %wg[%c0] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %v, %mem[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}
