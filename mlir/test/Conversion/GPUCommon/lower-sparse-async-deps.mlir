// RUN: mlir-opt %s --gpu-to-llvm | FileCheck %s

// The sparse ops with any number of async dependencies, and in their
// synchronous (token-less) forms. They share the dependency handling of the
// other async ops: the first stream dependency is reused, each other one
// costs one event, a token-less op runs on a stream of its own.

module attributes {gpu.container_module} {

  // CHECK-LABEL: llvm.func @matvec_joins
  func.func @matvec_joins(%arg0: index) {
    // CHECK: %[[S0:.*]] = llvm.call @mgpuStreamCreate()
    %t0 = gpu.wait async
    %mem1, %t1 = gpu.alloc async [%t0] (%arg0) : memref<?xindex>
    // CHECK: %[[S1:.*]] = llvm.call @mgpuStreamCreate()
    %u0 = gpu.wait async
    // CHECK: llvm.call @mgpuMemAlloc({{.*}}, %[[S1]], {{.*}})
    // CHECK: %[[E1:.*]] = llvm.call @mgpuEventCreate()
    // CHECK: llvm.call @mgpuEventRecord(%[[E1]], %[[S1]])
    %mem2, %u1 = gpu.alloc async [%u0] (%arg0) : memref<?xf64>
    // CHECK: %[[S2:.*]] = llvm.call @mgpuStreamCreate()
    %v0 = gpu.wait async
    // CHECK: llvm.call @mgpuMemAlloc({{.*}}, %[[S2]], {{.*}})
    // CHECK: %[[E2:.*]] = llvm.call @mgpuEventCreate()
    // CHECK: llvm.call @mgpuEventRecord(%[[E2]], %[[S2]])
    %mem3, %v1 = gpu.alloc async [%v0] (%arg0) : memref<?xf64>
    // Three dependencies: two event waits on the first stream, no new stream.
    // CHECK-NOT: llvm.call @mgpuStreamCreate
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[S0]], %[[E1]])
    // CHECK: llvm.call @mgpuEventDestroy(%[[E1]])
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[S0]], %[[E2]])
    // CHECK: llvm.call @mgpuEventDestroy(%[[E2]])
    // CHECK: llvm.call @mgpuCreateCoo({{.*}}, %[[S0]])
    %spmat, %t2 = gpu.create_coo async [%t1, %u1, %v1] %arg0, %arg0, %arg0, %mem1, %mem1, %mem2 : memref<?xindex>, memref<?xindex>, memref<?xf64>
    // CHECK: llvm.call @mgpuCreateDnVec({{.*}}, %[[S0]])
    %dnvec, %t3 = gpu.create_dn_tensor async [%t2] %mem3, %arg0 : index into memref<?xf64>
    // CHECK: llvm.call @mgpuSpMVBufferSize({{.*}}, %[[S0]])
    %bufferSz, %t4 = gpu.spmv_buffer_size async [%t3, %t2] %spmat, %dnvec, %dnvec into f64
    // CHECK: llvm.call @mgpuSpMV({{.*}}, %[[S0]])
    %t5 = gpu.spmv async [%t4] %spmat, %dnvec, %dnvec, %mem2 : memref<?xf64> into f64
    // CHECK: llvm.call @mgpuDestroySpMat({{.*}}, %[[S0]])
    %t6 = gpu.destroy_sp_mat async [%t5] %spmat
    // CHECK: llvm.call @mgpuDestroyDnVec({{.*}}, %[[S0]])
    %t7 = gpu.destroy_dn_tensor async [%t6] %dnvec
    // CHECK: llvm.call @mgpuStreamSynchronize(%[[S0]])
    gpu.wait [%t7]
    return
  }

  // Token-less sparse ops create no stream: they run on the null (default)
  // stream, and the host waits for it after each op.
  // CHECK-LABEL: llvm.func @matvec_sync
  func.func @matvec_sync(%arg0: index, %mem1: memref<?xindex>, %mem2: memref<?xf64>) {
    // CHECK-NOT: llvm.call @mgpuStreamCreate
    // CHECK: %[[N0:.*]] = llvm.mlir.zero : !llvm.ptr
    // CHECK: %[[H:.*]] = llvm.call @mgpuCreateCoo({{.*}}, %[[N0]])
    // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[N0]])
    %spmat = gpu.create_coo %arg0, %arg0, %arg0, %mem1, %mem1, %mem2 : memref<?xindex>, memref<?xindex>, memref<?xf64>
    // CHECK: %[[N1:.*]] = llvm.mlir.zero : !llvm.ptr
    // CHECK: llvm.call @mgpuCreateDnVec({{.*}}, %[[N1]])
    // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[N1]])
    %dnvec = gpu.create_dn_tensor %mem2, %arg0 : index into memref<?xf64>
    // CHECK: %[[N2:.*]] = llvm.mlir.zero : !llvm.ptr
    // CHECK: llvm.call @mgpuSpMV({{.*}}, %[[N2]])
    // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[N2]])
    gpu.spmv %spmat, %dnvec, %dnvec, %mem2 : memref<?xf64> into f64
    // CHECK: %[[N3:.*]] = llvm.mlir.zero : !llvm.ptr
    // CHECK-NEXT: llvm.call @mgpuDestroySpMat({{.*}}, %[[N3]])
    // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[N3]])
    gpu.destroy_sp_mat %spmat
    // A token-less op with a dependency runs on the dependency's stream.
    // CHECK: %[[T:.*]] = llvm.call @mgpuStreamCreate()
    %t0 = gpu.wait async
    // CHECK-NOT: llvm.call @mgpuStreamCreate
    // CHECK-NOT: llvm.call @mgpuEventCreate
    // CHECK: llvm.call @mgpuDestroyDnVec({{.*}}, %[[T]])
    // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[T]])
    gpu.destroy_dn_tensor [%t0] %dnvec
    gpu.wait [%t0]
    // CHECK-NOT: gpu.
    return
  }

  // SpGEMM with two dependencies on two streams.
  // CHECK-LABEL: llvm.func @spgemm_two_streams
  func.func @spgemm_two_streams(%arg0: index) {
    // CHECK: %[[S0:.*]] = llvm.call @mgpuStreamCreate()
    %t0 = gpu.wait async
    %mem1, %t1 = gpu.alloc async [%t0] (%arg0) : memref<?xindex>
    %mem2, %t2 = gpu.alloc async [%t1] (%arg0) : memref<?xf32>
    %spmatA, %t3 = gpu.create_csr async [%t2] %arg0, %arg0, %arg0, %mem1, %mem1, %mem2 : memref<?xindex>, memref<?xindex>, memref<?xf32>
    // CHECK: %[[S1:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[E:.*]] = llvm.call @mgpuEventCreate()
    // CHECK: llvm.call @mgpuEventRecord(%[[E]], %[[S1]])
    %u0 = gpu.wait async
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[S0]], %[[E]])
    // CHECK: llvm.call @mgpuSpGEMMCreateDescr(%[[S0]])
    %descr, %t4 = gpu.spgemm_create_descr async [%t3, %u0]
    // CHECK: llvm.call @mgpuSpGEMMDestroyDescr({{.*}}, %[[S0]])
    %t5 = gpu.spgemm_destroy_descr async [%t4] %descr
    gpu.wait [%t5]
    return
  }
}
