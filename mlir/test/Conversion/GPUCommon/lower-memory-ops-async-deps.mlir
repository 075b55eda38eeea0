// RUN: mlir-opt %s --gpu-to-llvm | FileCheck %s
// RUN: mlir-opt %s --gpu-to-llvm --reconcile-unrealized-casts \
// RUN:   | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR

// gpu.alloc, gpu.dealloc, gpu.memcpy and gpu.memset with any number of async
// dependencies, and in their synchronous (token-less) forms.

module attributes {gpu.container_module} {

  // The first program of the Discourse thread "How to lower the combination
  // of async gpu ops", verbatim: a copy with two dependencies. Both
  // allocations depend on %0 only, so the second one forks a stream of its
  // own; the copy joins the two; the first dealloc depends on the first
  // allocation only, so it forks again.
  // CHECK-LABEL: llvm.func @memcpy_two_deps
  // LLVMIR-LABEL: define void @memcpy_two_deps
  func.func @memcpy_two_deps() {
    %c2 = arith.constant 2 : index
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[E0:.*]] = llvm.call @mgpuEventCreate()
    // CHECK: llvm.call @mgpuEventRecord(%[[E0]], %[[S]])
    %0 = gpu.wait async
    // CHECK: llvm.call @mgpuMemAlloc({{.*}}, %[[S]], {{.*}})
    // CHECK: %[[E2:.*]] = llvm.call @mgpuEventCreate()
    // CHECK: llvm.call @mgpuEventRecord(%[[E2]], %[[S]])
    %1, %2 = gpu.alloc async [%0] (%c2) : memref<?xf32>
    // CHECK: %[[F:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[F]], %[[E0]])
    // CHECK: llvm.call @mgpuMemAlloc({{.*}}, %[[F]], {{.*}})
    %5, %6 = gpu.alloc async [%0] (%c2) : memref<?xf32>
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[S]], %{{.*}})
    // CHECK: llvm.call @mgpuMemcpy({{.*}}, {{.*}}, {{.*}}, %[[S]])
    // CHECK: llvm.call @mgpuStreamDestroy(%[[S]])
    %7 = gpu.memcpy async [%2, %6] %1, %5 : memref<?xf32>, memref<?xf32>
    // CHECK: %[[G:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[G]], %[[E2]])
    // CHECK: llvm.call @mgpuMemFree({{.*}}, %[[G]])
    %3 = gpu.dealloc async [%2] %1 : memref<?xf32>
    // CHECK: llvm.call @mgpuMemFree({{.*}}, %[[F]])
    // CHECK: llvm.call @mgpuStreamDestroy(%[[F]])
    %4 = gpu.dealloc async [%6] %5 : memref<?xf32>
    // CHECK: llvm.call @mgpuStreamSynchronize(%[[G]])
    // CHECK: llvm.call @mgpuStreamDestroy(%[[G]])
    gpu.wait [%3]
    // CHECK-NOT: gpu.
    // LLVMIR: call void @mgpuMemcpy
    return
  }

  // The same copy with its inputs allocated on two streams: the copy runs on
  // the first and waits for an event recorded on the second.
  // CHECK-LABEL: llvm.func @memcpy_two_streams
  func.func @memcpy_two_streams() {
    %c2 = arith.constant 2 : index
    // CHECK: %[[S0:.*]] = llvm.call @mgpuStreamCreate()
    %0 = gpu.wait async
    // CHECK: llvm.call @mgpuMemAlloc({{.*}}, %[[S0]], {{.*}})
    %1, %2 = gpu.alloc async [%0] (%c2) : memref<?xf32>
    // CHECK: %[[S1:.*]] = llvm.call @mgpuStreamCreate()
    %3 = gpu.wait async
    // CHECK: llvm.call @mgpuMemAlloc({{.*}}, %[[S1]], {{.*}})
    // CHECK: %[[E:.*]] = llvm.call @mgpuEventCreate()
    // CHECK: llvm.call @mgpuEventRecord(%[[E]], %[[S1]])
    %5, %6 = gpu.alloc async [%3] (%c2) : memref<?xf32>
    // CHECK-NOT: llvm.call @mgpuStreamCreate
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[S0]], %[[E]])
    // CHECK: llvm.call @mgpuEventDestroy(%[[E]])
    // CHECK: llvm.call @mgpuMemcpy({{.*}}, {{.*}}, {{.*}}, %[[S0]])
    %7 = gpu.memcpy async [%2, %6] %1, %5 : memref<?xf32>, memref<?xf32>
    // CHECK: llvm.call @mgpuMemFree({{.*}}, %[[S0]])
    %8 = gpu.dealloc async [%7] %1 : memref<?xf32>
    gpu.wait [%8]
    return
  }

  // The second program of that thread: -gpu-async-region's output, where the
  // dealloc depends on the copy and on the allocation's token.
  // CHECK-LABEL: llvm.func @dealloc_two_deps
  // LLVMIR-LABEL: define void @dealloc_two_deps
  func.func @dealloc_two_deps() {
    %c2 = arith.constant 2 : index
    %alloca = memref.alloca(%c2) : memref<?xf32>
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    %0 = gpu.wait async
    %memref, %asyncToken = gpu.alloc async [%0] (%c2) : memref<?xf32>
    // CHECK: llvm.call @mgpuMemcpy({{.*}}, {{.*}}, {{.*}}, %[[S]])
    %1 = gpu.memcpy async [%asyncToken] %memref, %alloca : memref<?xf32>, memref<?xf32>
    // Both dependencies are the same stream: no event.
    // CHECK-NOT: llvm.call @mgpuEventCreate
    // CHECK: llvm.call @mgpuMemFree({{.*}}, %[[S]])
    %2 = gpu.dealloc async [%1, %asyncToken] %memref : memref<?xf32>
    // CHECK: llvm.call @mgpuStreamSynchronize(%[[S]])
    // CHECK: llvm.call @mgpuStreamDestroy(%[[S]])
    gpu.wait [%2]
    // LLVMIR: call void @mgpuMemFree
    return
  }

  // Zero dependencies on an async op: a new stream.
  // CHECK-LABEL: llvm.func @memset_no_deps
  func.func @memset_no_deps(%dst : memref<16xi32>, %value : i32) {
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: llvm.call @mgpuMemset32({{.*}}, {{.*}}, {{.*}}, %[[S]])
    // CHECK-NOT: llvm.call @mgpuStreamSynchronize
    %t = gpu.memset async %dst, %value : memref<16xi32>, i32
    // CHECK: llvm.call @mgpuStreamSynchronize(%[[S]])
    gpu.wait [%t]
    return
  }

  // Three dependencies: two event sequences on the first stream.
  // CHECK-LABEL: llvm.func @memset_three_deps
  func.func @memset_three_deps(%dst : memref<16xf16>, %value : f16) {
    // CHECK-COUNT-3: llvm.call @mgpuStreamCreate()
    %t0 = gpu.wait async
    %t1 = gpu.wait async
    %t2 = gpu.wait async
    // CHECK-NOT: llvm.call @mgpuStreamCreate
    // CHECK-COUNT-2: llvm.call @mgpuStreamWaitEvent
    // CHECK-NOT: llvm.call @mgpuStreamCreate
    // CHECK: llvm.call @mgpuMemset16
    %t3 = gpu.memset async [%t0, %t1, %t2] %dst, %value : memref<16xf16>, f16
    gpu.wait [%t3]
    return
  }

  // Token-less forms create no stream: they run on the null (default)
  // stream. The host waits for the copy and the memset; allocation and
  // deallocation return to the host once done and need no synchronization.
  // CHECK-LABEL: llvm.func @sync_forms
  // LLVMIR-LABEL: define void @sync_forms
  // LLVMIR-NOT: call {{.*}}@mgpuStreamCreate
  // LLVMIR-NOT: call void @mgpuStreamDestroy
  func.func @sync_forms(%host : memref<16xf32>, %value : f32) {
    // CHECK-NOT: llvm.call @mgpuStreamCreate
    // CHECK: llvm.ptrtoint
    // CHECK-NEXT: %[[N0:.*]] = llvm.mlir.zero : !llvm.ptr
    // CHECK-NEXT: llvm.mlir.constant(0 : i8)
    // CHECK-NEXT: llvm.call @mgpuMemAlloc({{.*}}, %[[N0]], {{.*}})
    // CHECK-NOT: llvm.call @mgpuStreamSynchronize
    %dev = gpu.alloc () : memref<16xf32>
    // CHECK: %[[N1:.*]] = llvm.mlir.zero : !llvm.ptr
    // CHECK-NEXT: llvm.call @mgpuMemset32({{.*}}, {{.*}}, {{.*}}, %[[N1]])
    // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[N1]])
    gpu.memset %dev, %value : memref<16xf32>, f32
    // CHECK: llvm.ptrtoint
    // CHECK: %[[N2:.*]] = llvm.mlir.zero : !llvm.ptr
    // CHECK-NEXT: llvm.call @mgpuMemcpy({{.*}}, {{.*}}, {{.*}}, %[[N2]])
    // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[N2]])
    gpu.memcpy %host, %dev : memref<16xf32>, memref<16xf32>
    // CHECK: %[[N3:.*]] = llvm.mlir.zero : !llvm.ptr
    // CHECK-NEXT: llvm.call @mgpuMemFree({{.*}}, %[[N3]])
    // CHECK-NOT: llvm.call @mgpuStreamSynchronize
    gpu.dealloc %dev : memref<16xf32>
    // CHECK-NOT: gpu.
    // CHECK-NOT: llvm.call @mgpuStreamDestroy
    // LLVMIR: ret void
    return
  }

  // A token-less op with dependencies creates no stream either: it runs on
  // its first stream dependency, which waits for the others, and the host
  // waits for that stream.
  // CHECK-LABEL: llvm.func @sync_with_deps
  func.func @sync_with_deps(%host : memref<16xf32>, %dev : memref<16xf32>) {
    // CHECK: %[[S0:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[S1:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[E:.*]] = llvm.call @mgpuEventCreate()
    // CHECK: llvm.call @mgpuEventRecord(%[[E]], %[[S1]])
    %t0 = gpu.wait async
    %t1 = gpu.wait async
    // CHECK-NOT: llvm.call @mgpuStreamCreate
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[S0]], %[[E]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E]])
    // CHECK-NEXT: llvm.call @mgpuMemcpy({{.*}}, {{.*}}, {{.*}}, %[[S0]])
    // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[S0]])
    // CHECK-NOT: llvm.call @mgpuStreamDestroy
    gpu.memcpy [%t0, %t1] %host, %dev : memref<16xf32>, memref<16xf32>
    // CHECK: llvm.call @mgpuStreamSynchronize(%[[S0]])
    // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S0]])
    gpu.wait [%t0]
    gpu.wait [%t1]
    return
  }

  // Host-shared allocations stay synchronous and need no stream.
  // CHECK-LABEL: llvm.func @host_shared
  func.func @host_shared() -> memref<16xf32> {
    // CHECK-NOT: llvm.call @mgpuStreamCreate
    // CHECK: llvm.ptrtoint
    // CHECK-NEXT: %[[N:.*]] = llvm.mlir.zero : !llvm.ptr
    // CHECK-NEXT: llvm.mlir.constant(1 : i8)
    // CHECK-NEXT: llvm.call @mgpuMemAlloc({{.*}}, %[[N]], {{.*}})
    // CHECK-NOT: llvm.call @mgpuStream
    %m = gpu.alloc host_shared () : memref<16xf32>
    return %m : memref<16xf32>
  }
}
