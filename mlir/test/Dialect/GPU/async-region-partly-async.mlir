// RUN: mlir-opt -gpu-async-region %s | FileCheck %s
// RUN: mlir-opt -gpu-async-region -gpu-to-llvm %s | FileCheck %s --check-prefix=LOWERED

// -gpu-async-region on IR that is already partly async: existing tokens and
// gpu.wait ops are kept, the current token is added once where the pass's
// chain needs it, an op that is async already does not get a fresh
// `gpu.wait async` of its own, and the result lowers.

module attributes {gpu.container_module} {

  // An allocation, a copy into it and a dealloc that names the allocation's
  // token: the pass adds the copy's token (the current one), once, and keeps
  // the user's.
  // CHECK-LABEL: func @dealloc_names_alloc_token
  // LOWERED-LABEL: llvm.func @dealloc_names_alloc_token
  // LOWERED-NOT: gpu.
  // LOWERED: llvm.return
  func.func @dealloc_names_alloc_token() {
    %c2 = arith.constant 2 : index
    %h = memref.alloca(%c2) : memref<?xf32>
    // CHECK: %[[T0:.*]] = gpu.wait async
    // CHECK-NEXT: %[[M:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]]
    // CHECK-NEXT: %[[T2:.*]] = gpu.memcpy async [%[[T1]]]
    // CHECK-NEXT: %[[T3:.*]] = gpu.dealloc async [%[[T2]], %[[T1]]] %[[M]]
    // CHECK-NEXT: gpu.wait [%[[T3]]]
    // CHECK-NOT: gpu.wait
    %0 = gpu.wait async
    %1, %2 = gpu.alloc async [%0] (%c2) : memref<?xf32>
    %3 = gpu.memcpy async [%2] %1, %h : memref<?xf32>, memref<?xf32>
    %4 = gpu.dealloc async [%2] %1 : memref<?xf32>
    gpu.wait [%4]
    return
  }

  // Already in order: nothing is added.
  // CHECK-LABEL: func @already_ordered
  func.func @already_ordered() {
    %c2 = arith.constant 2 : index
    %h = memref.alloca(%c2) : memref<?xf32>
    // CHECK: %[[T0:.*]] = gpu.wait async
    // CHECK-NEXT: %[[M:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]]
    // CHECK-NEXT: %[[T2:.*]] = gpu.memcpy async [%[[T1]]]
    // CHECK-NEXT: %[[T3:.*]] = gpu.dealloc async [%[[T2]]] %[[M]]
    // CHECK-NEXT: gpu.wait [%[[T3]]]
    // CHECK-NOT: gpu.wait
    %0 = gpu.wait async
    %1, %2 = gpu.alloc async [%0] (%c2) : memref<?xf32>
    %3 = gpu.memcpy async [%2] %1, %h : memref<?xf32>, memref<?xf32>
    %4 = gpu.dealloc async [%3] %1 : memref<?xf32>
    gpu.wait [%4]
    return
  }

  // The first GPU op of the block is async already and depends on a token
  // from elsewhere: no `gpu.wait async` is made up for it.
  // CHECK-LABEL: func @token_argument
  // CHECK-SAME: (%[[ARG:.*]]: !gpu.async.token
  // CHECK-NOT: gpu.wait async
  // CHECK: %[[T:.*]] = gpu.memset async [%[[ARG]]]
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // LOWERED-LABEL: llvm.func @token_argument
  // LOWERED-COUNT-1: llvm.call @mgpuStreamCreate
  // LOWERED-NOT: llvm.call @mgpuStreamCreate
  // LOWERED: llvm.return
  func.func @token_argument(%t : !gpu.async.token, %m : memref<16xf32>,
                            %f : f32) {
    %x = gpu.memset async [%t] %m, %f : memref<16xf32>, f32
    return
  }

  // A synchronous op after async ones joins the chain once.
  // CHECK-LABEL: func @sync_after_async
  func.func @sync_after_async(%h : memref<16xf32>) {
    // CHECK: %[[T0:.*]] = gpu.wait async
    // CHECK-NEXT: %[[M:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]]
    // CHECK-NEXT: %[[T2:.*]] = gpu.memcpy async [%[[T1]]] %[[M]]
    // CHECK-NEXT: %[[T3:.*]] = gpu.dealloc async [%[[T2]]] %[[M]]
    // CHECK-NEXT: gpu.wait [%[[T3]]]
    %0 = gpu.wait async
    %m, %1 = gpu.alloc async [%0] () : memref<16xf32>
    gpu.memcpy %m, %h : memref<16xf32>, memref<16xf32>
    gpu.dealloc %m : memref<16xf32>
    return
  }

  // A user's gpu.wait async after synchronous work joins the chain (that
  // work was complete before it); what depends on it gets nothing more.
  // CHECK-LABEL: func @user_wait_async
  func.func @user_wait_async(%h : memref<16xf32>) {
    // CHECK: %[[T0:.*]] = gpu.wait async
    // CHECK-NEXT: %[[M:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] ()
    // CHECK: %[[A:.*]] = gpu.wait async [%[[T1]]]
    // CHECK-NEXT: %[[B:.*]] = gpu.memset async [%[[A]]] %[[M]]
    // CHECK-NEXT: %[[C:.*]] = gpu.memcpy async [%[[B]]]
    // CHECK-NEXT: gpu.wait [%[[C]]]
    %m = gpu.alloc () : memref<16xf32>
    %f = arith.constant 1.0 : f32
    %a = gpu.wait async
    %b = gpu.memset async [%a] %m, %f : memref<16xf32>, f32
    gpu.memcpy %h, %m : memref<16xf32>, memref<16xf32>
    return
  }
  gpu.module @kernels {
    gpu.func @kernel() kernel {
      gpu.return
    }
  }

  // A launch on a caller's stream (asyncObject) is ordered by that stream:
  // the pass adds no dependency to it (the verifier rejects both together),
  // and the host waits before it only for the pass's work it may touch (none
  // here: the kernel accesses no memory).
  // CHECK-LABEL: func @caller_stream
  // LOWERED-LABEL: llvm.func @caller_stream
  // LOWERED: gpu.launch_func <%arg0 : !llvm.ptr> @kernels::@kernel
  // LOWERED: llvm.call @mgpuStreamSynchronize
  func.func @caller_stream(%stream : !llvm.ptr) {
    %c1 = arith.constant 1 : index
    // CHECK: %[[T:.*]] = gpu.launch_func async [%{{.*}}] @kernels::@kernel
    gpu.launch_func @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    // CHECK-NEXT: gpu.launch_func <%{{.*}} : !llvm.ptr> @kernels::@kernel
    // CHECK-NEXT: gpu.wait [%[[T]]]
    // CHECK-NEXT: return
    gpu.launch_func <%stream : !llvm.ptr> @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}
