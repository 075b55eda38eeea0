// RUN: mlir-opt %s -gpu-async-region -verify-diagnostics -o /dev/null

// Run on a module, -gpu-async-region rewrites every function: one that
// fails does not keep the others from reporting their errors.

module {
  func.func @first(%m : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error@+1 {{replace with gpu.launch_func first}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      gpu.terminator
    }
    return
  }

  func.func @second(%m : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error@+1 {{replace with gpu.launch_func first}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      gpu.terminator
    }
    return
  }
}
