// RUN: mlir-opt %s --gpu-to-llvm -split-input-file -verify-diagnostics
// RUN: not mlir-opt %s --gpu-to-llvm -split-input-file 2>&1 | FileCheck %s

// The host-side GPU ops that -gpu-to-llvm lowers to runtime calls are illegal
// after it: one that no pattern can lower makes the pass fail instead of
// being left in the output. The patterns give the reason with
// -debug-only=dialect-conversion.

// CHECK: error: failed to legalize operation 'gpu.launch'
func.func @launch_not_outlined(%sz : index, %mem : memref<?xf32>, %f : f32) {
  // expected-error @+1 {{failed to legalize operation 'gpu.launch'}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %sz, %gy = %sz, %gz = %sz)
             threads(%tx, %ty, %tz) in (%lx = %sz, %ly = %sz, %lz = %sz) {
    memref.store %f, %mem[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// A kernel operand with no LLVM type.
// CHECK: error: failed to legalize operation 'gpu.launch_func'
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%arg0 : tensor<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @launch_tensor_operand(%sz : index, %t : tensor<4xf32>) {
    %t0 = gpu.wait async
    // expected-error @+1 {{failed to legalize operation 'gpu.launch_func'}}
    %t1 = gpu.launch_func async [%t0] @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz)
        args(%t : tensor<4xf32>)
    gpu.wait [%t1]
    return
  }
}

// -----

// A host-shared allocation cannot be async.
// CHECK: error: failed to legalize operation 'gpu.alloc'
func.func @host_shared_async() -> memref<16xf32> {
  %t0 = gpu.wait async
  // expected-error @+1 {{failed to legalize operation 'gpu.alloc'}}
  %m, %t1 = gpu.alloc async [%t0] host_shared () : memref<16xf32>
  gpu.wait [%t1]
  return %m : memref<16xf32>
}

// -----

// CHECK: error: failed to legalize operation 'gpu.alloc'
func.func @alloc_strided() -> memref<4x4xf32, strided<[8, 1]>> {
  // expected-error @+1 {{failed to legalize operation 'gpu.alloc'}}
  %m = gpu.alloc () : memref<4x4xf32, strided<[8, 1]>>
  return %m : memref<4x4xf32, strided<[8, 1]>>
}

// -----

// CHECK: error: failed to legalize operation 'gpu.memcpy'
func.func @memcpy_strided_source(%dst : memref<4x4xf32>,
                                 %src : memref<4x4xf32, strided<[8, 1]>>) {
  // expected-error @+1 {{failed to legalize operation 'gpu.memcpy'}}
  gpu.memcpy %dst, %src : memref<4x4xf32>, memref<4x4xf32, strided<[8, 1]>>
  return
}

// -----

// The destination is checked too: a contiguous copy into a strided memref
// would write the wrong elements.
// CHECK: error: failed to legalize operation 'gpu.memcpy'
func.func @memcpy_strided_destination(%dst : memref<4x4xf32, strided<[8, 1]>>,
                                      %src : memref<4x4xf32>) {
  // expected-error @+1 {{failed to legalize operation 'gpu.memcpy'}}
  gpu.memcpy %dst, %src : memref<4x4xf32, strided<[8, 1]>>, memref<4x4xf32>
  return
}

// -----

// The value of a memset must be 16 or 32 bits wide.
// CHECK: error: failed to legalize operation 'gpu.memset'
func.func @memset_i8(%dst : memref<16xi8>, %value : i8) {
  // expected-error @+1 {{failed to legalize operation 'gpu.memset'}}
  gpu.memset %dst, %value : memref<16xi8>, i8
  return
}

// -----

// CHECK: error: failed to legalize operation 'gpu.memset'
func.func @memset_strided(%dst : memref<4x4xf32, strided<[8, 1]>>, %value : f32) {
  // expected-error @+1 {{failed to legalize operation 'gpu.memset'}}
  gpu.memset %dst, %value : memref<4x4xf32, strided<[8, 1]>>, f32
  return
}

// -----

// The sparse lowering picks cuSPARSE or cuSPARSELt calls, and the rank of a
// dense tensor, from the op that created a handle; a handle that comes from
// elsewhere (here a loop result and an awaited value) cannot be lowered.
// CHECK: error: failed to legalize operation 'gpu.destroy_sp_mat'
// CHECK: error: failed to legalize operation 'gpu.destroy_dn_tensor'
module attributes {gpu.container_module} {
  func.func @spmat_from_loop(%n : index, %m : memref<?xindex>,
                             %v : memref<?xf64>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t0 = gpu.wait async
    %first, %t1 = gpu.create_csr async [%t0] %n, %n, %n, %m, %m, %v
        : memref<?xindex>, memref<?xindex>, memref<?xf64>
    gpu.wait [%t1]
    %h = scf.for %i = %c0 to %n step %c1 iter_args(%a = %first)
        -> !gpu.sparse.spmat_handle {
      scf.yield %a : !gpu.sparse.spmat_handle
    }
    %t2 = gpu.wait async
    // expected-error @+1 {{failed to legalize operation 'gpu.destroy_sp_mat'}}
    %t3 = gpu.destroy_sp_mat async [%t2] %h
    gpu.wait [%t3]
    return
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @dn_tensor_awaited(%n : index, %m : memref<?xf64>) {
    %token, %value = async.execute -> !async.value<!gpu.sparse.dntensor_handle> {
      %t0 = gpu.wait async
      %d, %t1 = gpu.create_dn_tensor async [%t0] %m, %n : index into memref<?xf64>
      gpu.wait [%t1]
      async.yield %d : !gpu.sparse.dntensor_handle
    }
    %h = async.await %value : !async.value<!gpu.sparse.dntensor_handle>
    %t2 = gpu.wait async
    // expected-error @+1 {{failed to legalize operation 'gpu.destroy_dn_tensor'}}
    %t3 = gpu.destroy_dn_tensor async [%t2] %h
    gpu.wait [%t3]
    return
  }
}

// -----

// A gpu.on_stream body of several blocks cannot be inlined into the body of
// an async.execute, which keeps one block.
// CHECK: error: 'gpu.on_stream' op has a body of several blocks, which cannot be inlined into 'async.execute'
func.func @on_stream_blocks_in_async_execute(%s : !llvm.ptr, %p : i1) {
  %t = async.execute {
    // expected-error @+1 {{'gpu.on_stream' op has a body of several blocks, which cannot be inlined into 'async.execute' (its region may have to keep one block); outline that op first}}
    gpu.on_stream <%s : !llvm.ptr> {
    ^bb0(%t0: !gpu.async.token):
      cf.cond_br %p, ^bb1, ^bb2
    ^bb1:
      gpu.on_stream.yield
    ^bb2:
      gpu.on_stream.yield
    }
    async.yield
  }
  async.await %t : !async.token
  return
}

// -----

// An async token as the explicit stream of a launch must be a stream passed
// in by the caller (an argument of the function), not an event.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel() kernel {
      gpu.return
    }
  }
  // CHECK: error: 'gpu.launch_func' op cannot be lowered to GPU runtime calls: its stream is an async token that is not an argument of the function
  func.func @event_as_stream(%sz : index) {
    %t = gpu.wait async
    %e = scf.execute_region -> !gpu.async.token {
      scf.yield %t : !gpu.async.token
    }
    // expected-error @+1 {{its stream is an async token that is not an argument of the function}}
    gpu.launch_func <%e : !gpu.async.token> @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel() kernel {
      gpu.return
    }
  }
  // CHECK: error: 'gpu.launch_func' op cannot be lowered to GPU runtime calls: its stream is an async token that is also used as a token
  func.func @stream_also_a_token(%s : !gpu.async.token, %sz : index) {
    // expected-error @+1 {{its stream is an async token that is also used as a token}}
    gpu.launch_func <%s : !gpu.async.token> @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz)
    gpu.wait [%s]
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, "">]
  func.func @c_interface(%s : !gpu.async.token, %p : !llvm.ptr, %sz : index, %b : i1) attributes {llvm.emit_c_interface} {
    // expected-error @+1 {{it uses an async token that may be a stream}}
    %t = gpu.launch_func async [%s] @kernels::@kernel blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz)
    // expected-error @+1 {{it uses an async token that may be a stream}}
    %r = arith.select %b, %s, %t : !gpu.async.token
    %c = builtin.unrealized_conversion_cast %p : !llvm.ptr to !gpu.async.token
    // expected-error @+1 {{it uses an async token that may be a stream}}
    %u = gpu.launch_func async [%c] @kernels::@kernel blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz)
    gpu.wait [%s]
    return
  }
}

// -----

// An unresolved gpu.conditional_execution in host code is rejected (run
// -gpu-resolve-conditional-execution first), not left for the translation.
// CHECK: error: failed to legalize operation 'gpu.conditional_execution'
module attributes {gpu.container_module} {
  func.func @conditional_execution(%m : memref<index>) {
    // expected-error@+1 {{failed to legalize operation 'gpu.conditional_execution'}}
    %val = gpu.conditional_execution device {
      %id = gpu.thread_id x
      gpu.yield %id : index
    } host {
      %c0 = arith.constant 0 : index
      gpu.yield %c0 : index
    } -> index
    memref.store %val, %m[] : memref<index>
    return
  }
}
