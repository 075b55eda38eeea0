// RUN: mlir-opt %s --gpu-to-llvm -split-input-file -verify-diagnostics
// RUN: not mlir-opt %s --gpu-to-llvm -split-input-file 2>&1 | FileCheck %s

// Host-side GPU ops that -gpu-to-llvm cannot lower make the pass fail with a
// diagnostic naming the op and the reason; none is left in the output of a
// successful run.

// CHECK: error: 'gpu.launch' op cannot be lowered to GPU runtime calls: outline it into a gpu.func first (-gpu-kernel-outlining)
func.func @launch_not_outlined(%sz : index, %mem : memref<?xf32>, %f : f32) {
  // expected-error @+1 {{'gpu.launch' op cannot be lowered to GPU runtime calls: outline it into a gpu.func first (-gpu-kernel-outlining)}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %sz, %gy = %sz, %gz = %sz)
             threads(%tx, %ty, %tz) in (%lx = %sz, %ly = %sz, %lz = %sz) {
    memref.store %f, %mem[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel() kernel {
      gpu.return
    }
  }

  // CHECK: error: 'gpu.launch_func' op cannot be lowered to GPU runtime calls: a launch on an explicit stream cannot return an async token
  func.func @explicit_stream_token(%stream : !llvm.ptr, %sz : index) {
    // expected-error @+1 {{'gpu.launch_func' op cannot be lowered to GPU runtime calls: a launch on an explicit stream cannot return an async token}}
    %t = gpu.launch_func async <%stream : !llvm.ptr> @kernels::@kernel
        blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz)
    gpu.wait [%t]
    return
  }
}

// -----

// CHECK: error: 'gpu.alloc' op cannot be lowered to GPU runtime calls: a host-shared allocation cannot be async
func.func @host_shared_async() -> memref<16xf32> {
  %t0 = gpu.wait async
  // expected-error @+1 {{'gpu.alloc' op cannot be lowered to GPU runtime calls: a host-shared allocation cannot be async}}
  %m, %t1 = gpu.alloc async [%t0] host_shared () : memref<16xf32>
  gpu.wait [%t1]
  return %m : memref<16xf32>
}

// -----

// CHECK: error: 'gpu.memcpy' op cannot be lowered to GPU runtime calls: memref 'memref<4x4xf32, strided<[8, 1]>>' does not have an identity layout
func.func @memcpy_strided(%dst : memref<4x4xf32, strided<[8, 1]>>,
                          %src : memref<4x4xf32, strided<[8, 1]>>) {
  // expected-error @+1 {{'gpu.memcpy' op cannot be lowered to GPU runtime calls: memref 'memref<4x4xf32, strided<[8, 1]>>' does not have an identity layout}}
  gpu.memcpy %dst, %src : memref<4x4xf32, strided<[8, 1]>>, memref<4x4xf32, strided<[8, 1]>>
  return
}

// -----

// CHECK: error: 'gpu.memset' op cannot be lowered to GPU runtime calls: the value must be a 16- or 32-bit integer or float
func.func @memset_i8(%dst : memref<16xi8>, %value : i8) {
  // expected-error @+1 {{'gpu.memset' op cannot be lowered to GPU runtime calls: the value must be a 16- or 32-bit integer or float}}
  gpu.memset %dst, %value : memref<16xi8>, i8
  return
}

// -----

// What the checks above do not foresee is still an error: the lowered ops are
// illegal after the pass, so one the patterns leave behind fails the
// conversion (here a kernel operand with no LLVM type).
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
    %first, %t0 = gpu.create_csr async [] %n, %n, %n, %m, %m, %v
        : memref<?xindex>, memref<?xindex>, memref<?xf64>
    gpu.wait [%t0]
    %h = scf.for %i = %c0 to %n step %c1 iter_args(%a = %first)
        -> !gpu.sparse.spmat_handle {
      scf.yield %a : !gpu.sparse.spmat_handle
    }
    // expected-error @+1 {{failed to legalize operation 'gpu.destroy_sp_mat'}}
    gpu.destroy_sp_mat %h
    return
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @dn_tensor_awaited(%n : index, %m : memref<?xf64>) {
    %token, %value = async.execute -> !async.value<!gpu.sparse.dntensor_handle> {
      %d, %t = gpu.create_dn_tensor async [] %m, %n : index into memref<?xf64>
      gpu.wait [%t]
      async.yield %d : !gpu.sparse.dntensor_handle
    }
    %h = async.await %value : !async.value<!gpu.sparse.dntensor_handle>
    // expected-error @+1 {{failed to legalize operation 'gpu.destroy_dn_tensor'}}
    gpu.destroy_dn_tensor %h
    return
  }
}

// -----

// A token of an scf.parallel body used in the region of its scf.reduce, which
// runs after the body, any number of times: its stream has no point after
// which it is dead.
// CHECK: error: 'gpu.wait' op cannot be lowered to GPU runtime calls: it uses an async token in the region of 'scf.reduce', which terminates the block that defines the token
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%arg0 : f32) kernel {
      gpu.return
    }
  }
  func.func @token_used_in_reduce(%sz : index, %f : f32) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %init = arith.constant 0.0 : f32
    %r = scf.parallel (%i) = (%c0) to (%sz) step (%c1) init (%init) -> f32 {
      %t0 = gpu.wait async
      %t1 = gpu.launch_func async [%t0] @kernels::@kernel
          blocks in (%sz, %sz, %sz) threads in (%sz, %sz, %sz) args(%f : f32)
      scf.reduce(%f : f32) {
      ^bb0(%a : f32, %b : f32):
        // expected-error @+1 {{'gpu.wait' op cannot be lowered to GPU runtime calls: it uses an async token in the region of 'scf.reduce', which terminates the block that defines the token}}
        gpu.wait [%t1]
        %s = arith.addf %a, %b : f32
        scf.reduce.return %s : f32
      }
    }
    return %r : f32
  }
}

// -----

// An unresolved gpu.conditional_execution in host code is rejected.
// CHECK: error: 'gpu.conditional_execution' op must be resolved before -gpu-to-llvm
module attributes {gpu.container_module} {
  func.func @conditional_execution(%m : memref<index>) {
    // expected-error@+1 {{'gpu.conditional_execution' op must be resolved before -gpu-to-llvm: run --gpu-resolve-conditional-execution first}}
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
