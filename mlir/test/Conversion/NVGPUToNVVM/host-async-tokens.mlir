// RUN: mlir-opt %s -convert-nvgpu-to-nvvm | FileCheck %s

// Host-side !gpu.async.token values are left to -gpu-to-llvm: SCF ops that
// carry them are kept as they are (they used to fail to legalize, which made
// -gpu-lower-to-nvvm-pipeline reject any loop-carried token).

// CHECK-LABEL: func @loop_carried_token
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (!gpu.async.token)
// CHECK: scf.yield {{.*}} : !gpu.async.token
func.func @loop_carried_token(%n : index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t0 = gpu.wait async
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %t0) -> !gpu.async.token {
    %t1 = gpu.wait async [%t]
    scf.yield %t1 : !gpu.async.token
  }
  gpu.wait [%r]
  return
}

// CHECK-LABEL: func @if_token
// CHECK: scf.if {{.*}} -> (!gpu.async.token)
func.func @if_token(%cond : i1) {
  %t0 = gpu.wait async
  %r = scf.if %cond -> !gpu.async.token {
    %t1 = gpu.wait async [%t0]
    scf.yield %t1 : !gpu.async.token
  } else {
    scf.yield %t0 : !gpu.async.token
  }
  gpu.wait [%r]
  return
}
