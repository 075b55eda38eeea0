// RUN: mlir-opt %s -gpu-resolve-conditional-execution \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=%gpu_compilation_format" \
// RUN: | mlir-runner \
// RUN:   --shared-libs=%mlir_cuda_runtime \
// RUN:   --shared-libs=%mlir_runner_utils \
// RUN:   --entry-point-result=void \
// RUN: | FileCheck %s

// gpu.conditional_execution on the GPU: inside the gpu.launch body the device
// region runs (each thread stores 10 + its id); on the host, the host region
// (7). A wrong choice stores 100 on the device or 0 on the host.

// CHECK: [10, 11, 12, 13, 7]
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %host = memref.alloc() : memref<5xi32>
  %host_cast = memref.cast %host : memref<5xi32> to memref<*xi32>
  gpu.host_register %host_cast : memref<*xi32>
  %dev, %t0 = gpu.alloc async () : memref<5xi32>
  %t1 = gpu.launch async [%t0] blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c4, %v = %c1, %w = %c1) {
    %val = gpu.conditional_execution device {
      %id = gpu.thread_id x
      %idi = arith.index_cast %id : index to i32
      %ten = arith.constant 10 : i32
      %r = arith.addi %idi, %ten : i32
      gpu.yield %r : i32
    } host {
      %hundred = arith.constant 100 : i32
      gpu.yield %hundred : i32
    } -> i32
    memref.store %val, %dev[%tx] : memref<5xi32>
    gpu.terminator
  }
  %t2 = gpu.memcpy async [%t1] %host, %dev : memref<5xi32>, memref<5xi32>
  gpu.wait [%t2]
  %hval = gpu.conditional_execution device {
    %zero = arith.constant 0 : i32
    gpu.yield %zero : i32
  } host {
    %seven = arith.constant 7 : i32
    gpu.yield %seven : i32
  } -> i32
  memref.store %hval, %host[%c4] : memref<5xi32>
  call @printMemrefI32(%host_cast) : (memref<*xi32>) -> ()
  gpu.dealloc %dev : memref<5xi32>
  gpu.host_unregister %host_cast : memref<*xi32>
  memref.dealloc %host : memref<5xi32>
  return
}

func.func private @printMemrefI32(memref<*xi32>)
