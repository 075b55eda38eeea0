// A copy between buffers allocated on two streams: two dependencies.
module attributes {gpu.container_module} {
  func.func @main() {
    %c2 = arith.constant 2 : index
    %0 = gpu.wait async
    %1, %2 = gpu.alloc async [%0] (%c2) : memref<?xf32>
    %3 = gpu.wait async
    %5, %6 = gpu.alloc async [%3] (%c2) : memref<?xf32>
    %7 = gpu.memcpy async [%2, %6] %1, %5 : memref<?xf32>, memref<?xf32>
    %8 = gpu.dealloc async [%7] %1 : memref<?xf32>
    %9 = gpu.dealloc async [%8] %5 : memref<?xf32>
    gpu.wait [%9]
    return
  }
}
