// RUN: mlir-opt %s --gpu-to-llvm | FileCheck %s

// gpu.alloc, gpu.memcpy, gpu.memset and gpu.dealloc with dependencies that
// are events (tokens that crossed an async.execute boundary), mixed with
// streams, and with three stream dependencies.

module attributes {gpu.container_module} {
  // CHECK-LABEL: llvm.func @event_deps
  func.func @event_deps(%host : memref<16xf32>, %value : f32) {
    %x0, %a0 = async.execute -> !async.value<!gpu.async.token> {
      %t = gpu.wait async
      async.yield %t : !gpu.async.token
    }
    %x1, %a1 = async.execute -> !async.value<!gpu.async.token> {
      %t = gpu.wait async
      async.yield %t : !gpu.async.token
    }
    %x2, %a2 = async.execute -> !async.value<!gpu.async.token> {
      %t = gpu.wait async
      async.yield %t : !gpu.async.token
    }
    %x3, %a3 = async.execute -> !async.value<!gpu.async.token> {
      %t = gpu.wait async
      async.yield %t : !gpu.async.token
    }
    // CHECK: %[[E0:.*]] = async.await
    // CHECK: %[[E1:.*]] = async.await
    // CHECK: %[[E2:.*]] = async.await
    // CHECK: %[[E3:.*]] = async.await
    %e0 = async.await %a0 : !async.value<!gpu.async.token>
    %e1 = async.await %a1 : !async.value<!gpu.async.token>
    %e2 = async.await %a2 : !async.value<!gpu.async.token>
    %e3 = async.await %a3 : !async.value<!gpu.async.token>
    // Events only: a new stream waits for both.
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[S]], %[[E0]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E0]])
    // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[S]], %[[E1]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E1]])
    // CHECK: llvm.call @mgpuMemAlloc({{.*}}, %[[S]], {{.*}})
    %dev, %t0 = gpu.alloc async [%e0, %e1] () : memref<16xf32>
    // Mixed: the stream is continued, the event waited for.
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[S]], %[[E2]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E2]])
    // CHECK: llvm.call @mgpuMemset32({{.*}}, {{.*}}, {{.*}}, %[[S]])
    %t1 = gpu.memset async [%e2, %t0] %dev, %value : memref<16xf32>, f32
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[S]], %[[E3]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E3]])
    // CHECK: llvm.call @mgpuMemcpy({{.*}}, {{.*}}, {{.*}}, %[[S]])
    %t2 = gpu.memcpy async [%t1, %e3] %host, %dev : memref<16xf32>, memref<16xf32>
    // CHECK: llvm.call @mgpuMemFree({{.*}}, %[[S]])
    %t3 = gpu.dealloc async [%t2] %dev : memref<16xf32>
    gpu.wait [%t3]
    // CHECK-NOT: gpu.
    return
  }

  // Three stream dependencies: two event sequences, no new stream.
  // CHECK-LABEL: llvm.func @three_streams
  func.func @three_streams(%host : memref<16xf32>) {
    // CHECK-COUNT-3: llvm.call @mgpuStreamCreate()
    %s0 = gpu.wait async
    %s1 = gpu.wait async
    %s2 = gpu.wait async
    // CHECK-NOT: llvm.call @mgpuStreamCreate
    // CHECK-COUNT-2: llvm.call @mgpuStreamWaitEvent
    // CHECK-NOT: llvm.call @mgpuStreamCreate
    // CHECK: llvm.call @mgpuMemAlloc
    %dev, %t0 = gpu.alloc async [%s0, %s1, %s2] () : memref<16xf32>
    // CHECK: llvm.call @mgpuMemcpy
    %t1 = gpu.memcpy async [%t0] %dev, %host : memref<16xf32>, memref<16xf32>
    // CHECK: llvm.call @mgpuMemFree
    %t2 = gpu.dealloc async [%t1] %dev : memref<16xf32>
    gpu.wait [%t2]
    return
  }
}
