// RUN: mlir-opt %s --gpu-to-llvm | FileCheck %s

// gpu.launch_func with any number of async dependencies. The launch runs on
// the stream of its first stream dependency; every other dependency costs one
// event that the stream waits for. No host synchronization is added.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%arg0 : f32) kernel {
      gpu.return
    }
  }

  // CHECK-LABEL: llvm.func @two_streams
  func.func @two_streams(%sz : index, %f : f32) {
    // CHECK: %[[S0:.*]] = llvm.call @mgpuStreamCreate()
    %t0 = gpu.wait async
    // CHECK: %[[S1:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: %[[E1:.*]] = llvm.call @mgpuEventCreate()
    // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E1]], %[[S1]])
    // The joined stream is destroyed after its last use.
    // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S1]])
    %t1 = gpu.wait async
    // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[S0]], %[[E1]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E1]])
    // CHECK-NEXT: gpu.launch_func <%[[S0]] : !llvm.ptr> @kernels::@kernel
    // CHECK-NOT: llvm.call @mgpuStreamSynchronize
    // CHECK-NOT: llvm.call @mgpuEventSynchronize
    // CHECK-NOT: llvm.call @mgpuStreamCreate
    %t2 = gpu.launch_func async [%t0, %t1] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    // CHECK: llvm.call @mgpuStreamSynchronize(%[[S0]])
    gpu.wait [%t2]
    return
  }

  // A 3-way join costs two event sequences and no new stream.
  // CHECK-LABEL: llvm.func @three_streams
  func.func @three_streams(%sz : index, %f : f32) {
    // CHECK: %[[S0:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[S1:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[E1:.*]] = llvm.call @mgpuEventCreate()
    // CHECK: llvm.call @mgpuEventRecord(%[[E1]], %[[S1]])
    // CHECK: %[[S2:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[E2:.*]] = llvm.call @mgpuEventCreate()
    // CHECK: llvm.call @mgpuEventRecord(%[[E2]], %[[S2]])
    %t0 = gpu.wait async
    %t1 = gpu.wait async
    %t2 = gpu.wait async
    // CHECK-NOT: llvm.call @mgpuStreamCreate
    // CHECK-NOT: llvm.call @mgpuEventCreate
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[S0]], %[[E1]])
    // CHECK: llvm.call @mgpuEventDestroy(%[[E1]])
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[S0]], %[[E2]])
    // CHECK: llvm.call @mgpuEventDestroy(%[[E2]])
    // CHECK-NOT: llvm.call @mgpuEventCreate
    // CHECK: gpu.launch_func <%[[S0]] : !llvm.ptr>
    %t3 = gpu.launch_func async [%t0, %t1, %t2] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    gpu.wait [%t3]
    return
  }

  // The event captures the work of the op that produced the dependency, not
  // what is enqueued on its stream later: it is recorded right after that op.
  // CHECK-LABEL: llvm.func @event_after_producer
  func.func @event_after_producer(%sz : index, %f : f32) {
    // CHECK: %[[S0:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[S1:.*]] = llvm.call @mgpuStreamCreate()
    %t0 = gpu.wait async
    %t1 = gpu.wait async
    // CHECK: gpu.launch_func <%[[S1]] : !llvm.ptr>
    // CHECK-NEXT: %[[E:.*]] = llvm.call @mgpuEventCreate()
    // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E]], %[[S1]])
    %t2 = gpu.launch_func async [%t1] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    // CHECK: gpu.launch_func <%[[S1]] : !llvm.ptr>
    %t3 = gpu.launch_func async [%t2] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[S0]], %[[E]])
    // CHECK: gpu.launch_func <%[[S0]] : !llvm.ptr>
    %t4 = gpu.launch_func async [%t0, %t2] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    gpu.wait [%t3, %t4]
    return
  }

  // Dependencies that are events (tokens that crossed an async.execute
  // boundary) are waited for directly, and consumed: destroyed once waited
  // for.
  // CHECK-LABEL: llvm.func @events
  func.func @events(%sz : index, %f : f32) {
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
    // CHECK: %[[E0:.*]] = async.await
    // CHECK: %[[E1:.*]] = async.await
    // CHECK: %[[E2:.*]] = async.await
    %e0 = async.await %a0 : !async.value<!gpu.async.token>
    %e1 = async.await %a1 : !async.value<!gpu.async.token>
    %e2 = async.await %a2 : !async.value<!gpu.async.token>
    // With events only, the launch needs a stream of its own.
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[S]], %[[E0]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E0]])
    // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[S]], %[[E1]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E1]])
    // CHECK-NEXT: gpu.launch_func <%[[S]] : !llvm.ptr>
    %t0 = gpu.launch_func async [%e0, %e1] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    // Mixed: the stream is reused, the event waited for.
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[S]], %[[E2]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E2]])
    // CHECK-NEXT: gpu.launch_func <%[[S]] : !llvm.ptr>
    %t1 = gpu.launch_func async [%e2, %t0] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    gpu.wait [%t1]
    return
  }

  // A dependency listed twice, or two tokens of the same stream, need no
  // event.
  // CHECK-LABEL: llvm.func @same_stream
  func.func @same_stream(%sz : index, %f : f32) {
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    %t0 = gpu.wait async
    // CHECK: gpu.launch_func <%[[S]] : !llvm.ptr>
    %t1 = gpu.launch_func async [%t0] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    // CHECK-NOT: llvm.call @mgpuEventCreate
    // CHECK: gpu.launch_func <%[[S]] : !llvm.ptr>
    %t2 = gpu.launch_func async [%t0, %t1, %t1] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    gpu.wait [%t2]
    return
  }

  // A synchronous launch without dependencies is unchanged: it keeps no
  // stream.
  // CHECK-LABEL: llvm.func @sync_no_deps
  func.func @sync_no_deps(%sz : index, %f : f32) {
    // CHECK-NOT: llvm.call @mgpuStreamCreate
    // CHECK: gpu.launch_func @kernels::@kernel
    gpu.launch_func @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    return
  }

  // gpu.wait async is where new streams come from: it always creates one,
  // which waits for every dependency.
  // CHECK-LABEL: llvm.func @wait_async_join
  func.func @wait_async_join() {
    // CHECK: %[[S0:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[E0:.*]] = llvm.call @mgpuEventCreate()
    // CHECK: llvm.call @mgpuEventRecord(%[[E0]], %[[S0]])
    // CHECK: %[[S1:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[E1:.*]] = llvm.call @mgpuEventCreate()
    // CHECK: llvm.call @mgpuEventRecord(%[[E1]], %[[S1]])
    %t0 = gpu.wait async
    %t1 = gpu.wait async
    // CHECK: %[[S2:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[S2]], %[[E0]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E0]])
    // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[S2]], %[[E1]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E1]])
    %t2 = gpu.wait async [%t0, %t1]
    gpu.wait [%t2]
    return
  }
}
