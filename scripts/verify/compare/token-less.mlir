// The synchronous (token-less) memory ops.
module attributes {gpu.container_module} {
  func.func @main() {
    %f = arith.constant 1.0 : f32
    %h = memref.alloc() : memref<16xf32>
    %d = gpu.alloc () : memref<16xf32>
    gpu.memset %d, %f : memref<16xf32>, f32
    gpu.memcpy %h, %d : memref<16xf32>, memref<16xf32>
    gpu.dealloc %d : memref<16xf32>
    memref.dealloc %h : memref<16xf32>
    return
  }
}
