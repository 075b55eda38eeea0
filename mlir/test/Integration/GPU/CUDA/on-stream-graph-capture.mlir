// GPU code on its caller's stream with gpu.on_stream, run directly and
// captured into a CUDA graph. A kernel on the caller's stream %s spins for
// 50 ms, then sets a to 1; a gpu.on_stream region on %s computes b = a + 1
// (after spinning for 20 ms) and, independently, d = c + 1; after the region
// a kernel on %s computes e = b + 1, and a loop of three regions on %s adds
// 1 to d each time. Entry ordering makes b 2 (not 1), exit ordering makes e
// 3 (not 1), the loop leaves d at 4. The same sequence is then captured into
// a graph on %s and replayed 10 times after the buffers are cleared: a host
// synchronization inside the sequence, or work not joined back into %s,
// breaks the capture and the replays compute nothing.
//
// RUN: mlir-opt %s -gpu-async-region \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=%gpu_compilation_format" \
// RUN: | mlir-runner \
// RUN:   --shared-libs=%mlir_cuda_runtime \
// RUN:   --shared-libs=%mlir_c_runner_utils \
// RUN:   --shared-libs=%mlir_runner_utils \
// RUN:   --entry-point-result=void \
// RUN: | FileCheck %s
// RUN: mlir-opt %s -gpu-async-region="max-streams=0" \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=%gpu_compilation_format" \
// RUN: | mlir-runner \
// RUN:   --shared-libs=%mlir_cuda_runtime \
// RUN:   --shared-libs=%mlir_c_runner_utils \
// RUN:   --shared-libs=%mlir_runner_utils \
// RUN:   --entry-point-result=void \
// RUN: | FileCheck %s

// direct:
// CHECK: [3,  3,  3,  3,  3,  3,  3,  3,  3,  3,  3,  3,  3,  3,  3,  3]
// CHECK: [4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4]
// replayed:
// CHECK: [3,  3,  3,  3,  3,  3,  3,  3,  3,  3,  3,  3,  3,  3,  3,  3]
// CHECK: [4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4]

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // Spins for 50 ms (%globaltimer, nanoseconds), then a[i] = 1.
    gpu.func @spin_set(%a : memref<16xi32>) kernel {
      %i = gpu.thread_id x
      %one = arith.constant 1 : i32
      %limit = arith.constant 50000000 : i64
      %start = nvvm.read.ptx.sreg.globaltimer : i64
      scf.while : () -> () {
        %now = nvvm.read.ptx.sreg.globaltimer : i64
        %elapsed = arith.subi %now, %start : i64
        %spin = arith.cmpi ult, %elapsed, %limit : i64
        scf.condition(%spin)
      } do {
        scf.yield
      }
      memref.store %one, %a[%i] : memref<16xi32>
      gpu.return
    }
    // Spins for 20 ms, then dst[i] = src[i] + 1.
    gpu.func @spin_add_one(%dst : memref<16xi32>, %src : memref<16xi32>) kernel {
      %i = gpu.thread_id x
      %one = arith.constant 1 : i32
      %limit = arith.constant 20000000 : i64
      %start = nvvm.read.ptx.sreg.globaltimer : i64
      scf.while : () -> () {
        %now = nvvm.read.ptx.sreg.globaltimer : i64
        %elapsed = arith.subi %now, %start : i64
        %spin = arith.cmpi ult, %elapsed, %limit : i64
        scf.condition(%spin)
      } do {
        scf.yield
      }
      %x = memref.load %src[%i] : memref<16xi32>
      %y = arith.addi %x, %one : i32
      memref.store %y, %dst[%i] : memref<16xi32>
      gpu.return
    }
    // dst[i] = src[i] + 1.
    gpu.func @add_one(%dst : memref<16xi32>, %src : memref<16xi32>) kernel {
      %i = gpu.thread_id x
      %one = arith.constant 1 : i32
      %x = memref.load %src[%i] : memref<16xi32>
      %y = arith.addi %x, %one : i32
      memref.store %y, %dst[%i] : memref<16xi32>
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
  func.func private @printMemrefI32(memref<*xi32>)

  func.func @sequence(%s : !llvm.ptr, %a : memref<16xi32> {llvm.noalias}, %b : memref<16xi32> {llvm.noalias},
                      %c : memref<16xi32> {llvm.noalias}, %d : memref<16xi32> {llvm.noalias},
                      %e : memref<16xi32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.launch_func <%s : !llvm.ptr> @kernels::@spin_set blocks in (%c1, %c1, %c1)
        threads in (%c16, %c1, %c1) args(%a : memref<16xi32>)
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      gpu.launch_func @kernels::@spin_add_one blocks in (%c1, %c1, %c1)
          threads in (%c16, %c1, %c1) args(%b : memref<16xi32>, %a : memref<16xi32>)
      gpu.launch_func @kernels::@add_one blocks in (%c1, %c1, %c1)
          threads in (%c16, %c1, %c1) args(%d : memref<16xi32>, %c : memref<16xi32>)
      gpu.on_stream.yield
    }
    gpu.launch_func <%s : !llvm.ptr> @kernels::@add_one blocks in (%c1, %c1, %c1)
        threads in (%c16, %c1, %c1) args(%e : memref<16xi32>, %b : memref<16xi32>)
    // A loop of regions on %s: d += 1 three times, in order.
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    scf.for %i = %c0 to %c3 step %c1 {
      gpu.on_stream <%s : !llvm.ptr> {
      ^bb0(%t0: !gpu.async.token):
        gpu.launch_func @kernels::@add_one blocks in (%c1, %c1, %c1)
            threads in (%c16, %c1, %c1) args(%d : memref<16xi32>, %d : memref<16xi32>)
        gpu.on_stream.yield
      }
    }
    return
  }

  func.func @clear(%a : memref<16xi32>, %b : memref<16xi32>,
                   %c : memref<16xi32>, %d : memref<16xi32>,
                   %e : memref<16xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0 : i32
    scf.for %i = %c0 to %c16 step %c1 {
      memref.store %zero, %a[%i] : memref<16xi32>
      memref.store %zero, %b[%i] : memref<16xi32>
      memref.store %zero, %c[%i] : memref<16xi32>
      memref.store %zero, %d[%i] : memref<16xi32>
      memref.store %zero, %e[%i] : memref<16xi32>
    }
    return
  }

  func.func @print(%e : memref<16xi32>, %d : memref<16xi32>) {
    %ue = memref.cast %e : memref<16xi32> to memref<*xi32>
    %ud = memref.cast %d : memref<16xi32> to memref<*xi32>
    call @printMemrefI32(%ue) : (memref<*xi32>) -> ()
    call @printMemrefI32(%ud) : (memref<*xi32>) -> ()
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c10 = arith.constant 10 : index
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    %a = gpu.alloc host_shared () : memref<16xi32>
    %b = gpu.alloc host_shared () : memref<16xi32>
    %c = gpu.alloc host_shared () : memref<16xi32>
    %d = gpu.alloc host_shared () : memref<16xi32>
    %e = gpu.alloc host_shared () : memref<16xi32>
    call @clear(%a, %b, %c, %d, %e) : (memref<16xi32>, memref<16xi32>,
        memref<16xi32>, memref<16xi32>, memref<16xi32>) -> ()
    call @sequence(%s, %a, %b, %c, %d, %e) : (!llvm.ptr, memref<16xi32>,
        memref<16xi32>, memref<16xi32>, memref<16xi32>, memref<16xi32>) -> ()
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
    call @print(%e, %d) : (memref<16xi32>, memref<16xi32>) -> ()

    llvm.call @mgpuStreamBeginCapture(%s) : (!llvm.ptr) -> ()
    call @sequence(%s, %a, %b, %c, %d, %e) : (!llvm.ptr, memref<16xi32>,
        memref<16xi32>, memref<16xi32>, memref<16xi32>, memref<16xi32>) -> ()
    %graph = llvm.call @mgpuStreamEndCapture(%s) : (!llvm.ptr) -> !llvm.ptr
    call @clear(%a, %b, %c, %d, %e) : (memref<16xi32>, memref<16xi32>,
        memref<16xi32>, memref<16xi32>, memref<16xi32>) -> ()
    scf.for %i = %c0 to %c10 step %c1 {
      llvm.call @mgpuGraphLaunch(%graph, %s) : (!llvm.ptr, !llvm.ptr) -> ()
    }
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
    llvm.call @mgpuGraphDestroy(%graph) : (!llvm.ptr) -> ()
    call @print(%e, %d) : (memref<16xi32>, memref<16xi32>) -> ()
    gpu.dealloc %a : memref<16xi32>
    gpu.dealloc %b : memref<16xi32>
    gpu.dealloc %c : memref<16xi32>
    gpu.dealloc %d : memref<16xi32>
    gpu.dealloc %e : memref<16xi32>
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
    return
  }
}
