// RUN: mlir-opt %s | FileCheck %s
// RUN: mlir-opt %s | mlir-opt | FileCheck %s
// RUN: mlir-opt %s -mlir-print-op-generic | mlir-opt | FileCheck %s

// CHECK-LABEL: func @both_regions
func.func @both_regions() -> index {
  // CHECK: %[[V:.*]] = gpu.conditional_execution device {
  // CHECK-NEXT: %[[ID:.*]] = gpu.thread_id x
  // CHECK-NEXT: gpu.yield %[[ID]] : index
  // CHECK-NEXT: } host {
  // CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
  // CHECK-NEXT: gpu.yield %[[C0]] : index
  // CHECK-NEXT: } -> index
  %val = gpu.conditional_execution device {
    %id = gpu.thread_id x
    gpu.yield %id : index
  } host {
    %id = arith.constant 0 : index
    gpu.yield %id : index
  } -> index
  // CHECK: return %[[V]]
  return %val : index
}

// CHECK-LABEL: func @device_only
func.func @device_only() {
  // CHECK: gpu.conditional_execution device {
  // CHECK-NEXT: gpu.barrier
  // CHECK-NEXT: gpu.yield
  // CHECK-NEXT: }
  // CHECK-NOT: host
  gpu.conditional_execution device {
    gpu.barrier
    gpu.yield
  }
  return
}

// CHECK-LABEL: func @host_only
func.func @host_only(%m : memref<f32>, %f : f32) {
  // CHECK: gpu.conditional_execution host {
  // CHECK-NEXT: memref.store
  // CHECK-NEXT: gpu.yield
  // CHECK-NEXT: } {some.attr}
  gpu.conditional_execution host {
    memref.store %f, %m[] : memref<f32>
    gpu.yield
  } {some.attr}
  return
}

// CHECK-LABEL: func @several_results
func.func @several_results(%a : i32, %b : f32) -> (i32, f32) {
  // CHECK: gpu.conditional_execution device {
  // CHECK: gpu.yield %{{.*}}, %{{.*}} : i32, f32
  // CHECK: } host {
  // CHECK: gpu.yield %{{.*}}, %{{.*}} : i32, f32
  // CHECK: } -> i32, f32
  %r:2 = gpu.conditional_execution device {
    gpu.yield %a, %b : i32, f32
  } host {
    %c = arith.addi %a, %a : i32
    gpu.yield %c, %b : i32, f32
  } -> i32, f32
  return %r#0, %r#1 : i32, f32
}
