// RUN: mlir-opt %s --gpu-to-llvm -split-input-file | FileCheck %s

module attributes {gpu.container_module} {
  // CHECK: gpu.module
  gpu.module @kernel_module [#nvvm.target] {
    llvm.func @kernel(%arg0: i32, %arg1: !llvm.ptr,
        %arg2: !llvm.ptr, %arg3: i64, %arg4: i64,
        %arg5: i64) attributes {gpu.kernel} {
      llvm.return
    }
  }

  func.func @foo(%buffer: memref<?xf32>) {
  // CHECK: [[C8:%.*]] = llvm.mlir.constant(8 : index) : i64
  // CHECK: [[C32:%.*]] = llvm.mlir.constant(32 : i32) : i32
  // CHECK: [[C256:%.*]] = llvm.mlir.constant(256 : i32) : i32
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : i32
    %c256 = arith.constant 256 : i32

  // CHECK: gpu.launch_func @kernel_module::@kernel
  // CHECK: blocks in ([[C8]], [[C8]], [[C8]]) threads in ([[C8]], [[C8]], [[C8]]) : i64
  // CHECK: dynamic_shared_memory_size [[C256]]
  // CHECK: args([[C32]] : i32, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64)
    gpu.launch_func @kernel_module::@kernel
        blocks in (%c8, %c8, %c8)
        threads in (%c8, %c8, %c8)
        dynamic_shared_memory_size %c256
        args(%c32 : i32, %buffer : memref<?xf32>)
    return
  }
}


// -----

module attributes {gpu.container_module} {
  // CHECK: gpu.module
  gpu.module @kernel_module [#nvvm.target] {
    llvm.func @kernel(%arg0: i32, %arg1: !llvm.ptr,
        %arg2: !llvm.ptr, %arg3: i64, %arg4: i64,
        %arg5: i64) attributes {gpu.kernel} {
      llvm.return
    }
  }

  func.func @foo(%buffer: memref<?xf32>) {
  // CHECK: [[C8:%.*]] = llvm.mlir.constant(8 : index) : i64
  // CHECK: [[C32:%.*]] = llvm.mlir.constant(32 : i32) : i32
  // CHECK: [[C256:%.*]] = llvm.mlir.constant(256 : i32) : i32
  // CHECK: [[C2:%.*]] = llvm.mlir.constant(2 : index) : i64
    %c8 = arith.constant 8 : index    
    %c32 = arith.constant 32 : i32
    %c256 = arith.constant 256 : i32
    %c2 = arith.constant 2 : index

  // CHECK: gpu.launch_func @kernel_module::@kernel
  // CHECK: clusters in ([[C2]], [[C2]], [[C2]])
  // CHECK: blocks in ([[C8]], [[C8]], [[C8]]) threads in ([[C8]], [[C8]], [[C8]]) : i64
  // CHECK: dynamic_shared_memory_size [[C256]]
  // CHECK: args([[C32]] : i32, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64)
    gpu.launch_func @kernel_module::@kernel
        clusters in (%c2, %c2, %c2)
        blocks in (%c8, %c8, %c8)
        threads in (%c8, %c8, %c8)
        dynamic_shared_memory_size %c256
        args(%c32 : i32, %buffer : memref<?xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  // CHECK: gpu.binary
  gpu.binary @kernel_module [#gpu.object<#rocdl.target, "blob">]

  func.func @foo(%buffer: memref<?xf32>) {
  // CHECK: [[C8:%.*]] = llvm.mlir.constant(8 : index) : i64
  // CHECK: [[C32:%.*]] = llvm.mlir.constant(32 : i32) : i32
  // CHECK: [[C256:%.*]] = llvm.mlir.constant(256 : i32) : i32
  // CHECK: [[C2:%.*]] = llvm.mlir.constant(2 : index) : i64
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : i32
    %c256 = arith.constant 256 : i32
    %c2 = arith.constant 2 : index

  // CHECK: gpu.launch_func @kernel_module::@kernel
  // CHECK: clusters in ([[C2]], [[C2]], [[C2]])
  // CHECK: blocks in ([[C8]], [[C8]], [[C8]]) threads in ([[C8]], [[C8]], [[C8]]) : i64
  // CHECK: dynamic_shared_memory_size [[C256]]
  // CHECK: args([[C32]] : i32, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64)
    gpu.launch_func @kernel_module::@kernel
        clusters in (%c2, %c2, %c2)
        blocks in (%c8, %c8, %c8)
        threads in (%c8, %c8, %c8)
        dynamic_shared_memory_size %c256
        args(%c32 : i32, %buffer : memref<?xf32>)
    return
  }
}

// -----

// Test that gpu.launch_func async with multiple async dependencies correctly
// synchronizes all deps onto the primary stream via events.
module attributes {gpu.container_module} {
  gpu.module @kernel_module [#nvvm.target] {
    llvm.func @kernel() attributes {gpu.kernel} {
      llvm.return
    }
  }

  // CHECK-LABEL: @multi_dep_launch
  func.func @multi_dep_launch() {
    %c1 = arith.constant 1 : index
    // CHECK: %[[stream0:.*]] = llvm.call @mgpuStreamCreate()
    %t0 = gpu.wait async
    // CHECK: %[[stream1:.*]] = llvm.call @mgpuStreamCreate()
    %t1 = gpu.wait async
    // The event for the second dependency is created and recorded after
    // its defining stream, then the primary stream waits on it.
    // CHECK: %[[e:.*]] = llvm.call @mgpuEventCreate()
    // CHECK: llvm.call @mgpuEventRecord(%[[e]], %[[stream1]])
    // CHECK: llvm.call @mgpuStreamWaitEvent(%[[stream0]], %[[e]])
    // CHECK: llvm.call @mgpuEventDestroy(%[[e]])
    // CHECK: gpu.launch_func <%[[stream0]] : !llvm.ptr> @kernel_module::@kernel
    %t2 = gpu.launch_func async [%t0, %t1] @kernel_module::@kernel
        blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
    gpu.wait [%t2]
    return
  }
}

// -----

// A launch on an explicit stream (asyncObject) runs on that stream: no stream
// is created, synchronized or destroyed.
module attributes {gpu.container_module} {
  gpu.module @kernel_module [#nvvm.target] {
    llvm.func @kernel() attributes {gpu.kernel} {
      llvm.return
    }
  }

  // CHECK-LABEL: @explicit_stream
  // CHECK-SAME: (%[[STREAM:[^:]*]]: !llvm.ptr)
  func.func @explicit_stream(%stream : !llvm.ptr) {
    %c1 = arith.constant 1 : index
    // CHECK-NOT: llvm.call @mgpuStream
    // CHECK: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @kernel_module::@kernel
    // CHECK-NOT: llvm.call @mgpuStream
    // CHECK: llvm.return
    gpu.launch_func <%stream : !llvm.ptr> @kernel_module::@kernel
        blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// The async token of a launch on an explicit stream stands for that stream,
// which stays the caller's: work that depends on the token continues on it,
// a second user forks from it, and the host waits for it through an event,
// not by synchronizing the stream. The caller's stream is never created,
// synchronized or destroyed.
module attributes {gpu.container_module} {
  gpu.module @kernel_module [#nvvm.target] {
    llvm.func @kernel() attributes {gpu.kernel} {
      llvm.return
    }
  }

  // CHECK-LABEL: @explicit_stream_token
  // CHECK-SAME: (%[[STREAM:[^:]*]]: !llvm.ptr)
  func.func @explicit_stream_token(%stream : !llvm.ptr) {
    %c1 = arith.constant 1 : index
    // CHECK-NOT: llvm.call @mgpuStream
    // CHECK: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @kernel_module::@kernel
    // CHECK-NEXT: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @kernel_module::@kernel
    // CHECK-NEXT: %[[EVENT:.*]] = llvm.call @mgpuEventCreate()
    // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[EVENT]], %[[STREAM]])
    // CHECK-NEXT: llvm.call @mgpuEventSynchronize(%[[EVENT]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[EVENT]])
    // CHECK-NOT: llvm.call @mgpuStream
    // CHECK: llvm.return
    %t0 = gpu.launch_func async <%stream : !llvm.ptr> @kernel_module::@kernel
        blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
    %t1 = gpu.launch_func async [%t0] @kernel_module::@kernel
        blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
    gpu.wait [%t1]
    return
  }

  // CHECK-LABEL: @explicit_stream_fork
  // CHECK-SAME: (%[[STREAM:[^:]*]]: !llvm.ptr)
  func.func @explicit_stream_fork(%stream : !llvm.ptr) {
    %c1 = arith.constant 1 : index
    // CHECK-NOT: llvm.call @mgpuStream
    // CHECK: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @kernel_module::@kernel
    // CHECK-NEXT: %[[E0:.*]] = llvm.call @mgpuEventCreate()
    // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E0]], %[[STREAM]])
    // CHECK-NEXT: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @kernel_module::@kernel
    // CHECK-NEXT: %[[FORK:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK-NEXT: llvm.call @mgpuStreamWaitEvent(%[[FORK]], %[[E0]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E0]])
    // CHECK-NEXT: gpu.launch_func <%[[FORK]] : !llvm.ptr> @kernel_module::@kernel
    // CHECK-NEXT: %[[E1:.*]] = llvm.call @mgpuEventCreate()
    // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E1]], %[[STREAM]])
    // CHECK-NEXT: llvm.call @mgpuEventSynchronize(%[[E1]])
    // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E1]])
    // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[FORK]])
    // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[FORK]])
    // CHECK-NEXT: llvm.return
    %t0 = gpu.launch_func async <%stream : !llvm.ptr> @kernel_module::@kernel
        blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
    %t1 = gpu.launch_func async [%t0] @kernel_module::@kernel
        blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
    %t2 = gpu.launch_func async [%t0] @kernel_module::@kernel
        blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
    gpu.wait [%t1, %t2]
    return
  }

  // A use of the token other than by async GPU work or a host wait goes
  // through a stream of the lowering's own, forked from the caller's with an
  // event: a loop carries an event recorded on that stream (the caller's
  // stream would be waited for and destroyed as an event in the body), a
  // token-less op synchronizes that stream (not the caller's), and a returned
  // token is such an event.

  // CHECK-LABEL: @explicit_stream_token_in_loop
  // CHECK-SAME: (%[[STREAM:[^:]*]]: !llvm.ptr
  func.func @explicit_stream_token_in_loop(%stream : !llvm.ptr, %n : index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // CHECK: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @kernel_module::@kernel
    // CHECK: %[[FORK:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[EVENT:.*]] = llvm.call @mgpuEventCreate()
    // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[EVENT]], %[[FORK]])
    // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[EVENT]])
    // CHECK-NOT: (%[[STREAM]])
    // CHECK: llvm.return
    %t0 = gpu.launch_func async <%stream : !llvm.ptr> @kernel_module::@kernel
        blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %t0)
        -> (!gpu.async.token) {
      %t1 = gpu.launch_func async [%t] @kernel_module::@kernel
          blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1)
      scf.yield %t1 : !gpu.async.token
    }
    gpu.wait [%r]
    return
  }

  // CHECK-LABEL: @explicit_stream_token_tokenless_user
  // CHECK-SAME: (%[[STREAM:[^:]*]]: !llvm.ptr
  func.func @explicit_stream_token_tokenless_user(%stream : !llvm.ptr,
                                                  %ptr : !llvm.ptr) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : i32
    // CHECK: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @kernel_module::@kernel
    // CHECK: %[[FORK:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: llvm.call @mgpuMemset32({{.*}}, %[[FORK]])
    // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[FORK]])
    // CHECK-NOT: llvm.call @mgpuStreamSynchronize(%[[STREAM]])
    // CHECK: llvm.return
    %t0 = gpu.launch_func async <%stream : !llvm.ptr> @kernel_module::@kernel
        blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
    %m = builtin.unrealized_conversion_cast %ptr : !llvm.ptr to memref<4xi32>
    gpu.memset [%t0] %m, %c0 : memref<4xi32>, i32
    return
  }

  // CHECK-LABEL: @explicit_stream_token_returned
  // CHECK-SAME: (%[[STREAM:[^:]*]]: !llvm.ptr
  func.func @explicit_stream_token_returned(%stream : !llvm.ptr)
      -> !gpu.async.token {
    %c1 = arith.constant 1 : index
    // CHECK: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @kernel_module::@kernel
    // CHECK: %[[FORK:.*]] = llvm.call @mgpuStreamCreate()
    // CHECK: %[[EVENT:.*]] = llvm.call @mgpuEventCreate()
    // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[EVENT]], %[[FORK]])
    // CHECK: llvm.return %[[EVENT]]
    %t0 = gpu.launch_func async <%stream : !llvm.ptr> @kernel_module::@kernel
        blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
    return %t0 : !gpu.async.token
  }
}
