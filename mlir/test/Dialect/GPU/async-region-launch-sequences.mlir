// RUN: mlir-opt %s -gpu-async-region="max-streams=0" | FileCheck %s
// RUN: mlir-opt %s -gpu-async-region | FileCheck %s --check-prefix=CHAIN

// -gpu-async-region's dependence mode on launches on a stream as frontends
// emit them (gpu.launch_func <%s : !llvm.ptr>): a run of them, with only ops
// without memory effects between, becomes a gpu.on_stream region on the
// stream whose kernels are ordered by their accesses, if two consecutive ones
// may run concurrently. The single chain leaves them as they are. Where a
// launch is not wrapped, it stays on its stream (no async launch appears);
// the host waits for a stream with a gpu.on_stream that holds a gpu.wait.

// The single chain never wraps launches.
// CHAIN-NOT: gpu.launch_func async

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // a[0] = b[0]
    gpu.func @copy(%a : memref<16xf32>, %b : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %b[%c0] : memref<16xf32>
      memref.store %x, %a[%c0] : memref<16xf32>
      gpu.return
    }
    // Accesses nothing.
    gpu.func @empty() kernel {
      gpu.return
    }
  }
  gpu.binary @opaque [#gpu.object<#nvvm.target, "">]

  // Two launches on independent buffers, with a constant between them: one
  // region on %s, the kernels depend only on its entry and are both handed
  // back to %s.
  // CHECK-LABEL: func @independent
  // CHECK-SAME:    (%[[S:.*]]: !llvm.ptr,
  // CHECK:         gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK:           %[[K1:.*]] = gpu.launch_func async [%[[T]]] @kernels::@copy
  // CHECK:           %[[K2:.*]] = gpu.launch_func async [%[[T]]] @kernels::@copy
  // CHECK:           gpu.on_stream.yield [%[[K1]], %[[K2]]]
  // CHECK-NEXT:    }
  // CHECK-NOT:     gpu.wait
  // CHECK:         return
  func.func @independent(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                         %b : memref<16xf32> {llvm.noalias},
                         %c : memref<16xf32> {llvm.noalias},
                         %d : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>, %b : memref<16xf32>)
    %c2 = arith.constant 2 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@copy blocks in (%c2, %c1, %c1) threads in (%c1, %c1, %c1) args(%c : memref<16xf32>, %d : memref<16xf32>)
    return
  }

  // Three launches: the third reads what the first writes and runs after it;
  // the second is independent of both. A value made between the launches
  // and used after them leaves the region as a result.
  // CHECK-LABEL: func @partly_dependent
  // CHECK-SAME:    (%{{[^:]*}}: !llvm.ptr, %[[A:[^:]*]]: memref<16xf32> {llvm.noalias}, %{{[^:]*}}: memref<16xf32> {llvm.noalias}, %[[C:[^:]*]]: memref<16xf32> {llvm.noalias}, %[[D:[^:]*]]: memref<16xf32>
  // CHECK:         %[[N:.*]] = gpu.on_stream <%{{.*}} : !llvm.ptr> -> index {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK:           %[[K1:.*]] = gpu.launch_func async [%[[T]]] @kernels::@copy {{.*}} args(%[[A]] :
  // CHECK:           %[[K2:.*]] = gpu.launch_func async [%[[T]]] @kernels::@copy {{.*}} args(%[[C]] :
  // CHECK:           %[[K3:.*]] = gpu.launch_func async [%[[K1]]] @kernels::@copy {{.*}} args(%[[D]] :
  // CHECK:           gpu.on_stream.yield [%[[K2]], %[[K3]]] %{{.*}} : index
  // CHECK:         "test.use"(%[[N]])
  func.func @partly_dependent(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                              %b : memref<16xf32> {llvm.noalias},
                              %c : memref<16xf32> {llvm.noalias},
                              %d : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>, %b : memref<16xf32>)
    gpu.launch_func <%s : !llvm.ptr> @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%c : memref<16xf32>, %b : memref<16xf32>)
    %n = arith.addi %c1, %c1 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@copy blocks in (%n, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>, %a : memref<16xf32>)
    "test.use"(%n) : (index) -> ()
    return
  }

  // Each launch conflicts with the one before: nothing to run concurrently,
  // the launches stay on %s.
  // CHECK-LABEL: func @chain_of_conflicts
  // CHECK-NOT:     gpu.on_stream
  // CHECK:         gpu.launch_func <%{{.*}} : !llvm.ptr>
  // CHECK-NEXT:    gpu.launch_func <%{{.*}} : !llvm.ptr>
  // CHECK-NEXT:    return
  func.func @chain_of_conflicts(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                                %b : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>, %b : memref<16xf32>)
    gpu.launch_func <%s : !llvm.ptr> @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>, %a : memref<16xf32>)
    return
  }

  // Kernels whose bodies are not visible may access anything (the pointer
  // arguments of a CUTLASS- or FlyDSL-style launcher): nothing to run
  // concurrently, the launches stay on %s.
  // CHECK-LABEL: func @opaque_kernels
  // CHECK-NOT:     gpu.launch_func async
  // CHECK:         return
  func.func @opaque_kernels(%s : !llvm.ptr, %p : !llvm.ptr, %q : !llvm.ptr) {
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !llvm.ptr> @opaque::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%p : !llvm.ptr)
    gpu.launch_func <%s : !llvm.ptr> @opaque::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%q : !llvm.ptr)
    return
  }

  // A kernel that accesses nothing, then kernels that may access anything:
  // the dependence mode orders work of unknown accesses after all earlier
  // work, so nothing could run concurrently and the launches stay on %s.
  // CHECK-LABEL: func @nothing_then_opaque
  // CHECK-NOT:     gpu.launch_func async
  // CHECK:         return
  func.func @nothing_then_opaque(%s : !llvm.ptr, %p : !llvm.ptr) {
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@empty blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func <%s : !llvm.ptr> @opaque::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%p : !llvm.ptr)
    gpu.launch_func <%s : !llvm.ptr> @opaque::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%p : !llvm.ptr)
    return
  }

  // The same kernels, marked as accessing only their memref operands:
  // wrapped, and run concurrently.
  // CHECK-LABEL: func @marked_kernels
  // CHECK:         gpu.on_stream
  // CHECK:           gpu.launch_func async [%[[T:.*]]] @opaque::@k
  // CHECK:           gpu.launch_func async [%[[T]]] @opaque::@k
  func.func @marked_kernels(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                            %b : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !llvm.ptr> @opaque::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>) {gpu.only_memref_operand_accesses}
    gpu.launch_func <%s : !llvm.ptr> @opaque::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>) {gpu.only_memref_operand_accesses}
    return
  }

  // A host op with memory effects between two launches ends the run: each
  // run holds one launch, and neither is wrapped.
  // CHECK-LABEL: func @host_op_between
  // CHECK-NOT:     gpu.launch_func async
  // CHECK:         return
  func.func @host_op_between(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                             %b : memref<16xf32> {llvm.noalias},
                             %h : memref<16xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f = arith.constant 1.0 : f32
    gpu.launch_func <%s : !llvm.ptr> @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>, %a : memref<16xf32>)
    memref.store %f, %h[%c0] : memref<16xf32>
    gpu.launch_func <%s : !llvm.ptr> @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>, %b : memref<16xf32>)
    return
  }

  // Launches on two streams, interleaved: a run holds launches on one
  // stream only, so none is wrapped.
  // CHECK-LABEL: func @two_streams
  // CHECK-NOT:     gpu.launch_func async
  // CHECK:         return
  func.func @two_streams(%s : !llvm.ptr, %r : !llvm.ptr,
                         %a : memref<16xf32> {llvm.noalias},
                         %b : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>, %a : memref<16xf32>)
    gpu.launch_func <%r : !llvm.ptr> @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>, %b : memref<16xf32>)
    gpu.launch_func <%s : !llvm.ptr> @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>, %b : memref<16xf32>)
    return
  }

  // A stream that is a token (FlyDSL's form) cannot be the stream of a
  // gpu.on_stream: its launches stay in program order on it.
  // CHECK-LABEL: func @token_stream
  // CHECK-NOT:     gpu.on_stream
  // CHECK:         gpu.launch_func <%{{.*}} : !gpu.async.token>
  // CHECK-NEXT:    gpu.launch_func <%{{.*}} : !gpu.async.token>
  func.func @token_stream(%s : !gpu.async.token, %a : memref<16xf32> {llvm.noalias},
                          %b : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !gpu.async.token> @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>, %a : memref<16xf32>)
    gpu.launch_func <%s : !gpu.async.token> @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>, %b : memref<16xf32>)
    return
  }

  // In a loop body: the body's run is wrapped, and the loop needs no host
  // wait (the region hands its work to %s at each iteration's end).
  // CHECK-LABEL: func @in_loop
  // CHECK:         scf.for
  // CHECK-NEXT:      gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHECK-NOT:     gpu.wait
  // CHECK:         return
  func.func @in_loop(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                     %b : memref<16xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    scf.for %i = %c0 to %c3 step %c1 {
      gpu.launch_func <%s : !llvm.ptr> @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>, %a : memref<16xf32>)
      gpu.launch_func <%s : !llvm.ptr> @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>, %b : memref<16xf32>)
    }
    return
  }

  // Launches on the body's stream inside a gpu.on_stream body are left to
  // the body's split; launches on another stream there are not wrapped.
  // CHECK-LABEL: func @in_body
  // CHECK-NOT:     gpu.launch_func async
  // CHECK:         return
  func.func @in_body(%s : !llvm.ptr, %r : !llvm.ptr,
                     %a : memref<16xf32> {llvm.noalias},
                     %b : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func <%r : !llvm.ptr> @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>, %a : memref<16xf32>)
      gpu.launch_func <%r : !llvm.ptr> @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>, %b : memref<16xf32>)
      gpu.on_stream.yield
    }
    return
  }
}
