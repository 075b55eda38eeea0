// Two independent "convolutions" into fresh host-allocated buffers, then an
// add of both results; synchronous input for -gpu-async-region.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @conv(%in : memref<64xf32>, %out : memref<64xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %in[%i] : memref<64xf32>
      memref.store %v, %out[%i] : memref<64xf32>
      gpu.return
    }
    gpu.func @add(%a : memref<64xf32>, %b : memref<64xf32>, %c : memref<64xf32>) kernel {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<64xf32>
      %y = memref.load %b[%i] : memref<64xf32>
      %z = arith.addf %x, %y : f32
      memref.store %z, %c[%i] : memref<64xf32>
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %f = arith.constant 1.0 : f32
    %in = memref.alloc() : memref<64xf32>
    gpu.memset %in, %f : memref<64xf32>, f32
    %a = memref.alloc() : memref<64xf32>
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c64, %c1, %c1) args(%in : memref<64xf32>, %a : memref<64xf32>)
    %b = memref.alloc() : memref<64xf32>
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c64, %c1, %c1) args(%in : memref<64xf32>, %b : memref<64xf32>)
    %c = memref.alloc() : memref<64xf32>
    gpu.launch_func @kernels::@add blocks in (%c1, %c1, %c1)
        threads in (%c64, %c1, %c1)
        args(%a : memref<64xf32>, %b : memref<64xf32>, %c : memref<64xf32>)
    %v = memref.load %c[%c1] : memref<64xf32>
    memref.dealloc %in : memref<64xf32>
    memref.dealloc %a : memref<64xf32>
    memref.dealloc %b : memref<64xf32>
    memref.dealloc %c : memref<64xf32>
    return
  }
}
