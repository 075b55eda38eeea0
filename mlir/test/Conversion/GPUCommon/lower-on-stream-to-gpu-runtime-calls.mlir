// RUN: mlir-opt %s --gpu-to-llvm | FileCheck %s

// gpu.on_stream runs its body after the work enqueued on its stream before it
// (an event recorded there, waited for by the body's first stream) and makes
// the stream wait for the tokens its terminator lists. The stream is the
// caller's: never created, synchronized or destroyed here.

module attributes {gpu.container_module} {

  gpu.module @kernels {
    gpu.func @kernel() kernel {
      gpu.return
    }
  }

  // CHECK-LABEL: func @entry_and_exit
  // CHECK-SAME:    (%[[S:[^:]*]]: !llvm.ptr,
  // CHECK:         %[[E0:.*]] = llvm.call @mgpuEventCreate()
  // CHECK-NEXT:    llvm.call @mgpuEventRecord(%[[E0]], %[[S]])
  // CHECK:         %[[OWN:.*]] = llvm.call @mgpuStreamCreate()
  // CHECK-NEXT:    llvm.call @mgpuStreamWaitEvent(%[[OWN]], %[[E0]])
  // CHECK-NEXT:    llvm.call @mgpuEventDestroy(%[[E0]])
  // CHECK-NEXT:    llvm.call @mgpuMemset32({{.*}}, %[[OWN]])
  // CHECK-NEXT:    %[[E1:.*]] = llvm.call @mgpuEventCreate()
  // CHECK-NEXT:    llvm.call @mgpuEventRecord(%[[E1]], %[[OWN]])
  // CHECK-NEXT:    llvm.call @mgpuStreamDestroy(%[[OWN]])
  // CHECK-NEXT:    llvm.call @mgpuStreamWaitEvent(%[[S]], %[[E1]])
  // CHECK-NEXT:    llvm.call @mgpuEventDestroy(%[[E1]])
  // CHECK-NEXT:    llvm.return
  func.func @entry_and_exit(%s : !llvm.ptr, %buf : memref<16xi32>, %v : i32) {
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      %t1 = gpu.memset async [%t0] %buf, %v : memref<16xi32>, i32
      gpu.on_stream.yield [%t1]
    }
    return
  }

  // Ops of the body that do not depend on the entry token are ordered after
  // the stream's earlier work all the same: one with no dependencies, one
  // with a token from outside the body, a synchronous one (which waits on
  // the host for its own stream, not for the caller's).
  // CHECK-LABEL: func @unordered_input
  // CHECK-SAME:    (%[[S:[^:]*]]: !llvm.ptr,
  // CHECK:         %[[OUT:.*]] = llvm.call @mgpuStreamCreate()
  // CHECK:         %[[OUTE:.*]] = llvm.call @mgpuEventCreate()
  // CHECK-NEXT:    llvm.call @mgpuEventRecord(%[[OUTE]], %[[OUT]])
  // CHECK:         %[[E0:.*]] = llvm.call @mgpuEventCreate()
  // CHECK-NEXT:    llvm.call @mgpuEventRecord(%[[E0]], %[[S]])
  // CHECK-NEXT:    %[[A:.*]] = llvm.call @mgpuStreamCreate()
  // CHECK-NEXT:    llvm.call @mgpuStreamWaitEvent(%[[A]], %[[E0]])
  // CHECK:         llvm.call @mgpuMemset32({{.*}}, %[[A]])
  // CHECK:         %[[B:.*]] = llvm.call @mgpuStreamCreate()
  // CHECK:         llvm.call @mgpuStreamWaitEvent(%[[B]], %[[OUTE]])
  // CHECK:         llvm.call @mgpuMemset32({{.*}}, %[[B]])
  // CHECK:         llvm.call @mgpuMemset32({{.*}}, %[[A]])
  // CHECK-NEXT:    llvm.call @mgpuStreamSynchronize(%[[A]])
  // CHECK:         llvm.call @mgpuStreamWaitEvent(%[[S]],
  // CHECK:         llvm.call @mgpuStreamWaitEvent(%[[S]],
  // CHECK-NEXT:    llvm.call @mgpuEventDestroy
  // CHECK-NEXT:    llvm.return
  func.func @unordered_input(%s : !llvm.ptr, %a : memref<16xi32>,
                             %b : memref<16xi32>, %v : i32) {
    %outside = gpu.wait async
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      %t1 = gpu.memset async %a, %v : memref<16xi32>, i32
      %t2 = gpu.memset async [%outside] %b, %v : memref<16xi32>, i32
      gpu.memset %a, %v : memref<16xi32>, i32
      gpu.on_stream.yield [%t1, %t2]
    }
    return
  }

  // A launch on another stream in the body (`gpu.launch_func <%s2>`) runs on
  // that stream as it is: the stream-based model, with no token to depend on
  // the entry event.
  // CHECK-LABEL: func @stream_launch_in_body
  // CHECK-SAME:    (%[[S:[^:]*]]: !llvm.ptr, %[[S2:[^:]*]]: !llvm.ptr,
  // CHECK-NOT:     llvm.call
  // CHECK:         gpu.launch_func <%[[S2]] : !llvm.ptr> @kernels::@kernel
  // CHECK-NOT:     llvm.call
  // CHECK:         llvm.return
  func.func @stream_launch_in_body(%s : !llvm.ptr, %s2 : !llvm.ptr,
                                   %sz : index) {
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func <%s2 : !llvm.ptr> @kernels::@kernel
          blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz)
      gpu.on_stream.yield
    }
    return
  }

  // An unused entry token records no event; the body is inlined.
  // CHECK-LABEL: func @unused_entry
  // CHECK-NEXT:    %[[J:.*]] = llvm.add
  // CHECK-NEXT:    llvm.return %[[J]]
  func.func @unused_entry(%s : !llvm.ptr, %i : index) -> index {
    %r = gpu.on_stream <%s : !llvm.ptr> -> index {
    ^bb0(%t0: !gpu.async.token):
      %j = arith.addi %i, %i : index
      gpu.on_stream.yield %j : index
    }
    return %r : index
  }

  // A body of several blocks becomes blocks of the function; each exit hands
  // over what it lists and branches to the op's continuation with its values.
  // CHECK-LABEL: func @blocks
  // CHECK-SAME:    (%[[S:[^:]*]]: !llvm.ptr, %{{.*}}: i1,
  // CHECK:         %[[E0:.*]] = llvm.call @mgpuEventCreate()
  // CHECK-NEXT:    llvm.call @mgpuEventRecord(%[[E0]], %[[S]])
  // CHECK-NEXT:    llvm.br ^[[ENTRY:.*]]
  // CHECK:       ^[[ENTRY]]:
  // CHECK:         llvm.cond_br %{{.*}}, ^[[THEN:.*]], ^[[ELSE:.*]]
  // CHECK:       ^[[THEN]]:
  // CHECK:         llvm.call @mgpuMemset32
  // CHECK:         llvm.call @mgpuStreamWaitEvent(%[[S]],
  // CHECK:         llvm.br ^[[CONT:.*]](%{{.*}} : i32)
  // CHECK:       ^[[ELSE]]:
  // CHECK-NOT:     mgpuStreamWaitEvent(%[[S]]
  // CHECK:         llvm.br ^[[CONT]](%{{.*}} : i32)
  // CHECK:       ^[[CONT]](%[[R:.*]]: i32):
  // CHECK-NEXT:    llvm.return %[[R]]
  func.func @blocks(%s : !llvm.ptr, %c : i1, %buf : memref<16xi32>, %v : i32)
      -> i32 {
    %r = gpu.on_stream <%s : !llvm.ptr> -> i32 {
    ^bb0(%t0: !gpu.async.token):
      cf.cond_br %c, ^bb1, ^bb2
    ^bb1:
      %t1 = gpu.memset async [%t0] %buf, %v : memref<16xi32>, i32
      gpu.on_stream.yield [%t1] %v : i32
    ^bb2:
      %w = arith.addi %v, %v : i32
      gpu.on_stream.yield %w : i32
    }
    return %r : i32
  }

  // In a region that keeps one block (a loop body), a body of several blocks
  // becomes an scf.execute_region; the event is recorded in each iteration.
  // CHECK-LABEL: func @in_loop
  // CHECK-SAME:    (%[[S:[^:]*]]: !llvm.ptr,
  // CHECK:         scf.for
  // CHECK-NEXT:      %[[E0:.*]] = llvm.call @mgpuEventCreate()
  // CHECK-NEXT:      llvm.call @mgpuEventRecord(%[[E0]], %[[S]])
  // CHECK-NEXT:      scf.execute_region {
  // CHECK:             llvm.call @mgpuStreamWaitEvent(%[[S]],
  // CHECK:             scf.yield
  // CHECK:             scf.yield
  // CHECK-NOT:     gpu.on_stream
  func.func @in_loop(%s : !llvm.ptr, %c : i1, %buf : memref<16xi32>,
                     %v : i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      gpu.on_stream <%s : !llvm.ptr> {
      ^bb0(%t0: !gpu.async.token):
        cf.cond_br %c, ^bb1, ^bb2
      ^bb1:
        %t1 = gpu.memset async [%t0] %buf, %v : memref<16xi32>, i32
        gpu.on_stream.yield [%t1]
      ^bb2:
        gpu.on_stream.yield
      }
    }
    return
  }
}
