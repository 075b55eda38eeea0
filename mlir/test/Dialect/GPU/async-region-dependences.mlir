// RUN: mlir-opt %s -split-input-file -gpu-async-region="max-streams=0" | FileCheck %s
// RUN: mlir-opt %s -split-input-file -gpu-async-region="max-streams=2" | FileCheck %s --check-prefix=TWO
// RUN: mlir-opt %s -split-input-file -gpu-async-region | FileCheck %s --check-prefix=CHAIN

// -gpu-async-region with dependences from memory effects: each GPU op waits
// only for the earlier GPU ops whose accesses conflict with its own, and the
// host only for the GPU ops whose memory it touches.

// A function with no GPU op, in a context that has not loaded the GPU
// dialect (the input holds no GPU op), is left as it is.
// CHECK-LABEL: func @no_gpu_ops
// CHECK-NEXT: return
// TWO-LABEL: func @no_gpu_ops
// CHAIN-LABEL: func @no_gpu_ops
func.func @no_gpu_ops() {
  return
}

// -----

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
    // Writes a global: conflicts with everything.
    memref.global "private" @g : memref<16xf32>
    gpu.func @global_writer() kernel {
      %c0 = arith.constant 0 : index
      %f = arith.constant 1.0 : f32
      %g = memref.get_global @g : memref<16xf32>
      memref.store %f, %g[%c0] : memref<16xf32>
      gpu.return
    }
  }

  // Two convolutions into fresh buffers, then their sum. The
  // convolutions are independent (both only read %in and %w); the add waits
  // for both; the host waits once, at the end.
  // CHECK-LABEL: func @independent_convolutions
  // CHECK: %[[T1:.*]] = gpu.launch_func async @kernels::@conv
  // CHECK: %[[T2:.*]] = gpu.launch_func async @kernels::@conv
  // CHECK: %[[T3:.*]] = gpu.launch_func async [%[[T1]], %[[T2]]] @kernels::@add
  // CHECK-NEXT: gpu.wait [%[[T3]]]
  // CHECK-NEXT: return
  // CHECK-NOT: gpu.wait
  // TWO-LABEL: func @independent_convolutions
  // TWO: %[[T1:.*]] = gpu.launch_func async @kernels::@conv
  // TWO: %[[T2:.*]] = gpu.launch_func async @kernels::@conv
  // TWO: gpu.launch_func async [%[[T1]], %[[T2]]] @kernels::@add
  // One chain: each launch waits for the previous one.
  // CHAIN-LABEL: func @independent_convolutions
  // CHAIN: %[[T1:.*]] = gpu.launch_func async [%{{.*}}] @kernels::@conv
  // CHAIN: %[[T2:.*]] = gpu.launch_func async [%[[T1]]] @kernels::@conv
  // CHAIN: gpu.launch_func async [%[[T2]]] @kernels::@add
  func.func @independent_convolutions(%in : memref<16xf32>, %w : memref<16xf32>)
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

  // Write after read: the second conv overwrites %x, which the first one
  // read (and reads nothing the first one wrote). A host load of %z waits for
  // the third conv only.
  // CHECK-LABEL: func @war_and_host_read
  // CHECK: %[[T1:.*]] = gpu.launch_func async @kernels::@conv
  // CHECK: %[[T2:.*]] = gpu.launch_func async [%[[T1]]] @kernels::@conv
  // CHECK: %[[T3:.*]] = gpu.launch_func async @kernels::@conv
  // CHECK-NEXT: gpu.wait [%[[T3]]]
  // CHECK-NEXT: memref.load
  // CHECK: gpu.wait [%[[T2]]]
  // CHECK-NEXT: return
  func.func @war_and_host_read(%w : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = memref.alloc() : memref<16xf32>
    %y = memref.alloc() : memref<16xf32>
    %z = memref.alloc() : memref<16xf32>
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %w : memref<16xf32>, %y : memref<16xf32>)
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%w : memref<16xf32>, %w : memref<16xf32>, %x : memref<16xf32>)
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%w : memref<16xf32>, %w : memref<16xf32>, %z : memref<16xf32>)
    %v = memref.load %z[%c0] : memref<16xf32>
    return %v : f32
  }

  // A kernel that writes a global conflicts with everything; so do
  // function arguments that may alias.
  // CHECK-LABEL: func @unknown_and_aliasing
  // CHECK: %[[T1:.*]] = gpu.launch_func async @kernels::@conv
  // CHECK: %[[T2:.*]] = gpu.launch_func async [%[[T1]]] @kernels::@global_writer
  // CHECK: %[[T3:.*]] = gpu.launch_func async [%[[T2]]] @kernels::@conv
  func.func @unknown_and_aliasing(%p : memref<16xf32>, %q : memref<16xf32>,
                                  %w : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%w : memref<16xf32>, %w : memref<16xf32>, %p : memref<16xf32>)
    gpu.launch_func @kernels::@global_writer blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%q : memref<16xf32>, %w : memref<16xf32>, %w : memref<16xf32>)
    return
  }

  // Three independent launches with max-streams=2: the third continues the
  // oldest chain.
  // TWO-LABEL: func @bounded
  // TWO: %[[T1:.*]] = gpu.launch_func async @kernels::@conv
  // TWO: %[[T2:.*]] = gpu.launch_func async @kernels::@conv
  // TWO: %[[T3:.*]] = gpu.launch_func async [%[[T1]]] @kernels::@conv
  // TWO: gpu.wait [%[[T2]], %[[T3]]]
  func.func @bounded(%w : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %x = memref.alloc() : memref<16xf32>
    %y = memref.alloc() : memref<16xf32>
    %z = memref.alloc() : memref<16xf32>
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%w : memref<16xf32>, %w : memref<16xf32>, %x : memref<16xf32>)
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%w : memref<16xf32>, %w : memref<16xf32>, %y : memref<16xf32>)
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%w : memref<16xf32>, %w : memref<16xf32>, %z : memref<16xf32>)
    return
  }

  // A host-shared allocation stays synchronous (it has no async form) and
  // waits for nothing; the launch that writes it is ordered after nothing
  // else, and the host store to it waits for that launch only.
  // CHECK-LABEL: func @host_shared
  // CHECK: %[[T1:.*]] = gpu.launch_func async @kernels::@conv
  // CHECK-NEXT: %[[S:.*]] = gpu.alloc host_shared () : memref<16xf32>
  // CHECK-NEXT: %[[T2:.*]] = gpu.launch_func async @kernels::@conv {{.*}} %[[S]] : memref<16xf32>)
  // CHECK-NEXT: gpu.wait [%[[T2]]]
  // CHECK-NEXT: memref.store %{{.*}}, %[[S]]
  // CHECK-NEXT: gpu.wait [%[[T1]]]
  // CHECK-NEXT: return
  func.func @host_shared(%w : memref<16xf32>, %f : f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = memref.alloc() : memref<16xf32>
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%w : memref<16xf32>, %w : memref<16xf32>, %x : memref<16xf32>)
    %s = gpu.alloc host_shared () : memref<16xf32>
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%w : memref<16xf32>, %w : memref<16xf32>, %s : memref<16xf32>)
    memref.store %f, %s[%c0] : memref<16xf32>
    return
  }

  // A launch depends on the gpu.alloc of its buffer; allocations of other
  // buffers are independent of it.
  // CHECK-LABEL: func @allocations
  // CHECK: %[[A:.*]], %[[TA:.*]] = gpu.alloc async () : memref<16xf32>
  // CHECK-NEXT: %[[T1:.*]] = gpu.launch_func async [%[[TA]]] @kernels::@conv {{.*}} %[[A]] : memref<16xf32>)
  // CHECK-NEXT: %[[B:.*]], %[[TB:.*]] = gpu.alloc async () : memref<16xf32>
  // CHECK-NEXT: %[[T2:.*]] = gpu.launch_func async [%[[TB]]] @kernels::@conv {{.*}} %[[B]] : memref<16xf32>)
  // CHECK-NEXT: gpu.wait [%[[T1]], %[[T2]]]
  func.func @allocations(%w : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %a = gpu.alloc () : memref<16xf32>
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%w : memref<16xf32>, %w : memref<16xf32>, %a : memref<16xf32>)
    %b = gpu.alloc () : memref<16xf32>
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%w : memref<16xf32>, %w : memref<16xf32>, %b : memref<16xf32>)
    return
  }

  // The third launch reads what the first and the second wrote, and the
  // second depends on the first: the third depends on the second only.
  // CHECK-LABEL: func @implied_dependency
  // CHECK: %[[T1:.*]] = gpu.launch_func async @kernels::@conv
  // CHECK-NEXT: %[[T2:.*]] = gpu.launch_func async [%[[T1]]] @kernels::@conv
  // CHECK-NEXT: %[[T3:.*]] = gpu.launch_func async [%[[T2]]] @kernels::@add
  // CHECK-NEXT: gpu.wait [%[[T3]]]
  func.func @implied_dependency(%w : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %x = memref.alloc() : memref<16xf32>
    %y = memref.alloc() : memref<16xf32>
    %z = memref.alloc() : memref<16xf32>
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%w : memref<16xf32>, %w : memref<16xf32>, %x : memref<16xf32>)
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %w : memref<16xf32>, %y : memref<16xf32>)
    gpu.launch_func @kernels::@add blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %y : memref<16xf32>, %z : memref<16xf32>)
    return
  }

  // Function arguments may alias each other unless one of them is
  // `llvm.noalias` (LLVM's definition: memory accessed through it is not
  // accessed through pointers not based on it).
  // CHECK-LABEL: func @noalias_arguments
  // CHECK: %[[T1:.*]] = gpu.launch_func async @kernels::@conv
  // CHECK-NEXT: %[[T2:.*]] = gpu.launch_func async @kernels::@conv
  // CHECK-NEXT: %[[T3:.*]] = gpu.launch_func async [%[[T2]]] @kernels::@conv
  // CHECK-NEXT: gpu.wait [%[[T1]], %[[T3]]]
  func.func @noalias_arguments(%p : memref<16xf32> {llvm.noalias},
                               %r : memref<16xf32>, %s : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %x = memref.alloc() : memref<16xf32>
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %x : memref<16xf32>, %p : memref<16xf32>)
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %x : memref<16xf32>, %r : memref<16xf32>)
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %x : memref<16xf32>, %s : memref<16xf32>)
    return
  }

  // An `llvm.noalias` argument still aliases itself: the host load of %p
  // waits for the launch that writes it, in both modes.
  // CHECK-LABEL: func @noalias_argument_touched_by_host
  // CHECK: %[[T:.*]] = gpu.launch_func async @kernels::@conv
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // CHECK-NEXT: memref.load
  // CHAIN-LABEL: func @noalias_argument_touched_by_host
  // CHAIN: %[[T:.*]] = gpu.launch_func async [%{{.*}}] @kernels::@conv
  // CHAIN-NEXT: gpu.wait [%[[T]]]
  // CHAIN-NEXT: memref.load
  func.func @noalias_argument_touched_by_host(
      %p : memref<16xf32> {llvm.noalias}) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = memref.alloc() : memref<16xf32>
    gpu.launch_func @kernels::@conv blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %x : memref<16xf32>, %p : memref<16xf32>)
    %v = memref.load %p[%c0] : memref<16xf32>
    return %v : f32
  }

  // Write after write: the second memset of %a waits for the first, although
  // nothing reads %a in between; the memset of %b is independent.
  // CHECK-LABEL: func @write_after_write
  // CHECK: %[[M1:.*]] = gpu.memset async %{{.*}}, %{{.*}} : memref<16xf32>
  // CHECK-NEXT: %[[M2:.*]] = gpu.memset async %{{.*}}, %{{.*}} : memref<16xf32>
  // CHECK-NEXT: %[[M3:.*]] = gpu.memset async [%[[M1]]] %{{.*}}, %{{.*}} : memref<16xf32>
  // CHECK-NEXT: gpu.wait [%[[M2]], %[[M3]]]
  func.func @write_after_write(%v : f32) {
    %a = memref.alloc() : memref<16xf32>
    %b = memref.alloc() : memref<16xf32>
    gpu.memset %a, %v : memref<16xf32>, f32
    gpu.memset %b, %v : memref<16xf32>, f32
    gpu.memset %a, %v : memref<16xf32>, f32
    return
  }

  // A view is its source buffer: the copy out of a cast of %a waits for the
  // memset of a subview of %a, and the host store to a reshaped %a waits for
  // both; the memset of %b is independent of them.
  // CHECK-LABEL: func @views
  // CHECK: %[[M:.*]] = gpu.memset async %{{.*}}, %{{.*}} : memref<8xf32, strided<[1]>>
  // CHECK-NEXT: %[[B:.*]] = gpu.memset async %{{.*}}, %{{.*}} : memref<4xf32>
  // CHECK: %[[C:.*]] = gpu.memcpy async [%[[M]]]
  // CHECK: gpu.wait [%[[C]]]
  // CHECK-NEXT: memref.store
  // CHECK: gpu.wait [%[[B]]]
  // CHECK-NEXT: return
  func.func @views(%v : f32, %i : index) {
    %a = memref.alloc() : memref<16xf32>
    %b = memref.alloc() : memref<4xf32>
    %d = memref.alloc() : memref<16xf32>
    %sv = memref.subview %a[0] [8] [1]
        : memref<16xf32> to memref<8xf32, strided<[1]>>
    gpu.memset %sv, %v : memref<8xf32, strided<[1]>>, f32
    gpu.memset %b, %v : memref<4xf32>, f32
    %c = memref.cast %a : memref<16xf32> to memref<?xf32>
    %dc = memref.cast %d : memref<16xf32> to memref<?xf32>
    gpu.memcpy %dc, %c : memref<?xf32>, memref<?xf32>
    %e = memref.expand_shape %a [[0, 1]] output_shape [4, 4]
        : memref<16xf32> into memref<4x4xf32>
    memref.store %v, %e[%i, %i] : memref<4x4xf32>
    return
  }
}

// -----

// Kernels whose bodies the pass cannot see may access any memory (through
// pointers, integers, globals): their launches are ordered with all other GPU
// work, unless the launch or the module holding the kernel has the unit
// attribute `gpu.only_memref_operand_accesses`: then the kernel reads and
// writes exactly the memory of its memref operands.

module attributes {gpu.container_module} {
  gpu.binary @bin [#gpu.object<#nvvm.target, "">]
  gpu.binary @trusted {gpu.only_memref_operand_accesses} [#gpu.object<#nvvm.target, "">]
  gpu.module @llvm_kernels {
    llvm.func @kernel(%p : !llvm.ptr) attributes {gpu.kernel} {
      llvm.return
    }
  }

  // CHECK-LABEL: func @opaque_pointer
  // CHECK: %[[T1:.*]] = gpu.launch_func async @bin::@kernel
  // CHECK-NEXT: %[[T2:.*]] = gpu.launch_func async [%[[T1]]] @bin::@kernel
  // CHECK-NEXT: gpu.wait [%[[T2]]]
  func.func @opaque_pointer(%p : !llvm.ptr) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @bin::@kernel blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%p : !llvm.ptr)
    gpu.launch_func @bin::@kernel blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%p : !llvm.ptr)
    return
  }

  // An llvm.func kernel taking a pointer is ordered against a launch on a
  // memref the pointer may point into.
  // CHECK-LABEL: func @llvm_func_kernel
  // CHECK: %[[T1:.*]] = gpu.launch_func async @llvm_kernels::@kernel
  // CHECK-NEXT: %[[T2:.*]] = gpu.launch_func async [%[[T1]]] @trusted::@kernel
  func.func @llvm_func_kernel(%p : !llvm.ptr, %a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @llvm_kernels::@kernel blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%p : !llvm.ptr)
    gpu.launch_func @trusted::@kernel blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }

  // Trusted, on the binary or on the launch: independent memrefs make
  // independent launches.
  // CHECK-LABEL: func @trusted_launches
  // CHECK: %[[T1:.*]] = gpu.launch_func async @trusted::@kernel
  // CHECK-NEXT: %[[T2:.*]] = gpu.launch_func async @bin::@kernel
  // CHECK-NEXT: %[[T3:.*]] = gpu.launch_func async [%[[T1]]] @trusted::@kernel
  // CHECK-NEXT: gpu.wait [%[[T2]], %[[T3]]]
  func.func @trusted_launches(%a : memref<16xf32> {llvm.noalias},
                     %b : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @trusted::@kernel blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    gpu.launch_func @bin::@kernel blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
        {gpu.only_memref_operand_accesses}
    gpu.launch_func @trusted::@kernel blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }
}

// -----

// A host op that accesses no memory the GPU can reach (a fresh allocation)
// does not wait for GPU work that may access everything; a load does.

module attributes {gpu.container_module} {
  gpu.binary @bin [#gpu.object<#nvvm.target, "">]

  // CHECK-LABEL: func @opaque_then_allocation
  // CHECK: %[[T:.*]] = gpu.launch_func async @bin::@kernel
  // CHECK-NEXT: memref.alloc()
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // CHECK-NEXT: memref.load
  // CHAIN-LABEL: func @opaque_then_allocation
  // CHAIN: %[[T:.*]] = gpu.launch_func async
  // CHAIN-NEXT: memref.alloc()
  // CHAIN-NEXT: gpu.wait [%[[T]]]
  // CHAIN-NEXT: memref.load
  func.func @opaque_then_allocation(%a : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @bin::@kernel blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %m = memref.alloc() : memref<16xf32>
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }
}

// -----

// Workgroup memory (attributions, dynamic shared memory) and gpu.barrier stay
// inside a launch: tiled kernels on independent buffers are independent, and
// the host touches another buffer without waiting.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @tiled(%a : memref<16xf32>)
        workgroup(%w : memref<16xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<16xf32>
      memref.store %x, %w[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
      %dyn = gpu.dynamic_shared_memory
          : memref<?xi8, #gpu.address_space<workgroup>>
      %v = memref.view %dyn[%c0][]
          : memref<?xi8, #gpu.address_space<workgroup>>
          to memref<16xf32, #gpu.address_space<workgroup>>
      memref.store %x, %v[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %y = memref.load %w[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
      memref.store %y, %a[%c0] : memref<16xf32>
      gpu.return
    }
  }

  // CHECK-LABEL: func @tiled_kernels
  // CHECK: %[[T1:.*]] = gpu.launch_func async @kernels::@tiled
  // CHECK-NEXT: %[[T2:.*]] = gpu.launch_func async @kernels::@tiled
  // CHECK-NEXT: memref.store
  // CHECK-NEXT: gpu.wait [%[[T1]], %[[T2]]]
  // CHAIN-LABEL: func @tiled_kernels
  // CHAIN: %[[T1:.*]] = gpu.launch_func async
  // CHAIN-NEXT: %[[T2:.*]] = gpu.launch_func async [%[[T1]]]
  // CHAIN-NEXT: memref.store
  // CHAIN-NEXT: gpu.wait [%[[T2]]]
  func.func @tiled_kernels(%a : memref<16xf32> {llvm.noalias},
                           %b : memref<16xf32> {llvm.noalias},
                           %c : memref<16xf32> {llvm.noalias}, %f : f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : i32
    gpu.launch_func @kernels::@tiled blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) dynamic_shared_memory_size %c64
        args(%a : memref<16xf32>)
    gpu.launch_func @kernels::@tiled blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) dynamic_shared_memory_size %c64
        args(%b : memref<16xf32>)
    memref.store %f, %c[%c0] : memref<16xf32>
    return
  }
}

// -----

// Kernels in the shape that DSLs lowering to LLVM pointers emit (global
// pointers in address space 1, addresses computed with getelementptr): a
// kernel accesses what its pointer arguments point to. Kernels on distinct
// llvm.noalias pointers are independent (reads of the same pointer do not
// conflict); a kernel that reads or writes what an earlier one writes depends
// on it.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @axpy(%x : !llvm.ptr<1>, %y : !llvm.ptr<1>, %i : i64) kernel {
      %xi = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %yi = llvm.getelementptr %y[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %a = llvm.load %xi : !llvm.ptr<1> -> f32
      %b = llvm.load %yi : !llvm.ptr<1> -> f32
      %c = llvm.fadd %a, %b : f32
      llvm.store %c, %yi : f32, !llvm.ptr<1>
      gpu.return
    }
  }

  // CHECK-LABEL: func @pointer_kernels
  // CHECK: %[[T1:.*]] = gpu.launch_func async @kernels::@axpy {{.*}} args(%arg0 : !llvm.ptr<1>, %arg1 : !llvm.ptr<1>
  // CHECK-NEXT: %[[T2:.*]] = gpu.launch_func async @kernels::@axpy {{.*}} args(%arg0 : !llvm.ptr<1>, %arg2 : !llvm.ptr<1>
  // CHECK-NEXT: %[[T3:.*]] = gpu.launch_func async [%[[T1]], %[[T2]]] @kernels::@axpy {{.*}} args(%arg1 : !llvm.ptr<1>, %arg2 : !llvm.ptr<1>
  // CHECK-NEXT: gpu.wait [%[[T3]]]
  // CHAIN-LABEL: func @pointer_kernels
  // CHAIN: gpu.launch_func async
  // CHAIN-NEXT: gpu.launch_func async
  // CHAIN-NEXT: gpu.launch_func async
  // CHAIN-NEXT: gpu.wait
  func.func @pointer_kernels(%x : !llvm.ptr<1> {llvm.noalias},
                             %y : !llvm.ptr<1> {llvm.noalias},
                             %z : !llvm.ptr<1> {llvm.noalias}, %i : i64) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@axpy blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%x : !llvm.ptr<1>, %y : !llvm.ptr<1>, %i : i64)
    gpu.launch_func @kernels::@axpy blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%x : !llvm.ptr<1>, %z : !llvm.ptr<1>, %i : i64)
    gpu.launch_func @kernels::@axpy blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
        args(%y : !llvm.ptr<1>, %z : !llvm.ptr<1>, %i : i64)
    return
  }
}

// -----

// A host op with recursive memory effects that declares its own (linalg.fill
// writes its output) waits for the GPU work on that memory.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%a : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<16xf32>
      memref.store %x, %a[%c0] : memref<16xf32>
      gpu.return
    }
  }

  // CHECK-LABEL: func @host_structured_op
  // CHECK: %[[T:.*]] = gpu.launch_func async @kernels::@scale
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // CHECK-NEXT: linalg.fill
  // CHAIN-LABEL: func @host_structured_op
  // CHAIN: %[[T:.*]] = gpu.launch_func async
  // CHAIN-NEXT: gpu.wait [%[[T]]]
  // CHAIN-NEXT: linalg.fill
  func.func @host_structured_op(%a : memref<16xf32>, %f : f32) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    linalg.fill ins(%f : f32) outs(%a : memref<16xf32>)
    return
  }
}
