// A function that runs on its caller's stream (two independent kernels,
// joined back into the stream) is captured into a CUDA graph on that stream
// and replayed 100 times; the results count every run. The times of 100
// direct calls and of 100 replays are printed (seconds, then their ratio).
//
// RUN: mlir-opt %s -gpu-async-region="max-streams=0" \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=%gpu_compilation_format" \
// RUN: | mlir-runner \
// RUN:   --shared-libs=%mlir_cuda_runtime \
// RUN:   --shared-libs=%mlir_c_runner_utils \
// RUN:   --shared-libs=%mlir_runner_utils \
// RUN:   --entry-point-result=void \
// RUN: | FileCheck %s

// One warm-up call, 100 direct calls and 100 replays: 201 increments of
// each element; the capture itself runs nothing.
// CHECK: [201,  201,  201,  201,  201,  201,  201,  201,  201,  201,  201,  201,  201,  201,  201,  201]
// CHECK: [201,  201,  201,  201,  201,  201,  201,  201,  201,  201,  201,  201,  201,  201,  201,  201]
// CHECK-NEXT: direct
// CHECK-NEXT: {{[0-9.e+-]+}}
// CHECK-NEXT: replay
// CHECK-NEXT: {{[0-9.e+-]+}}
// CHECK-NEXT: direct/replay
// CHECK-NEXT: {{[0-9.e+-]+}}

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // a[i] += 1
    gpu.func @inc(%a : memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      %x = memref.load %a[%i] : memref<16xf32>
      %y = arith.addf %x, %one : f32
      memref.store %y, %a[%i] : memref<16xf32>
      gpu.return
    }
  }

  llvm.func @mgpuStreamCreate() -> !llvm.ptr
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamBeginCapture(!llvm.ptr)
  llvm.func @mgpuStreamEndCapture(!llvm.ptr) -> !llvm.ptr
  llvm.func @mgpuGraphLaunch(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuGraphDestroy(!llvm.ptr)
  func.func private @rtclock() -> f64
  func.func private @printF64(f64)
  func.func private @printNewline()
  func.func private @printMemrefF32(memref<*xf32>)
  llvm.mlir.global internal constant @direct("direct\0A\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @replay("replay\0A\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @ratio("direct/replay\0A\00") {addr_space = 0 : i32}
  llvm.func @printf(!llvm.ptr, ...) -> i32

  func.func @step(%s : !llvm.ptr, %a : memref<16xf32> {llvm.noalias},
                  %b : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%entry: !gpu.async.token):
      gpu.launch_func @kernels::@inc blocks in (%c1, %c1, %c1)
          threads in (%c16, %c1, %c1) args(%a : memref<16xf32>)
      gpu.launch_func @kernels::@inc blocks in (%c1, %c1, %c1)
          threads in (%c16, %c1, %c1) args(%b : memref<16xf32>)
      gpu.on_stream.yield
    }
    return
  }

  func.func @print(%label : !llvm.ptr, %value : f64) {
    %0 = llvm.call @printf(%label) vararg(!llvm.func<i32 (ptr, ...)>)
        : (!llvm.ptr) -> i32
    call @printF64(%value) : (f64) -> ()
    call @printNewline() : () -> ()
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c100 = arith.constant 100 : index
    %zero = arith.constant 0.0 : f32
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    %a = gpu.alloc host_shared () : memref<16xf32>
    %b = gpu.alloc host_shared () : memref<16xf32>
    scf.for %i = %c0 to %c16 step %c1 {
      memref.store %zero, %a[%i] : memref<16xf32>
      memref.store %zero, %b[%i] : memref<16xf32>
    }
    // Warm-up: loads the module and fills the stream and event pools.
    call @step(%s, %a, %b)
        : (!llvm.ptr, memref<16xf32>, memref<16xf32>) -> ()
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()

    %t0 = call @rtclock() : () -> f64
    scf.for %i = %c0 to %c100 step %c1 {
      func.call @step(%s, %a, %b)
          : (!llvm.ptr, memref<16xf32>, memref<16xf32>) -> ()
    }
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
    %t1 = call @rtclock() : () -> f64

    llvm.call @mgpuStreamBeginCapture(%s) : (!llvm.ptr) -> ()
    call @step(%s, %a, %b)
        : (!llvm.ptr, memref<16xf32>, memref<16xf32>) -> ()
    %graph = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr

    %t2 = call @rtclock() : () -> f64
    scf.for %i = %c0 to %c100 step %c1 {
      llvm.call @mgpuGraphLaunch(%graph, %s) : (!llvm.ptr, !llvm.ptr) -> ()
    }
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
    %t3 = call @rtclock() : () -> f64
    llvm.call @mgpuGraphDestroy(%graph) : (!llvm.ptr) -> ()

    %ua = memref.cast %a : memref<16xf32> to memref<*xf32>
    %ub = memref.cast %b : memref<16xf32> to memref<*xf32>
    call @printMemrefF32(%ua) : (memref<*xf32>) -> ()
    call @printMemrefF32(%ub) : (memref<*xf32>) -> ()
    %direct = arith.subf %t1, %t0 : f64
    %replay = arith.subf %t3, %t2 : f64
    %ratio = arith.divf %direct, %replay : f64
    %ld = llvm.mlir.addressof @direct : !llvm.ptr
    %lr = llvm.mlir.addressof @replay : !llvm.ptr
    %lq = llvm.mlir.addressof @ratio : !llvm.ptr
    call @print(%ld, %direct) : (!llvm.ptr, f64) -> ()
    call @print(%lr, %replay) : (!llvm.ptr, f64) -> ()
    call @print(%lq, %ratio) : (!llvm.ptr, f64) -> ()
    gpu.dealloc %a : memref<16xf32>
    gpu.dealloc %b : memref<16xf32>
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
    return
  }
}
