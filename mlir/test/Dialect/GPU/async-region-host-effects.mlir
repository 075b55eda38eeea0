// RUN: mlir-opt -gpu-async-region %s | FileCheck %s

// Host ops between GPU ops force a host synchronization only if they may
// touch memory that the GPU work still in flight uses (such as the fresh
// buffers that two convolutions write, allocated between their launches).

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // Reads and writes %a.
    gpu.func @kernel(%a : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<16xf32>
      memref.store %x, %a[%c0] : memref<16xf32>
      gpu.return
    }
    // Reads %a.
    gpu.func @read(%a : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<16xf32>
      gpu.return
    }
    // Writes through pointer %p.
    gpu.func @store_through(%p : !llvm.ptr) kernel {
      %f = llvm.mlir.constant(1.0 : f32) : f32
      llvm.store %f, %p : f32, !llvm.ptr
      gpu.return
    }
  }
  // Kernels whose bodies are not visible.
  gpu.binary @opaque_kernels [#gpu.object<#nvvm.target, "">]

  func.func private @opaque(memref<16xf32>)

  // Fresh allocations and pure ops between launches, and freeing a buffer
  // the GPU never saw: no host sync until the end of the block.
  // CHECK-LABEL: func @fresh_allocations
  func.func @fresh_allocations(%n : index) {
    %c1 = arith.constant 1 : index
    // CHECK: %[[A:.*]], %{{.*}} = gpu.alloc async
    // CHECK-NEXT: %[[T1:.*]] = gpu.launch_func async [%{{.*}}] @kernels::@kernel {{.*}} args(%[[A]] : memref<16xf32>)
    // CHECK-NEXT: memref.alloc()
    // CHECK-NEXT: arith.addi
    // CHECK-NEXT: memref.alloca()
    // CHECK-NEXT: %[[T2:.*]] = gpu.launch_func async [%[[T1]]]
    // CHECK-NEXT: memref.dealloc
    // CHECK-NEXT: gpu.wait [%[[T2]]]
    // CHECK-NEXT: return
    %a = gpu.alloc () : memref<16xf32>
    gpu.launch_func @kernels::@kernel blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %b = memref.alloc() : memref<16xf32>
    %s = arith.addi %n, %c1 : index
    %c = memref.alloca() : memref<16xf32>
    gpu.launch_func @kernels::@kernel blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    memref.dealloc %b : memref<16xf32>
    return
  }

  // A host-shared allocation has no async form: it stays synchronous, and
  // as a fresh allocation it does not wait for the GPU work before it. A
  // host store to it after a launch that uses it does.
  // CHECK-LABEL: func @host_shared_allocation
  func.func @host_shared_allocation(%f : f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // CHECK: %[[T1:.*]] = gpu.launch_func async
    // CHECK-NEXT: %[[S:.*]] = gpu.alloc host_shared () : memref<16xf32>
    // CHECK-NEXT: %[[T2:.*]] = gpu.launch_func async [%[[T1]]] {{.*}} args(%[[S]] : memref<16xf32>)
    // CHECK-NEXT: gpu.wait [%[[T2]]]
    // CHECK-NEXT: memref.store %{{.*}}, %[[S]]
    // CHECK-NOT: async
    // CHECK: return
    %d = gpu.alloc () : memref<16xf32>
    gpu.launch_func @kernels::@kernel blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    %s = gpu.alloc host_shared () : memref<16xf32>
    gpu.launch_func @kernels::@kernel blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%s : memref<16xf32>)
    memref.store %f, %s[%c0] : memref<16xf32>
    return
  }

  // A host store to a buffer the GPU does not use: no sync. A host load of
  // the buffer the kernel uses: sync first.
  // CHECK-LABEL: func @host_accesses
  func.func @host_accesses(%f : f32) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %h = memref.alloc() : memref<16xf32>
    %d = gpu.alloc () : memref<16xf32>
    // CHECK: %[[T:.*]] = gpu.launch_func async
    // CHECK-NEXT: memref.store
    // CHECK-NEXT: gpu.wait [%[[T]]]
    // CHECK-NEXT: memref.load
    gpu.launch_func @kernels::@kernel blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    memref.store %f, %h[%c0] : memref<16xf32>
    %v = memref.load %d[%c0] : memref<16xf32>
    return %v : f32
  }

  // Function arguments may alias each other: a store to one after a launch
  // on the other waits. A call with unknown effects waits too.
  // CHECK-LABEL: func @arguments_and_calls
  func.func @arguments_and_calls(%x : memref<16xf32>, %y : memref<16xf32>,
                                 %f : f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // CHECK: %[[T:.*]] = gpu.launch_func async
    // CHECK-NEXT: gpu.wait [%[[T]]]
    // CHECK-NEXT: memref.store
    gpu.launch_func @kernels::@kernel blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
    memref.store %f, %y[%c0] : memref<16xf32>
    // CHECK: %[[T2:.*]] = gpu.launch_func async
    // CHECK-NEXT: gpu.wait [%[[T2]]]
    // CHECK-NEXT: call @opaque
    gpu.launch_func @kernels::@kernel blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
    func.call @opaque(%y) : (memref<16xf32>) -> ()
    return
  }

  // The host syncs use gpu::GpuAccessAnalysis: a store through an argument
  // while a launch writes another, llvm.noalias, argument, and a store into
  // memory allocated in the function, need no sync; a load of the
  // llvm.noalias argument itself does.
  // CHECK-LABEL: func @noalias_and_local_memory
  // CHECK: %[[T:.*]] = gpu.launch_func async
  // CHECK-NEXT: memref.store
  // CHECK-NEXT: memref.store
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // CHECK-NEXT: memref.load
  func.func @noalias_and_local_memory(%p : memref<16xf32> {llvm.noalias},
                                      %q : memref<16xf32>, %f : f32) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = memref.alloc() : memref<16xf32>
    gpu.launch_func @kernels::@kernel blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%p : memref<16xf32>)
    memref.store %f, %q[%c0] : memref<16xf32>
    memref.store %f, %m[%c0] : memref<16xf32>
    %v = memref.load %p[%c0] : memref<16xf32>
    return %v : f32
  }

  // A kernel that writes %a through a pointer: the host waits for it before
  // it loads %a.
  // CHECK-LABEL: func @pointer_kernel
  // CHECK: %[[T:.*]] = gpu.launch_func async {{.*}} @kernels::@store_through
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // CHECK-NEXT: memref.load
  func.func @pointer_kernel(%a : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i = memref.extract_aligned_pointer_as_index %a
        : memref<16xf32> -> index
    %i64 = arith.index_cast %i : index to i64
    %p = llvm.inttoptr %i64 : i64 to !llvm.ptr
    gpu.launch_func @kernels::@store_through blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%p : !llvm.ptr)
    %v = memref.load %a[%c0] : memref<16xf32>
    return %v : f32
  }

  // The same kernel writes memory the host frees: the host waits before the
  // memref.dealloc.
  // CHECK-LABEL: func @pointer_kernel_dealloc
  // CHECK: %[[T:.*]] = gpu.launch_func async {{.*}} @kernels::@store_through
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // CHECK-NEXT: memref.dealloc
  func.func @pointer_kernel_dealloc() {
    %c1 = arith.constant 1 : index
    %m = memref.alloc() : memref<16xf32>
    %i = memref.extract_aligned_pointer_as_index %m
        : memref<16xf32> -> index
    %i64 = arith.index_cast %i : index to i64
    %p = llvm.inttoptr %i64 : i64 to !llvm.ptr
    gpu.launch_func @kernels::@store_through blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%p : !llvm.ptr)
    memref.dealloc %m : memref<16xf32>
    return
  }

  // A kernel whose body is not visible may access any memory (here through
  // an integer): the host waits before it loads a buffer, but not before a
  // fresh allocation.
  // CHECK-LABEL: func @opaque_kernel
  // CHECK: %[[T:.*]] = gpu.launch_func async {{.*}} @opaque_kernels::@k
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // CHECK-NEXT: memref.load
  func.func @opaque_kernel(%a : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i = memref.extract_aligned_pointer_as_index %a
        : memref<16xf32> -> index
    %i64 = arith.index_cast %i : index to i64
    gpu.launch_func @opaque_kernels::@k blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%i64 : i64)
    %m = memref.alloc() : memref<16xf32>
    %v = memref.load %a[%c0] : memref<16xf32>
    return %v : f32
  }

  // A sparse op writes %y through a handle made before the last host sync:
  // the host waits for it before it loads %y.
  // CHECK-LABEL: func @sparse_handle
  // CHECK: %[[T:.*]] = gpu.spmv async
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // CHECK-NEXT: memref.load
  func.func @sparse_handle(%pos : memref<?xindex>, %crd : memref<?xindex>,
                           %val : memref<?xf64>, %x : memref<?xf64>,
                           %y : memref<?xf64> {llvm.noalias},
                           %buf : memref<?xf64> {llvm.noalias},
                           %n : index) -> f64 {
    %c0 = arith.constant 0 : index
    %spmat = gpu.create_csr %n, %n, %n, %pos, %crd, %val
        : memref<?xindex>, memref<?xindex>, memref<?xf64>
    %dnx = gpu.create_dn_tensor %x, %n : index into memref<?xf64>
    %dny = gpu.create_dn_tensor %y, %n : index into memref<?xf64>
    gpu.wait
    gpu.spmv %spmat, %dnx, %dny, %buf : memref<?xf64> into f64
    %v = memref.load %y[%c0] : memref<?xf64>
    gpu.destroy_sp_mat %spmat
    gpu.destroy_dn_tensor %dnx
    gpu.destroy_dn_tensor %dny
    return %v : f64
  }

  // Reads do not conflict: a host load of a buffer that a kernel only reads
  // does not wait for it; a store does.
  // CHECK-LABEL: func @read_only_kernel
  // CHECK: %[[T:.*]] = gpu.launch_func async {{.*}} @kernels::@read
  // CHECK-NEXT: memref.load
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // CHECK-NEXT: memref.store
  func.func @read_only_kernel(%a : memref<16xf32>, %f : f32) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@read blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %v = memref.load %a[%c0] : memref<16xf32>
    memref.store %f, %a[%c0] : memref<16xf32>
    return %v : f32
  }
}
