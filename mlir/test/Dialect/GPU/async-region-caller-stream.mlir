// RUN: mlir-opt %s -gpu-async-region="max-streams=0" | FileCheck %s
// RUN: mlir-opt %s -gpu-async-region | FileCheck %s --check-prefix=CHAIN

// -gpu-async-region on a stream passed in by the caller: `gpu.wait async <%s>`
// brings the work enqueued on %s before into the function (unknown accesses:
// everything later depends on it), and `gpu.wait <%s>` hands the function's
// pending GPU work back to %s, without a host wait.

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

  // Two kernels on memory that does not alias: both depend on the caller's
  // work, run concurrently (dependence mode) and are joined into the caller's
  // stream. Nothing waits on the host.
  // CHECK-LABEL: func @independent_kernels
  // CHECK-SAME:    (%[[S:.*]]: !llvm.ptr,
  // CHECK:         %[[T0:.*]] = gpu.wait async <%[[S]] : !llvm.ptr>
  // CHECK-NEXT:    %[[T1:.*]] = gpu.launch_func async [%[[T0]]] @kernels::@scale
  // CHECK-NEXT:    %[[T2:.*]] = gpu.launch_func async [%[[T0]]] @kernels::@scale
  // CHECK-NEXT:    gpu.wait [%[[T1]], %[[T2]]] <%[[S]] : !llvm.ptr>
  // CHECK-NEXT:    return
  // One chain: the same, in sequence.
  // CHAIN-LABEL: func @independent_kernels
  // CHAIN-SAME:    (%[[S:.*]]: !llvm.ptr,
  // CHAIN:         %[[T0:.*]] = gpu.wait async <%[[S]] : !llvm.ptr>
  // CHAIN-NEXT:    %[[T1:.*]] = gpu.launch_func async [%[[T0]]] @kernels::@scale
  // CHAIN-NEXT:    %[[T2:.*]] = gpu.launch_func async [%[[T1]]] @kernels::@scale
  // CHAIN-NEXT:    gpu.wait [%[[T2]]] <%[[S]] : !llvm.ptr>
  // CHAIN-NEXT:    return
  func.func @independent_kernels(%s : !llvm.ptr,
                                 %a : memref<16xf32> {llvm.noalias},
                                 %b : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %t = gpu.wait async <%s : !llvm.ptr>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    gpu.wait <%s : !llvm.ptr>
    return
  }

  // The host reads memory between the two: the caller's work may write it,
  // so the host waits for it (and for the kernel), then hands the rest back.
  // CHECK-LABEL: func @host_access
  // CHECK-SAME:    (%[[S:.*]]: !llvm.ptr,
  // CHECK:         %[[T0:.*]] = gpu.wait async <%[[S]] : !llvm.ptr>
  // CHECK-NEXT:    %[[T1:.*]] = gpu.launch_func async [%[[T0]]] @kernels::@scale
  // CHECK-NEXT:    gpu.wait [%[[T1]]]
  // CHECK-NEXT:    memref.load
  // CHECK-NEXT:    %[[T2:.*]] = gpu.launch_func async @kernels::@scale
  // CHECK-NEXT:    gpu.wait [%[[T2]]] <%[[S]] : !llvm.ptr>
  // CHECK-NEXT:    return
  // CHAIN-LABEL: func @host_access
  // CHAIN:         %[[T0:.*]] = gpu.wait async <%{{.*}} : !llvm.ptr>
  // CHAIN-NEXT:    %[[T1:.*]] = gpu.launch_func async [%[[T0]]] @kernels::@scale
  // CHAIN-NEXT:    gpu.wait [%[[T1]]]
  // CHAIN-NEXT:    memref.load
  func.func @host_access(%s : !llvm.ptr, %a : memref<16xf32>,
                         %b : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = gpu.wait async <%s : !llvm.ptr>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %x = memref.load %b[%c0] : memref<16xf32>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    gpu.wait <%s : !llvm.ptr>
    return %x : f32
  }

  // GPU work after the hand-over is the function's: the host waits for it
  // at the end.
  // CHECK-LABEL: func @work_after_handover
  // CHECK:         gpu.wait [%{{.*}}] <%{{.*}} : !llvm.ptr>
  // CHECK-NEXT:    %[[T2:.*]] = gpu.launch_func async [%{{.*}}] @kernels::@scale
  // CHECK-NEXT:    gpu.wait [%[[T2]]]
  // CHECK-NEXT:    return
  // CHAIN-LABEL: func @work_after_handover
  // CHAIN:         gpu.wait [%{{.*}}] <%{{.*}} : !llvm.ptr>
  // CHAIN-NEXT:    %[[T2:.*]] = gpu.launch_func async [%{{.*}}] @kernels::@scale
  // CHAIN-NEXT:    gpu.wait [%[[T2]]]
  // CHAIN-NEXT:    return
  func.func @work_after_handover(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %t = gpu.wait async <%s : !llvm.ptr>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    gpu.wait <%s : !llvm.ptr>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }

  // Without a hand-over, the function waits on the host for its work, and
  // for the caller's, which it depends on.
  // CHECK-LABEL: func @no_handover
  // CHECK:         %[[T0:.*]] = gpu.wait async <%{{.*}} : !llvm.ptr>
  // CHECK-NEXT:    %[[T1:.*]] = gpu.launch_func async [%[[T0]]] @kernels::@scale
  // CHECK-NEXT:    gpu.wait [%[[T1]]]
  // CHECK-NEXT:    return
  // CHAIN-LABEL: func @no_handover
  // CHAIN:         %[[T0:.*]] = gpu.wait async <%{{.*}} : !llvm.ptr>
  // CHAIN-NEXT:    %[[T1:.*]] = gpu.launch_func async [%[[T0]]] @kernels::@scale
  // CHAIN-NEXT:    gpu.wait [%[[T1]]]
  // CHAIN-NEXT:    return
  func.func @no_handover(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %t = gpu.wait async <%s : !llvm.ptr>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }

  // GPU work before the caller's token is not ordered with the caller's
  // work: the next op (on memory that may alias) depends on both.
  // CHECK-LABEL: func @work_before_stream_token
  // CHECK:         %[[T1:.*]] = gpu.launch_func async @kernels::@scale
  // CHECK-NEXT:    %[[T0:.*]] = gpu.wait async <%{{.*}} : !llvm.ptr>
  // CHECK-NEXT:    %[[T2:.*]] = gpu.launch_func async [%[[T0]], %[[T1]]] @kernels::@scale
  // CHECK-NEXT:    gpu.wait [%[[T2]]] <%{{.*}} : !llvm.ptr>
  // CHECK-NEXT:    return
  // CHAIN-LABEL: func @work_before_stream_token
  // CHAIN:         %[[T1:.*]] = gpu.launch_func async [%{{.*}}] @kernels::@scale
  // CHAIN-NEXT:    %[[T0:.*]] = gpu.wait async <%{{.*}} : !llvm.ptr>
  // CHAIN-NEXT:    %[[J:.*]] = gpu.wait async [%[[T1]], %[[T0]]]
  // CHAIN-NEXT:    %[[T2:.*]] = gpu.launch_func async [%[[J]]] @kernels::@scale
  // CHAIN-NEXT:    gpu.wait [%[[T2]]] <%{{.*}} : !llvm.ptr>
  // CHAIN-NEXT:    return
  func.func @work_before_stream_token(%s : !llvm.ptr, %a : memref<16xf32>,
                                      %b : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t = gpu.wait async <%s : !llvm.ptr>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    gpu.wait <%s : !llvm.ptr>
    return
  }

  // A copy reads the function's stack memory: the stack is gone once the
  // function returns, so the host waits for the copy before the return even
  // though the work was handed over.
  // CHECK-LABEL: func @handover_of_stack_memory
  // CHECK:         %[[T1:.*]] = gpu.memcpy async
  // CHECK-NEXT:    gpu.wait [%[[T1]]] <%{{.*}} : !llvm.ptr>
  // CHECK-NEXT:    gpu.wait [%[[T1]]]
  // CHECK-NEXT:    return
  // CHAIN-LABEL: func @handover_of_stack_memory
  // CHAIN:         %[[T1:.*]] = gpu.memcpy async
  // CHAIN-NEXT:    gpu.wait [%[[T1]]] <%{{.*}} : !llvm.ptr>
  // CHAIN-NEXT:    gpu.wait [%[[T1]]]
  // CHAIN-NEXT:    return
  func.func @handover_of_stack_memory(%s : !llvm.ptr, %a : memref<16xf32>,
                                      %f : f32) {
    %c0 = arith.constant 0 : index
    %stack = memref.alloca() : memref<16xf32>
    memref.store %f, %stack[%c0] : memref<16xf32>
    %t = gpu.wait async <%s : !llvm.ptr>
    gpu.memcpy %a, %stack : memref<16xf32>, memref<16xf32>
    gpu.wait <%s : !llvm.ptr>
    return
  }

  // One chain: a branch after the hand-over is not the function's return,
  // and the next block may touch the work's memory: the host waits before
  // the branch.
  // CHAIN-LABEL: func @handover_then_branch
  // CHAIN:         %[[T1:.*]] = gpu.launch_func async
  // CHAIN-NEXT:    gpu.wait [%[[T1]]] <%{{.*}} : !llvm.ptr>
  // CHAIN-NEXT:    gpu.wait [%[[T1]]]
  // CHAIN-NEXT:    cf.br ^bb1
  func.func @handover_then_branch(%s : !llvm.ptr, %a : memref<16xf32>)
      -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = gpu.wait async <%s : !llvm.ptr>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    gpu.wait <%s : !llvm.ptr>
    cf.br ^bb1
  ^bb1:
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }
}
