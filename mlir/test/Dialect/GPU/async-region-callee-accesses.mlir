// RUN: mlir-opt %s -gpu-async-region="max-streams=0" | FileCheck %s
// RUN: mlir-opt %s -gpu-async-region | FileCheck %s --check-prefix=CHAIN
// RUN: mlir-opt %s -pass-pipeline='builtin.module(func.func(gpu-async-region{max-streams=0}))' | FileCheck %s --check-prefix=NESTED

// On a module, a call of a function of the module with a body accesses what
// its callee's host and GPU ops access through its arguments: the host waits
// before the call only for the work that conflicts with that.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @update(%x : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<16xf32>
      memref.store %v, %x[%c0] : memref<16xf32>
      gpu.return
    }
  }

  func.func private @reads(%m : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %v = memref.load %m[%c0] : memref<16xf32>
    return %v : f32
  }

  func.func private @reads_via(%m : memref<16xf32>) -> f32 {
    %v = func.call @reads(%m) : (memref<16xf32>) -> f32
    return %v : f32
  }

  func.func private @launches(%m : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%m : memref<16xf32>)
    return
  }

  memref.global "private" @g : memref<16xf32>
  func.func private @global_store(%m : memref<16xf32>, %f : f32) {
    %c0 = arith.constant 0 : index
    %g = memref.get_global @g : memref<16xf32>
    memref.store %f, %g[%c0] : memref<16xf32>
    return
  }

  func.func private @recursive(%m : memref<16xf32>, %n : index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %p = arith.cmpi sgt, %n, %c0 : index
    scf.if %p {
      %m1 = arith.subi %n, %c1 : index
      func.call @recursive(%m, %m1) : (memref<16xf32>, index) -> ()
    }
    return
  }

  func.func private @external(%m : memref<16xf32>)

  // The callee only reads %b: no host wait before the call for the kernel on
  // %a, one before the host reads %a. In both modes; nested on functions, the
  // pass sees no callee and waits before the call.
  // CHECK-LABEL: func @call_reads_other
  // CHECK:         %[[K:.*]] = gpu.launch_func async @kernels::@update
  // CHECK-NEXT:    call @reads
  // CHECK-NEXT:    gpu.wait [%[[K]]]
  // CHECK-NEXT:    memref.load
  // CHAIN-LABEL: func @call_reads_other
  // CHAIN:         %[[K:.*]] = gpu.launch_func async
  // CHAIN-NEXT:    call @reads
  // CHAIN-NEXT:    gpu.wait [%[[K]]]
  // CHAIN-NEXT:    memref.load
  // NESTED-LABEL: func @call_reads_other
  // NESTED:         %[[K:.*]] = gpu.launch_func async
  // NESTED-NEXT:    gpu.wait [%[[K]]]
  // NESTED-NEXT:    call @reads
  func.func @call_reads_other(%a : memref<16xf32> {llvm.noalias},
                              %b : memref<16xf32> {llvm.noalias}) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %v = func.call @reads(%b) : (memref<16xf32>) -> f32
    %w = memref.load %a[%c0] : memref<16xf32>
    %s = arith.addf %v, %w : f32
    return %s : f32
  }

  // The callee reads %a through another callee: the host waits before the
  // call.
  // CHECK-LABEL: func @call_reads_same
  // CHECK:         %[[K:.*]] = gpu.launch_func async
  // CHECK-NEXT:    gpu.wait [%[[K]]]
  // CHECK-NEXT:    call @reads_via
  func.func @call_reads_same(%a : memref<16xf32> {llvm.noalias},
                             %b : memref<16xf32> {llvm.noalias}) -> f32 {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %v = func.call @reads_via(%a) : (memref<16xf32>) -> f32
    return %v : f32
  }

  // The GPU work of a callee accesses memory too: a launch on %b need not wait
  // for the kernel on %a, one on %a does.
  // CHECK-LABEL: func @call_launches
  // CHECK:         %[[K:.*]] = gpu.launch_func async
  // CHECK-NEXT:    call @launches(%{{.*}})
  // CHECK-NEXT:    gpu.wait [%[[K]]]
  // CHECK-NEXT:    call @launches(%{{.*}})
  func.func @call_launches(%a : memref<16xf32> {llvm.noalias},
                           %b : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    func.call @launches(%b) : (memref<16xf32>) -> ()
    func.call @launches(%a) : (memref<16xf32>) -> ()
    return
  }

  // A callee that reaches a global, a recursive callee and an external one
  // may access anything: the host waits before each call.
  // CHECK-LABEL: func @call_unknown
  // CHECK:         %[[K1:.*]] = gpu.launch_func async
  // CHECK-NEXT:    gpu.wait [%[[K1]]]
  // CHECK-NEXT:    call @global_store
  // CHECK-NEXT:    %[[K2:.*]] = gpu.launch_func async
  // CHECK-NEXT:    gpu.wait [%[[K2]]]
  // CHECK-NEXT:    call @recursive
  // CHECK-NEXT:    %[[K3:.*]] = gpu.launch_func async
  // CHECK-NEXT:    gpu.wait [%[[K3]]]
  // CHECK-NEXT:    call @external
  func.func @call_unknown(%a : memref<16xf32> {llvm.noalias},
                          %b : memref<16xf32> {llvm.noalias}, %f : f32, %n : index) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    func.call @global_store(%b, %f) : (memref<16xf32>, f32) -> ()
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    func.call @recursive(%b, %n) : (memref<16xf32>, index) -> ()
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    func.call @external(%b) : (memref<16xf32>) -> ()
    return
  }
}
