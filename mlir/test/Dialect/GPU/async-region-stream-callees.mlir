// RUN: mlir-opt %s -gpu-async-region="max-streams=0" | FileCheck %s
// RUN: mlir-opt %s -gpu-async-region | FileCheck %s
// RUN: mlir-opt %s -pass-pipeline='builtin.module(func.func(gpu-async-region))' \
// RUN:   | FileCheck %s --check-prefix=NESTED

// Run on the module, -gpu-async-region first finds the arguments that the
// functions with a body use as streams: a call that passes a pointer to one
// may hand work to it, waited for before later host accesses unless code
// that takes the stream takes it over. On each function, it sees no callee.

module attributes {gpu.container_module} {
  gpu.module @kernels { gpu.func @scale(%m : memref<16xf32>) kernel { gpu.return } }

  // Passes its argument on to @launch_on (defined after it).
  func.func private @launch_via(%m : memref<16xf32>, %s : !llvm.ptr) {
    call @launch_on(%s, %m) : (!llvm.ptr, memref<16xf32>) -> ()
    return
  }

  // Launches on its argument and leaves the work there.
  func.func private @launch_on(%s : !llvm.ptr, %m : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<16xf32>)
    return
  }

  // Launches on one of two arguments, chosen at run time.
  func.func private @launch_either(%c : i1, %s0 : !llvm.ptr, %s1 : !llvm.ptr,
                                   %m : memref<16xf32>) {
    %s = arith.select %c, %s0, %s1 : !llvm.ptr
    call @launch_on(%s, %m) : (!llvm.ptr, memref<16xf32>) -> ()
    return
  }

  // Carries a pointer and a stream through a loop (after its induction
  // variable) and a stream through a branch; launches on the stream only.
  func.func private @launch_carried(%n : index, %c : i1, %p : !llvm.ptr,
                                    %s : !llvm.ptr, %t : !llvm.ptr,
                                    %m : memref<16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %p, %y = %s)
        -> (!llvm.ptr, !llvm.ptr) {
      gpu.launch_func <%y : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<16xf32>)
      %v = llvm.load %x : !llvm.ptr -> i8
      scf.yield %x, %y : !llvm.ptr, !llvm.ptr
    }
    cf.cond_br %c, ^bb1(%t : !llvm.ptr), ^bb2
  ^bb1(%u : !llvm.ptr):
    gpu.launch_func <%u : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<16xf32>)
    cf.br ^bb2
  ^bb2:
    return
  }

  // Calls itself; launches on its first argument at the end.
  func.func private @launch_late(%s : !llvm.ptr, %p : !llvm.ptr,
                                 %m : memref<16xf32>, %n : index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %more = arith.cmpi sgt, %n, %c0 : index
    scf.if %more {
      %k = arith.subi %n, %c1 : index
      func.call @launch_late(%s, %p, %m, %k)
          : (!llvm.ptr, !llvm.ptr, memref<16xf32>, index) -> ()
    } else {
      gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<16xf32>)
    }
    return
  }

  // Reads its pointer argument on the host: it is no stream.
  func.func private @read(%p : !llvm.ptr) -> i8 {
    %v = llvm.load %p : !llvm.ptr -> i8
    return %v : i8
  }

  func.func private @external(%s : !llvm.ptr, %m : memref<16xf32>)
  func.func private @log()
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  llvm.func @mgpuStreamBeginCapture(!llvm.ptr)
  llvm.func @mgpuStreamEndCapture(!llvm.ptr) -> !llvm.ptr

  // CHECK-LABEL: func @direct
  // CHECK:         call @launch_on(%[[S:[^,]*]], %{{.*}})
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NEXT:    ^bb0(%[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:      gpu.wait [%[[T]]]
  // CHECK-NEXT:      gpu.on_stream.yield
  // CHECK-NEXT:    }
  // CHECK-NEXT:    memref.load
  // NESTED-LABEL: func @direct
  // NESTED-NOT:     gpu.on_stream
  // NESTED:         return
  func.func @direct(%s : !llvm.ptr, %m : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    call @launch_on(%s, %m) : (!llvm.ptr, memref<16xf32>) -> ()
    %v = memref.load %m[%c0] : memref<16xf32>
    return %v : f32
  }

  // CHECK-LABEL: func @passed_on
  // CHECK:         call @launch_via(%{{.*}}, %[[S:[^)]*]])
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK:         memref.load
  func.func @passed_on(%s : !llvm.ptr, %m : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    call @launch_via(%m, %s) : (memref<16xf32>, !llvm.ptr) -> ()
    %v = memref.load %m[%c0] : memref<16xf32>
    return %v : f32
  }

  // CHECK-LABEL: func @either
  // CHECK:         call @launch_either(%{{.*}}, %[[S0:[^,]*]], %[[S1:[^,]*]], %{{.*}})
  // CHECK-DAG:     gpu.on_stream <%[[S0]] : !llvm.ptr> {
  // CHECK-DAG:     gpu.on_stream <%[[S1]] : !llvm.ptr> {
  // CHECK:         memref.load
  func.func @either(%c : i1, %s0 : !llvm.ptr, %s1 : !llvm.ptr,
                    %m : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    call @launch_either(%c, %s0, %s1, %m)
        : (i1, !llvm.ptr, !llvm.ptr, memref<16xf32>) -> ()
    %v = memref.load %m[%c0] : memref<16xf32>
    return %v : f32
  }

  // The pointer that @launch_carried only loads from is no stream.
  // CHECK-LABEL: func @carried
  // CHECK-SAME:    (%{{[^:]*}}: index, %{{[^:]*}}: i1, %[[P:[^:]*]]: !llvm.ptr, %[[S:[^:]*]]: !llvm.ptr, %[[T:[^:]*]]: !llvm.ptr
  // CHECK:         call @launch_carried
  // CHECK-NOT:     gpu.on_stream <%[[P]]
  // CHECK-DAG:     gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-DAG:     gpu.on_stream <%[[T]] : !llvm.ptr> {
  // CHECK-NOT:     gpu.on_stream <%[[P]]
  // CHECK:         memref.load
  func.func @carried(%n : index, %c : i1, %p : !llvm.ptr, %s : !llvm.ptr,
                     %t : !llvm.ptr, %m : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    call @launch_carried(%n, %c, %p, %s, %t, %m)
        : (index, i1, !llvm.ptr, !llvm.ptr, !llvm.ptr, memref<16xf32>) -> ()
    %v = memref.load %m[%c0] : memref<16xf32>
    return %v : f32
  }

  // CHECK-LABEL: func @recursive
  // CHECK-SAME:    (%[[S:[^:]*]]: !llvm.ptr, %{{[^:]*}}: !llvm.ptr
  // CHECK:         call @launch_late
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK-NOT:     gpu.on_stream <
  // CHECK:         memref.load
  func.func @recursive(%s : !llvm.ptr, %p : !llvm.ptr, %m : memref<16xf32>,
                       %n : index) -> f32 {
    %c0 = arith.constant 0 : index
    call @launch_late(%s, %p, %m, %n)
        : (!llvm.ptr, !llvm.ptr, memref<16xf32>, index) -> ()
    %v = memref.load %m[%c0] : memref<16xf32>
    return %v : f32
  }

  // A stream that a use may end (a runtime call that synchronizes, captures
  // or destroys it, here or in a callee) is not waited for: no wait on a
  // destroyed stream, none in a capture.
  // CHECK-LABEL: func @driver
  // CHECK-NOT:     gpu.on_stream <
  // CHECK:         return
  func.func @driver(%s : !llvm.ptr, %m : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    call @launch_on(%s, %m) : (!llvm.ptr, memref<16xf32>) -> ()
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
    call @log() : () -> ()
    %v = memref.load %m[%c0] : memref<16xf32>
    return %v : f32
  }
  // CHECK-LABEL: func @capture
  // CHECK-NOT:     gpu.on_stream <
  // CHECK:         return
  func.func @capture(%s : !llvm.ptr, %m : memref<16xf32>) -> !llvm.ptr {
    call @launch_on(%s, %m) : (!llvm.ptr, memref<16xf32>) -> ()
    call @launch_via(%m, %s) : (memref<16xf32>, !llvm.ptr) -> ()
    %g = func.call @end_capture(%s) : (!llvm.ptr) -> !llvm.ptr
    return %g : !llvm.ptr
  }
  func.func private @end_capture(%s : !llvm.ptr) -> !llvm.ptr {
    %g = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
    return %g : !llvm.ptr
  }

  // An operand passed to a stream argument is a stream of that call only: a
  // later op of unknown effects hands nothing to it, also where the function
  // has a stream of its own (%t), to which it does.
  // CHECK-LABEL: func @call_stream_only
  // CHECK-SAME:    (%[[S:[^:]*]]: !llvm.ptr, %[[T:[^:]*]]: !llvm.ptr,
  // CHECK:         call @launch_on(%[[S]], %{{.*}})
  // CHECK:         call @log
  // CHECK-NEXT:    gpu.on_stream <%[[T]] : !llvm.ptr> {
  // CHECK-NOT:     gpu.on_stream <%[[S]]
  // CHECK:         return
  func.func @call_stream_only(%s : !llvm.ptr, %t : !llvm.ptr,
                              %m : memref<16xf32>, %w : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func <%t : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%w : memref<16xf32>)
    call @launch_on(%s, %m) : (!llvm.ptr, memref<16xf32>) -> ()
    call @log() : () -> ()
    %v = memref.load %m[%c0] : memref<16xf32>
    return %v : f32
  }

  // A callee that returns its argument: where the caller destroys the
  // result, the stream it passed may be ended (alias analysis, not the flow
  // of values, tells): no wait on it after the destroy.
  func.func private @pass_through(%s : !llvm.ptr) -> !llvm.ptr {
    return %s : !llvm.ptr
  }
  // CHECK-LABEL: func @returned_stream
  // CHECK:         llvm.call @mgpuStreamDestroy
  // CHECK-NEXT:    call @log
  // CHECK-NEXT:    memref.load
  func.func @returned_stream(%s : !llvm.ptr, %m : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<16xf32>)
    %t = call @pass_through(%s) : (!llvm.ptr) -> !llvm.ptr
    llvm.call @mgpuStreamDestroy(%t) : (!llvm.ptr) -> ()
    call @log() : () -> ()
    %v = memref.load %m[%c0] : memref<16xf32>
    return %v : f32
  }

  // Two calls: the second waits for what the first handed to the stream.
  // CHECK-LABEL: func @two_calls
  // CHECK:         call @launch_on(%[[S:[^,]*]], %{{.*}})
  // CHECK-NEXT:    gpu.on_stream <%[[S]] : !llvm.ptr> {
  // CHECK:         call @launch_on
  // CHECK-NEXT:    return
  func.func @two_calls(%s : !llvm.ptr, %m : memref<16xf32>) {
    call @launch_on(%s, %m) : (!llvm.ptr, memref<16xf32>) -> ()
    call @launch_on(%s, %m) : (!llvm.ptr, memref<16xf32>) -> ()
    return
  }

  // No stream: a pointer the callee loads from, one passed to a function
  // without a body or through an indirect call.
  // CHECK-LABEL: func @not_streams
  // CHECK-NOT:     gpu.on_stream <
  // CHECK:         return
  func.func @not_streams(%p : !llvm.ptr, %s : !llvm.ptr, %t : !llvm.ptr,
                         %m : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %r = call @read(%p) : (!llvm.ptr) -> i8
    call @external(%s, %m) : (!llvm.ptr, memref<16xf32>) -> ()
    %f = func.constant @launch_on : (!llvm.ptr, memref<16xf32>) -> ()
    func.call_indirect %f(%t, %m) : (!llvm.ptr, memref<16xf32>) -> ()
    %v = memref.load %m[%c0] : memref<16xf32>
    return %v : f32
  }
}
