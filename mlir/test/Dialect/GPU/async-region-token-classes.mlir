// RUN: mlir-opt %s -gpu-async-region="max-streams=0" | FileCheck %s
// RUN: mlir-opt %s -gpu-async-region="max-streams=2" | FileCheck %s --check-prefix=TWO

// The dependence mode passes one token per class of buffers (buffers that may
// alias are one class) through the iter_args and results of SCF ops, so that
// work after them waits only for the work it conflicts with.

module attributes {gpu.container_module} {
  gpu.binary @bin [#gpu.object<#nvvm.target, "">]
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

  // With two streams and the kernel's chain open beside the loop: one token.
  // TWO-LABEL: func @open_beside_loop
  // TWO:         %[[C:.*]] = gpu.launch_func async
  // TWO:         %[[R:.*]] = scf.for {{.*}} -> (!gpu.async.token) {
  // TWO:         gpu.wait [%[[C]], %[[R]]]
  func.func @open_beside_loop(%a : memref<16xf32> {llvm.noalias},
                              %b : memref<16xf32> {llvm.noalias},
                              %c : memref<16xf32> {llvm.noalias}, %n : index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%c : memref<16xf32>)
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
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

  // scf.while carries the classes through its `before` region, which forwards
  // them with its work to the `after` region and as the results.
  // CHECK-LABEL: func @while_classes
  // CHECK:         %[[R:.*]]:3 = scf.while (%{{.*}} = %{{.*}}, %[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}})
  // CHECK-NEXT:      %[[KA:.*]] = gpu.launch_func async [%[[A]]]
  // CHECK:           scf.condition(%{{.*}}) %{{.*}}, %[[KA]], %[[B]]
  // CHECK-NEXT:    } do {
  // CHECK-NEXT:    ^bb0(%{{.*}}: index, %[[FA:.*]]: !gpu.async.token, %[[FB:.*]]: !gpu.async.token):
  // CHECK-NEXT:      %[[KB:.*]] = gpu.launch_func async [%[[FB]]]
  // CHECK:           scf.yield %{{.*}}, %[[FA]], %[[KB]]
  // CHECK:         gpu.wait [%[[R]]#1]
  // CHECK-NEXT:    memref.load
  func.func @while_classes(%a : memref<16xf32> {llvm.noalias},
                           %b : memref<16xf32> {llvm.noalias},
                           %n : index) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.while (%i = %c0) : (index) -> index {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      %p = arith.cmpi slt, %i, %n : index
      scf.condition(%p) %i : index
    } do {
    ^bb0(%j : index):
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
      %k = arith.addi %j, %c1 : index
      scf.yield %k : index
    }
    %v = memref.load %a[%c0] : memref<16xf32>
    return %v : f32
  }

  // scf.index_switch: one result per class, the regions without work on a
  // class yield a token of no work.
  // CHECK-LABEL: func @index_switch_classes
  // CHECK:         %[[R:.*]]:2 = scf.index_switch
  // CHECK:         case 0 {
  // CHECK-NEXT:      %[[A:.*]] = gpu.launch_func async
  // CHECK-NEXT:      %[[N:.*]] = gpu.wait async
  // CHECK-NEXT:      scf.yield %[[N]], %[[A]]
  // CHECK:         default {
  // CHECK-NEXT:      %[[B:.*]] = gpu.launch_func async
  // CHECK-NEXT:      %[[N:.*]] = gpu.wait async
  // CHECK-NEXT:      scf.yield %[[B]], %[[N]]
  // CHECK:         gpu.wait [%[[R]]#1]
  // CHECK-NEXT:    memref.load
  // CHECK-NEXT:    gpu.launch_func async [%[[R]]#0]
  func.func @index_switch_classes(%a : memref<16xf32> {llvm.noalias},
                                  %b : memref<16xf32> {llvm.noalias},
                                  %n : index) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.index_switch %n
    case 0 {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      scf.yield
    }
    default {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    }
    %v = memref.load %a[%c0] : memref<16xf32>
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    return %v : f32
  }

  // CHECK-LABEL: func @execute_region_classes
  // CHECK:         %[[R:.*]]:2 = scf.execute_region -> (!gpu.async.token, !gpu.async.token) {
  // CHECK-NEXT:      %[[A:.*]] = gpu.launch_func async
  // CHECK-NEXT:      %[[B:.*]] = gpu.launch_func async
  // CHECK-NEXT:      scf.yield %[[A]], %[[B]]
  // CHECK:         gpu.wait [%[[R]]#1]
  // CHECK-NEXT:    memref.load
  func.func @execute_region_classes(%a : memref<16xf32> {llvm.noalias},
                                    %b : memref<16xf32> {llvm.noalias}) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.execute_region {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
      scf.yield
    }
    %v = memref.load %b[%c0] : memref<16xf32>
    return %v : f32
  }

  // The copy is pending on both classes, which pass the same token in each
  // region: one result stands for both.
  // CHECK-LABEL: func @merged_classes
  // CHECK:         %[[R:.*]] = scf.if %{{.*}} -> (!gpu.async.token) {
  // CHECK-NEXT:      %[[C:.*]] = gpu.memcpy async
  // CHECK-NEXT:      scf.yield %[[C]]
  // CHECK:         gpu.wait [%[[R]]]
  // CHECK-NEXT:    memref.load
  func.func @merged_classes(%cond : i1, %a : memref<16xf32> {llvm.noalias},
                            %b : memref<16xf32> {llvm.noalias}) -> f32 {
    %c0 = arith.constant 0 : index
    scf.if %cond {
      gpu.memcpy %a, %b : memref<16xf32>, memref<16xf32>
    }
    %v = memref.load %a[%c0] : memref<16xf32>
    return %v : f32
  }

  // The host waits for the kernel on %a in the branch: no region leaves work
  // on that class, which gets no result, and the load after it does not wait.
  // CHECK-LABEL: func @dropped_class
  // CHECK:         %[[R:.*]] = scf.if %{{.*}} -> (!gpu.async.token) {
  // CHECK:           gpu.wait [%{{.*}}]
  // CHECK-NEXT:      memref.store
  // CHECK-NEXT:      %[[B:.*]] = gpu.launch_func async
  // CHECK-NEXT:      scf.yield %[[B]]
  // CHECK-NEXT:    } else {
  // CHECK:         }
  // CHECK-NEXT:    memref.load
  // CHECK-NEXT:    gpu.wait [%[[R]]]
  func.func @dropped_class(%cond : i1, %a : memref<16xf32> {llvm.noalias},
                           %b : memref<16xf32> {llvm.noalias}) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f = arith.constant 1.0 : f32
    scf.if %cond {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      memref.store %f, %a[%c0] : memref<16xf32>
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    }
    %v = memref.load %a[%c0] : memref<16xf32>
    return %v : f32
  }

  // A kernel of unknown accesses in the loop: one class for everything.
  // CHECK-LABEL: func @everything
  // CHECK:         scf.for {{.*}} -> (!gpu.async.token) {
  // CHECK:           gpu.launch_func async [%{{.*}}, %{{.*}}] @bin::@opaque
  func.func @everything(%a : memref<16xf32> {llvm.noalias},
                        %b : memref<16xf32> {llvm.noalias}, %n : index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
      gpu.launch_func @bin::@opaque blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1)
    }
    return
  }

  // Nine independent buffers: eight classes without a stream limit, the
  // last two buffers share the last one.
  // CHECK-LABEL: func @nine_buffers
  // CHECK:         scf.for {{.*}} -> (!gpu.async.token, !gpu.async.token, !gpu.async.token, !gpu.async.token, !gpu.async.token, !gpu.async.token, !gpu.async.token, !gpu.async.token) {
  // CHECK-COUNT-7:   gpu.memset async
  // CHECK-NEXT:      %[[L:.*]] = gpu.memset async [%[[T:.*]]]
  // CHECK-NEXT:      %[[M:.*]] = gpu.memset async [%[[T]]]
  // CHECK-NEXT:      %[[J:.*]] = gpu.wait async [%[[L]], %[[M]]]
  // CHECK-NEXT:      scf.yield {{.*}}, %[[J]] :
  // TWO-LABEL: func @nine_buffers
  // TWO:         scf.for {{.*}} -> (!gpu.async.token, !gpu.async.token) {
  func.func @nine_buffers(
      %b0 : memref<16xf32> {llvm.noalias}, %b1 : memref<16xf32> {llvm.noalias},
      %b2 : memref<16xf32> {llvm.noalias}, %b3 : memref<16xf32> {llvm.noalias},
      %b4 : memref<16xf32> {llvm.noalias}, %b5 : memref<16xf32> {llvm.noalias},
      %b6 : memref<16xf32> {llvm.noalias}, %b7 : memref<16xf32> {llvm.noalias},
      %b8 : memref<16xf32> {llvm.noalias}, %n : index, %f : f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      gpu.memset %b0, %f : memref<16xf32>, f32
      gpu.memset %b1, %f : memref<16xf32>, f32
      gpu.memset %b2, %f : memref<16xf32>, f32
      gpu.memset %b3, %f : memref<16xf32>, f32
      gpu.memset %b4, %f : memref<16xf32>, f32
      gpu.memset %b5, %f : memref<16xf32>, f32
      gpu.memset %b6, %f : memref<16xf32>, f32
      gpu.memset %b7, %f : memref<16xf32>, f32
      gpu.memset %b8, %f : memref<16xf32>, f32
    }
    return
  }
}
