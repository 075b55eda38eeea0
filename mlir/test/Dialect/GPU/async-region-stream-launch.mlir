// RUN: mlir-opt %s -split-input-file -verify-diagnostics \
// RUN:   -gpu-async-region="max-streams=0" | FileCheck %s
// RUN: mlir-opt %s -split-input-file -verify-diagnostics \
// RUN:   -gpu-async-region | FileCheck %s --check-prefix=CHAIN

// -gpu-async-region on launches on a stream (gpu.launch_func <%s>): the
// stream orders a launch after the work enqueued on it; the launch hands
// its work to the stream, where later GPU ops and host ops that may touch
// it wait for it.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%a : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<16xf32>
      memref.store %x, %a[%c0] : memref<16xf32>
      gpu.return
    }
    gpu.func @read(%a : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<16xf32>
      gpu.return
    }
  }

  // The launch follows a region on its stream: no host wait.
  // CHECK-LABEL: func @region_then_launch
  // CHECK-NOT:     {{^ *}}gpu.wait [
  // CHECK:         return
  // CHAIN-LABEL: func @region_then_launch
  // CHAIN-NOT:     {{^ *}}gpu.wait [
  // CHAIN:         return
  func.func @region_then_launch(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }

  // A kernel on the same buffer after the launch runs on the stream after
  // it, in a region of its own: the host does not wait.
  // CHECK-LABEL: func @launch_then_kernel
  // CHECK:         gpu.launch_func <%[[S:.*]] : !llvm.ptr>
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      %[[K:.*]] = gpu.launch_func async [%[[T]]]
  // CHECK-NEXT:      gpu.on_stream.yield [%[[K]]]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    return
  // CHAIN-LABEL: func @launch_then_kernel
  // CHAIN:         gpu.launch_func <%[[S:.*]] : !llvm.ptr>
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      %[[K:.*]] = gpu.launch_func async [%[[T]]]
  // CHAIN-NEXT:      gpu.on_stream.yield [%[[K]]]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    return
  func.func @launch_then_kernel(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }

  // The host reads what the launch writes: it waits for the stream first;
  // it stores to memory the launch does not access without waiting, and
  // the function returns the rest of the work to the stream's owner.
  // CHECK-LABEL: func @launch_then_host
  // CHECK:         gpu.launch_func <%{{.*}} : !llvm.ptr>
  // CHECK-NEXT:    memref.store
  // CHECK-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK-NEXT:      gpu.on_stream.yield
  // CHECK-NEXT:    }
  // CHECK-NEXT:    memref.load
  // CHECK-NEXT:    gpu.launch_func <%{{.*}} : !llvm.ptr>
  // CHECK-NEXT:    return
  // CHAIN-LABEL: func @launch_then_host
  // CHAIN:         gpu.launch_func <%{{.*}} : !llvm.ptr>
  // CHAIN-NEXT:    memref.store
  // CHAIN-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN-NEXT:      gpu.on_stream.yield
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    memref.load
  // CHAIN-NEXT:    gpu.launch_func <%{{.*}} : !llvm.ptr>
  // CHAIN-NEXT:    return
  func.func @launch_then_host(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                              %h : memref<16xf32> {llvm.noalias}) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f32
    gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    memref.store %one, %h[%c0] : memref<16xf32>
    %x = memref.load %a[%c0] : memref<16xf32>
    gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    return %x : f32
  }

  // Launches in a loop after a launch on the same stream: no host wait
  // before or in the loop; one after it, before the host reads.
  // CHECK-LABEL: func @launches_in_loop
  // CHECK:         gpu.launch_func <%{{.*}} : !llvm.ptr>
  // CHECK-NEXT:    scf.for
  // CHECK-NEXT:      gpu.launch_func <%{{.*}} : !llvm.ptr>
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK:         memref.load
  // CHAIN-LABEL: func @launches_in_loop
  // CHAIN:         gpu.launch_func <%{{.*}} : !llvm.ptr>
  // CHAIN-NEXT:    scf.for
  // CHAIN-NEXT:      gpu.launch_func <%{{.*}} : !llvm.ptr>
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN:         memref.load
  func.func @launches_in_loop(%s : !llvm.ptr, %a : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    scf.for %i = %c0 to %c4 step %c1 {
      gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    }
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // Launches on a loop-carried stream value, which names another stream in
  // each iteration: the host waits for the stream at the end of each
  // iteration, before the value changes; a launch on a stream that a branch
  // obtains is waited for at the end of the branch, where its value is gone.
  // CHECK-LABEL: func @launch_streams_in_scf
  // CHECK:         scf.for
  // CHECK-NEXT:      gpu.launch_func <%[[S:.*]] : !llvm.ptr>
  // CHECK-NEXT:      gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:      ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:        gpu.wait [%[[T]]]
  // CHECK-NEXT:        gpu.on_stream.yield
  // CHECK-NEXT:      }
  // CHECK-NEXT:      scf.yield
  // CHECK:         scf.if
  // CHECK-NEXT:      %[[S2:.*]] = func.call @current_stream_of
  // CHECK-NEXT:      gpu.launch_func <%[[S2]] : !llvm.ptr>
  // CHECK-NEXT:      gpu.on_stream <%[[S2]] : !llvm.ptr> {
  // CHECK-NEXT:      ^bb0(%[[T2:.*]]: !gpu.async.token):
  // CHECK-NEXT:        gpu.wait [%[[T2]]]
  // CHECK-NEXT:        gpu.on_stream.yield
  // CHECK-NEXT:      }
  // CHECK-NEXT:    }
  // CHECK-NEXT:    memref.load
  // CHAIN-LABEL: func @launch_streams_in_scf
  // CHAIN:         scf.for
  // CHAIN-NEXT:      gpu.launch_func <%[[S:.*]] : !llvm.ptr>
  // CHAIN-NEXT:      gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NEXT:      ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:        gpu.wait [%[[T]]]
  // CHAIN-NEXT:        gpu.on_stream.yield
  // CHAIN-NEXT:      }
  // CHAIN-NEXT:      scf.yield
  // CHAIN:         scf.if
  // CHAIN-NEXT:      %[[S2:.*]] = func.call @current_stream_of
  // CHAIN-NEXT:      gpu.launch_func <%[[S2]] : !llvm.ptr>
  // CHAIN-NEXT:      gpu.on_stream <%[[S2]] : !llvm.ptr> {
  // CHAIN-NEXT:      ^bb0(%[[T2:.*]]: !gpu.async.token):
  // CHAIN-NEXT:        gpu.wait [%[[T2]]]
  // CHAIN-NEXT:        gpu.on_stream.yield
  // CHAIN-NEXT:      }
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    memref.load
  func.func private @current_stream_of(memref<16xf32>) -> !llvm.ptr
  func.func @launch_streams_in_scf(%s1 : !llvm.ptr, %s2 : !llvm.ptr,
                                   %a : memref<16xf32>, %p : i1) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%s = %s1, %o = %s2)
        -> (!llvm.ptr, !llvm.ptr) {
      gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      scf.yield %o, %s : !llvm.ptr, !llvm.ptr
    }
    scf.if %p {
      %s3 = func.call @current_stream_of(%a) : (memref<16xf32>) -> !llvm.ptr
      gpu.launch_func <%s3 : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    }
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // A launch on the region's own stream in its body hands its work to the
  // stream too: the host waits for it after the region, before it reads.
  // CHECK-LABEL: func @launch_in_region
  // CHECK:         gpu.on_stream.yield
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK:         memref.load
  // CHAIN-LABEL: func @launch_in_region
  // CHAIN:         gpu.on_stream.yield
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN:         memref.load
  func.func @launch_in_region(%s : !llvm.ptr, %a : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // A launch on the region's stream between kernels on the same buffer: the
  // body ends before the launch and resumes after it, so that the stream
  // orders the three; no host wait.
  // CHECK-LABEL: func @launch_between_kernels
  // CHECK-SAME:    (%[[S:.*]]: !llvm.ptr,
  // CHECK-NOT:     {{^ *}}gpu.wait [
  // CHECK:         gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T0:.*]]: !gpu.async.token):
  // CHECK-NEXT:      %[[K0:.*]] = gpu.launch_func async [%[[T0]]]
  // CHECK-NEXT:      gpu.on_stream.yield [%[[K0]]]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.launch_func <%[[S]] : !llvm.ptr>
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T1:.*]]: !gpu.async.token):
  // CHECK-NEXT:      %[[K1:.*]] = gpu.launch_func async [%[[T1]]]
  // CHECK-NEXT:      gpu.on_stream.yield [%[[K1]]]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    return
  // CHAIN-LABEL: func @launch_between_kernels
  // CHAIN-SAME:    (%[[S:.*]]: !llvm.ptr,
  // CHAIN-NOT:     {{^ *}}gpu.wait [
  // CHAIN:         gpu.on_stream.yield [%{{.*}}]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.launch_func <%[[S]] : !llvm.ptr>
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NOT:     {{^ *}}gpu.wait [
  // CHAIN:         return
  func.func @launch_between_kernels(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    return
  }

  // The launch is in a loop of the body: the body is split at the loop, whose
  // block becomes a region of its own, split at the launch in turn.
  // CHECK-LABEL: func @launch_in_loop_of_region
  // CHECK-NOT:     {{^ *}}gpu.wait [
  // CHECK:         gpu.on_stream.yield [%{{.*}}]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    scf.for
  // CHECK-NEXT:      gpu.launch_func <%{{.*}} : !llvm.ptr>
  // CHECK-NEXT:    }
  // CHECK-NOT:     {{^ *}}gpu.wait [
  // CHECK:         return
  // CHAIN-LABEL: func @launch_in_loop_of_region
  // CHAIN-NOT:     {{^ *}}gpu.wait [
  // CHAIN:         gpu.on_stream.yield [%{{.*}}]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    scf.for
  // CHAIN-NEXT:      gpu.launch_func <%{{.*}} : !llvm.ptr>
  // CHAIN-NEXT:    }
  // CHAIN-NOT:     {{^ *}}gpu.wait [
  // CHAIN:         return
  func.func @launch_in_loop_of_region(%s : !llvm.ptr, %a : memref<16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      scf.for %i = %c0 to %c4 step %c1 {
        gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      }
      gpu.on_stream.yield
    }
    return
  }

  // Launches on the stream that conflict with no GPU work of the body (on
  // another buffer, or reading what the body's kernel only reads, also in
  // an SCF op) need no split: one region, no host wait.
  // CHECK-LABEL: func @launches_without_conflict
  // CHECK-NOT:     {{^ *}}gpu.wait [
  // CHECK-COUNT-1: gpu.on_stream <
  // CHECK-NOT:     {{^ *}}gpu.wait [
  // CHECK-NOT:     gpu.on_stream <
  // CHECK:         return
  // CHAIN-LABEL: func @launches_without_conflict
  // CHAIN-NOT:     {{^ *}}gpu.wait [
  // CHAIN-COUNT-1: gpu.on_stream <
  // CHAIN-NOT:     {{^ *}}gpu.wait [
  // CHAIN-NOT:     gpu.on_stream <
  // CHAIN:         return
  func.func @launches_without_conflict(%s : !llvm.ptr,
      %a : memref<16xf32> {llvm.noalias}, %b : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
      gpu.launch_func <%s : !llvm.ptr> @kernels::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      scf.execute_region {
        gpu.launch_func <%s : !llvm.ptr> @kernels::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
        scf.yield
      }
      gpu.on_stream.yield
    }
    return
  }

  // Host accesses before the split, with no GPU work: they stay in a body on
  // the stream (the first piece), where they wait for the caller's earlier
  // work.
  // CHECK-LABEL: func @host_read_before_launch
  // CHECK-SAME:    (%[[S:.*]]: !llvm.ptr,
  // CHECK:         gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T0:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T0]]]
  // CHECK-NEXT:      memref.load
  // CHECK:         gpu.launch_func <%[[S]] : !llvm.ptr>
  // CHAIN-LABEL: func @host_read_before_launch
  // CHAIN-SAME:    (%[[S:.*]]: !llvm.ptr,
  // CHAIN:         gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T0:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T0]]]
  // CHAIN-NEXT:      memref.load
  // CHAIN:         gpu.launch_func <%[[S]] : !llvm.ptr>
  func.func @host_read_before_launch(%s : !llvm.ptr,
      %a : memref<16xf32> {llvm.noalias}, %h : memref<16xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      %x = memref.load %a[%c0] : memref<16xf32>
      memref.store %x, %h[%c0] : memref<16xf32>
      gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    return
  }

  // A launch on another stream is not ordered by the region's stream: the
  // conflicting kernel is handed to that stream before it, with no host wait
  // (the host waits for that stream at the exit).
  // CHECK-LABEL: func @launch_on_other_stream
  // CHECK-SAME:    (%{{[^:]*}}: !llvm.ptr, %[[S2:[^:]*]]: !llvm.ptr
  // CHECK:         %[[K:.*]] = gpu.launch_func async
  // CHECK-NEXT:    gpu.on_stream <%[[S2]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%{{.*}}: !gpu.async.token):
  // CHECK-NEXT:      gpu.on_stream.yield [%[[K]]]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.launch_func <%[[S2]] : !llvm.ptr>
  // CHAIN-LABEL: func @launch_on_other_stream
  // CHAIN-SAME:    (%{{[^:]*}}: !llvm.ptr, %[[S2:[^:]*]]: !llvm.ptr
  // CHAIN:         %[[K:.*]] = gpu.launch_func async
  // CHAIN-NEXT:    gpu.on_stream <%[[S2]] : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%{{.*}}: !gpu.async.token):
  // CHAIN-NEXT:      gpu.on_stream.yield [%[[K]]]
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.launch_func <%[[S2]] : !llvm.ptr>
  func.func @launch_on_other_stream(%s : !llvm.ptr, %s2 : !llvm.ptr,
                                    %a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.launch_func <%s2 : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      gpu.on_stream.yield
    }
    return
  }

  // A launch on a stream that an scf.for carries, after token work it may
  // conflict with and after another loop that carries a token: the stream
  // that takes the token work is the stream loop's result, recreated with
  // its token result (dependence mode).
  // CHECK-LABEL: func @stream_loop_after_loop
  // CHECK:         %[[SR:.*]]:2 = scf.for {{.*}} -> (!llvm.ptr, !gpu.async.token)
  // CHECK:         gpu.on_stream <%[[SR]]#0 : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%{{.*}}: !gpu.async.token):
  // CHECK-NEXT:      gpu.on_stream.yield [%{{.*}}]
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.launch_func <%[[SR]]#0 : !llvm.ptr>
  // CHAIN-LABEL: func @stream_loop_after_loop
  // CHAIN:         %[[SR:[0-9]+]] = scf.for {{.*}} -> (!llvm.ptr)
  // CHAIN:         gpu.launch_func <%[[SR]] : !llvm.ptr>
  func.func @stream_loop_after_loop(%s : !llvm.ptr, %s2 : !llvm.ptr,
                                    %a : memref<16xf32> {llvm.noalias},
                                    %b : memref<16xf32> {llvm.noalias},
                                    %p : i1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%x = %a, %y = %b) -> (memref<16xf32>, memref<16xf32>) {
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
      scf.yield %y, %x : memref<16xf32>, memref<16xf32>
    }
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%r#1 : memref<16xf32>)
    %sr = scf.for %i = %c0 to %c3 step %c1 iter_args(%sx = %s) -> (!llvm.ptr) {
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%r#0 : memref<16xf32>)
      gpu.launch_func <%sx : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%r#0 : memref<16xf32>)
      %sy = arith.select %p, %s2, %sx : !llvm.ptr
      scf.yield %sy : !llvm.ptr
    }
    gpu.launch_func <%sr : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%r#1 : memref<16xf32>)
    return
  }
}

// -----

// A launch on a stream that is not an LLVM pointer (a token that stands for
// the caller's stream) is accepted while nothing needs to wait for it; a
// host wait for it cannot be expressed.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%a : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<16xf32>
      memref.store %x, %a[%c0] : memref<16xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func @token_stream
  // CHECK:         gpu.launch_func <%{{.*}} : !gpu.async.token>
  // CHECK-NEXT:    return
  // CHAIN-LABEL: func @token_stream
  // CHAIN:         gpu.launch_func <%{{.*}} : !gpu.async.token>
  // CHAIN-NEXT:    return
  func.func @token_stream(%s : !gpu.async.token, %a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !gpu.async.token> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%a : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<16xf32>
      memref.store %x, %a[%c0] : memref<16xf32>
      gpu.return
    }
  }
  func.func @token_stream_read(%s : !gpu.async.token, %a : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !gpu.async.token> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    // expected-error @+1 {{'memref.load' op needs the host to wait for GPU work launched on a stream of type '!gpu.async.token', which -gpu-async-region cannot express; pass the stream as '!llvm.ptr'}}
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }
}

// -----

// The host functions that frameworks' kernel launchers emit: the stream is
// the framework's current one (returned by a call), the kernels are in a
// gpu.binary (their accesses unknown: everything) and take raw pointers.
// Launches on the stream followed by the return need no host wait, no
// stream of the pass's own and no token; an opaque call after a launch waits
// for the stream first (the callee may touch the kernel's data).
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, "">]
  llvm.func @current_stream(i32, i32) -> !llvm.ptr
  llvm.func @check_errors() -> i32

  // CHECK-LABEL: func @launcher
  // CHECK-NOT:     gpu.wait
  // CHECK-NOT:     gpu.on_stream
  // CHECK:         %[[S:.*]] = llvm.call @current_stream
  // CHECK-NEXT:    gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@first
  // CHECK-NEXT:    gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@second
  // CHECK-NEXT:    return
  // CHAIN-LABEL: func @launcher
  // CHAIN-NOT:     gpu.wait
  // CHAIN-NOT:     gpu.on_stream
  // CHAIN:         %[[S:.*]] = llvm.call @current_stream
  // CHAIN-NEXT:    gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@first
  // CHAIN-NEXT:    gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@second
  // CHAIN-NEXT:    return
  func.func @launcher(%data : !llvm.ptr, %n : i64, %device : i32) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %kind = llvm.mlir.constant(2 : i32) : i32
    %s = llvm.call @current_stream(%kind, %device) : (i32, i32) -> !llvm.ptr
    gpu.launch_func <%s : !llvm.ptr> @kernels::@first blocks in (%c128, %c1, %c1) threads in (%c128, %c1, %c1) args(%data : !llvm.ptr, %n : i64)
    gpu.launch_func <%s : !llvm.ptr> @kernels::@second blocks in (%c128, %c1, %c1) threads in (%c128, %c1, %c1) args(%data : !llvm.ptr, %n : i64)
    return
  }

  // CHECK-LABEL: func @launcher_checks_errors
  // CHECK:         gpu.launch_func <%[[S:.*]] : !llvm.ptr> @kernels::@first
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK:         llvm.call @check_errors
  // CHAIN-LABEL: func @launcher_checks_errors
  // CHAIN:         gpu.launch_func <%[[S:.*]] : !llvm.ptr> @kernels::@first
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN:         llvm.call @check_errors
  func.func @launcher_checks_errors(%s : !llvm.ptr, %data : !llvm.ptr) -> i32 {
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%data : !llvm.ptr)
    %e = llvm.call @check_errors() : () -> i32
    return %e : i32
  }
}

// -----

// An op of unknown effects (a call) that a stream of the function dominates
// may launch work on that stream and leave it pending, as a function compiled
// by this pass does at its return: after the op, the host waits for the
// stream before a host op or GPU op that may touch memory (or at the end of
// a block) as after a launch on it. Which values are streams: the streams of
// the function's gpu.on_stream ops and launches on a stream. Not a stream
// that a use in the function may end (an op of unknown effects that takes
// it, outside a region on it): the host never waits for it after such a use.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%a : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<16xf32>
      memref.store %x, %a[%c0] : memref<16xf32>
      gpu.return
    }
    gpu.func @touch(%p : !llvm.ptr) kernel {
      %v = llvm.load %p : !llvm.ptr -> i8
      gpu.return
    }
  }

  func.func private @launch_scale(!llvm.ptr, memref<16xf32>)
  func.func private @log()
  llvm.func @mgpuStreamCreate() -> !llvm.ptr
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  llvm.func @mgpuStreamBeginCapture(!llvm.ptr)
  llvm.func @mgpuStreamEndCapture(!llvm.ptr) -> !llvm.ptr

  // The call may launch on %s: the host waits for %s before it reads %a,
  // which the launch on %s before the call does not access.
  // CHECK-LABEL: func @call_then_host
  // CHECK:         gpu.launch_func <%[[S:.*]] : !llvm.ptr>
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK:         call @log
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK-NEXT:      gpu.on_stream.yield
  // CHECK-NEXT:    }
  // CHECK-NEXT:    memref.load
  // CHAIN-LABEL: func @call_then_host
  // CHAIN:         gpu.launch_func <%[[S:.*]] : !llvm.ptr>
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN:         call @log
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN-NEXT:      gpu.on_stream.yield
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    memref.load
  func.func @call_then_host(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                            %b : memref<16xf32> {llvm.noalias}) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    call @log() : () -> ()
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // A stream the function makes, hands to a launcher, synchronizes and
  // destroys: each call that gets the stream may end it, so the host waits
  // for the launch before the first one and on the stream after none.
  // CHECK-LABEL: func @own_stream
  // CHECK:         %[[S:.*]] = llvm.call @mgpuStreamCreate
  // CHECK-NEXT:    gpu.launch_func <%[[S]] : !llvm.ptr>
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK:         call @launch_scale(%[[S]]
  // CHECK-NEXT:    llvm.call @mgpuStreamSynchronize(%[[S]])
  // CHECK-NEXT:    llvm.call @mgpuStreamDestroy(%[[S]])
  // CHECK-NEXT:    call @log
  // CHECK-NEXT:    memref.load
  // CHAIN-LABEL: func @own_stream
  // CHAIN:         %[[S:.*]] = llvm.call @mgpuStreamCreate
  // CHAIN-NEXT:    gpu.launch_func <%[[S]] : !llvm.ptr>
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN:         call @launch_scale(%[[S]]
  // CHAIN-NEXT:    llvm.call @mgpuStreamSynchronize(%[[S]])
  // CHAIN-NEXT:    llvm.call @mgpuStreamDestroy(%[[S]])
  // CHAIN-NEXT:    call @log
  // CHAIN-NEXT:    memref.load
  func.func @own_stream(%a : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    call @launch_scale(%s, %a) : (!llvm.ptr, memref<16xf32>) -> ()
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
    call @log() : () -> ()
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // A kernel after the call, on a stream of the pass's own, waits for %s too
  // (%s is a stream: a launch runs on it). It does not run on %s: the call
  // may have ended it.
  // CHECK-LABEL: func @call_then_gpu
  // CHECK:         call @log
  // CHECK-NEXT:    gpu.on_stream <%[[S:.*]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK-NEXT:      gpu.on_stream.yield
  // CHECK-NEXT:    }
  // CHECK:         gpu.launch_func async
  // CHAIN-LABEL: func @call_then_gpu
  // CHAIN:         call @log
  // CHAIN-NEXT:    gpu.on_stream <%[[S:.*]] : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN-NEXT:      gpu.on_stream.yield
  // CHAIN-NEXT:    }
  // CHAIN:         gpu.launch_func async
  func.func @call_then_gpu(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                           %b : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    call @log() : () -> ()
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }

  // Values the host could wait for as streams that no use ends: a pointer
  // the host loads through, and one a kernel accesses. The call after them
  // may launch on %s: the host waits for %s before the load.
  // CHECK-LABEL: func @pointers_not_ended
  // CHECK:         call @log
  // CHECK-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHECK:         memref.load
  // CHAIN-LABEL: func @pointers_not_ended
  // CHAIN:         call @log
  // CHAIN-NEXT:    gpu.on_stream <%{{.*}} : !llvm.ptr> {
  // CHAIN:         memref.load
  func.func @pointers_not_ended(%s : !llvm.ptr, %p : !llvm.ptr,
                                %a : memref<16xf32> {llvm.noalias},
                                %b : memref<16xf32> {llvm.noalias}) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %v = llvm.load %p : !llvm.ptr -> i8
    gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    gpu.launch_func @kernels::@touch blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%p : !llvm.ptr)
    call @log() : () -> ()
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // A stream reloaded from memory and destroyed under another value: no
  // wait on it after the destroy.
  // CHECK-LABEL: func @reloaded_stream
  // CHECK:         llvm.call @mgpuStreamDestroy
  // CHECK-NEXT:    call @log
  // CHECK-NEXT:    memref.load
  // CHAIN-LABEL: func @reloaded_stream
  // CHAIN:         llvm.call @mgpuStreamDestroy
  // CHAIN-NEXT:    call @log
  // CHAIN-NEXT:    memref.load
  func.func @reloaded_stream(%s : !llvm.ptr, %a : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = llvm.mlir.constant(1 : i64) : i64
    %slot = llvm.alloca %n x !llvm.ptr : (i64) -> !llvm.ptr
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr
    %s1 = llvm.load %slot : !llvm.ptr -> !llvm.ptr
    %s2 = llvm.load %slot : !llvm.ptr -> !llvm.ptr
    gpu.launch_func <%s1 : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    llvm.call @mgpuStreamDestroy(%s2) : (!llvm.ptr) -> ()
    call @log() : () -> ()
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // A stream that an llvm.invoke destroys: no wait on it after the destroy
  // (a branch ends what it does not pass on).
  // CHECK-LABEL: func @invoked_destroy
  // CHECK:         llvm.invoke @mgpuStreamDestroy
  // CHECK-NEXT:  ^bb1:
  // CHECK-NEXT:    call @log
  // CHECK-NEXT:    memref.load
  // CHAIN-LABEL: func @invoked_destroy
  // CHAIN:         llvm.invoke @mgpuStreamDestroy
  // CHAIN-NEXT:  ^bb1:
  // CHAIN-NEXT:    call @log
  // CHAIN-NEXT:    memref.load
  func.func @invoked_destroy(%t : !llvm.ptr, %a : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f = arith.constant 0.0 : f32
    gpu.launch_func <%t : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    llvm.invoke @mgpuStreamDestroy(%t) to ^bb1 unwind ^bb2 : (!llvm.ptr) -> ()
  ^bb1:
    call @log() : () -> ()
    %y = memref.load %a[%c0] : memref<16xf32>
    return %y : f32
  ^bb2:
    %lp = llvm.landingpad cleanup : !llvm.struct<(ptr, i32)>
    return %f : f32
  }

  // A capture of a stream the function makes, beside a stream of its
  // caller's (%t), which the captured stream may alias: between the begin
  // and the end of the capture, the host waits for neither.
  // CHECK-LABEL: func @capture_beside_stream
  // CHECK:         llvm.call @mgpuStreamBeginCapture
  // CHECK-NEXT:    call @log
  // CHECK-NEXT:    llvm.call @mgpuStreamEndCapture
  // CHAIN-LABEL: func @capture_beside_stream
  // CHAIN:         llvm.call @mgpuStreamBeginCapture
  // CHAIN-NEXT:    call @log
  // CHAIN-NEXT:    llvm.call @mgpuStreamEndCapture
  func.func @capture_beside_stream(%t : !llvm.ptr, %a : memref<16xf32>)
      -> !llvm.ptr {
    %c1 = arith.constant 1 : index
    gpu.launch_func <%t : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    llvm.call @mgpuStreamBeginCapture(%s) : (!llvm.ptr) -> ()
    call @log() : () -> ()
    %g = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
    return %g : !llvm.ptr
  }

  // Calls in a loop: each waits for what the one before may have left on %s
  // (the callee's host code may read it); what they leave stays pending after
  // the loop, where the host waits for it before the load; at the return the
  // function leaves the rest to the stream's owner.
  // CHECK-LABEL: func @calls_in_loop
  // CHECK:         scf.for
  // CHECK-NEXT:      gpu.on_stream <%[[S:.*]] : !llvm.ptr> {
  // CHECK:           call @log
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK-NEXT:      gpu.on_stream.yield
  // CHECK-NEXT:    }
  // CHECK-NEXT:    memref.load
  // CHECK-NOT:     gpu.on_stream
  // CHECK:         return
  // CHAIN-LABEL: func @calls_in_loop
  // CHAIN:         scf.for
  // CHAIN-NEXT:      gpu.on_stream <%[[S:.*]] : !llvm.ptr> {
  // CHAIN:           call @log
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN-NEXT:      gpu.on_stream.yield
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    memref.load
  // CHAIN-NOT:     gpu.on_stream
  // CHAIN:         return
  func.func @calls_in_loop(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                           %b : memref<16xf32> {llvm.noalias},
                           %n : index) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    scf.for %i = %c0 to %n step %c1 {
      func.call @log() : () -> ()
    }
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // A call in a region on %s may launch on %s (but not end it: the region's
  // exit uses %s): the region hands that work to %s, and the host waits for
  // it before the load after the region.
  // CHECK-LABEL: func @call_in_region
  // CHECK:         call @launch_scale
  // CHECK-NEXT:    gpu.on_stream.yield
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.on_stream <%[[S:.*]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK-NEXT:      gpu.on_stream.yield
  // CHECK-NEXT:    }
  // CHECK-NEXT:    memref.load
  // CHAIN-LABEL: func @call_in_region
  // CHAIN:         call @launch_scale
  // CHAIN-NEXT:    gpu.on_stream.yield
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    gpu.on_stream <%[[S:.*]] : !llvm.ptr> {
  // CHAIN-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHAIN-NEXT:      gpu.wait [%[[T]]]
  // CHAIN-NEXT:      gpu.on_stream.yield
  // CHAIN-NEXT:    }
  // CHAIN-NEXT:    memref.load
  func.func @call_in_region(%s : !llvm.ptr, %a : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      func.call @launch_scale(%s, %a) : (!llvm.ptr, memref<16xf32>) -> ()
      gpu.on_stream.yield
    }
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // Without a stream in the function, a call hands nothing over: no wait.
  // CHECK-LABEL: func @call_without_stream
  // CHECK-NOT:     gpu.on_stream
  // CHECK:         return
  // CHAIN-LABEL: func @call_without_stream
  // CHAIN-NOT:     gpu.on_stream
  // CHAIN:         return
  func.func @call_without_stream(%p : !llvm.ptr, %a : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    call @launch_scale(%p, %a) : (!llvm.ptr, memref<16xf32>) -> ()
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }

  // A stream defined after the call is not one the call can reach.
  // CHECK-LABEL: func @stream_after_call
  // CHECK:         call @log
  // CHECK-NEXT:    %[[S:.*]] = llvm.load
  // CHECK-NEXT:    gpu.launch_func <%[[S]] : !llvm.ptr>
  // CHECK-NEXT:    memref.load
  // CHAIN-LABEL: func @stream_after_call
  // CHAIN:         call @log
  // CHAIN-NEXT:    %[[S:.*]] = llvm.load
  // CHAIN-NEXT:    gpu.launch_func <%[[S]] : !llvm.ptr>
  // CHAIN-NEXT:    memref.load
  func.func @stream_after_call(%slot : !llvm.ptr,
                               %a : memref<16xf32> {llvm.noalias},
                               %b : memref<16xf32> {llvm.noalias}) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    call @log() : () -> ()
    %s = llvm.load %slot : !llvm.ptr -> !llvm.ptr
    gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }
}
