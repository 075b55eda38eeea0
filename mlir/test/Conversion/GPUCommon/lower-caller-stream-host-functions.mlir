// RUN: mlir-opt %s -gpu-to-llvm | FileCheck %s
// RUN: mlir-opt %s -gpu-async-region -gpu-to-llvm | FileCheck %s
// RUN: mlir-opt %s -gpu-async-region=max-streams=0 -gpu-to-llvm | FileCheck %s

// Host functions as frontends emit them to launch kernels on the stream of
// their caller. Each launch runs on the stream passed in, with or without
// -gpu-async-region first (either mode), and nothing creates, synchronizes,
// waits on or destroys a stream or an event.

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#rocdl.target<chip = "gfx942">, "">]

  // The stream typed as an async token, the last argument of a function with
  // a C interface; one launch on it, its grid a ceil division of a size.
  // CHECK-LABEL: llvm.func @vector_add(
  // CHECK-SAME:      %[[S:[^ ]*]]: !llvm.ptr) attributes {llvm.emit_c_interface}
  // CHECK-NOT:     llvm.call @mgpu
  // CHECK:         gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@vector_add
  // CHECK-NOT:     llvm.call @mgpu
  // CHECK:         llvm.return
  func.func @vector_add(%a : memref<?xf32>, %b : memref<?xf32>,
                        %c : memref<?xf32>, %n : i32,
                        %stream : !gpu.async.token)
      attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c63_i32 = arith.constant 63 : i32
    %c64_i32 = arith.constant 64 : i32
    %sum = arith.addi %n, %c63_i32 : i32
    %blocks_i32 = arith.floordivsi %sum, %c64_i32 : i32
    %blocks = arith.index_cast %blocks_i32 : i32 to index
    gpu.launch_func <%stream : !gpu.async.token> @kernels::@vector_add
        blocks in (%blocks, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%a : memref<?xf32>, %b : memref<?xf32>, %c : memref<?xf32>,
             %n : i32)
    return
  }

  // The same stream with a launch on clusters with dynamic shared memory,
  // after host code of unknown effects.
  // CHECK-LABEL: llvm.func @gemm(
  // CHECK-SAME:      %[[S:[^ ]*]]: !llvm.ptr) attributes {llvm.emit_c_interface}
  // CHECK-NOT:     llvm.call @mgpu
  // CHECK:         llvm.inline_asm has_side_effects
  // CHECK-NOT:     llvm.call @mgpu
  // CHECK:         gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@gemm clusters in
  // CHECK-SAME:      dynamic_shared_memory_size
  // CHECK-NOT:     llvm.call @mgpu
  // CHECK:         llvm.return
  func.func @gemm(%a : memref<?xf32>, %b : memref<?xf32>, %alpha : f32,
                  %stream : !gpu.async.token)
      attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %smem = arith.constant 49152 : i32
    llvm.inline_asm has_side_effects "", "" : () -> ()
    gpu.launch_func <%stream : !gpu.async.token> @kernels::@gemm
        clusters in (%c2, %c1, %c1) blocks in (%c2, %c2, %c1)
        threads in (%c128, %c1, %c1) dynamic_shared_memory_size %smem
        args(%a : memref<?xf32>, %b : memref<?xf32>, %alpha : f32)
    return
  }

  // The stream from the runtime of a framework (its current stream), and
  // launches of kernels whose accesses the pass cannot see: they stay in
  // order on that stream.
  llvm.func @current_stream(i32) -> !llvm.ptr
  // CHECK-LABEL: llvm.func @launcher(
  // CHECK-NOT:     llvm.call @mgpu
  // CHECK:         %[[S:.*]] = llvm.call @current_stream(
  // CHECK-NOT:     llvm.call @mgpu
  // CHECK:         gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@scale
  // CHECK-NOT:     llvm.call @mgpu
  // CHECK:         gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@shift
  // CHECK-NOT:     llvm.call @mgpu
  // CHECK:         llvm.return
  func.func @launcher(%x : !llvm.ptr, %y : !llvm.ptr, %n : i64, %dev : i32) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %s = llvm.call @current_stream(%dev) : (i32) -> !llvm.ptr
    gpu.launch_func <%s : !llvm.ptr> @kernels::@scale
        blocks in (%c256, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%x : !llvm.ptr, %n : i64)
    gpu.launch_func <%s : !llvm.ptr> @kernels::@shift
        blocks in (%c256, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%y : !llvm.ptr, %x : !llvm.ptr, %n : i64)
    return
  }
}
