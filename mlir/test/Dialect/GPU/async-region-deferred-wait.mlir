// RUN: mlir-opt %s -gpu-async-region | FileCheck %s
// RUN: mlir-opt %s -gpu-async-region="max-streams=0" | FileCheck %s --check-prefix=DEP

// The host wait at the end of an async.execute body moves out of the body:
// the body yields its GPU work, which is in flight after the async.await. It
// joins the chain of GPU work there (in the dependence mode, the GPU ops that
// may conflict with it depend on it), and the host waits for it before the
// first host op that may touch its memory.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // Reads and writes %a.
    gpu.func @scale(%a : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<16xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %a[%c0] : memref<16xf32>
      gpu.return
    }
  }

  // The host loads %a, which the body's kernel writes, after a kernel on %b:
  // it waits for the body's work before the load. In the dependence mode, the
  // kernel on %b does not wait for the body's work.
  // CHECK-LABEL: func @host_access_after_await
  // CHECK:         %[[E:.*]], %[[V:.*]] = async.execute -> !async.value<!gpu.async.token>
  // CHECK:         async.await %[[E]] : !async.token
  // CHECK-NEXT:    %[[W:.*]] = async.await %[[V]]
  // CHECK-NEXT:    %[[T0:.*]] = gpu.wait async [%[[W]]]
  // CHECK-NEXT:    %[[T1:.*]] = gpu.launch_func async [%[[T0]]] @kernels::@scale {{.*}} args(%arg1
  // CHECK-NEXT:    gpu.wait [%[[W]]]
  // CHECK-NEXT:    memref.load %arg0
  // DEP-LABEL: func @host_access_after_await
  // DEP:         %[[E:.*]], %[[V:.*]] = async.execute -> !async.value<!gpu.async.token>
  // DEP:         async.await %[[E]] : !async.token
  // DEP-NEXT:    %[[W:.*]] = async.await %[[V]]
  // DEP-NEXT:    %[[T1:.*]] = gpu.launch_func async @kernels::@scale {{.*}} args(%arg1
  // DEP-NEXT:    gpu.wait [%[[W]]]
  // DEP-NEXT:    memref.load %arg0
  // DEP-NEXT:    gpu.wait [%[[T1]]]
  func.func @host_access_after_await(%a : memref<16xf32> {llvm.noalias},
                                     %b : memref<16xf32> {llvm.noalias})
      -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %e = async.execute {
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      async.yield
    }
    async.await %e : !async.token
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // A kernel on %a after a kernel on %b: the kernel on %a depends on the
  // body's work (through the chain; in the dependence mode, directly, and the
  // kernel on %b not at all).
  // CHECK-LABEL: func @gpu_access_after_await
  // CHECK:         %[[W:.*]] = async.await %{{.*}} : !async.value<!gpu.async.token>
  // CHECK-NEXT:    %[[T0:.*]] = gpu.wait async [%[[W]]]
  // CHECK-NEXT:    %[[T1:.*]] = gpu.launch_func async [%[[T0]]] @kernels::@scale {{.*}} args(%arg1
  // CHECK-NEXT:    %[[T2:.*]] = gpu.launch_func async [%[[T1]]] @kernels::@scale {{.*}} args(%arg0
  // CHECK-NEXT:    gpu.wait [%[[T2]]]
  // CHECK-NEXT:    return
  // DEP-LABEL: func @gpu_access_after_await
  // DEP:         %[[W:.*]] = async.await %{{.*}} : !async.value<!gpu.async.token>
  // DEP-NEXT:    %[[T1:.*]] = gpu.launch_func async @kernels::@scale {{.*}} args(%arg1
  // DEP-NEXT:    %[[T2:.*]] = gpu.launch_func async [%[[W]]] @kernels::@scale {{.*}} args(%arg0
  // DEP-NEXT:    gpu.wait [%[[T1]], %[[T2]]]
  // DEP-NEXT:    return
  func.func @gpu_access_after_await(%a : memref<16xf32> {llvm.noalias},
                                    %b : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %e = async.execute {
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      async.yield
    }
    async.await %e : !async.token
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }

  // A body that depends on another one takes its work along: the host waits
  // for the second body's work, which includes the first one's, before it
  // loads %a, which the first one writes. In the dependence mode, the second
  // body's kernel on %b does not wait for the first body's work on %a: the
  // second body yields both, and the host waits for both.
  // CHECK-LABEL: func @dependent_bodies
  // CHECK:         %[[E1:.*]], %[[V1:.*]] = async.execute -> !async.value<!gpu.async.token>
  // CHECK:         %[[E2:.*]], %[[V2:.*]] = async.execute [%[[E1]]] (%[[V1]] as %[[G:.*]]: !async.value<!gpu.async.token>)
  // CHECK-NEXT:      %[[T0:.*]] = gpu.wait async [%[[G]]]
  // CHECK-NEXT:      %[[T1:.*]] = gpu.launch_func async [%[[T0]]]
  // CHECK-NEXT:      async.yield %[[T1]]
  // CHECK:         async.await %[[E2]] : !async.token
  // CHECK-NEXT:    %[[W:.*]] = async.await %[[V2]]
  // CHECK-NEXT:    gpu.wait [%[[W]]]
  // CHECK-NEXT:    memref.load %arg0
  // DEP-LABEL: func @dependent_bodies
  // DEP:         async.execute [%{{.*}}] (%{{.*}} as %[[G:.*]]: !async.value<!gpu.async.token>)
  // DEP-NEXT:      %[[T1:.*]] = gpu.launch_func async @kernels::@scale
  // DEP-NEXT:      async.yield %[[G]], %[[T1]]
  // DEP:         async.await %{{.*}} : !async.token
  // DEP-NEXT:    %[[W1:.*]] = async.await
  // DEP-NEXT:    %[[W2:.*]] = async.await
  // DEP-NEXT:    gpu.wait [%[[W1]], %[[W2]]]
  // DEP-NEXT:    memref.load %arg0
  func.func @dependent_bodies(%a : memref<16xf32> {llvm.noalias},
                              %b : memref<16xf32> {llvm.noalias}) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %e1 = async.execute {
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      async.yield
    }
    %e2 = async.execute [%e1] {
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
      async.yield
    }
    async.await %e2 : !async.token
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // A copy reads stack memory of the body: the stack is gone once the body
  // ends, so the body waits for the copy itself.
  // CHECK-LABEL: func @body_stack_memory
  // CHECK:         %[[E:.*]] = async.execute {
  // CHECK:           %[[T:.*]] = gpu.memcpy async
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK-NEXT:      async.yield
  // CHECK:         async.await %[[E]] : !async.token
  // CHECK-NEXT:    return
  // DEP-LABEL: func @body_stack_memory
  // DEP:           %[[T:.*]] = gpu.memcpy async
  // DEP-NEXT:      gpu.wait [%[[T]]]
  // DEP-NEXT:      async.yield
  func.func @body_stack_memory(%a : memref<16xf32>, %f : f32) {
    %c0 = arith.constant 0 : index
    %e = async.execute {
      %s = memref.alloca() : memref<16xf32>
      memref.store %f, %s[%c0] : memref<16xf32>
      gpu.memcpy %a, %s : memref<16xf32>, memref<16xf32>
      async.yield
    }
    async.await %e : !async.token
    return
  }

  // The second body awaits the first: its end, and so its await, stands for
  // the first body's work, which the host waits for before it loads %a.
  // CHECK-LABEL: func @await_in_body
  // CHECK:         async.execute -> !async.value<!gpu.async.token> {
  // CHECK:           gpu.launch_func async
  // CHECK:         %[[E2:.*]], %[[V2:.*]] = async.execute -> !async.value<!gpu.async.token> {
  // CHECK-NEXT:      async.await
  // CHECK-NEXT:      %[[G:.*]] = async.await
  // CHECK-NEXT:      async.yield %[[G]]
  // CHECK:         async.await %[[E2]] : !async.token
  // CHECK-NEXT:    %[[W:.*]] = async.await %[[V2]]
  // CHECK-NEXT:    gpu.wait [%[[W]]]
  // CHECK-NEXT:    memref.load %arg0
  // DEP-LABEL: func @await_in_body
  // DEP:           async.yield
  // DEP:           async.yield
  // DEP:         async.await %{{.*}} : !async.token
  // DEP-NEXT:    %[[W:.*]] = async.await
  // DEP-NEXT:    gpu.wait [%[[W]]]
  // DEP-NEXT:    memref.load %arg0
  func.func @await_in_body(%a : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %e1 = async.execute {
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      async.yield
    }
    %e2 = async.execute {
      async.await %e1 : !async.token
      async.yield
    }
    async.await %e2 : !async.token
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // Awaiting a value of the body waits for the end of the body as awaiting
  // its token does: the host waits for the body's work before it loads %a.
  // CHECK-LABEL: func @value_awaited_first
  // CHECK:         %[[E:.*]], %[[V:.*]]:2 = async.execute -> (!async.value<index>, !async.value<!gpu.async.token>)
  // CHECK:         %[[I:.*]] = async.await %[[V]]#0 : !async.value<index>
  // CHECK-NEXT:    %[[W:.*]] = async.await %[[V]]#1 : !async.value<!gpu.async.token>
  // CHECK-NEXT:    gpu.wait [%[[W]]]
  // CHECK-NEXT:    memref.load %arg0[%[[I]]]
  // CHECK-NEXT:    async.await %[[E]] : !async.token
  // CHECK-NEXT:    return
  // DEP-LABEL: func @value_awaited_first
  // DEP:         async.await %{{.*}}#0 : !async.value<index>
  // DEP-NEXT:    %[[W:.*]] = async.await %{{.*}}#1 : !async.value<!gpu.async.token>
  // DEP-NEXT:    gpu.wait [%[[W]]]
  // DEP-NEXT:    memref.load %arg0
  func.func @value_awaited_first(%a : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %e, %v = async.execute -> !async.value<index> {
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      async.yield %c0 : index
    }
    %i = async.await %v : !async.value<index>
    %x = memref.load %a[%i] : memref<16xf32>
    async.await %e : !async.token
    return %x : f32
  }

  // In the dependence mode, GPU work after the await that is not an async op
  // of the block itself (a copy in an scf.if, a copy on a caller's stream) is
  // not given the body's work: the host waits for it before the op that
  // holds that work, which may touch its memory.
  // DEP-LABEL: func @nested_after_await
  // DEP:         %[[W:.*]] = async.await %{{.*}} : !async.value<!gpu.async.token>
  // DEP-NEXT:    gpu.launch_func async @kernels::@scale {{.*}} args(%arg1
  // DEP-NEXT:    gpu.wait [%[[W]]]
  // DEP-NEXT:    scf.if
  func.func @nested_after_await(%a : memref<16xf32> {llvm.noalias},
                                %b : memref<16xf32> {llvm.noalias},
                                %cond : i1) {
    %c1 = arith.constant 1 : index
    %e = async.execute {
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      async.yield
    }
    async.await %e : !async.token
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    scf.if %cond {
      gpu.memcpy %a, %b : memref<16xf32>, memref<16xf32>
    }
    return
  }

  // DEP-LABEL: func @on_stream_after_await
  // DEP:         %[[W:.*]] = async.await %{{.*}} : !async.value<!gpu.async.token>
  // DEP-NEXT:    gpu.wait [%[[W]]]
  // DEP-NEXT:    gpu.on_stream
  func.func @on_stream_after_await(%a : memref<16xf32> {llvm.noalias},
                                   %b : memref<16xf32> {llvm.noalias},
                                   %s : !llvm.ptr) {
    %c1 = arith.constant 1 : index
    %e = async.execute {
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      async.yield
    }
    async.await %e : !async.token
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.memcpy %a, %b : memref<16xf32>, memref<16xf32>
      gpu.on_stream.yield
    }
    return
  }
}
