// A function that makes a stream, launches on it, synchronizes and destroys
// it, then reads and writes the kernel's buffer on the host:
// -gpu-async-region waits for the launch before the first runtime call on the
// stream, and not on the stream after the destroy (that wait would record an
// event on a destroyed stream). Lowered and run with the checking runtime in
// both modes: 0 violations.

// REQUIRES: host-supports-nvptx
// RUN: mlir-opt %s -gpu-async-region="max-streams=0" \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=isa" \
// RUN: | mlir-runner --entry-point-result=void \
// RUN:   --shared-libs=%mlir_gpu_check_runtime \
// RUN:   --shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --implicit-check-not="gpu-check: error"
// RUN: mlir-opt %s -gpu-async-region \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=isa" \
// RUN: | mlir-runner --entry-point-result=void \
// RUN:   --shared-libs=%mlir_gpu_check_runtime \
// RUN:   --shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --implicit-check-not="gpu-check: error"

// CHECK: gpu-check: live streams 0, events 0, allocations 0
// CHECK: gpu-check: 0 violation(s)

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // a[i] += 1
    gpu.func @inc(%a : memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      %x = memref.load %a[%i] : memref<4xf32>
      %y = arith.addf %x, %one : f32
      memref.store %y, %a[%i] : memref<4xf32>
      gpu.return
    }
  }

  llvm.func @mgpuStreamCreate() -> !llvm.ptr
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %a = gpu.alloc host_shared () : memref<4xf32>
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    gpu.launch_func <%s : !llvm.ptr> @kernels::@inc blocks in (%c1, %c1, %c1)
        threads in (%c4, %c1, %c1) args(%a : memref<4xf32>)
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
    %x = memref.load %a[%c1] : memref<4xf32>
    memref.store %x, %a[%c1] : memref<4xf32>
    gpu.dealloc %a : memref<4xf32>
    return
  }
}
