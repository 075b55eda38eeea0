// RUN: mlir-opt %s --gpu-resolve-conditional-execution -split-input-file | FileCheck %s

// On the host, the host region replaces the op; its results replace the op's.
// CHECK-LABEL: func @host
// CHECK-SAME: (%[[A:.*]]: index)
// CHECK-NOT: gpu.conditional_execution
// CHECK-NOT: gpu.thread_id
// CHECK: %[[S:.*]] = arith.addi %[[A]], %[[A]] : index
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[S]], %[[A]] : index
// CHECK-NEXT: return %[[M]]
func.func @host(%a : index) -> index {
  %val = gpu.conditional_execution device {
    %id = gpu.thread_id x
    gpu.yield %id : index
  } host {
    // Several ops, using a value defined above.
    %s = arith.addi %a, %a : index
    %m = arith.muli %s, %a : index
    gpu.yield %m : index
  } -> index
  return %val : index
}

// -----

// In a gpu.module (a device function and a kernel), the device region does.
// CHECK-LABEL: gpu.module @kernels
gpu.module @kernels {
  // CHECK-LABEL: func @device_function
  // CHECK-NOT: gpu.conditional_execution
  // CHECK: %[[ID:.*]] = gpu.thread_id x
  // CHECK-NEXT: return %[[ID]]
  func.func @device_function() -> index {
    %val = gpu.conditional_execution device {
      %id = gpu.thread_id x
      gpu.yield %id : index
    } host {
      %c0 = arith.constant 0 : index
      gpu.yield %c0 : index
    } -> index
    return %val : index
  }

  // CHECK-LABEL: gpu.func @kernel
  // CHECK-NOT: gpu.conditional_execution
  // CHECK: gpu.barrier
  // CHECK-NEXT: gpu.return
  gpu.func @kernel() kernel {
    gpu.conditional_execution device {
      gpu.barrier
      gpu.yield
    } host {
      gpu.yield
    }
    gpu.return
  }
}

// -----

// In a gpu.launch body, the device region; outside it, the host region.
// CHECK-LABEL: func @launch
func.func @launch(%m : memref<index>) {
  %c1 = arith.constant 1 : index
  // CHECK: gpu.launch
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    // CHECK: %[[ID:.*]] = gpu.thread_id x
    // CHECK-NEXT: memref.store %[[ID]]
    %id = gpu.conditional_execution device {
      %i = gpu.thread_id x
      gpu.yield %i : index
    } host {
      %c0 = arith.constant 0 : index
      gpu.yield %c0 : index
    } -> index
    memref.store %id, %m[] : memref<index>
    gpu.terminator
  }
  // CHECK: %[[C7:.*]] = arith.constant 7 : index
  // CHECK-NEXT: memref.store %[[C7]]
  %h = gpu.conditional_execution device {
    %i = gpu.thread_id x
    gpu.yield %i : index
  } host {
    %c7 = arith.constant 7 : index
    gpu.yield %c7 : index
  } -> index
  memref.store %h, %m[] : memref<index>
  return
}

// -----

// A missing region in the op's context: the op is erased.
// CHECK-LABEL: func @missing_host_region
// CHECK-NEXT: return
func.func @missing_host_region() {
  gpu.conditional_execution device {
    gpu.barrier
    gpu.yield
  }
  return
}

// CHECK-LABEL: gpu.module @missing_device_region
// CHECK: func @f(%[[M:.*]]: memref<f32>, %{{.*}}: f32)
// CHECK-NEXT: return
gpu.module @missing_device_region {
  func.func @f(%m : memref<f32>, %f : f32) {
    gpu.conditional_execution host {
      memref.store %f, %m[] : memref<f32>
      gpu.yield
    }
    return
  }
}

// -----

// Nested ops are resolved by their own context: here both are on the host.
// CHECK-LABEL: func @nested
// CHECK-NOT: gpu.conditional_execution
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[C1]], %[[C2]]
// CHECK-NEXT: return %[[S]]
func.func @nested() -> index {
  %val = gpu.conditional_execution device {
    %id = gpu.thread_id x
    gpu.yield %id : index
  } host {
    %one = arith.constant 1 : index
    %inner = gpu.conditional_execution device {
      %id = gpu.thread_id y
      gpu.yield %id : index
    } host {
      %two = arith.constant 2 : index
      gpu.yield %two : index
    } -> index
    %sum = arith.addi %one, %inner : index
    gpu.yield %sum : index
  } -> index
  return %val : index
}

// Nested in a device region, inside a gpu.module.
// CHECK-LABEL: gpu.module @nested_device
// CHECK: %[[X:.*]] = gpu.thread_id x
// CHECK-NEXT: %[[Y:.*]] = gpu.thread_id y
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[X]], %[[Y]]
// CHECK-NEXT: return %[[S]]
gpu.module @nested_device {
  func.func @f() -> index {
    %val = gpu.conditional_execution device {
      %x = gpu.thread_id x
      %inner = gpu.conditional_execution device {
        %y = gpu.thread_id y
        gpu.yield %y : index
      } host {
        %c0 = arith.constant 0 : index
        gpu.yield %c0 : index
      } -> index
      %sum = arith.addi %x, %inner : index
      gpu.yield %sum : index
    } host {
      %c0 = arith.constant 0 : index
      gpu.yield %c0 : index
    } -> index
    return %val : index
  }
}
