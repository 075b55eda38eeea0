// RUN: mlir-opt %s -gpu-async-region="max-streams=0" \
// RUN: | FileCheck %s --check-prefix=DEPS

// RUN: mlir-opt %s -gpu-async-region="max-streams=0" \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=%gpu_compilation_format" \
// RUN: | mlir-runner \
// RUN:   --shared-libs=%mlir_cuda_runtime \
// RUN:   --shared-libs=%mlir_runner_utils \
// RUN:   --entry-point-result=void \
// RUN: | FileCheck %s

// Two convolutions of one input into separate buffers, then their sum: the
// shape of a small CNN block. The program is written synchronously, without
// tokens; -gpu-async-region="max-streams=0" derives the token graph from the
// kernels' memory accesses:
//   - both convolutions only read the input (and write buffers of their
//     own), so neither waits for the other: they run on separate streams;
//   - the add reads both convolution outputs, so it waits for both (a join
//     of two streams);
//   - the host waits once, before it prints the result.
// The first RUN line checks that token graph; the second runs it. A missing
// dependency (an add that starts before one of the convolutions, a copy back
// before the add) makes the printed sum wrong.
//
// With x[i] = i, zero padding, weights (1, 2, 1) and (-1, 3, 1):
//   a = [1, 4, 8, ..., 56, 44],  b = [1, 5, 8, ..., 44, 31],
//   c = a + b = 7 * i + 2 inside, 2 and 75 at the ends.

// DEPS-LABEL: func @main
// The input is copied once; both convolutions wait for that copy and for
// the allocation of their own output, not for each other.
// DEPS-NOT:  gpu.wait
// DEPS:      %[[IN:.*]], %[[T_IN:.*]] = gpu.alloc async () : memref<16xf32>
// DEPS-NEXT: %[[T_COPY:.*]] = gpu.memcpy async [%[[T_IN]]] %[[IN]]
// DEPS-NEXT: %[[A:.*]], %[[T_A:.*]] = gpu.alloc async () : memref<16xf32>
// DEPS-NEXT: %[[T_CONV1:.*]] = gpu.launch_func async
// DEPS-SAME:   [%[[T_COPY]], %[[T_A]]] @kernels::@conv3
// DEPS-SAME:   args(%[[IN]] : memref<16xf32>, %[[A]] : memref<16xf32>,
// DEPS-NEXT: %[[B:.*]], %[[T_B:.*]] = gpu.alloc async () : memref<16xf32>
// DEPS-NEXT: %[[T_CONV2:.*]] = gpu.launch_func async
// DEPS-SAME:   [%[[T_COPY]], %[[T_B]]] @kernels::@conv3
// DEPS-SAME:   args(%[[IN]] : memref<16xf32>, %[[B]] : memref<16xf32>,
// The add joins both convolutions (and the allocation of its output).
// DEPS-NEXT: %[[C:.*]], %[[T_C:.*]] = gpu.alloc async () : memref<16xf32>
// DEPS-NEXT: %[[T_ADD:.*]] = gpu.launch_func async
// DEPS-SAME:   [%[[T_CONV1]], %[[T_C]], %[[T_CONV2]]] @kernels::@add
// DEPS-NEXT: memref.alloc
// DEPS-NEXT: %[[T_BACK:.*]] = gpu.memcpy async [%[[T_ADD]]] %{{.*}}, %[[C]]
// Each buffer is freed once its last reader is done.
// DEPS-NEXT: %[[D_IN:.*]] = gpu.dealloc async
// DEPS-SAME:   [%[[T_CONV1]], %[[T_CONV2]]] %[[IN]]
// DEPS-NEXT: %[[D_A:.*]] = gpu.dealloc async [%[[T_ADD]]] %[[A]]
// DEPS-NEXT: %[[D_B:.*]] = gpu.dealloc async [%[[T_ADD]]] %[[B]]
// DEPS-NEXT: %[[D_C:.*]] = gpu.dealloc async [%[[T_BACK]]] %[[C]]
// One host synchronization, right before the host reads the result.
// DEPS-NEXT: memref.cast
// DEPS-NEXT: gpu.wait [%[[D_IN]], %[[D_A]], %[[D_B]], %[[D_C]]]
// DEPS-NEXT: call @printMemrefF32
// DEPS-NOT:  gpu.wait
// DEPS:      return

// CHECK: [2, 9, 16, 23, 30, 37, 44, 51, 58, 65, 72, 79, 86, 93, 100, 75]

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // out[i] = w0 * in[i - 1] + w1 * in[i] + w2 * in[i + 1], where in[-1]
    // and in[n] are 0. Reads %in, writes %out.
    gpu.func @conv3(%in : memref<16xf32>, %out : memref<16xf32>,
                    %w0 : f32, %w1 : f32, %w2 : f32) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c15 = arith.constant 15 : index
      %zero = arith.constant 0.0 : f32
      %i = gpu.thread_id x
      %center = memref.load %in[%i] : memref<16xf32>
      %has_left = arith.cmpi ugt, %i, %c0 : index
      %left = scf.if %has_left -> f32 {
        %j = arith.subi %i, %c1 : index
        %v = memref.load %in[%j] : memref<16xf32>
        scf.yield %v : f32
      } else {
        scf.yield %zero : f32
      }
      %has_right = arith.cmpi ult, %i, %c15 : index
      %right = scf.if %has_right -> f32 {
        %j = arith.addi %i, %c1 : index
        %v = memref.load %in[%j] : memref<16xf32>
        scf.yield %v : f32
      } else {
        scf.yield %zero : f32
      }
      %l = arith.mulf %w0, %left : f32
      %m = arith.mulf %w1, %center : f32
      %r = arith.mulf %w2, %right : f32
      %lm = arith.addf %l, %m : f32
      %sum = arith.addf %lm, %r : f32
      memref.store %sum, %out[%i] : memref<16xf32>
      gpu.return
    }

    // c[i] = a[i] + b[i]. Reads %a and %b, writes %c.
    gpu.func @add(%a : memref<16xf32>, %b : memref<16xf32>,
                  %c : memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<16xf32>
      %y = memref.load %b[%i] : memref<16xf32>
      %z = arith.addf %x, %y : f32
      memref.store %z, %c[%i] : memref<16xf32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %three = arith.constant 3.0 : f32
    %minus_one = arith.constant -1.0 : f32

    // x[i] = i on the host.
    %host_in = memref.alloc() : memref<16xf32>
    scf.for %i = %c0 to %c16 step %c1 {
      %i_i32 = arith.index_cast %i : index to i32
      %x = arith.sitofp %i_i32 : i32 to f32
      memref.store %x, %host_in[%i] : memref<16xf32>
    }
    %in = gpu.alloc () : memref<16xf32>
    gpu.memcpy %in, %host_in : memref<16xf32>, memref<16xf32>

    // Two convolutions of %in, into %a and %b.
    %a = gpu.alloc () : memref<16xf32>
    gpu.launch_func @kernels::@conv3
        blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%in : memref<16xf32>, %a : memref<16xf32>,
             %one : f32, %two : f32, %one : f32)
    %b = gpu.alloc () : memref<16xf32>
    gpu.launch_func @kernels::@conv3
        blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%in : memref<16xf32>, %b : memref<16xf32>,
             %minus_one : f32, %three : f32, %one : f32)

    // Their sum, into %c, copied back to the host.
    %c = gpu.alloc () : memref<16xf32>
    gpu.launch_func @kernels::@add
        blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%a : memref<16xf32>, %b : memref<16xf32>, %c : memref<16xf32>)
    %host_out = memref.alloc() : memref<16xf32>
    gpu.memcpy %host_out, %c : memref<16xf32>, memref<16xf32>

    gpu.dealloc %in : memref<16xf32>
    gpu.dealloc %a : memref<16xf32>
    gpu.dealloc %b : memref<16xf32>
    gpu.dealloc %c : memref<16xf32>
    %out = memref.cast %host_out : memref<16xf32> to memref<*xf32>
    call @printMemrefF32(%out) : (memref<*xf32>) -> ()
    memref.dealloc %host_in : memref<16xf32>
    memref.dealloc %host_out : memref<16xf32>
    return
  }

  func.func private @printMemrefF32(memref<*xf32>)
}
