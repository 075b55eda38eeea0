// The example of the RFC that proposed gpu.conditional_execution: a function
// called both from a gpu.launch body and from the host. Outlining clones it
// into the kernel's gpu.module; resolving then gives each copy its region.

// RUN: mlir-opt %s --gpu-kernel-outlining --gpu-resolve-conditional-execution \
// RUN:   --inline | FileCheck %s
//
// resolve-conditional-execution-rfc-nvvm.mlir lowers the result to NVVM and
// LLVM IR.

// CHECK-LABEL: func.func @thread_id() -> index
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: return %[[C0]] : index

// CHECK-LABEL: func.func @launch
// CHECK-SAME: (%[[HOST:.*]]: memref<index>, %[[DEV:.*]]: memref<index, 1>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: gpu.launch_func @launch_kernel::@launch_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C1]], %[[C1]], %[[C1]]) args(%[[DEV]] : memref<index, 1>)
// CHECK-NEXT: memref.store %[[C0]], %[[HOST]][] : memref<index>
// CHECK-NEXT: return

// CHECK: gpu.module @launch_kernel
// CHECK: gpu.func @launch_kernel(%[[ARG:.*]]: memref<index, 1>) kernel
// CHECK-NEXT: %[[ID:.*]] = func.call @thread_id() : () -> index
// CHECK-NEXT: memref.store %[[ID]], %[[ARG]][] : memref<index, 1>
// CHECK-NEXT: gpu.return
// CHECK: func.func @thread_id() -> index
// CHECK-NEXT: %[[TID:.*]] = gpu.thread_id x
// CHECK-NEXT: return %[[TID]] : index
// CHECK-NOT: gpu.conditional_execution

func.func @thread_id() -> index {
  %val = gpu.conditional_execution device {
    %id = gpu.thread_id x
    gpu.yield %id: index
  } host {
    %id = arith.constant 0 : index
    gpu.yield %id: index
  } -> index
  return %val : index
}
func.func @launch(%host: memref<index>, %dev: memref<index, 1>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%grid_x = %c1, %grid_y = %c1,
                                       %grid_z = %c1)
             threads(%tx, %ty, %tz) in (%block_x = %c1, %block_y = %c1,
                                        %block_z = %c1) {
    %id = func.call @thread_id() : () -> index
    memref.store %id, %dev[] : memref<index, 1>
    gpu.terminator
  }
  %id = func.call @thread_id() : () -> index
  memref.store %id, %host[] : memref<index>
  return
}
