// RUN: mlir-opt %s -gpu-async-region | FileCheck %s
// RUN: mlir-opt %s -gpu-async-region="max-streams=0" \
// RUN: | FileCheck %s --check-prefix=DEP

// The single chain of -gpu-async-region on gpu.on_stream bodies with SCF ops
// that hold GPU work: the body is split at them, so that the stream, not the
// host, orders the work before, inside and after their blocks. The dependence
// mode carries tokens through them instead and leaves the body whole.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%a : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<16xf32>
      memref.store %x, %a[%c0] : memref<16xf32>
      gpu.return
    }
  }

  // A kernel, a loop and a branch of kernels, and a kernel: four pieces on
  // %s in program order, each a chain from its entry token handed back to
  // %s. The constants move out of the first piece. Nothing waits on the host.
  // CHECK-LABEL: func @loop_and_branch
  // CHECK-SAME:    (%[[S:.*]]: !llvm.ptr,
  // CHECK-NOT:     gpu.wait [
  // CHECK:         arith.constant 4
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T0:.*]]: !gpu.async.token):
  // CHECK-NEXT:      %[[J0:.*]] = gpu.wait async [%[[T0]]]
  // CHECK-NEXT:      %[[K0:.*]] = gpu.launch_func async [%[[J0]]]
  // CHECK-NEXT:      gpu.on_stream.yield [%[[K0]]]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    scf.for
  // CHECK-NEXT:      gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:      ^bb0(%[[T1:.*]]: !gpu.async.token):
  // CHECK-NEXT:        %[[J1:.*]] = gpu.wait async [%[[T1]]]
  // CHECK-NEXT:        %[[K1:.*]] = gpu.launch_func async [%[[J1]]]
  // CHECK-NEXT:        gpu.on_stream.yield [%[[K1]]]
  // CHECK-NEXT:      }
  // CHECK-NEXT:    }
  // CHECK-NEXT:    scf.if
  // CHECK-NEXT:      gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:      ^bb0(%[[T2:.*]]: !gpu.async.token):
  // CHECK-NEXT:        %[[J2:.*]] = gpu.wait async [%[[T2]]]
  // CHECK-NEXT:        %[[K2:.*]] = gpu.launch_func async [%[[J2]]]
  // CHECK-NEXT:        gpu.on_stream.yield [%[[K2]]]
  // CHECK-NEXT:      }
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T3:.*]]: !gpu.async.token):
  // CHECK-NEXT:      %[[J3:.*]] = gpu.wait async [%[[T3]]]
  // CHECK-NEXT:      %[[K3:.*]] = gpu.launch_func async [%[[J3]]]
  // CHECK-NEXT:      gpu.on_stream.yield [%[[K3]]]
  // CHECK-NEXT:    }
  // CHECK-NOT:     gpu.wait [
  // CHECK:         return
  // DEP-LABEL: func @loop_and_branch
  // DEP-COUNT-1:   gpu.on_stream <
  // DEP-NOT:       gpu.on_stream <
  // DEP:           return
  func.func @loop_and_branch(%s : !llvm.ptr, %a : memref<16xf32>, %p : i1) {
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      scf.for %i = %c0 to %c4 step %c1 {
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      }
      scf.if %p {
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      }
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    return
  }

  // Values cross pieces as results: the buffer the first piece allocates is
  // its result, used by the loop's piece and returned by the op.
  // CHECK-LABEL: func @values_across
  // CHECK:         %[[M:.*]] = gpu.on_stream <%{{.*}} : !llvm.ptr> -> memref<16xf32> {
  // CHECK:           %[[MEM:.*]], %[[A:.*]] = gpu.alloc async
  // CHECK-NEXT:      gpu.on_stream.yield [%[[A]]] %[[MEM]] : memref<16xf32>
  // CHECK:         scf.for
  // CHECK-NEXT:      gpu.on_stream
  // CHECK:             gpu.launch_func async {{.*}} args(%[[M]] : memref<16xf32>)
  // CHECK-NOT:     gpu.wait [
  // CHECK-NOT:     gpu.on_stream <
  // CHECK:         return %[[M]]
  func.func @values_across(%s : !llvm.ptr) -> memref<16xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %r = gpu.on_stream <%s : !llvm.ptr> -> memref<16xf32> {
    ^bb0(%t0: !gpu.async.token):
      %m = gpu.alloc () : memref<16xf32>
      scf.for %i = %c0 to %c4 step %c1 {
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<16xf32>)
      }
      gpu.on_stream.yield %m : memref<16xf32>
    }
    return %r : memref<16xf32>
  }

  // Nested loops, and an scf.while whose condition a piece computes: each
  // block of GPU work is a piece of its own.
  // CHECK-LABEL: func @nested_loops
  // CHECK-NOT:     gpu.wait [
  // CHECK:         scf.for
  // CHECK-NEXT:      scf.for
  // CHECK-NEXT:        gpu.on_stream
  // CHECK-NOT:     gpu.wait [
  // CHECK:         scf.while
  // CHECK-NEXT:      %[[C:.*]] = gpu.on_stream <%{{.*}} : !llvm.ptr> -> i1 {
  // CHECK:             gpu.launch_func async
  // CHECK:             gpu.on_stream.yield [%{{.*}}] %{{.*}} : i1
  // CHECK:           scf.condition(%[[C]])
  // CHECK:         } do {
  // CHECK-NEXT:    ^bb0(
  // CHECK-NEXT:      %[[N:.*]] = gpu.on_stream <%{{.*}} : !llvm.ptr> -> index {
  // CHECK:             gpu.launch_func async
  // CHECK:           scf.yield %[[N]]
  // CHECK-NOT:     gpu.wait [
  // CHECK:         return
  func.func @nested_loops(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      scf.for %i = %c0 to %c4 step %c1 {
        scf.for %j = %c0 to %c4 step %c1 {
          gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
        }
      }
      %w = scf.while (%k = %c0) : (index) -> index {
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
        %more = arith.cmpi slt, %k, %c4 : index
        scf.condition(%more) %k : index
      } do {
      ^bb0(%k2: index):
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
        %next = arith.addi %k2, %c1 : index
        scf.yield %next : index
      }
      gpu.on_stream.yield
    }
    return
  }

  // A host read in the loop waits, in its piece, for the work before it (the
  // piece's entry token); nothing else waits on the host.
  // CHECK-LABEL: func @host_read_in_loop
  // CHECK-NOT:     gpu.wait [
  // CHECK:         scf.for
  // CHECK-NEXT:      gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHECK-NEXT:      ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:        gpu.wait [%[[T]]]
  // CHECK-NEXT:        memref.load
  // CHECK-NOT:     gpu.wait [
  // CHECK:         return
  func.func @host_read_in_loop(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                               %h : memref<16xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      scf.for %i = %c0 to %c4 step %c1 {
        %x = memref.load %a[%c0] : memref<16xf32>
        memref.store %x, %h[%i] : memref<16xf32>
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      }
      gpu.on_stream.yield
    }
    return
  }

  // Host accesses in pieces without GPU work stay in a body on the stream,
  // where they wait for the stream's earlier work: a read before the loop,
  // and one in the branch that launches nothing.
  // CHECK-LABEL: func @host_ops_without_gpu_work
  // CHECK-SAME:    (%[[S:.*]]: !llvm.ptr,
  // CHECK:         gpu.on_stream <%[[S]] : !llvm.ptr> -> f32 {
  // CHECK-NEXT:    ^bb0(%[[T0:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T0]]]
  // CHECK-NEXT:      memref.load
  // CHECK:         scf.for
  // CHECK:         scf.if
  // CHECK:         } else {
  // CHECK-NEXT:      gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:      ^bb0(%[[T1:.*]]: !gpu.async.token):
  // CHECK-NEXT:        gpu.wait [%[[T1]]]
  // CHECK-NEXT:        memref.store
  func.func @host_ops_without_gpu_work(%s : !llvm.ptr, %a : memref<16xf32>,
                                       %p : i1) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %f = arith.constant 1.0 : f32
    %r = gpu.on_stream <%s : !llvm.ptr> -> f32 {
    ^bb0(%t0: !gpu.async.token):
      %x = memref.load %a[%c0] : memref<16xf32>
      scf.for %i = %c0 to %c4 step %c1 {
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      }
      scf.if %p {
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      } else {
        memref.store %f, %a[%c0] : memref<16xf32>
      }
      gpu.on_stream.yield %x : f32
    }
    return %r : f32
  }

  // The entry token is used in the loop: a piece would lose it, so the body
  // stays whole, with today's host waits at the loop's boundaries.
  // CHECK-LABEL: func @entry_token_in_loop
  // CHECK:         gpu.on_stream
  // CHECK-NEXT:    ^bb0(%[[T0:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T0]]]
  // CHECK-NEXT:      scf.for
  // CHECK:             gpu.launch_func async [%[[T0]]
  // CHECK:             gpu.wait [
  // CHECK:         return
  func.func @entry_token_in_loop(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      scf.for %i = %c0 to %c4 step %c1 {
        %t = gpu.launch_func async [%t0] @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
        gpu.wait [%t]
      }
      gpu.on_stream.yield
    }
    return
  }

  // A token that a loop carries is not split at: it would leave a piece.
  // CHECK-LABEL: func @token_carried
  // CHECK:         gpu.on_stream
  // CHECK:           scf.for
  // CHECK:         }
  // CHECK-NOT:     gpu.on_stream <
  // CHECK:         return
  func.func @token_carried(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      %start = gpu.wait async
      %end = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %start) -> !gpu.async.token {
        %k = gpu.launch_func async [%t] @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
        scf.yield %k : !gpu.async.token
      }
      gpu.on_stream.yield [%end]
    }
    return
  }
}
