// Seed 002, as in mlir/test/Dialect/GPU/async-region-dependences.mlir
// (function @seed_002 and the kernels it launches), plus a @main that calls
// it and reads the result on the host, so that the lowered program runs
// under mlir-runner with the checking GPU runtime.
// Pictures and commands: docs/async-region-pictures.md.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // Reads %in and %w, writes %out.
    gpu.func @conv(%in : memref<16xf32>, %w : memref<16xf32>,
                   %out : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %in[%c0] : memref<16xf32>
      %y = memref.load %w[%c0] : memref<16xf32>
      %z = arith.mulf %x, %y : f32
      memref.store %z, %out[%c0] : memref<16xf32>
      gpu.return
    }
    // Reads %a and %b (through a view), writes %c.
    gpu.func @add(%a : memref<16xf32>, %b : memref<16xf32>,
                  %c : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<16xf32>
      %view = memref.subview %b[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
      %y = memref.load %view[%c0] : memref<8xf32, strided<[1]>>
      %z = arith.addf %x, %y : f32
      memref.store %z, %c[%c0] : memref<16xf32>
      gpu.return
    }
  }

  // Two convolutions into fresh buffers, then their sum.
  func.func @seed_002(%in : memref<16xf32>, %w : memref<16xf32>)
      -> memref<16xf32> {
    %c1 = arith.constant 1 : index
    %a = memref.alloc() : memref<16xf32>
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%in : memref<16xf32>, %w : memref<16xf32>, %a : memref<16xf32>)
    %b = memref.alloc() : memref<16xf32>
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%in : memref<16xf32>, %w : memref<16xf32>, %b : memref<16xf32>)
    %c = memref.alloc() : memref<16xf32>
    gpu.launch_func @kernels::@add blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%a : memref<16xf32>, %b : memref<16xf32>, %c : memref<16xf32>)
    return %c : memref<16xf32>
  }

  // The host reads the result.
  func.func @main() {
    %c0 = arith.constant 0 : index
    %in = memref.alloc() : memref<16xf32>
    %w = memref.alloc() : memref<16xf32>
    %c = call @seed_002(%in, %w)
        : (memref<16xf32>, memref<16xf32>) -> memref<16xf32>
    %v = memref.load %c[%c0] : memref<16xf32>
    memref.dealloc %c : memref<16xf32>
    memref.dealloc %w : memref<16xf32>
    memref.dealloc %in : memref<16xf32>
    return
  }
}
