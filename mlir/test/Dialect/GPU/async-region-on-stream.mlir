// RUN: mlir-opt %s -gpu-async-region="max-streams=0" | FileCheck %s
// RUN: mlir-opt %s -gpu-async-region | FileCheck %s --check-prefix=CHAIN

// -gpu-async-region on gpu.on_stream: the body starts from the entry token,
// its exits hand pending work to the stream, which stays pending after it.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%a : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<16xf32>
      memref.store %x, %a[%c0] : memref<16xf32>
      gpu.return
    }
  }
  func.func private @opaque()
  func.func private @current_stream() -> !llvm.ptr
  func.func private @end_stream(!llvm.ptr)

  // Two kernels on memory that does not alias start from the caller's work
  // and go back to the stream, concurrently (dependence mode) or in sequence.
  // CHECK-LABEL: func @independent_kernels
  // CHECK:         gpu.on_stream
  // CHECK-NEXT:    ^bb0(%[[T0:.*]]: !gpu.async.token):
  // CHECK-NEXT:    %[[T1:.*]] = gpu.launch_func async [%[[T0]]]
  // CHECK-NEXT:    %[[T2:.*]] = gpu.launch_func async [%[[T0]]]
  // CHECK-NEXT:    gpu.on_stream.yield [%[[T1]], %[[T2]]]
  // CHAIN-LABEL: func @independent_kernels
  // CHAIN:         ^bb0(%[[T0:.*]]: !gpu.async.token):
  // CHAIN-NEXT:    %[[J:.*]] = gpu.wait async [%[[T0]]]
  // CHAIN-NEXT:    %[[T1:.*]] = gpu.launch_func async [%[[J]]]
  // CHAIN-NEXT:    %[[T2:.*]] = gpu.launch_func async [%[[T1]]]
  // CHAIN-NEXT:    gpu.on_stream.yield [%[[T2]]]
  func.func @independent_kernels(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias}, %b : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
      gpu.on_stream.yield
    }
    return
  }

  // A host load in the body waits for the caller's work, which may write any
  // memory, on its token; the next kernel still starts from that token.
  // CHECK-LABEL: func @host_access
  // CHECK:         ^bb0(%[[T0:.*]]: !gpu.async.token):
  // CHECK-NEXT:    %[[T1:.*]] = gpu.launch_func async [%[[T0]]]
  // CHECK-NEXT:    gpu.wait [%[[T0]]]
  // CHECK-NEXT:    %[[X:.*]] = memref.load
  // CHECK-NEXT:    %[[T2:.*]] = gpu.launch_func async [%[[T0]]]
  // CHECK-NEXT:    gpu.on_stream.yield [%[[T1]], %[[T2]]] %[[X]] : f32
  // CHAIN-LABEL: func @host_access
  // CHAIN:         ^bb0(%[[T0:.*]]: !gpu.async.token):
  // CHAIN-NEXT:    %[[J:.*]] = gpu.wait async [%[[T0]]]
  // CHAIN-NEXT:    %[[T1:.*]] = gpu.launch_func async [%[[J]]]
  // CHAIN-NEXT:    gpu.wait [%[[T1]]]
  // CHAIN-NEXT:    %[[X:.*]] = memref.load
  // CHAIN-NEXT:    %[[J2:.*]] = gpu.wait async [%[[T0]]]
  // CHAIN-NEXT:    %[[T2:.*]] = gpu.launch_func async [%[[J2]]]
  // CHAIN-NEXT:    gpu.on_stream.yield [%[[T2]]] %[[X]] : f32
  func.func @host_access(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias}, %b : memref<16xf32> {llvm.noalias}) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = gpu.on_stream <%s : !llvm.ptr> -> f32 {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      %x = memref.load %b[%c0] : memref<16xf32>
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
      gpu.on_stream.yield %x : f32
    }
    return %r : f32
  }

  // A loop in the body carries its work (dependence mode) and is handed over
  // with the kernel after it. The single chain splits the body at the loop
  // (async-region-on-stream-chain.mlir): no host wait.
  // CHECK-LABEL: func @loop
  // CHECK:         ^bb0(%[[T0:.*]]: !gpu.async.token):
  // CHECK-NEXT:    %[[L:.*]] = scf.for {{.*}} iter_args(%[[IT:.*]] = %[[T0]])
  // CHECK-NEXT:      %[[K:.*]] = gpu.launch_func async [%[[IT]]]
  // CHECK-NEXT:      scf.yield %[[K]]
  // CHECK:         %[[T1:.*]] = gpu.launch_func async [%[[T0]]]
  // CHECK-NEXT:    gpu.on_stream.yield [%[[L]], %[[T1]]]
  // CHAIN-LABEL: func @loop
  // CHAIN-NOT:     gpu.wait [
  // CHAIN:         scf.for
  // CHAIN-NEXT:      gpu.on_stream <%[[S:.*]] : !llvm.ptr> {
  // CHAIN-NEXT:      ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:        %[[J:.*]] = gpu.wait async [%[[T]]]
  // CHAIN-NEXT:        %[[K:.*]] = gpu.launch_func async [%[[J]]]
  // CHAIN-NEXT:        gpu.on_stream.yield [%[[K]]]
  // CHAIN-NEXT:      }
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NOT:     gpu.wait [
  // CHAIN:         return
  func.func @loop(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias}, %b : memref<16xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      scf.for %i = %c0 to %c4 step %c1 {
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      }
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
      gpu.on_stream.yield
    }
    return
  }

  // A host load after the region waits for the work handed to the stream:
  // a region whose body waits for its entry token (an event on the stream).
  // CHECK-LABEL: func @host_after
  // CHECK:         gpu.on_stream.yield [%{{.*}}]
  // CHECK:         gpu.on_stream <%[[S:.*]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK:         memref.load
  // CHAIN-LABEL: func @host_after
  // CHAIN:         gpu.on_stream.yield [%{{.*}}]
  // CHAIN:         ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN:         memref.load
  func.func @host_after(%s : !llvm.ptr, %a : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // A kernel after the region (outside it), on memory its work uses, runs on
  // the stream after that work, in a region of its own: the host does not
  // wait.
  // CHECK-LABEL: func @gpu_after
  // CHECK-SAME:    (%[[S:[^:]*]]: !llvm.ptr
  // CHECK:         gpu.on_stream.yield [%{{.*}}]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      %[[K:.*]] = gpu.launch_func async [%[[T]]]
  // CHECK-NEXT:      gpu.on_stream.yield [%[[K]]]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    return
  // CHAIN-LABEL: func @gpu_after
  // CHAIN-SAME:    (%[[S:[^:]*]]: !llvm.ptr
  // CHAIN:         gpu.on_stream.yield [%{{.*}}]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      %[[K:.*]] = gpu.launch_func async [%[[T]]]
  // CHAIN-NEXT:      gpu.on_stream.yield [%[[K]]]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    return
  func.func @gpu_after(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }

  // The handed work is waited for at the end of the block, before the branch.
  // CHECK-LABEL: func @branch_after
  // CHECK:         gpu.on_stream.yield [%{{.*}}]
  // CHECK:         ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK:         cf.br
  // CHAIN-LABEL: func @branch_after
  // CHAIN:         gpu.on_stream.yield [%{{.*}}]
  // CHAIN:         ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN:         cf.br
  func.func @branch_after(%s : !llvm.ptr, %a : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    cf.br ^bb1
  ^bb1:
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // A region in a loop body: the handed work stays pending through the
  // iterations (the next iteration's region is on the same stream) and after
  // the loop, where the host waits for it before it reads %a.
  // CHECK-LABEL: func @in_loop
  // CHECK:         scf.for
  // CHECK:           gpu.on_stream.yield [%{{.*}}]
  // CHECK-NEXT:      }
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK:         memref.load
  // CHAIN-LABEL: func @in_loop
  // CHAIN:         scf.for
  // CHAIN:           gpu.on_stream.yield [%{{.*}}]
  // CHAIN-NEXT:      }
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN:         memref.load
  func.func @in_loop(%s : !llvm.ptr, %a : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      gpu.on_stream <%s : !llvm.ptr> {
      ^bb0(%t0: !gpu.async.token):
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
        gpu.on_stream.yield
      }
    }
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // A host read before the region in a loop body: from the second iteration
  // on, it reads what the previous iteration handed to the stream, so the
  // host waits for the stream first.
  // CHECK-LABEL: func @read_in_loop
  // CHECK:         scf.for
  // CHECK-NEXT:      gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHECK-NEXT:      ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:        gpu.wait [%[[T]]]
  // CHECK-NEXT:        gpu.on_stream.yield
  // CHECK-NEXT:      }
  // CHECK-NEXT:      memref.load
  // CHAIN-LABEL: func @read_in_loop
  // CHAIN:         scf.for
  // CHAIN-NEXT:      gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHAIN-NEXT:      ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:        gpu.wait [%[[T]]]
  // CHAIN-NEXT:        gpu.on_stream.yield
  // CHAIN-NEXT:      }
  // CHAIN-NEXT:      memref.load
  func.func @read_in_loop(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                          %h : memref<16xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %x = memref.load %a[%c0] : memref<16xf32>
      memref.store %x, %h[%i] : memref<16xf32>
      gpu.on_stream <%s : !llvm.ptr> {
      ^bb0(%t0: !gpu.async.token):
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
        gpu.on_stream.yield
      }
    }
    return
  }

  // A region in a branch: the host waits after the scf.if, where it reads.
  // CHECK-LABEL: func @in_branch
  // CHECK:         scf.if
  // CHECK:           gpu.on_stream.yield [%{{.*}}]
  // CHECK-NEXT:      }
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK:         memref.load
  // CHAIN-LABEL: func @in_branch
  // CHAIN:         scf.if
  // CHAIN:           gpu.on_stream.yield [%{{.*}}]
  // CHAIN-NEXT:      }
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN:         memref.load
  func.func @in_branch(%s : !llvm.ptr, %a : memref<16xf32>, %p : i1) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.if %p {
      gpu.on_stream <%s : !llvm.ptr> {
      ^bb0(%t0: !gpu.async.token):
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
        gpu.on_stream.yield
      }
    }
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // A region on a loop-carried stream value, which names another stream in
  // each iteration (two streams used in turn): the host waits for the stream
  // at the end of each iteration, before the value changes.
  // CHECK-LABEL: func @rotating_streams
  // CHECK:         scf.for
  // CHECK:           gpu.on_stream.yield [%{{.*}}]
  // CHECK-NEXT:      }
  // CHECK-NEXT:      gpu.on_stream <%[[S:.*]] : !llvm.ptr> {
  // CHECK-NEXT:      ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:        gpu.wait [%[[T]]]
  // CHECK-NEXT:        gpu.on_stream.yield
  // CHECK-NEXT:      }
  // CHECK-NEXT:      scf.yield
  // CHAIN-LABEL: func @rotating_streams
  // CHAIN:         scf.for
  // CHAIN:           gpu.on_stream.yield [%{{.*}}]
  // CHAIN-NEXT:      }
  // CHAIN-NEXT:      gpu.on_stream <%[[S:.*]] : !llvm.ptr> {
  // CHAIN-NEXT:      ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:        gpu.wait [%[[T]]]
  // CHAIN-NEXT:        gpu.on_stream.yield
  // CHAIN-NEXT:      }
  // CHAIN-NEXT:      scf.yield
  func.func @rotating_streams(%s1 : !llvm.ptr, %s2 : !llvm.ptr,
                              %a : memref<16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%s = %s1, %o = %s2)
        -> (!llvm.ptr, !llvm.ptr) {
      gpu.on_stream <%s : !llvm.ptr> {
      ^bb0(%t0: !gpu.async.token):
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
        gpu.on_stream.yield
      }
      scf.yield %o, %s : !llvm.ptr, !llvm.ptr
    }
    return
  }

  // The same with a kernel on other memory, which the dependence mode
  // carries through the loop as a token, and a region on the loop's first
  // result: the host waits name the loop's iter_arg and result once the loop
  // is rewritten.
  // CHECK-LABEL: func @rotating_streams_and_kernel
  // CHECK:         %[[R:.*]]:3 = scf.for {{.*}} iter_args(%[[S:.*]] = %{{.*}}, %[[O:.*]] = %{{.*}}, %[[IT:.*]] = %{{.*}})
  // CHECK-NEXT:      gpu.launch_func async [%[[IT]]]
  // CHECK-NEXT:      gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK:             gpu.on_stream.yield [%{{.*}}]
  // CHECK-NEXT:      }
  // CHECK-NEXT:      gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:      ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:        gpu.wait [%[[T]]]
  // CHECK:           scf.yield %[[O]], %[[S]], %{{.*}}
  // CHECK:         gpu.on_stream <%[[R]]#0 : !llvm.ptr> {
  // CHECK:           gpu.on_stream.yield [%{{.*}}]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream <%[[R]]#0 : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK:         memref.load
  // CHAIN-LABEL: func @rotating_streams_and_kernel
  // CHAIN:         %[[R:.*]]:2 = scf.for
  // CHAIN:         gpu.on_stream <%[[R]]#0 : !llvm.ptr> {
  // CHAIN:           gpu.on_stream.yield [%{{.*}}]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%[[R]]#0 : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN-NEXT:      gpu.on_stream.yield
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    memref.load
  func.func @rotating_streams_and_kernel(%s1 : !llvm.ptr, %s2 : !llvm.ptr,
      %a : memref<16xf32> {llvm.noalias}, %b : memref<16xf32> {llvm.noalias})
      -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%s = %s1, %o = %s2)
        -> (!llvm.ptr, !llvm.ptr) {
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
      gpu.on_stream <%s : !llvm.ptr> {
      ^bb0(%t0: !gpu.async.token):
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
        gpu.on_stream.yield
      }
      scf.yield %o, %s : !llvm.ptr, !llvm.ptr
    }
    gpu.on_stream <%r#0 : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // A region on a stream that a branch obtains: the stream value is gone
  // after the scf.if, so the host waits for it at the end of the branch.
  // CHECK-LABEL: func @stream_in_branch
  // CHECK:         scf.if
  // CHECK:           gpu.on_stream.yield [%{{.*}}]
  // CHECK-NEXT:      }
  // CHECK-NEXT:      gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHECK-NEXT:      ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:        gpu.wait [%[[T]]]
  // CHECK-NEXT:        gpu.on_stream.yield
  // CHECK-NEXT:      }
  // CHECK-NEXT:    }
  // CHECK-NEXT:    memref.load
  // CHAIN-LABEL: func @stream_in_branch
  // CHAIN:         scf.if
  // CHAIN:           gpu.on_stream.yield [%{{.*}}]
  // CHAIN-NEXT:      }
  // CHAIN-NEXT:      gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHAIN-NEXT:      ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:        gpu.wait [%[[T]]]
  // CHAIN-NEXT:        gpu.on_stream.yield
  // CHAIN-NEXT:      }
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    memref.load
  func.func @stream_in_branch(%a : memref<16xf32>, %p : i1) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.if %p {
      %s = func.call @current_stream() : () -> !llvm.ptr
      gpu.on_stream <%s : !llvm.ptr> {
      ^bb0(%t0: !gpu.async.token):
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
        gpu.on_stream.yield
      }
    }
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // A region, then a loop of regions on the same stream: the stream orders
  // them all; the host never waits.
  // CHECK-LABEL: func @loop_after_region
  // CHECK-NOT:     {{^ *}}gpu.wait [
  // CHECK:         return
  // CHAIN-LABEL: func @loop_after_region
  // CHAIN-NOT:     {{^ *}}gpu.wait [
  // CHAIN:         return
  func.func @loop_after_region(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    scf.for %i = %c0 to %c4 step %c1 {
      gpu.on_stream <%s : !llvm.ptr> {
      ^bb0(%t0: !gpu.async.token):
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
        gpu.on_stream.yield
      }
    }
    return
  }

  // An opaque call and a user's synchronous wait wait for the handed work.
  // CHECK-LABEL: func @everything_after
  // CHECK:           gpu.wait [%{{.*}}]
  // CHECK:         call @opaque
  // CHECK:           gpu.wait [%{{.*}}]
  // CHECK:         gpu.wait{{ *$}}
  // CHAIN-LABEL: func @everything_after
  // CHAIN:           gpu.wait [%{{.*}}]
  // CHAIN:         call @opaque
  // CHAIN:           gpu.wait [%{{.*}}]
  // CHAIN:         gpu.wait{{ *$}}
  func.func @everything_after(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    call @opaque() : () -> ()
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    gpu.wait
    return
  }

  // A region nested in one on the same stream: no host wait for its work at
  // the outer exit; the single chain hands its work to the stream before it.
  // CHECK-LABEL: func @nested
  // CHECK:           gpu.on_stream.yield [%{{.*}}]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream.yield [%{{.*}}]
  // CHAIN-LABEL: func @nested
  // CHAIN:         %[[K:.*]] = gpu.launch_func async
  // CHAIN-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%{{.*}}: !gpu.async.token):
  // CHAIN-NEXT:      gpu.on_stream.yield [%[[K]]]
  // CHAIN-NEXT:    }
  // CHAIN-NOT:     gpu.wait [
  // CHAIN:           gpu.on_stream.yield [%{{.*}}]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream.yield{{ *$}}
  func.func @nested(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream <%s : !llvm.ptr> {
      ^bb0(%t1: !gpu.async.token):
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
        gpu.on_stream.yield
      }
      gpu.on_stream.yield
    }
    return
  }

  // The single chain hands its work to the stream before a region on the
  // same stream that may conflict with it: that work is then the stream's,
  // and a later copy of memory only the chain touched runs on the stream
  // after it (the dependence mode orders the copy after the kernel by its
  // token).
  // CHECK-LABEL: func @after_handed_chain
  // CHECK-SAME:    %[[C:[^: ]*]]: memref<16xf32> {llvm.noalias}) {
  // CHECK:         %[[KC:.*]] = gpu.launch_func async {{.*}} args(%[[C]] : memref<16xf32>)
  // CHECK:         gpu.memcpy async [%[[KC]]] %{{.*}}, %[[C]]
  // CHAIN-LABEL: func @after_handed_chain
  // CHAIN-SAME:    (%[[S:[^:]*]]: !llvm.ptr
  // CHAIN-SAME:    %[[C:[^: ]*]]: memref<16xf32> {llvm.noalias}) {
  // CHAIN:         %[[KC:.*]] = gpu.launch_func async {{.*}} args(%[[C]] : memref<16xf32>)
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%{{.*}}: !gpu.async.token):
  // CHAIN-NEXT:      gpu.on_stream.yield [%[[KC]]]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN:           gpu.launch_func async
  // CHAIN-NEXT:      gpu.on_stream.yield [%{{.*}}]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      %[[M:.*]] = gpu.memcpy async [%[[T]]]
  // CHAIN-NEXT:      gpu.on_stream.yield [%[[M]]]
  // CHAIN-NEXT:    }
  func.func @after_handed_chain(%s : !llvm.ptr,
                                %a : memref<16xf32> {llvm.noalias},
                                %b : memref<16xf32> {llvm.noalias},
                                %c : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%c : memref<16xf32>)
      gpu.on_stream <%s : !llvm.ptr> {
      ^bb0(%t1: !gpu.async.token):
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
        gpu.on_stream.yield
      }
      gpu.memcpy %b, %c : memref<16xf32>, memref<16xf32>
      gpu.on_stream.yield
    }
    return
  }

  // A second region on the same stream is ordered after the first by the
  // stream; one on another stream waits for the work handed to the first.
  // CHECK-LABEL: func @two_regions
  // CHECK-SAME:    (%[[S:[^:]*]]: !llvm.ptr, %[[S2:[^:]*]]: !llvm.ptr,
  // CHECK:         gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK:           gpu.on_stream.yield [%{{.*}}]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0
  // CHECK-NEXT:      gpu.launch_func async
  // CHECK-NEXT:      gpu.on_stream.yield [%{{.*}}]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK:         gpu.on_stream <%[[S2]] : !llvm.ptr> {
  // CHECK-NOT:     gpu.wait
  // CHECK:         return
  // CHAIN-LABEL: func @two_regions
  // CHAIN-SAME:    (%[[S:[^:]*]]: !llvm.ptr, %[[S2:[^:]*]]: !llvm.ptr,
  // CHAIN:           gpu.on_stream.yield [%{{.*}}]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN:           gpu.on_stream.yield [%{{.*}}]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN:         gpu.on_stream <%[[S2]] : !llvm.ptr> {
  func.func @two_regions(%s : !llvm.ptr, %s2 : !llvm.ptr, %a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    gpu.on_stream <%s2 : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    return
  }

  // Stack memory copied in the region dies at the return: the host waits for
  // the handed work there; without stack memory it does not (above).
  // CHECK-LABEL: func @stack
  // CHECK:           gpu.memcpy async
  // CHECK:           gpu.wait [%{{.*}}]
  // CHECK:         return
  // CHAIN-LABEL: func @stack
  // CHAIN:           gpu.memcpy async
  // CHAIN:           gpu.wait [%{{.*}}]
  // CHAIN:         return
  func.func @stack(%s : !llvm.ptr, %a : memref<16xf32>) {
    %buf = memref.alloca() : memref<16xf32>
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.memcpy %a, %buf : memref<16xf32>, memref<16xf32>
      gpu.on_stream.yield
    }
    return
  }
  // The handed work is what the body's GPU work accesses, not the stream's
  // earlier work: a host store to memory the body does not touch, a kernel
  // on such memory and the return of a function whose stack memory the body
  // does not use need no wait for the stream (the kernel's own work is
  // waited for at the end of the block).
  // CHECK-LABEL: func @unrelated_after
  // CHECK:         gpu.on_stream.yield [%{{.*}}]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    memref.store
  // CHECK-NEXT:    memref.store
  // CHECK-NEXT:    %[[K:.*]] = gpu.launch_func async
  // CHECK-NEXT:    gpu.wait [%[[K]]]
  // CHECK-NEXT:    return
  // CHAIN-LABEL: func @unrelated_after
  // CHAIN:         gpu.on_stream.yield [%{{.*}}]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    memref.store
  // CHAIN-NEXT:    memref.store
  // CHAIN-NOT:     gpu.on_stream
  // CHAIN:         return
  func.func @unrelated_after(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                             %b : memref<16xf32> {llvm.noalias},
                             %h : memref<16xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f = arith.constant 1.0 : f32
    %stack = memref.alloca() : memref<16xf32>
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    memref.store %f, %h[%c0] : memref<16xf32>
    memref.store %f, %stack[%c0] : memref<16xf32>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    return
  }

  // A call in the body may have launched anything on the stream: a host
  // store after the region waits for it.
  // CHECK-LABEL: func @call_in_body
  // CHECK:         func.call @opaque
  // CHECK:         gpu.on_stream.yield
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK-NEXT:      gpu.on_stream.yield
  // CHECK-NEXT:    }
  // CHECK-NEXT:    memref.store
  // CHAIN-LABEL: func @call_in_body
  // CHAIN:         func.call @opaque
  // CHAIN:         gpu.on_stream.yield
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN-NEXT:      gpu.on_stream.yield
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    memref.store
  func.func @call_in_body(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                          %h : memref<16xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f = arith.constant 1.0 : f32
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      func.call @opaque() : () -> ()
      gpu.on_stream.yield
    }
    memref.store %f, %h[%c0] : memref<16xf32>
    return
  }
  // A body of several blocks: what a launch on the body's stream hands to it
  // stays on the stream at the branch to another block of the body, whose
  // kernel on the same buffer runs on the stream after it, in a region of
  // its own; the host never waits (both modes).
  // CHECK-LABEL: func @launch_then_branch
  // CHECK:         gpu.launch_func <%[[S:.*]] : !llvm.ptr>
  // CHECK-NEXT:    cf.br ^[[BB1:.*]]
  // CHECK-NEXT:  ^[[BB1]]:
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      %[[K:.*]] = gpu.launch_func async [%[[T]]]
  // CHECK-NEXT:      gpu.on_stream.yield [%[[K]]]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream.yield{{ *$}}
  // CHAIN-LABEL: func @launch_then_branch
  // CHAIN:         gpu.launch_func <%[[S:.*]] : !llvm.ptr>
  // CHAIN-NEXT:    cf.br ^[[BB1:.*]]
  // CHAIN-NEXT:  ^[[BB1]]:
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      %[[K:.*]] = gpu.launch_func async [%[[T]]]
  // CHAIN-NEXT:      gpu.on_stream.yield [%[[K]]]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream.yield{{ *$}}
  func.func @launch_then_branch(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      cf.br ^bb1
    ^bb1:
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    return
  }

  // Work in a block of the body is handed to the stream at the branch, and
  // the next block's kernel on the same buffer runs on the stream after it,
  // in a region of its own; its kernel on other memory does not (both modes).
  // CHECK-LABEL: func @kernel_then_branch
  // CHECK-SAME:    (%[[S:[^:]*]]: !llvm.ptr
  // CHECK:         ^bb0(%[[E:.*]]: !gpu.async.token):
  // CHECK-NEXT:      %[[K0:.*]] = gpu.launch_func async [%[[E]]]
  // CHECK-NEXT:      gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:      ^bb0(%{{.*}}: !gpu.async.token):
  // CHECK-NEXT:        gpu.on_stream.yield [%[[K0]]]
  // CHECK-NEXT:      }
  // CHECK-NEXT:      cf.br ^[[BB1:.*]]
  // CHECK-NEXT:    ^[[BB1]]:
  // CHECK-NEXT:      %[[K1:.*]] = gpu.launch_func async [%[[E]]]
  // CHECK-NEXT:      gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:      ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:        %[[K2:.*]] = gpu.launch_func async [%[[T]]]
  // CHECK-NEXT:        gpu.on_stream.yield [%[[K2]]]
  // CHECK-NEXT:      }
  // CHECK-NEXT:      gpu.on_stream.yield [%[[K1]]]
  // CHECK-NOT:     gpu.wait [
  // CHECK:         return
  // CHAIN-LABEL: func @kernel_then_branch
  // CHAIN-SAME:    (%[[S:[^:]*]]: !llvm.ptr
  // CHAIN:           %[[K0:.*]] = gpu.launch_func async
  // CHAIN-NEXT:      gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NEXT:      ^bb0(%{{.*}}: !gpu.async.token):
  // CHAIN-NEXT:        gpu.on_stream.yield [%[[K0]]]
  // CHAIN-NEXT:      }
  // CHAIN-NEXT:      cf.br ^[[BB1:.*]]
  // CHAIN-NEXT:    ^[[BB1]]:
  // CHAIN-NEXT:      %[[J:.*]] = gpu.wait async
  // CHAIN-NEXT:      %[[K1:.*]] = gpu.launch_func async [%[[J]]]
  // CHAIN-NEXT:      gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NEXT:      ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:        %[[K2:.*]] = gpu.launch_func async [%[[T]], %[[K1]]]
  // CHAIN-NEXT:        gpu.on_stream.yield [%[[K2]]]
  // CHAIN-NEXT:      }
  // CHAIN-NEXT:      gpu.on_stream.yield [%[[K1]]]
  // CHAIN-NOT:     gpu.wait [
  // CHAIN:         return
  func.func @kernel_then_branch(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                                %b : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      cf.br ^bb1
    ^bb1:
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    return
  }

  // A copy and a free after the region, of memory its work uses, run on the
  // stream after that work, each in a region of its own (both modes).
  // CHECK-LABEL: func @copy_and_free_after
  // CHECK-SAME:    (%[[S:[^:]*]]: !llvm.ptr
  // CHECK:         gpu.on_stream.yield [%{{.*}}]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      %[[C:.*]] = gpu.memcpy async [%[[T]]]
  // CHECK-NEXT:      gpu.on_stream.yield [%[[C]]]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      %[[D:.*]] = gpu.dealloc async [%[[T]]]
  // CHECK-NEXT:      gpu.on_stream.yield [%[[D]]]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    return
  // CHAIN-LABEL: func @copy_and_free_after
  // CHAIN-SAME:    (%[[S:[^:]*]]: !llvm.ptr
  // CHAIN:         gpu.on_stream.yield [%{{.*}}]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      %[[C:.*]] = gpu.memcpy async [%[[T]]]
  // CHAIN-NEXT:      gpu.on_stream.yield [%[[C]]]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      %[[D:.*]] = gpu.dealloc async [%[[T]]]
  // CHAIN-NEXT:      gpu.on_stream.yield [%[[D]]]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    return
  func.func @copy_and_free_after(%s : !llvm.ptr, %a : memref<16xf32>,
                                 %b : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    gpu.memcpy %b, %a : memref<16xf32>, memref<16xf32>
    gpu.dealloc %a : memref<16xf32>
    return
  }

  // A call that takes the stream may end it (destroy it, or give it back to
  // a pool): the host waits for the region's work before the call, never on
  // the stream after it, and a later kernel does not run on it (both modes).
  // CHECK-LABEL: func @ended_stream
  // CHECK:         gpu.on_stream.yield [%{{.*}}]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK-NEXT:      gpu.on_stream.yield{{ *$}}
  // CHECK-NEXT:    }
  // CHECK-NEXT:    call @end_stream
  // CHECK-NEXT:    %[[K:.*]] = gpu.launch_func async
  // CHECK-NEXT:    gpu.wait [%[[K]]]
  // CHECK-NEXT:    return
  // CHAIN-LABEL: func @ended_stream
  // CHAIN:         gpu.on_stream.yield [%{{.*}}]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN-NEXT:      gpu.on_stream.yield{{ *$}}
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    call @end_stream
  // CHAIN-NEXT:    gpu.wait async
  // CHAIN-NEXT:    gpu.launch_func async
  // CHAIN-NOT:     gpu.on_stream
  // CHAIN:         return
  func.func @ended_stream(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    func.call @end_stream(%s) : (!llvm.ptr) -> ()
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }

  // A GPU op whose token others use cannot move into a region: the host
  // waits for the stream before it (both modes).
  // CHECK-LABEL: func @token_used_after
  // CHECK:         gpu.on_stream.yield [%{{.*}}]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK-NEXT:      gpu.on_stream.yield{{ *$}}
  // CHECK-NEXT:    }
  // CHECK-NEXT:    %[[M:.*]] = gpu.memset async
  // CHECK-NEXT:    gpu.wait [%[[M]]]
  // CHAIN-LABEL: func @token_used_after
  // CHAIN:         gpu.on_stream.yield [%{{.*}}]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN-NEXT:      gpu.on_stream.yield{{ *$}}
  // CHAIN-NEXT:    }
  // CHAIN:         %[[M:.*]] = gpu.memset async
  // CHAIN-NEXT:    gpu.wait [%[[M]]]
  func.func @token_used_after(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %f = arith.constant 1.0 : f32
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    %t = gpu.memset async %a, %f : memref<16xf32>, f32
    gpu.wait [%t]
    return
  }

  // A copy after work handed to two streams runs on the first one; the host
  // waits for the second one (both modes).
  // CHECK-LABEL: func @two_streams_after
  // CHECK-SAME:    (%[[S:[^:]*]]: !llvm.ptr, %[[S2:[^:]*]]: !llvm.ptr
  // CHECK:         gpu.launch_func <%[[S2]] : !llvm.ptr>
  // CHECK-NEXT:    gpu.on_stream <%[[S2]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T2:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T2]]]
  // CHECK-NEXT:      gpu.on_stream.yield{{ *$}}
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      %[[C:.*]] = gpu.memcpy async [%[[T]]]
  // CHECK-NEXT:      gpu.on_stream.yield [%[[C]]]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    return
  // CHAIN-LABEL: func @two_streams_after
  // CHAIN-SAME:    (%[[S:[^:]*]]: !llvm.ptr, %[[S2:[^:]*]]: !llvm.ptr
  // CHAIN:         gpu.launch_func <%[[S2]] : !llvm.ptr>
  // CHAIN-NEXT:    gpu.on_stream <%[[S2]] : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T2:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T2]]]
  // CHAIN-NEXT:      gpu.on_stream.yield{{ *$}}
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      %[[C:.*]] = gpu.memcpy async [%[[T]]]
  // CHAIN-NEXT:      gpu.on_stream.yield [%[[C]]]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    return
  func.func @two_streams_after(%s : !llvm.ptr, %s2 : !llvm.ptr,
                               %a : memref<16xf32> {llvm.noalias},
                               %b : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    gpu.launch_func <%s2 : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    gpu.memcpy %a, %b : memref<16xf32>, memref<16xf32>
    return
  }

  // A kernel in a loop after the region, on memory its work uses, does not
  // move onto the stream (its next iteration's earlier ops would have to
  // follow it): the host waits for the stream (both modes).
  // CHECK-LABEL: func @loop_after_handed
  // CHECK:         scf.for
  // CHECK-NEXT:      gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHECK-NEXT:      ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:        gpu.wait [%[[T]]]
  // CHECK-NEXT:        gpu.on_stream.yield{{ *$}}
  // CHECK-NEXT:      }
  // CHECK-NEXT:      gpu.launch_func async
  // CHAIN-LABEL: func @loop_after_handed
  // CHAIN:         gpu.on_stream.yield [%{{.*}}]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN-NEXT:      gpu.on_stream.yield{{ *$}}
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    scf.for
  func.func @loop_after_handed(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    scf.for %i = %c0 to %c4 step %c1 {
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    }
    return
  }

  // A loop in a block after a branch of the body, on memory the blocks
  // before it use: each iteration's work goes in a region on the body's
  // stream, which orders it after theirs; the host never waits (both modes).
  // CHECK-LABEL: func @loop_after_branch
  // CHECK-SAME:    (%[[S:[^:]*]]: !llvm.ptr
  // CHECK:         cf.br ^[[BB1:.*]]
  // CHECK-NEXT:  ^[[BB1]]:
  // CHECK-NEXT:    scf.for
  // CHECK-NEXT:      gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:      ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:        %[[K:.*]] = gpu.launch_func async [{{.*}}%[[T]]]
  // CHECK-NEXT:        gpu.on_stream.yield [%[[K]]]
  // CHECK-NOT:     gpu.wait [
  // CHECK:         return
  // CHAIN-LABEL: func @loop_after_branch
  // CHAIN-SAME:    (%[[S:[^:]*]]: !llvm.ptr
  // CHAIN:         cf.br ^[[BB1:.*]]
  // CHAIN-NEXT:  ^[[BB1]]:
  // CHAIN-NEXT:    scf.for
  // CHAIN-NEXT:      gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NEXT:      ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:        %[[J:.*]] = gpu.wait async [%[[T]]]
  // CHAIN-NEXT:        %[[K:.*]] = gpu.launch_func async [%[[J]]]
  // CHAIN-NEXT:        gpu.on_stream.yield [%[[K]]]
  // CHAIN-NOT:     gpu.wait [
  // CHAIN:         return
  func.func @loop_after_branch(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      cf.br ^bb1
    ^bb1:
      scf.for %i = %c0 to %c4 step %c1 {
        gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      }
      gpu.on_stream.yield
    }
    return
  }
}
