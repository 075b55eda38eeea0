// RUN: mlir-opt %s --gpu-to-llvm | FileCheck %s

// Async tokens that an async GPU op did not produce (here function arguments)
// lower to events. The op that uses an event consumes it: it waits for it
// once and destroys it once, however often the op lists it.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%arg0 : f32) kernel {
      gpu.return
    }
  }

  // CHECK-LABEL: llvm.func @event_listed_twice
  func.func @event_listed_twice(%t : !gpu.async.token) {
    // CHECK-NEXT: llvm.call @mgpuEventSynchronize(%arg0)
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%arg0)
    // CHECK-NEXT: llvm.return
    gpu.wait [%t, %t]
    return
  }

  // CHECK-LABEL: llvm.func @event_dependency_listed_twice
  func.func @event_dependency_listed_twice(%t : !gpu.async.token, %sz : index,
                                           %f : f32) {
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[S]], %arg0)
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%arg0)
    // CHECK-NOT: %arg0
    // CHECK: gpu.launch_func <%[[S]] : !llvm.ptr>
    %t1 = gpu.launch_func async [%t, %t] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    gpu.wait [%t1]
    return
  }

  // A `gpu.wait async` whose token is unused only releases its events.
  // CHECK-LABEL: llvm.func @unused_wait_event_listed_twice
  func.func @unused_wait_event_listed_twice(%t : !gpu.async.token) {
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%arg0)
    // CHECK-NEXT: llvm.return
    %0 = gpu.wait async [%t, %t]
    return
  }

  // Each event token gets one consumer before the conversion. An event token
  // used twice becomes a stream once, which both users share or fork from:
  // the event is destroyed exactly once.
  // CHECK-LABEL: llvm.func @event_used_twice
  func.func @event_used_twice(%t : !gpu.async.token, %sz : index, %f : f32) {
    // CHECK: llvm.call @mgpuStreamWaitEvent
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%arg0)
    // CHECK-NOT: llvm.call @mgpuEventDestroy(%arg0)
    // CHECK: llvm.return
    %t1 = gpu.launch_func async [%t] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    %t2 = gpu.launch_func async [%t] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    gpu.wait [%t1, %t2]
    return
  }

  // An op that passes an event token on hands over one event per operand:
  // listed twice, the same event would be destroyed by both receivers. It
  // becomes a stream first, and the event is destroyed once, here.
  // CHECK-LABEL: llvm.func @event_returned_twice
  func.func @event_returned_twice(%t : !gpu.async.token)
      -> (!gpu.async.token, !gpu.async.token) {
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[S]], %arg0)
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%arg0)
    // CHECK-NOT: %arg0
    // CHECK: llvm.return
    return %t, %t : !gpu.async.token, !gpu.async.token
  }

  // The same for a call.
  // CHECK-LABEL: llvm.func @event_passed_twice
  func.func @event_passed_twice(%t : !gpu.async.token) {
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[S]], %arg0)
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%arg0)
    // CHECK-NOT: %arg0
    // CHECK: llvm.call @take_two
    call @take_two(%t, %t) : (!gpu.async.token, !gpu.async.token) -> ()
    return
  }
  func.func private @take_two(!gpu.async.token, !gpu.async.token)

  // An event token used in a loop body would be waited for on every
  // iteration: it becomes a stream before the loop.
  // CHECK-LABEL: llvm.func @event_used_in_loop
  func.func @event_used_in_loop(%t : !gpu.async.token, %sz : index, %f : f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[S]], %arg0)
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%arg0)
    // CHECK: scf.for
    // CHECK-NOT: %arg0
    // CHECK: }
    scf.for %i = %c0 to %sz step %c1 {
      %t1 = gpu.launch_func async [%t] @kernels::@kernel
          blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
      gpu.wait [%t1]
    }
    return
  }

  // An unused event token is only released.
  // CHECK-LABEL: llvm.func @unused_event
  func.func @unused_event(%t : !gpu.async.token) {
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%arg0)
    // CHECK-NOT: llvm.call @mgpuStreamCreate
    // CHECK-NEXT: llvm.return
    return
  }

  // A token-typed argument used as the explicit stream of launches (as some
  // frontends type their stream argument) is the caller's stream, not an
  // event: it is neither waited for nor destroyed, and both launches run on
  // it.
  // CHECK-LABEL: llvm.func @token_typed_stream
  // CHECK-SAME: (%[[S:[^:]*]]: !llvm.ptr
  // CHECK-NOT: llvm.call @mgpu
  // CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@kernel
  // CHECK-NOT: llvm.call @mgpu
  // CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@kernel
  // CHECK-NOT: llvm.call @mgpu
  // CHECK: llvm.return
  func.func @token_typed_stream(%s : !gpu.async.token, %sz : index,
                                %f : f32) {
    gpu.launch_func <%s : !gpu.async.token> @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    gpu.launch_func <%s : !gpu.async.token> @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    return
  }
}
