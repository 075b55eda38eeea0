// RUN: mlir-opt %s --gpu-to-llvm | FileCheck %s

// A !gpu.async.token yielded from async.execute is passed to the awaiting
// side as an event recorded on the region's stream, never as the stream
// itself. The generic async.yield type conversion must not win over the GPU
// pattern, whatever other conversion patterns are present: the kernel below
// uses an NVVM op, which loads the NVVM dialect and its conversion patterns
// (that used to make the generic pattern win).

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%arg0 : f32) kernel {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      gpu.return
    }
  }

  // CHECK-LABEL: llvm.func @yield_after_launch
  func.func @yield_after_launch(%sz : index, %f : f32) {
    // CHECK: async.execute
    %a, %v = async.execute -> !async.value<!gpu.async.token> {
      // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
      %t0 = gpu.wait async
      // CHECK: gpu.launch_func <%[[S]] : !llvm.ptr>
      %t1 = gpu.launch_func async [%t0] @kernels::@kernel
          blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
      // CHECK: %[[E:.*]] = llvm.call @mgpuEventCreate()
      // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E]], %[[S]])
      // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
      // CHECK-NEXT: async.yield %[[E]] : !llvm.ptr
      async.yield %t1 : !gpu.async.token
    }
    // CHECK: %[[AE:.*]] = async.await
    %e = async.await %v : !async.value<!gpu.async.token>
    // CHECK: llvm.call @mgpuEventSynchronize(%[[AE]])
    // CHECK: llvm.call @mgpuEventDestroy(%[[AE]])
    gpu.wait [%e]
    return
  }

  // Only the token operands become events; other yielded values pass through.
  // CHECK-LABEL: llvm.func @yield_mixed
  func.func @yield_mixed(%sz : index, %f : f32) {
    %a, %v, %w = async.execute -> (!async.value<!gpu.async.token>, !async.value<f32>) {
      // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
      %t0 = gpu.wait async
      %t1 = gpu.launch_func async [%t0] @kernels::@kernel
          blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
      // CHECK: %[[E:.*]] = llvm.call @mgpuEventCreate()
      // CHECK-NEXT: llvm.call @mgpuEventRecord(%[[E]], %[[S]])
      // CHECK: async.yield %[[E]], %{{.*}} : !llvm.ptr, f32
      async.yield %t1, %f : !gpu.async.token, f32
    }
    %e = async.await %v : !async.value<!gpu.async.token>
    gpu.wait [%e]
    return
  }

  // A token that is already an event (here one that crossed another
  // async.execute boundary) is handed over as it is: the awaiting side owns
  // it. No event is recorded on it.
  // CHECK-LABEL: llvm.func @yield_event
  func.func @yield_event(%sz : index, %f : f32) {
    %a0, %v0 = async.execute -> !async.value<!gpu.async.token> {
      %t0 = gpu.wait async
      %t1 = gpu.launch_func async [%t0] @kernels::@kernel
          blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
      async.yield %t1 : !gpu.async.token
    }
    // CHECK: async.execute [%{{.*}}] (%{{.*}} as %[[E:.*]]: !async.value<!llvm.ptr>)
    // CHECK-NOT: llvm.call
    // CHECK: async.yield %[[E]] : !llvm.ptr
    %a1, %v1 = async.execute [%a0] (%v0 as %e : !async.value<!gpu.async.token>)
        -> !async.value<!gpu.async.token> {
      async.yield %e : !gpu.async.token
    }
    %e1 = async.await %v1 : !async.value<!gpu.async.token>
    gpu.wait [%e1]
    return
  }
}
