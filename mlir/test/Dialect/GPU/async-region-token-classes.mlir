// RUN: mlir-opt %s -gpu-async-region="max-streams=0" | FileCheck %s
// RUN: mlir-opt %s -gpu-async-region="max-streams=2" | FileCheck %s --check-prefix=TWO

// The dependence mode passes one token per class of buffers (buffers that may
// alias are one class) through the iter_args and results of SCF ops, so that
// work after them waits only for the work it conflicts with.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @update(%x : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<16xf32>
      memref.store %v, %x[%c0] : memref<16xf32>
      gpu.return
    }
  }

  // The issue-style nest: the inner loop copies %b0 <- %b1, sets %b0 and
  // copies %b2 <- %b0; after it the host stores to %b1. Each loop carries one
  // token per buffer: the host waits only for the inner loop's work on %b1
  // (the first copies), and the next outer iteration's kernel on %b1 waits
  // for nothing of %b0 or %b2.
  // CHECK-LABEL: func @inner_loop
  // CHECK:         %[[OUTER:.*]]:3 = scf.for {{.*}} iter_args(%[[O1:.*]] = %{{.*}}, %[[O0:.*]] = %{{.*}}, %[[O2:.*]] = %{{.*}}) -> (!gpu.async.token, !gpu.async.token, !gpu.async.token)
  // CHECK-NEXT:      %[[K:.*]] = gpu.launch_func async [%[[O1]]] @kernels::@update
  // CHECK-NEXT:      %[[INNER:.*]]:3 = scf.for {{.*}} iter_args(%[[I0:.*]] = %[[O0]], %[[I1:.*]] = %[[K]], %[[I2:.*]] = %[[O2]])
  // CHECK-NEXT:        %[[C1:.*]] = gpu.memcpy async [%[[I0]], %[[K]]]
  // CHECK-NEXT:        %[[S:.*]] = gpu.memset async [%[[C1]]]
  // CHECK-NEXT:        %[[C2:.*]] = gpu.memcpy async [%[[I2]], %[[S]]]
  // CHECK-NEXT:        %[[J:.*]] = gpu.wait async [%[[I1]], %[[C1]]]
  // CHECK-NEXT:        scf.yield %[[C2]], %[[J]], %[[C2]]
  // CHECK-NEXT:      }
  // CHECK-NEXT:      gpu.wait [%[[INNER]]#1]
  // CHECK-NEXT:      memref.store
  // CHECK-NEXT:      scf.yield %[[O1]], %[[INNER]]#0, %[[INNER]]#2
  // CHECK:         gpu.wait [%[[OUTER]]#0, %[[OUTER]]#1, %[[OUTER]]#2]
  // With two streams, at most two tokens: %b2 shares the last class.
  // TWO-LABEL: func @inner_loop
  // TWO:         scf.for {{.*}} -> (!gpu.async.token, !gpu.async.token) {
  // TWO:           %[[INNER:.*]]:2 = scf.for {{.*}} -> (!gpu.async.token, !gpu.async.token) {
  // TWO:             %[[C1:.*]] = gpu.memcpy async
  // TWO:             %[[C2:.*]] = gpu.memcpy async
  // TWO-NEXT:        %[[J:.*]] = gpu.wait async [%[[C1]], %[[C2]]]
  // TWO-NEXT:        scf.yield %[[C2]], %[[J]]
  // TWO:           gpu.wait [%[[INNER]]#1]
  // TWO-NEXT:      memref.store
  func.func @inner_loop(%b0 : memref<16xf32> {llvm.noalias},
                        %b1 : memref<16xf32> {llvm.noalias},
                        %b2 : memref<16xf32> {llvm.noalias},
                        %n : index, %f : f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%b1 : memref<16xf32>)
      scf.for %j = %c0 to %n step %c1 {
        gpu.memcpy %b0, %b1 : memref<16xf32>, memref<16xf32>
        gpu.memset %b0, %f : memref<16xf32>, f32
        gpu.memcpy %b2, %b0 : memref<16xf32>, memref<16xf32>
      }
      memref.store %f, %b1[%c0] : memref<16xf32>
    }
    return
  }

  // A branch gets one token result per buffer its GPU work accesses: the host
  // load of %a waits for the kernel on %a only, the kernel on %b after the
  // branch depends on the branch's %b token only.
  // CHECK-LABEL: func @branch
  // CHECK:         %[[R:.*]]:2 = scf.if %{{.*}} -> (!gpu.async.token, !gpu.async.token) {
  // CHECK-NEXT:      %[[A:.*]] = gpu.launch_func async @kernels::@update {{.*}} args(%{{.*}} : memref<16xf32>)
  // CHECK-NEXT:      %[[B:.*]] = gpu.launch_func async @kernels::@update
  // CHECK-NEXT:      scf.yield %[[A]], %[[B]]
  // CHECK-NEXT:    } else {
  // CHECK-NEXT:      %[[N:.*]] = gpu.wait async
  // CHECK-NEXT:      scf.yield %[[N]], %[[N]]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.wait [%[[R]]#0]
  // CHECK-NEXT:    memref.load
  // CHECK-NEXT:    gpu.launch_func async [%[[R]]#1]
  func.func @branch(%cond : i1, %a : memref<16xf32> {llvm.noalias},
                    %b : memref<16xf32> {llvm.noalias}) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.if %cond {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    }
    %v = memref.load %a[%c0] : memref<16xf32>
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    return %v : f32
  }

  // Buffers that may alias are one class: one token.
  // CHECK-LABEL: func @aliasing
  // CHECK:         %[[R:.*]] = scf.for {{.*}} -> (!gpu.async.token) {
  // CHECK:         gpu.wait [%[[R]]]
  // CHECK-NEXT:    memref.load
  func.func @aliasing(%a : memref<16xf32>, %b : memref<16xf32>, %n : index) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    }
    %v = memref.load %a[%c0] : memref<16xf32>
    return %v : f32
  }

  // A user's gpu.wait async accesses no buffer: its token goes with the
  // first class.
  // CHECK-LABEL: func @user_wait
  // CHECK:         scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}}) -> (!gpu.async.token, !gpu.async.token) {
  // CHECK-NEXT:      %[[KA:.*]] = gpu.launch_func async [%[[A]]]
  // CHECK-NEXT:      %[[W:.*]] = gpu.wait async [%[[B]], %[[KA]]]
  // CHECK-NEXT:      %[[KB:.*]] = gpu.launch_func async [%[[B]]]
  // CHECK-NEXT:      scf.yield %[[W]], %[[KB]]
  func.func @user_wait(%a : memref<16xf32> {llvm.noalias},
                       %b : memref<16xf32> {llvm.noalias}, %n : index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      %t = gpu.wait async
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    }
    return
  }
}
