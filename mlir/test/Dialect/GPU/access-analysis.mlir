// RUN: mlir-opt %s -test-gpu-access-analysis -split-input-file -verify-diagnostics

// The memory that GPU ops and host ops access, and which buffers may alias,
// as gpu::GpuAccessAnalysis answers (see TestGpuAccessAnalysis.cpp for the
// remarks). One rule per function.

// gpu.memcpy writes its destination and reads its source; gpu.memset,
// gpu.alloc and gpu.dealloc write their memref; gpu.wait accesses nothing.
// expected-remark @below {{arg0 and arg1 may alias}}
func.func @copy_ops(%a : memref<4xf32>, %b : memref<4xf32>, %v : f32) {
  // expected-remark @below {{accesses: reads arg1, writes arg0}}
  gpu.memcpy %a, %b : memref<4xf32>, memref<4xf32>
  // expected-remark @below {{accesses: writes arg0}}
  gpu.memset %a, %v : memref<4xf32>, f32
  // expected-remark @below {{accesses: writes ?}}
  %m = gpu.alloc () : memref<4xf32>
  // expected-remark @below {{accesses: writes ?}}
  gpu.dealloc %m : memref<4xf32>
  // expected-remark @below {{accesses: nothing}}
  gpu.wait
  return
}

// -----

// A launch of a kernel whose body is in the module accesses the operands
// whose arguments the body reads or writes, through views too; an unused
// argument and the kernel's own workgroup memory are not accesses.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy(%in : memref<4xf32>, %out : memref<4xf32>,
                   %unused : memref<4xf32>)
        workgroup(%tmp : memref<4xf32, #gpu.address_space<workgroup>>)
        kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %in[%c0] : memref<4xf32>
      memref.store %x, %tmp[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
      %view = memref.subview %out[1] [2] [1]
          : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
      memref.store %x, %view[%c0] : memref<2xf32, strided<[1], offset: 1>>
      gpu.return
    }
  }

  // expected-remark @below {{arg0 and arg1 may alias}}
  // expected-remark @below {{arg0 and arg2 may alias}}
  // expected-remark @below {{arg1 and arg2 may alias}}
  func.func @visible_kernel(%a : memref<4xf32>, %b : memref<4xf32>,
                            %c : memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-remark @below {{accesses: reads arg0, writes arg1}}
    gpu.launch_func @kernels::@copy
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4xf32>, %b : memref<4xf32>, %c : memref<4xf32>)
    return
  }
}

// -----

// A kernel that writes a global accesses everything.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" @counter : memref<1xf32>
    gpu.func @global(%in : memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %in[%c0] : memref<4xf32>
      %g = memref.get_global @counter : memref<1xf32>
      memref.store %x, %g[%c0] : memref<1xf32>
      gpu.return
    }
  }

  func.func @kernel_writes_global(%a : memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-remark @below {{accesses: everything}}
    gpu.launch_func @kernels::@global
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4xf32>)
    return
  }
}

// -----

// A kernel with an effect on no particular value (gpu.printf) accesses
// everything.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @print(%in : memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %in[%c0] : memref<4xf32>
      gpu.printf "%f\n", %x : f32
      gpu.return
    }
  }

  func.func @kernel_prints(%a : memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-remark @below {{accesses: everything}}
    gpu.launch_func @kernels::@print
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4xf32>)
    return
  }
}

// -----

// A kernel whose body is not visible (in a gpu.binary) accesses everything,
// unless its launch or its binary has gpu.only_memref_operand_accesses: it
// then writes its memref operands.
module attributes {gpu.container_module} {
  gpu.binary @opaque [#gpu.object<#nvvm.target, "">]
  gpu.binary @trusted {gpu.only_memref_operand_accesses}
      [#gpu.object<#nvvm.target, "">]

  func.func @invisible_kernels(%a : memref<4xf32>, %n : i64) {
    %c1 = arith.constant 1 : index
    // expected-remark @below {{accesses: everything}}
    gpu.launch_func @opaque::@k
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4xf32>, %n : i64)
    // expected-remark @below {{accesses: writes arg0}}
    gpu.launch_func @opaque::@k
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4xf32>, %n : i64) {gpu.only_memref_operand_accesses}
    // expected-remark @below {{accesses: writes arg0}}
    gpu.launch_func @trusted::@k
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4xf32>, %n : i64)
    return
  }
}

// -----

// Host ops: loads read, stores write, a fresh allocation is no access, a call
// of an unknown function accesses everything.
func.func private @unknown(memref<4xf32>)

// expected-remark @below {{arg0 and arg1 may alias}}
func.func @host_ops(%a : memref<4xf32>, %b : memref<4xf32>) {
  %c0 = arith.constant 0 : index
  // expected-remark @below {{accesses: reads arg0}}
  %x = memref.load %a[%c0] : memref<4xf32>
  // expected-remark @below {{accesses: writes arg1}}
  memref.store %x, %b[%c0] : memref<4xf32>
  // expected-remark @below {{accesses: reads arg0, writes arg1}}
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  // expected-remark @below {{accesses: nothing}}
  %m = memref.alloc() : memref<4xf32>
  // expected-remark @below {{accesses: everything}}
  func.call @unknown(%a) : (memref<4xf32>) -> ()
  // expected-remark @below {{accesses: writes ?}}
  memref.dealloc %m : memref<4xf32>
  return
}

// -----

// Aliasing: views of a buffer alias it, also of an llvm.noalias argument;
// an llvm.noalias argument aliases no other argument; memory allocated in
// the function aliases no argument; two allocations do not alias.
// expected-remark @below {{arg0 and arg1 do not alias}}
// expected-remark @below {{arg0 and view may alias}}
// expected-remark @below {{arg1 and view do not alias}}
// expected-remark @below {{arg0 and m1 do not alias}}
// expected-remark @below {{arg1 and m1 do not alias}}
// expected-remark @below {{view and m1 do not alias}}
// expected-remark @below {{arg0 and m2 do not alias}}
// expected-remark @below {{arg1 and m2 do not alias}}
// expected-remark @below {{view and m2 do not alias}}
// expected-remark @below {{m1 and m2 do not alias}}
func.func @aliasing(%a : memref<4xf32> {llvm.noalias}, %b : memref<4xf32>) {
  %view = memref.subview %a[1] [2] [1] {test.name = "view"}
      : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
  // expected-remark @below {{accesses: writes m1}}
  %m1 = gpu.alloc () {test.name = "m1"} : memref<4xf32>
  // expected-remark @below {{accesses: nothing}}
  %m2 = memref.alloc() {test.name = "m2"} : memref<4xf32>
  return
}

// -----

// The end of an automatic allocation scope writes the stack memory allocated
// in it: the return of a function its allocas (those of an scf.if too), the
// yield of an scf.for iteration the iteration's.
// expected-remark @below {{s and t do not alias}}
// expected-remark @below {{s and u do not alias}}
// expected-remark @below {{t and u do not alias}}
func.func @stack_memory(%c : i1, %n : index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @below {{accesses: nothing}}
  %s = memref.alloca() {test.name = "s"} : memref<4xf32>
  scf.for %i = %c0 to %n step %c1 {
    // expected-remark @below {{accesses: nothing}}
    %t = memref.alloca() {test.name = "t"} : memref<4xf32>
    // expected-remark @below {{accesses: writes t}}
    scf.yield
  }
  scf.if %c {
    // expected-remark @below {{accesses: nothing}}
    %u = memref.alloca() {test.name = "u"} : memref<4xf32>
  }
  // expected-remark @below {{accesses: writes s, writes u}}
  return
}

// -----

// Workgroup and private memory (attributions, gpu.dynamic_shared_memory, a
// global in workgroup memory) belong to one launch, and gpu.barrier only
// synchronizes its work items: a tiled kernel accesses its arguments.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" @tile
        : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.func @tiled(%in : memref<4xf32>, %out : memref<4xf32>)
        workgroup(%w : memref<4xf32, #gpu.address_space<workgroup>>)
        private(%p : memref<4xf32, #gpu.address_space<private>>)
        kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %in[%c0] : memref<4xf32>
      memref.store %x, %w[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
      memref.store %x, %p[%c0] : memref<4xf32, #gpu.address_space<private>>
      %dyn = gpu.dynamic_shared_memory
          : memref<?xi8, #gpu.address_space<workgroup>>
      %v = memref.view %dyn[%c0][]
          : memref<?xi8, #gpu.address_space<workgroup>>
          to memref<4xf32, #gpu.address_space<workgroup>>
      memref.store %x, %v[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
      %g = memref.get_global @tile
          : memref<4xf32, #gpu.address_space<workgroup>>
      memref.store %x, %g[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %y = memref.load %w[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
      memref.store %y, %out[%c0] : memref<4xf32>
      gpu.return
    }
  }

  // expected-remark @below {{arg0 and arg1 may alias}}
  func.func @tiled_kernel(%a : memref<4xf32>, %b : memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : i32
    // expected-remark @below {{accesses: reads arg0, writes arg1}}
    gpu.launch_func @kernels::@tiled
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        dynamic_shared_memory_size %c64
        args(%a : memref<4xf32>, %b : memref<4xf32>)
    return
  }
}

// -----

// A kernel that accesses memory through a pointer argument accesses the
// operand; the pointer may point into any buffer, also an llvm.noalias one.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @through_pointer(%p : !llvm.ptr) kernel {
      %f = llvm.mlir.constant(1.0 : f32) : f32
      llvm.store %f, %p : f32, !llvm.ptr
      gpu.return
    }
  }

  // expected-remark @below {{arg0 and p may alias}}
  func.func @pointer_kernel(%a : memref<4xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %i = memref.extract_aligned_pointer_as_index %a : memref<4xf32> -> index
    %i64 = arith.index_cast %i : index to i64
    %p = llvm.inttoptr %i64 {test.name = "p"} : i64 to !llvm.ptr
    // expected-remark @below {{accesses: writes p}}
    gpu.launch_func @kernels::@through_pointer
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%p : !llvm.ptr)
    return
  }
}

// -----

// nvgpu.tma.async.load reads global memory through its tensor map: the
// kernel reads the descriptor operand, which may describe any buffer.
!map = !nvgpu.tensormap.descriptor<tensor = memref<4x4xf32, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @tma(%map : !map, %barriers : !barriers)
        workgroup(%w : memref<4x4xf32, #gpu.address_space<workgroup>>)
        kernel {
      %c0 = arith.constant 0 : index
      nvgpu.tma.async.load %map[%c0, %c0], %barriers[%c0] to %w
          : !map, !barriers -> memref<4x4xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }

  func.func @tma_kernel(%m : !map, %b : !barriers) {
    %c1 = arith.constant 1 : index
    // expected-remark @below {{accesses: reads arg0}}
    gpu.launch_func @kernels::@tma
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%m : !map, %b : !barriers)
    return
  }
}

// -----

// An op with recursive memory effects may declare effects of its own:
// linalg.copy reads its input and writes its output.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy(%in : memref<4xf32>, %out : memref<4xf32>) kernel {
      linalg.copy ins(%in : memref<4xf32>) outs(%out : memref<4xf32>)
      gpu.return
    }
  }

  // expected-remark @below {{arg0 and arg1 may alias}}
  func.func @structured_op_kernel(%a : memref<4xf32>, %b : memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-remark @below {{accesses: reads arg0, writes arg1}}
    gpu.launch_func @kernels::@copy
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4xf32>, %b : memref<4xf32>)
    return
  }
}

// -----

// Inline assembly declares only whether it has side effects: with an operand
// (an address) or a memory clobber it may reach any memory. Without either,
// and without side effects, it accesses nothing.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @asm_store(%p : !llvm.ptr, %v : f32) kernel {
      llvm.inline_asm "st.global.f32 [$0], $1;", "l,f,~{memory}" %p, %v
          : (!llvm.ptr, f32) -> ()
      gpu.return
    }
    gpu.func @asm_lane(%a : memref<4xi32>) kernel {
      %c0 = arith.constant 0 : index
      %lane = llvm.inline_asm "mov.u32 $0, %laneid;", "=r" : () -> i32
      memref.store %lane, %a[%c0] : memref<4xi32>
      gpu.return
    }
  }

  func.func @inline_asm_kernels(%p : !llvm.ptr, %v : f32, %a : memref<4xi32>) {
    %c1 = arith.constant 1 : index
    // expected-remark @below {{accesses: everything}}
    gpu.launch_func @kernels::@asm_store
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%p : !llvm.ptr, %v : f32)
    // expected-remark @below {{accesses: writes arg2}}
    gpu.launch_func @kernels::@asm_lane
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4xi32>)
    return
  }
}
