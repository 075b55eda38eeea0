// RUN: mlir-opt %s --gpu-to-llvm | FileCheck %s

module attributes {gpu.container_module} {

  func.func @foo() {
    // CHECK: %[[t0:.*]] = llvm.call @mgpuStreamCreate
    // CHECK: %[[e0:.*]] = llvm.call @mgpuEventCreate
    // CHECK: llvm.call @mgpuEventRecord(%[[e0]], %[[t0]])
    %t0 = gpu.wait async
    // CHECK: %[[t1:.*]] = llvm.call @mgpuStreamCreate
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[t1]], %[[e0]])
    // CHECK: llvm.call @mgpuEventDestroy(%[[e0]])
    %t1 = gpu.wait async [%t0]
    // CHECK: llvm.call @mgpuStreamSynchronize(%[[t0]])
    // CHECK: llvm.call @mgpuStreamDestroy(%[[t0]])
    // CHECK: llvm.call @mgpuStreamSynchronize(%[[t1]])
    // CHECK: llvm.call @mgpuStreamDestroy(%[[t1]])
    gpu.wait [%t0, %t1]
    return
  }
}

// A `gpu.wait` with an `asyncObject` bridges a caller's stream and tokens; the
// stream is the caller's: never created, synchronized or destroyed here.
module attributes {gpu.container_module} {

  // CHECK-LABEL: func @stream_to_token
  // CHECK-SAME:    (%[[s:[^:]*]]: !llvm.ptr,
  func.func @stream_to_token(%s : !llvm.ptr, %buf : memref<16xi32>, %v : i32) {
    // CHECK-NOT:   mgpuStreamCreate
    // CHECK-NOT:   mgpuEvent
    // CHECK:       llvm.call @mgpuMemset32({{.*}}, %[[s]])
    %t0 = gpu.wait async <%s : !llvm.ptr>
    %t1 = gpu.memset async [%t0] %buf, %v : memref<16xi32>, i32
    // The stream already holds the memset: nothing to wait for.
    // CHECK-NOT:   mgpuStreamWaitEvent
    // CHECK-NOT:   mgpuStreamSynchronize
    // CHECK-NOT:   mgpuStreamDestroy
    // CHECK:       return
    gpu.wait [%t1] <%s : !llvm.ptr>
    return
  }

  // The stream waits for the work of another stream through an event, which
  // is destroyed; the host does not wait. The lowering's own stream is
  // destroyed after its last use, the caller's is not.
  // CHECK-LABEL: func @token_to_stream
  // CHECK-SAME:    (%[[s:[^:]*]]: !llvm.ptr,
  func.func @token_to_stream(%s : !llvm.ptr, %buf : memref<16xi32>, %v : i32) {
    // CHECK:       %[[own:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK:       llvm.call @mgpuMemset32({{.*}}, %[[own]])
    // CHECK:       %[[e:.*]] = llvm.call @mgpuEventCreate()
    // CHECK:       llvm.call @mgpuEventRecord(%[[e]], %[[own]])
    // CHECK:       llvm.call @mgpuStreamDestroy(%[[own]])
    // CHECK:       llvm.call @mgpuStreamWaitEvent(%[[s]], %[[e]])
    // CHECK:       llvm.call @mgpuEventDestroy(%[[e]])
    // CHECK-NOT:   mgpuStreamSynchronize
    // CHECK-NOT:   mgpuEventSynchronize
    // CHECK-NOT:   mgpuStreamDestroy(%[[s]])
    // CHECK:       return
    %t0 = gpu.wait async
    %t1 = gpu.memset async [%t0] %buf, %v : memref<16xi32>, i32
    gpu.wait [%t1] <%s : !llvm.ptr>
    return
  }

  // Work forked from the caller's stream runs on a stream of the lowering's,
  // which the caller's stream joins with an event.
  // CHECK-LABEL: func @fork_and_join
  // CHECK-SAME:    (%[[s:[^:]*]]: !llvm.ptr,
  func.func @fork_and_join(%s : !llvm.ptr, %a : memref<16xi32>,
                           %b : memref<16xi32>, %v : i32) {
    // CHECK:       %[[e0:.*]] = llvm.call @mgpuEventCreate()
    // CHECK:       llvm.call @mgpuEventRecord(%[[e0]], %[[s]])
    // CHECK:       llvm.call @mgpuMemset32({{.*}}, %[[s]])
    // CHECK:       %[[side:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK:       llvm.call @mgpuStreamWaitEvent(%[[side]], %[[e0]])
    // CHECK:       llvm.call @mgpuMemset32({{.*}}, %[[side]])
    // CHECK:       %[[e1:.*]] = llvm.call @mgpuEventCreate()
    // CHECK:       llvm.call @mgpuEventRecord(%[[e1]], %[[side]])
    // CHECK:       llvm.call @mgpuStreamDestroy(%[[side]])
    // CHECK:       llvm.call @mgpuStreamWaitEvent(%[[s]], %[[e1]])
    // CHECK:       llvm.call @mgpuEventDestroy(%[[e1]])
    // CHECK-NOT:   mgpuStreamSynchronize
    // CHECK-NOT:   mgpuEventSynchronize
    // CHECK:       return
    %t0 = gpu.wait async <%s : !llvm.ptr>
    %t1 = gpu.memset async [%t0] %a, %v : memref<16xi32>, i32
    %t2 = gpu.memset async [%t0] %b, %v : memref<16xi32>, i32
    gpu.wait [%t1, %t2] <%s : !llvm.ptr>
    return
  }

  // An unused token of a stream, and a stream that waits for nothing, lower
  // to nothing.
  // CHECK-LABEL: func @nothing_to_bridge
  // CHECK-NEXT:    return
  func.func @nothing_to_bridge(%s : !llvm.ptr) {
    %t0 = gpu.wait async <%s : !llvm.ptr>
    gpu.wait <%s : !llvm.ptr>
    return
  }

  // The token of a caller's stream carried by a loop: the loop carries an
  // event recorded on a stream of the lowering's own, forked from the
  // caller's, never the caller's stream itself (which the body would wait
  // for and destroy as an event).
  // CHECK-LABEL: func @caller_stream_token_in_loop
  // CHECK-SAME:    (%[[s:[^:]*]]: !llvm.ptr
  // CHECK:         %[[fork:.*]] = llvm.call @mgpuStreamCreate()
  // CHECK:         %[[e:.*]] = llvm.call @mgpuEventCreate()
  // CHECK-NEXT:    llvm.call @mgpuEventRecord(%[[e]], %[[fork]])
  // CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[e]])
  // CHECK-NOT:     (%[[s]])
  // CHECK:         return
  func.func @caller_stream_token_in_loop(%s : !llvm.ptr, %n : index,
                                         %a : memref<16xi32>, %v : i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t0 = gpu.wait async <%s : !llvm.ptr>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %t0)
        -> (!gpu.async.token) {
      %t1 = gpu.memset async [%t] %a, %v : memref<16xi32>, i32
      scf.yield %t1 : !gpu.async.token
    }
    gpu.wait [%r]
    return
  }
}
