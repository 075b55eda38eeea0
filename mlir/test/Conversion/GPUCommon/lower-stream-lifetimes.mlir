// RUN: mlir-opt %s --gpu-to-llvm | FileCheck %s
// RUN: mlir-opt %s --gpu-to-llvm | FileCheck %s --check-prefix=MARK

// Stream lifetimes in -gpu-to-llvm: every stream that the lowering creates,
// and that only runtime calls use, is destroyed exactly once on every path,
// after its last use; users of one token run on streams of their own
// (implicit forks). The mark on the streams it creates is removed.

// MARK-NOT: gpu.lowered_stream

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%arg0 : f32) kernel {
      gpu.return
    }
  }

  // Two users of one token: the first continues the stream, the second gets
  // a stream of its own that waits for an event recorded after the producer.
  // CHECK-LABEL: llvm.func @fork
  func.func @fork(%sz : index, %f : f32) {
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: gpu.launch_func <%[[S]] : !llvm.ptr>
    // CHECK-NEXT: %[[E:.*]] = llvm.call @mgpuEventCreate()
    // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E]], %[[S]])
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    // CHECK: gpu.launch_func <%[[S]] : !llvm.ptr>
    %t2 = gpu.launch_func async [%t1] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    // CHECK: %[[F:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[F]], %[[E]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E]])
    // CHECK-NEXT: gpu.launch_func <%[[F]] : !llvm.ptr>
    %t3 = gpu.launch_func async [%t1] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    // CHECK: llvm.call @mgpuStreamSynchronize(%[[S]])
    // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
    // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[F]])
    // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[F]])
    gpu.wait [%t2, %t3]
    return
  }

  // An op that depends on the last token of a stream continues that stream,
  // whatever the order of its dependencies: %t2 depends on %t0, which is not
  // the last token of its stream (%t1 is), and on %u, the last token of
  // another one. It runs on the stream of %u and waits for %t0 with an event.
  // CHECK-LABEL: llvm.func @continue_last
  func.func @continue_last(%sz : index, %f : f32) {
    // CHECK: %[[S0:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: gpu.launch_func <%[[S0]] : !llvm.ptr>
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    // CHECK: %[[S1:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NOT: llvm.call @mgpuStreamCreate
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[S1]], %{{.*}})
    // CHECK-NOT: gpu.launch_func
    // CHECK: gpu.launch_func <%[[S1]] : !llvm.ptr>
    %u = gpu.wait async
    %t2 = gpu.launch_func async [%t0, %u] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    gpu.wait [%t1, %t2]
    return
  }

  // A synchronous wait on a token whose stream is used again does not
  // destroy it; the stream is destroyed once, after its last use.
  // CHECK-LABEL: llvm.func @wait_then_use
  func.func @wait_then_use(%sz : index, %f : f32) {
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    %t0 = gpu.wait async
    // CHECK: llvm.call @mgpuStreamSynchronize(%[[S]])
    // CHECK-NOT: llvm.call @mgpuStreamDestroy
    gpu.wait [%t0]
    // CHECK: gpu.launch_func <%[[S]] : !llvm.ptr>
    %t1 = gpu.launch_func async [%t0] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    // CHECK: llvm.call @mgpuStreamSynchronize(%[[S]])
    // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
    // CHECK-NOT: llvm.call @mgpuStreamDestroy
    gpu.wait [%t1]
    return
  }

  // A stream used inside an scf.if is destroyed after the scf.if, on both
  // paths.
  // CHECK-LABEL: llvm.func @nested_use
  func.func @nested_use(%sz : index, %f : f32, %c : i1) {
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    %t0 = gpu.wait async
    // CHECK: scf.if
    // CHECK:   llvm.call @mgpuStreamSynchronize(%[[S]])
    // CHECK-NOT: llvm.call @mgpuStreamDestroy
    // CHECK: }
    // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
    scf.if %c {
      gpu.wait [%t0]
    }
    return
  }

  // A stream used in one successor of a conditional branch dies on the
  // other edge. Where the successor it dies in has other predecessors (here
  // ^exit, also reached from ^use, where the stream is dead already), the
  // edge is split: the destroy goes into a block of its own.
  // CHECK-LABEL: llvm.func @branch_edges
  func.func @branch_edges(%sz : index, %f : f32, %c : i1) {
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: llvm.cond_br %{{.*}}, ^[[USE:.*]], ^[[SPLIT:.*]]
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    cf.cond_br %c, ^use, ^exit
  // CHECK: ^[[USE]]:
  // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[S]])
  // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
  // CHECK-NEXT: llvm.br ^[[EXIT:[^ ]*]]
  // CHECK: ^[[SPLIT]]:
  // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
  // CHECK-NEXT: llvm.br ^[[EXIT]]
  // CHECK: ^[[EXIT]]:
  // CHECK-NEXT: llvm.return
  ^use:
    gpu.wait [%t1]
    cf.br ^exit
  ^exit:
    return
  }

  // Where the successor the stream dies in has no other predecessor, the
  // destroy goes at its start.
  // CHECK-LABEL: llvm.func @branch_single_predecessor
  func.func @branch_single_predecessor(%sz : index, %f : f32, %c : i1) {
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: llvm.cond_br %{{.*}}, ^[[USE:.*]], ^[[SKIP:.*]]
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    cf.cond_br %c, ^use, ^skip
  // CHECK: ^[[USE]]:
  // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[S]])
  // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
  // CHECK-NEXT: llvm.br ^[[EXIT:[^ ]*]]
  // CHECK: ^[[SKIP]]:
  // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
  // CHECK-NEXT: llvm.br ^[[EXIT]]
  ^use:
    gpu.wait [%t1]
    cf.br ^exit
  ^skip:
    cf.br ^exit
  ^exit:
    return
  }

  // A token yielded out of async.execute is passed as an event recorded on its
  // stream, which is destroyed after that.
  // CHECK-LABEL: llvm.func @escapes
  func.func @escapes() {
    %a, %v = async.execute -> !async.value<!gpu.async.token> {
      // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
      // CHECK: llvm.call @mgpuEventRecord(%{{.*}}, %[[S]])
      // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
      // CHECK-NEXT: async.yield
      %t = gpu.wait async
      async.yield %t : !gpu.async.token
    }
    %e = async.await %v : !async.value<!gpu.async.token>
    gpu.wait [%e]
    return
  }

  // A stream that the input creates itself is not the lowering's to destroy.
  // CHECK-LABEL: llvm.func @own_stream
  func.func @own_stream(%sz : index, %f : f32) {
    // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    // CHECK: gpu.launch_func <%[[S]] : !llvm.ptr>
    gpu.launch_func <%s : !llvm.ptr> @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
    // CHECK: llvm.call @mgpuStreamSynchronize(%[[S]])
    // CHECK-NOT: llvm.call @mgpuStreamDestroy
    // CHECK: llvm.return
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
    return
  }
  llvm.func @mgpuStreamCreate() -> !llvm.ptr
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
}
