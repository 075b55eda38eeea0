// Tokens that cross region boundaries, lowered and run with the checking
// runtime: a token carried through 10 loop iterations, scf.if results on both
// paths, a function that takes and returns a token, an async.execute body
// that uses a stream of its parent and yields a token whose event is used
// twice, branches that -gpu-to-llvm merges into a select of tokens. Every
// stream and event is destroyed exactly once.

// REQUIRES: host-supports-nvptx
// RUN: mlir-opt %s -gpu-lower-to-nvvm-pipeline="cubin-format=isa" \
// RUN: | mlir-opt -async-to-async-runtime -async-runtime-ref-counting \
// RUN:   -convert-async-to-llvm -convert-to-llvm -reconcile-unrealized-casts \
// RUN: | env MLIR_GPU_CHECK_VERBOSE=1 \
// RUN:   mlir-runner --entry-point-result=void -O0 \
// RUN:   --shared-libs=%mlir_gpu_check_runtime \
// RUN:   --shared-libs=%mlir_async_runtime 2>&1 \
// RUN: | FileCheck %s

// The loop, reported on its own first. -gpu-lower-to-nvvm-pipeline lowers
// scf.for to cf before -gpu-to-llvm, so the carried token is an event block
// argument of the loop header: each of the 11 header executions turns it into
// a stream (the exit path must release it too), and each of the 10 bodies
// forks from that stream; plus the stream before the loop. One event per
// iteration boundary, one per fork, one into the loop.
// CHECK: gpu-check: report (on demand)
// CHECK-DAG: gpu-check: calls mgpuLaunchKernel 10
// CHECK-DAG: gpu-check: calls mgpuStreamCreate 22
// CHECK-DAG: gpu-check: calls mgpuStreamDestroy 22
// CHECK-DAG: gpu-check: calls mgpuEventCreate 21
// CHECK-DAG: gpu-check: calls mgpuEventDestroy 21
// CHECK: gpu-check: live streams 0, events 0
// The streams and events come from the runtime's pools: each is created for
// real only when none is free, so the loop creates as many as are live at
// once, not one per create.
// CHECK: gpu-pool: streams created [[S:[0-9]+]], acquired 22, peak live [[S]]; events created [[E:[0-9]+]], acquired 21, peak live [[E]]
// CHECK: gpu-check: 0 violation(s)

// Then everything.
// CHECK: gpu-check: report (exit)
// CHECK: gpu-check: live streams 0, events 0, allocations 0
// CHECK: gpu-check: 0 violation(s)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%arg0 : memref<16xi32>) kernel {
      gpu.return
    }
  }

  func.func @loop(%buf : memref<16xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c10 = arith.constant 10 : index
    %t0 = gpu.wait async
    %r = scf.for %i = %c0 to %c10 step %c1 iter_args(%t = %t0)
        -> !gpu.async.token {
      %t1 = gpu.launch_func async [%t] @kernels::@kernel
          blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
          args(%buf : memref<16xi32>)
      scf.yield %t1 : !gpu.async.token
    }
    gpu.wait [%r]
    return
  }

  func.func @if(%buf : memref<16xi32>, %cond : i1) {
    %c1 = arith.constant 1 : index
    %t0 = gpu.wait async
    %r = scf.if %cond -> !gpu.async.token {
      %t1 = gpu.launch_func async [%t0] @kernels::@kernel
          blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
          args(%buf : memref<16xi32>)
      scf.yield %t1 : !gpu.async.token
    } else {
      scf.yield %t0 : !gpu.async.token
    }
    // A result nobody waits for must still be released.
    %unused = scf.if %cond -> !gpu.async.token {
      scf.yield %t0 : !gpu.async.token
    } else {
      %t2 = gpu.wait async [%t0]
      scf.yield %t2 : !gpu.async.token
    }
    %t3 = gpu.launch_func async [%r, %t0] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%buf : memref<16xi32>)
    gpu.wait [%t3]
    return
  }

  func.func @twice(%t : !gpu.async.token, %buf : memref<16xi32>)
      -> !gpu.async.token {
    %c1 = arith.constant 1 : index
    %t1 = gpu.launch_func async [%t] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%buf : memref<16xi32>)
    %t2 = gpu.launch_func async [%t] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%buf : memref<16xi32>)
    %t3 = gpu.wait async [%t1, %t2]
    return %t3 : !gpu.async.token
  }

  func.func @call(%buf : memref<16xi32>) {
    %t0 = gpu.wait async
    %t1 = func.call @twice(%t0, %buf)
        : (!gpu.async.token, memref<16xi32>) -> !gpu.async.token
    %t2 = func.call @twice(%t1, %buf)
        : (!gpu.async.token, memref<16xi32>) -> !gpu.async.token
    gpu.wait [%t2, %t0]
    return
  }

  func.func @execute(%buf : memref<16xi32>) {
    %c1 = arith.constant 1 : index
    %t0 = gpu.wait async
    %a, %v = async.execute -> !async.value<!gpu.async.token> {
      %t1 = gpu.launch_func async [%t0] @kernels::@kernel
          blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
          args(%buf : memref<16xi32>)
      async.yield %t1 : !gpu.async.token
    }
    %e = async.await %v : !async.value<!gpu.async.token>
    %t2 = gpu.launch_func async [%e, %t0] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%buf : memref<16xi32>)
    %t3 = gpu.launch_func async [%e] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%buf : memref<16xi32>)
    gpu.wait [%t2, %t3]
    return
  }

  // Two branches that wait for the same tokens in a different order: the
  // greedy simplification at the start of -gpu-to-llvm merges them into one
  // block whose arguments are selected by the condition.
  func.func @merged_branches(%buf : memref<16xi32>, %cond : i1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t0 = scf.if %cond -> (!gpu.async.token) {
      %t = gpu.wait async
      scf.yield %t : !gpu.async.token
    } else {
      %t = gpu.launch_func async @kernels::@kernel
          blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
          args(%buf : memref<16xi32>)
      scf.yield %t : !gpu.async.token
    }
    %t1 = gpu.launch_func async [%t0] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%buf : memref<16xi32>)
    scf.for %i = %c0 to %c1 step %c1 {
      scf.if %cond {
        gpu.wait [%t0, %t1]
      } else {
        gpu.wait [%t1, %t0]
      }
    }
    gpu.wait [%t1]
    return
  }

  func.func @main() {
    %true = arith.constant true
    %false = arith.constant false
    %buf = memref.alloc () : memref<16xi32>
    call @loop(%buf) : (memref<16xi32>) -> ()
    call @mgpuCheckReport() : () -> ()
    call @if(%buf, %true) : (memref<16xi32>, i1) -> ()
    call @if(%buf, %false) : (memref<16xi32>, i1) -> ()
    call @call(%buf) : (memref<16xi32>) -> ()
    call @execute(%buf) : (memref<16xi32>) -> ()
    call @merged_branches(%buf, %true) : (memref<16xi32>, i1) -> ()
    call @merged_branches(%buf, %false) : (memref<16xi32>, i1) -> ()
    memref.dealloc %buf : memref<16xi32>
    return
  }
  func.func private @mgpuCheckReport()
}
