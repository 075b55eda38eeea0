// RUN: mlir-opt %s -convert-gpu-to-rocdl -verify-diagnostics

// An unresolved gpu.conditional_execution is rejected, not lowered.
gpu.module @kernels {
  func.func @thread_id() -> index {
    // expected-error@+1 {{'gpu.conditional_execution' op must be resolved before -convert-gpu-to-rocdl: run --gpu-resolve-conditional-execution first}}
    %val = gpu.conditional_execution device {
      %id = gpu.thread_id x
      gpu.yield %id : index
    } host {
      %c0 = arith.constant 0 : index
      gpu.yield %c0 : index
    } -> index
    return %val : index
  }
}
