// Two kernels that depend on the same token only must be able to run
// concurrently: the checking runtime's happens-before says whether the
// lowering ordered them. A third kernel that depends on both is ordered after
// each.

// REQUIRES: host-supports-nvptx
// RUN: mlir-opt %s -gpu-lower-to-nvvm-pipeline="cubin-format=isa" \
// RUN: | mlir-runner --entry-point-result=void \
// RUN:   --shared-libs=%mlir_gpu_check_runtime \
// RUN:   --shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s

// CHECK: {{^}}0{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK: gpu-check: live streams 0, events 0, allocations 0
// CHECK: gpu-check: 0 violation(s)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%arg0 : memref<8xf32>) kernel {
      gpu.return
    }
  }
  func.func private @mgpuCheckOrdered(i64, i64) -> i1
  func.func private @printI64(i64)
  func.func private @printNewline()

  func.func @print(%b : i1) {
    %i = arith.extui %b : i1 to i64
    call @printI64(%i) : (i64) -> ()
    call @printNewline() : () -> ()
    return
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %op0 = arith.constant 0 : i64
    %op1 = arith.constant 1 : i64
    %op2 = arith.constant 2 : i64
    %m = memref.alloc() : memref<8xf32>
    %t0 = gpu.wait async
    // Operations 0 and 1: both depend on %t0 only.
    %t1 = gpu.launch_func async [%t0] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%m : memref<8xf32>)
    %t2 = gpu.launch_func async [%t0] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%m : memref<8xf32>)
    // Operation 2: depends on both.
    %t3 = gpu.launch_func async [%t1, %t2] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%m : memref<8xf32>)
    gpu.wait [%t3]
    %o01 = call @mgpuCheckOrdered(%op0, %op1) : (i64, i64) -> i1
    %o10 = call @mgpuCheckOrdered(%op1, %op0) : (i64, i64) -> i1
    %o02 = call @mgpuCheckOrdered(%op0, %op2) : (i64, i64) -> i1
    %o12 = call @mgpuCheckOrdered(%op1, %op2) : (i64, i64) -> i1
    call @print(%o01) : (i1) -> ()
    call @print(%o10) : (i1) -> ()
    call @print(%o02) : (i1) -> ()
    call @print(%o12) : (i1) -> ()
    memref.dealloc %m : memref<8xf32>
    return
  }
}
