// GPU code on its caller's stream with gpu.on_stream, lowered and run with the
// checking runtime. @main enqueues a kernel on its stream %s (operation 0)
// and calls @step, whose region on %s runs a loop of three kernels on one
// buffer (operations 1-3), each after the previous one, then a kernel on
// another buffer that depends on no token (operation 4: the region's entry
// rule orders it after operation 0 all the same); it hands operations 3 and
// 4 back to %s. @main then enqueues another kernel on %s (operation 5). The
// lowering orders 0 before 1 and 4, 3 and 4 before 5, and leaves the loop
// and operation 4 unordered; @step neither synchronizes the host nor
// destroys %s, and every stream and event it makes is destroyed once.

// REQUIRES: host-supports-nvptx
// RUN: mlir-opt %s -gpu-lower-to-nvvm-pipeline="cubin-format=isa" > %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=LOWERED
// RUN: mlir-runner %t.mlir --entry-point-result=void \
// RUN:   --shared-libs=%mlir_gpu_check_runtime \
// RUN:   --shared-libs=%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s

// LOWERED-LABEL: llvm.func @step(
// LOWERED-SAME:    %[[S:arg0]]: !llvm.ptr
// LOWERED-NOT:     Synchronize
// LOWERED-NOT:     mgpuStreamDestroy(%[[S]])
// LOWERED:         llvm.call @mgpuStreamWaitEvent(%[[S]], %{{.*}})
// LOWERED-NOT:     Synchronize
// LOWERED-NOT:     mgpuStreamDestroy(%[[S]])
// LOWERED:         llvm.return

// ordered(0, 1), ordered(0, 4), ordered(3, 5), ordered(4, 5), ordered(1, 4),
// ordered(4, 1):
// CHECK: {{^}}1{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK: gpu-check: live streams 0, events 0, allocations 0
// CHECK: gpu-check: 0 violation(s)

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%a : memref<8xf32>) kernel {
      gpu.return
    }
  }
  llvm.func @mgpuStreamCreate() -> !llvm.ptr
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  func.func private @mgpuCheckOrdered(i64, i64) -> i1
  func.func private @printI64(i64)
  func.func private @printNewline()

  func.func @print(%b : i1) {
    %i = arith.extui %b : i1 to i64
    call @printI64(%i) : (i64) -> ()
    call @printNewline() : () -> ()
    return
  }

  func.func @step(%s : !llvm.ptr, %a : memref<8xf32>, %b : memref<8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      %t3 = scf.for %i = %c0 to %c3 step %c1 iter_args(%t = %t0)
          -> (!gpu.async.token) {
        %next = gpu.launch_func async [%t] @kernels::@kernel
            blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
            args(%b : memref<8xf32>)
        scf.yield %next : !gpu.async.token
      }
      %t4 = gpu.launch_func async @kernels::@kernel
          blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
          args(%a : memref<8xf32>)
      gpu.on_stream.yield [%t3, %t4]
    }
    return
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %op0 = arith.constant 0 : i64
    %op1 = arith.constant 1 : i64
    %op3 = arith.constant 3 : i64
    %op4 = arith.constant 4 : i64
    %op5 = arith.constant 5 : i64
    %a = memref.alloc() : memref<8xf32>
    %b = memref.alloc() : memref<8xf32>
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    gpu.launch_func <%s : !llvm.ptr> @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<8xf32>)
    call @step(%s, %a, %b) : (!llvm.ptr, memref<8xf32>, memref<8xf32>) -> ()
    gpu.launch_func <%s : !llvm.ptr> @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<8xf32>)
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
    %o01 = call @mgpuCheckOrdered(%op0, %op1) : (i64, i64) -> i1
    %o04 = call @mgpuCheckOrdered(%op0, %op4) : (i64, i64) -> i1
    %o35 = call @mgpuCheckOrdered(%op3, %op5) : (i64, i64) -> i1
    %o45 = call @mgpuCheckOrdered(%op4, %op5) : (i64, i64) -> i1
    %o14 = call @mgpuCheckOrdered(%op1, %op4) : (i64, i64) -> i1
    %o41 = call @mgpuCheckOrdered(%op4, %op1) : (i64, i64) -> i1
    call @print(%o01) : (i1) -> ()
    call @print(%o04) : (i1) -> ()
    call @print(%o35) : (i1) -> ()
    call @print(%o45) : (i1) -> ()
    call @print(%o14) : (i1) -> ()
    call @print(%o41) : (i1) -> ()
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
    memref.dealloc %a : memref<8xf32>
    memref.dealloc %b : memref<8xf32>
    return
  }
}
