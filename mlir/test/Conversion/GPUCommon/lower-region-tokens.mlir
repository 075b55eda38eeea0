// RUN: mlir-opt %s --gpu-to-llvm | FileCheck %s

// Async tokens that cross region boundaries (loop-carried values, scf.if
// results, function arguments and results, async.execute bodies) are events:
// a stream crossing a boundary gets an event recorded right before it, and the
// receiver owns that event. Each event is consumed exactly once.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%arg0 : f32) kernel {
      gpu.return
    }
  }

  // CHECK-LABEL: llvm.func @loop_carried
  func.func @loop_carried(%sz : index, %f : f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[E:.*]] = llvm.call @mgpuEventCreate()
    // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E]], %[[S]])
    // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
    // CHECK-NEXT: %[[R:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[E]]) -> (!llvm.ptr)
    %t0 = gpu.wait async
    %r = scf.for %i = %c0 to %sz step %c1 iter_args(%a = %t0) -> !gpu.async.token {
      // CHECK: %[[S1:.*]] = llvm.call @mgpuStreamCreate()
      // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[S1]], %[[A]])
      // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[A]])
      // CHECK-NEXT: gpu.launch_func <%[[S1]] : !llvm.ptr>
      %t1 = gpu.launch_func async [%a] @kernels::@kernel
          blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
      // CHECK-NEXT: %[[E1:.*]] = llvm.call @mgpuEventCreate()
      // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E1]], %[[S1]])
      // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S1]])
      // CHECK-NEXT: scf.yield %[[E1]] : !llvm.ptr
      scf.yield %t1 : !gpu.async.token
    }
    // CHECK: llvm.call @mgpuEventSynchronize(%[[R]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[R]])
    gpu.wait [%r]
    return
  }

  // CHECK-LABEL: llvm.func @if_result
  func.func @if_result(%cond : i1, %sz : index, %f : f32) {
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    %t0 = gpu.wait async
    // CHECK: scf.if
    %r = scf.if %cond -> !gpu.async.token {
      // A token from outside the region is forked from, not continued.
      // CHECK: %[[S1:.*]] = llvm.call @mgpuStreamCreate()
      // CHECK: gpu.launch_func <%[[S1]] : !llvm.ptr>
      // CHECK-NEXT: %[[E1:.*]] = llvm.call @mgpuEventCreate()
      // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E1]], %[[S1]])
      // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S1]])
      // CHECK-NEXT: scf.yield %[[E1]] : !llvm.ptr
      %t1 = gpu.launch_func async [%t0] @kernels::@kernel
          blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
      scf.yield %t1 : !gpu.async.token
    } else {
      // CHECK: %[[E2:.*]] = llvm.call @mgpuEventCreate()
      // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E2]], %[[S]])
      // CHECK-NEXT: scf.yield %[[E2]] : !llvm.ptr
      scf.yield %t0 : !gpu.async.token
    }
    // CHECK: llvm.call @mgpuStreamDestroy(%[[S]])
    // CHECK: llvm.call @mgpuEventSynchronize
    gpu.wait [%r]
    return
  }

  // An event token that a region yields twice: each result owns an event of
  // its own, recorded on a stream that waited for the event once.
  // CHECK-LABEL: llvm.func @event_yielded_twice
  func.func @event_yielded_twice(%cond : i1) {
    // CHECK: %[[R:.*]]:2 = scf.if
    %r:2 = scf.if %cond -> (!gpu.async.token, !gpu.async.token) {
      // CHECK: %[[E:.*]] = scf.if
      %e = scf.if %cond -> !gpu.async.token {
        %t0 = gpu.wait async
        scf.yield %t0 : !gpu.async.token
      } else {
        %t1 = gpu.wait async
        scf.yield %t1 : !gpu.async.token
      }
      // CHECK: llvm.call @mgpuStreamWaitEvent(%[[S:.*]], %[[E]])
      // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E]])
      // CHECK-NEXT: %[[E1:.*]] = llvm.call @mgpuEventCreate()
      // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E1]], %[[S]])
      // CHECK-NEXT: %[[E2:.*]] = llvm.call @mgpuEventCreate()
      // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E2]], %[[S]])
      // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
      // CHECK-NEXT: scf.yield %[[E1]], %[[E2]] : !llvm.ptr, !llvm.ptr
      scf.yield %e, %e : !gpu.async.token, !gpu.async.token
    } else {
      %t2 = gpu.wait async
      scf.yield %t2, %t2 : !gpu.async.token, !gpu.async.token
    }
    // CHECK: llvm.call @mgpuEventSynchronize(%[[R]]#0)
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[R]]#0)
    // CHECK-NEXT: llvm.call @mgpuEventSynchronize(%[[R]]#1)
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[R]]#1)
    gpu.wait [%r#0]
    gpu.wait [%r#1]
    return
  }

  // CHECK-LABEL: llvm.func @callee
  // CHECK-SAME: (%[[A:.*]]: !llvm.ptr, {{.*}}) -> !llvm.ptr
  func.func @callee(%t : !gpu.async.token, %sz : index, %f : f32) -> !gpu.async.token {
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[S]], %[[A]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[A]])
    %t1 = gpu.launch_func async [%t] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    // CHECK: %[[E:.*]] = llvm.call @mgpuEventCreate()
    // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E]], %[[S]])
    // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
    // CHECK-NEXT: llvm.return %[[E]]
    return %t1 : !gpu.async.token
  }

  // CHECK-LABEL: llvm.func @caller
  func.func @caller(%sz : index, %f : f32) {
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: %[[E:.*]] = llvm.call @mgpuEventCreate()
    // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E]], %[[S]])
    // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
    // CHECK-NEXT: %[[R:.*]] = llvm.call @callee(%[[E]],
    %t0 = gpu.wait async
    %r = func.call @callee(%t0, %sz, %f)
        : (!gpu.async.token, index, f32) -> !gpu.async.token
    // CHECK: llvm.call @mgpuEventSynchronize(%[[R]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[R]])
    gpu.wait [%r]
    return
  }

  // scf.execute_region yields a token like scf.if: an event, recorded after
  // the launch, that the user of the result consumes.
  // CHECK-LABEL: llvm.func @execute_region_result
  func.func @execute_region_result(%sz : index, %f : f32) {
    // CHECK: %[[R:.*]] = scf.execute_region -> !llvm.ptr {
    // CHECK-NEXT: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: gpu.launch_func <%[[S]] : !llvm.ptr>
    // CHECK-NEXT: %[[E:.*]] = llvm.call @mgpuEventCreate()
    // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E]], %[[S]])
    // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
    // CHECK-NEXT: scf.yield %[[E]] : !llvm.ptr
    %r = scf.execute_region -> !gpu.async.token {
      %t0 = gpu.wait async
      %t1 = gpu.launch_func async [%t0] @kernels::@kernel
          blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
      scf.yield %t1 : !gpu.async.token
    }
    // CHECK: llvm.call @mgpuEventSynchronize(%[[R]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[R]])
    gpu.wait [%r]
    return
  }

  // Tokens reduced by scf.parallel: the init value, the value of each
  // iteration (recorded after its launch) and the result of the reduction
  // region are events; the region consumes both of its arguments.
  // CHECK-LABEL: llvm.func @parallel_reduction
  func.func @parallel_reduction(%sz : index, %f : f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // CHECK: %[[S0:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: %[[E0:.*]] = llvm.call @mgpuEventCreate()
    // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E0]], %[[S0]])
    // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S0]])
    // CHECK-NEXT: %[[R:.*]] = scf.parallel {{.*}} init (%[[E0]]) -> !llvm.ptr {
    %init = gpu.wait async
    %r = scf.parallel (%i) = (%c0) to (%sz) step (%c1) init (%init)
        -> !gpu.async.token {
      // CHECK-NEXT: %[[S:.*]] = llvm.call @mgpuStreamCreate()
      // CHECK-NEXT: gpu.launch_func <%[[S]] : !llvm.ptr>
      // CHECK-NEXT: %[[E:.*]] = llvm.call @mgpuEventCreate()
      // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E]], %[[S]])
      // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
      // CHECK-NEXT: scf.reduce(%[[E]] : !llvm.ptr) {
      // CHECK-NEXT: ^{{.*}}(%[[A:.*]]: !llvm.ptr, %[[B:.*]]: !llvm.ptr):
      // CHECK-NEXT: %[[J:.*]] = llvm.call @mgpuStreamCreate()
      // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[J]], %[[A]])
      // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[A]])
      // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[J]], %[[B]])
      // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[B]])
      // CHECK-NEXT: %[[EJ:.*]] = llvm.call @mgpuEventCreate()
      // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[EJ]], %[[J]])
      // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[J]])
      // CHECK-NEXT: scf.reduce.return %[[EJ]] : !llvm.ptr
      %t0 = gpu.wait async
      %t1 = gpu.launch_func async [%t0] @kernels::@kernel
          blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
      scf.reduce(%t1 : !gpu.async.token) {
      ^bb0(%a : !gpu.async.token, %b : !gpu.async.token):
        %j = gpu.wait async [%a, %b]
        scf.reduce.return %j : !gpu.async.token
      }
    }
    // CHECK: llvm.call @mgpuEventSynchronize(%[[R]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[R]])
    gpu.wait [%r]
    return
  }

  // A token of an scf.parallel body used in the region of its scf.reduce,
  // which runs after the body any number of times: the host waits for it at
  // the end of the body. In the region, gpu.wait drops it and the memset
  // runs on a new stream.
  // CHECK-LABEL: llvm.func @token_used_in_reduce
  func.func @token_used_in_reduce(%sz : index, %f : f32,
                                  %buf : memref<4xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %init = arith.constant 0.0 : f32
    // CHECK: scf.parallel
    // CHECK-NEXT: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: gpu.launch_func <%[[S]] : !llvm.ptr>
    // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[S]])
    // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
    // CHECK-NEXT: scf.reduce
    // CHECK-NEXT: ^{{.*}}(%{{.*}}: f32, %{{.*}}: f32):
    // CHECK-NEXT: %[[N:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: llvm.call @mgpuMemset32({{.*}}, %[[N]])
    // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[N]])
    // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[N]])
    // CHECK-NEXT: llvm.fadd
    // CHECK-NEXT: scf.reduce.return
    %r = scf.parallel (%i) = (%c0) to (%sz) step (%c1) init (%init) -> f32 {
      %t0 = gpu.wait async
      %t1 = gpu.launch_func async [%t0] @kernels::@kernel
          blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
      scf.reduce(%f : f32) {
      ^bb0(%a : f32, %b : f32):
        gpu.wait [%t1]
        %m = gpu.memset async [%t1] %buf, %f : memref<4xf32>, f32
        gpu.wait [%m]
        %s = arith.addf %a, %b : f32
        scf.reduce.return %s : f32
      }
    }
    return %r : f32
  }

  // A body that waits for the token itself needs no second host wait.
  // CHECK-LABEL: llvm.func @token_waited_in_body_and_reduce
  // CHECK: scf.parallel
  // CHECK-NEXT: %[[S:.*]] = llvm.call @mgpuStreamCreate()
  // CHECK-NEXT: gpu.launch_func <%[[S]] : !llvm.ptr>
  // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[S]])
  // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
  // CHECK-NEXT: scf.reduce
  func.func @token_waited_in_body_and_reduce(%sz : index, %f : f32) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %init = arith.constant 0.0 : f32
    %r = scf.parallel (%i) = (%c0) to (%sz) step (%c1) init (%init) -> f32 {
      %t0 = gpu.wait async
      %t1 = gpu.launch_func async [%t0] @kernels::@kernel
          blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
      gpu.wait [%t1]
      scf.reduce(%f : f32) {
      ^bb0(%a : f32, %b : f32):
        gpu.wait [%t1]
        %s = arith.addf %a, %b : f32
        scf.reduce.return %s : f32
      }
    }
    return %r : f32
  }

  // A token chosen by arith.select (canonicalization makes one of an scf.if
  // that yields one of two tokens) waits for both: the select would consume
  // the event it picks and leak the other.
  // CHECK-LABEL: llvm.func @select_tokens
  func.func @select_tokens(%c : i1) {
    // CHECK: %[[SA:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[EA:.*]] = llvm.call @mgpuEventCreate()
    // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[EA]], %[[SA]])
    // CHECK: %[[SB:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[EB:.*]] = llvm.call @mgpuEventCreate()
    // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[EB]], %[[SB]])
    // CHECK-NOT: llvm.select
    // CHECK: %[[J:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[J]], %[[EA]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[EA]])
    // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[J]], %[[EB]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[EB]])
    // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[J]])
    // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[J]])
    %a = gpu.wait async
    %b = gpu.wait async
    %r = arith.select %c, %a, %b : !gpu.async.token
    gpu.wait [%r]
    return
  }

  // A stream used in an async.execute body is used on another thread: the body
  // gets a stream of its own, which waits for an event recorded before it.
  // CHECK-LABEL: llvm.func @execute_body
  func.func @execute_body(%sz : index, %f : f32) {
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[E:.*]] = llvm.call @mgpuEventCreate()
    // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E]], %[[S]])
    // CHECK: async.execute
    // CHECK-NEXT: %[[L:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[L]], %[[E]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E]])
    // CHECK-NOT: %[[S]]
    // CHECK: async.yield
    %t0 = gpu.wait async
    %a = async.execute {
      %t1 = gpu.launch_func async [%t0] @kernels::@kernel
          blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
      gpu.wait [%t1]
      async.yield
    }
    async.await %a : !async.token
    gpu.wait [%t0]
    return
  }
}
