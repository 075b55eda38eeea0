// RUN: mlir-opt %s --gpu-to-llvm -split-input-file | FileCheck %s

module attributes {gpu.container_module} {
  // CHECK-LABEL: llvm.func @main
  // CHECK-SAME: %[[size:.*]]: i64
  func.func @main(%size : index) {
    // CHECK: %[[stream:.*]] = llvm.call @mgpuStreamCreate()
    %0 = gpu.wait async
    // CHECK: %[[gep:.*]] = llvm.getelementptr {{.*}}[%[[size]]]
    // CHECK: %[[size_bytes:.*]] = llvm.ptrtoint %[[gep]]
    // CHECK: %[[isHostShared:.*]] = llvm.mlir.constant 
    // CHECK: llvm.call @mgpuMemAlloc(%[[size_bytes]], %[[stream]], %[[isHostShared]])
    %1, %2 = gpu.alloc async [%0] (%size) : memref<?xf32>
    // CHECK: %[[float_ptr:.*]] = llvm.extractvalue {{.*}}[0]
    // CHECK: llvm.call @mgpuMemFree(%[[float_ptr]], %[[stream]])
    %3 = gpu.dealloc async [%2] %1 : memref<?xf32>
    // CHECK: llvm.call @mgpuStreamSynchronize(%[[stream]])
    // CHECK: llvm.call @mgpuStreamDestroy(%[[stream]])
    gpu.wait [%3]
    return
  }

  // CHECK-LABEL: llvm.func @alloc_dealloc_sync
  // CHECK-SAME: %[[size:.*]]: i64
  func.func @alloc_dealloc_sync(%size : index) {
    // CHECK: %[[gep:.*]] = llvm.getelementptr {{.*}}[%[[size]]]
    // CHECK: %[[size_bytes:.*]] = llvm.ptrtoint %[[gep]]
    // CHECK: %[[nullptr:.*]] = llvm.mlir.zero
    // CHECK: %[[isHostShared:.*]] = llvm.mlir.constant
    // CHECK: llvm.call @mgpuMemAlloc(%[[size_bytes]], %[[nullptr]], %[[isHostShared]])
    %0 = gpu.alloc (%size) : memref<?xf32>
    // CHECK: %[[float_ptr:.*]] = llvm.extractvalue {{.*}}[0]
    // CHECK: %[[nullptr2:.*]] = llvm.mlir.zero
    // CHECK: llvm.call @mgpuMemFree(%[[float_ptr]], %[[nullptr2]])
    gpu.dealloc %0 : memref<?xf32>
    return
  }

  // A memref outside the default memory space: mgpuMemAlloc returns and
  // mgpuMemFree takes a generic pointer.
  // CHECK-LABEL: llvm.func @alloc_dealloc_memory_space
  func.func @alloc_dealloc_memory_space(%size : index) {
    // CHECK: %[[ptr:.*]] = llvm.call @mgpuMemAlloc
    // CHECK: llvm.addrspacecast %[[ptr]] : !llvm.ptr to !llvm.ptr<1>
    %0 = gpu.alloc (%size) : memref<?xf32, 1>
    // CHECK: %[[float_ptr:.*]] = llvm.extractvalue {{.*}}[0] : !llvm.struct<(ptr<1>, ptr<1>
    // CHECK: %[[generic_ptr:.*]] = llvm.addrspacecast %[[float_ptr]] : !llvm.ptr<1> to !llvm.ptr
    // CHECK: llvm.call @mgpuMemFree(%[[generic_ptr]], %{{.*}})
    gpu.dealloc %0 : memref<?xf32, 1>
    return
  }

  // CHECK-LABEL: llvm.func @alloc_sync
  // CHECK-SAME: %[[size:.*]]: i64
  func.func @alloc_sync(%size : index) {
    // CHECK: %[[gep:.*]] = llvm.getelementptr {{.*}}[%[[size]]]
    // CHECK: %[[size_bytes:.*]] = llvm.ptrtoint %[[gep]]
    // CHECK: %[[nullptr:.*]] = llvm.mlir.zero
    // CHECK: %[[isHostShared:.*]] = llvm.mlir.constant 
    // CHECK: llvm.call @mgpuMemAlloc(%[[size_bytes]], %[[nullptr]], %[[isHostShared]])
    %0 = gpu.alloc host_shared (%size) : memref<?xf32>
    // CHECK: %[[stream:.*]] = llvm.call @mgpuStreamCreate()
    %1 = gpu.wait async
    %2 = gpu.dealloc async [%1] %0 : memref<?xf32>
    // CHECK: llvm.call @mgpuStreamSynchronize(%[[stream]])
    // CHECK: llvm.call @mgpuStreamDestroy(%[[stream]])
    gpu.wait [%2]
    return
  }
}

// -----

// Any number of async dependencies.
module attributes {gpu.container_module} {
  // Several dependencies are joined on the stream of the first one.
  // CHECK-LABEL: func @multi_dep
  func.func @multi_dep(%size : index) {
    // CHECK: %[[S1:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[S2:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[E2:.*]] = llvm.call @mgpuEventCreate()
    // CHECK: llvm.call @mgpuEventRecord(%[[E2]], %[[S2]])
    %t1 = gpu.wait async
    %t2 = gpu.wait async
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[S1]], %[[E2]])
    // CHECK: llvm.call @mgpuMemAlloc({{.*}}, %[[S1]], {{.*}})
    %buf, %t3 = gpu.alloc async [%t1, %t2] (%size) : memref<?xf32>
    // CHECK-NOT: llvm.call @mgpuStreamWaitEvent
    // CHECK: llvm.call @mgpuMemFree({{.*}}, %[[S1]])
    %t4 = gpu.dealloc async [%t3, %t1] %buf : memref<?xf32>
    gpu.wait [%t4]
    return
  }
}
