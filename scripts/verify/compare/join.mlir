// Two launches on two streams, joined by gpu.wait async, a third launch.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel() kernel {
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    %t2 = gpu.wait async
    %t3 = gpu.launch_func async [%t2] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    %t4 = gpu.wait async [%t1, %t3]
    %t5 = gpu.launch_func async [%t4] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.wait [%t5]
    return
  }
}
