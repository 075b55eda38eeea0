// RUN: mlir-opt %s -gpu-async-region="max-streams=0" | FileCheck %s
// RUN: mlir-opt %s -gpu-async-region | FileCheck %s

// -gpu-async-region moves the host wait at the end of an async.execute body
// to after the async.await of its token. A gpu.on_stream there does not take
// that work as a dependency of its hand-over: the host waits for it before
// the region, and the load after the region reads what the body wrote.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%a : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<16xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %a[%c0] : memref<16xf32>
      gpu.return
    }
  }

  // CHECK-LABEL: func @deferred_wait_then_region
  // CHECK:         %[[D:.*]] = async.await %{{.*}} : !async.value<!gpu.async.token>
  // CHECK:         gpu.wait [%[[D]]]
  // CHECK-NEXT:    gpu.on_stream <
  // CHECK-NOT:     gpu.on_stream.yield [{{.*}}%[[D]]{{[],]}}
  // CHECK:         memref.load
  func.func @deferred_wait_then_region(%i : i64,
                                       %a : memref<16xf32> {llvm.noalias},
                                       %b : memref<16xf32> {llvm.noalias}) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = async.execute {
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      async.yield
    }
    async.await %t : !async.token
    %s = llvm.inttoptr %i : i64 to !llvm.ptr
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
      gpu.on_stream.yield
    }
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }
}
