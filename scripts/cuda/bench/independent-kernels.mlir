// Benchmark, not a lit test: scripts/cuda/cuda-bench.sh builds it with the
// series' mlir-opt (both RUN lines) and with upstream's (the first only) and
// times it on a GPU.
//
// Eight launches of a kernel that computes for milliseconds on one thread,
// each writing only its own buffer. The kernel bodies are in the module when
// -gpu-async-region runs, so the pass can see that the launches are
// independent. The program prints the host's wall-clock time from before the
// first launch to after the wait for all of them: about 8 times one kernel's
// time when the launches are ordered (one stream), about one kernel's time
// when they run concurrently.
//
// RUN: mlir-opt %s -gpu-async-region \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=%gpu_compilation_format" \
// RUN: | env CUDA_MODULE_LOADING=EAGER mlir-runner \
// RUN:   --shared-libs=%mlir_cuda_runtime \
// RUN:   --shared-libs=%mlir_c_runner_utils \
// RUN:   --entry-point-result=void \
// RUN: | FileCheck %s
//
// RUN: mlir-opt %s -gpu-async-region="max-streams=0" \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=%gpu_compilation_format" \
// RUN: | env CUDA_MODULE_LOADING=EAGER mlir-runner \
// RUN:   --shared-libs=%mlir_cuda_runtime \
// RUN:   --shared-libs=%mlir_c_runner_utils \
// RUN:   --entry-point-result=void \
// RUN: | FileCheck %s

// Every kernel computed the same value (8 of 8 equal to the first).
// CHECK: same: 8
// CHECK-NEXT: seconds: {{[0-9]}}

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // %iters steps of a linear congruential generator from %seed, a chain of
    // dependent multiplications that takes milliseconds on one thread; the
    // result goes to %out. Nothing else is accessed: the pass sees that.
    gpu.func @spin(%out : memref<1xi64>, %iters : index, %seed : i64) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %a = arith.constant 6364136223846793005 : i64
      %c = arith.constant 1442695040888963407 : i64
      %x = scf.for %i = %c0 to %iters step %c1 iter_args(%v = %seed) -> i64 {
        %m = arith.muli %v, %a : i64
        %n = arith.addi %m, %c : i64
        scf.yield %n : i64
      }
      memref.store %x, %out[%c0] : memref<1xi64>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %iters = arith.constant 2000000 : index
    %seed = arith.constant 1 : i64
    %b0 = gpu.alloc () : memref<1xi64>
    %b1 = gpu.alloc () : memref<1xi64>
    %b2 = gpu.alloc () : memref<1xi64>
    %b3 = gpu.alloc () : memref<1xi64>
    %b4 = gpu.alloc () : memref<1xi64>
    %b5 = gpu.alloc () : memref<1xi64>
    %b6 = gpu.alloc () : memref<1xi64>
    %b7 = gpu.alloc () : memref<1xi64>
    // Warm-up launch, not timed.
    gpu.launch_func @kernels::@spin blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b0 : memref<1xi64>, %c0 : index, %seed : i64)
    gpu.wait
    %t0 = call @rtclock() : () -> f64
    gpu.launch_func @kernels::@spin blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b0 : memref<1xi64>, %iters : index, %seed : i64)
    gpu.launch_func @kernels::@spin blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b1 : memref<1xi64>, %iters : index, %seed : i64)
    gpu.launch_func @kernels::@spin blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b2 : memref<1xi64>, %iters : index, %seed : i64)
    gpu.launch_func @kernels::@spin blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b3 : memref<1xi64>, %iters : index, %seed : i64)
    gpu.launch_func @kernels::@spin blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b4 : memref<1xi64>, %iters : index, %seed : i64)
    gpu.launch_func @kernels::@spin blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b5 : memref<1xi64>, %iters : index, %seed : i64)
    gpu.launch_func @kernels::@spin blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b6 : memref<1xi64>, %iters : index, %seed : i64)
    gpu.launch_func @kernels::@spin blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b7 : memref<1xi64>, %iters : index, %seed : i64)
    gpu.wait
    %t1 = call @rtclock() : () -> f64
    // Count the buffers that hold what the first one holds.
    %h = memref.alloc() : memref<1xi64>
    gpu.memcpy %h, %b0 : memref<1xi64>, memref<1xi64>
    %v0 = memref.load %h[%c0] : memref<1xi64>
    %n0 = func.call @same(%h, %b0, %v0) : (memref<1xi64>, memref<1xi64>, i64) -> i64
    %n1 = func.call @same(%h, %b1, %v0) : (memref<1xi64>, memref<1xi64>, i64) -> i64
    %n2 = func.call @same(%h, %b2, %v0) : (memref<1xi64>, memref<1xi64>, i64) -> i64
    %n3 = func.call @same(%h, %b3, %v0) : (memref<1xi64>, memref<1xi64>, i64) -> i64
    %n4 = func.call @same(%h, %b4, %v0) : (memref<1xi64>, memref<1xi64>, i64) -> i64
    %n5 = func.call @same(%h, %b5, %v0) : (memref<1xi64>, memref<1xi64>, i64) -> i64
    %n6 = func.call @same(%h, %b6, %v0) : (memref<1xi64>, memref<1xi64>, i64) -> i64
    %n7 = func.call @same(%h, %b7, %v0) : (memref<1xi64>, memref<1xi64>, i64) -> i64
    %s01 = arith.addi %n0, %n1 : i64
    %s23 = arith.addi %n2, %n3 : i64
    %s45 = arith.addi %n4, %n5 : i64
    %s67 = arith.addi %n6, %n7 : i64
    %s03 = arith.addi %s01, %s23 : i64
    %s47 = arith.addi %s45, %s67 : i64
    %same = arith.addi %s03, %s47 : i64
    vector.print str "same: "
    vector.print %same : i64
    %dt = arith.subf %t1, %t0 : f64
    vector.print str "seconds: "
    vector.print %dt : f64
    memref.dealloc %h : memref<1xi64>
    gpu.dealloc %b0 : memref<1xi64>
    gpu.dealloc %b1 : memref<1xi64>
    gpu.dealloc %b2 : memref<1xi64>
    gpu.dealloc %b3 : memref<1xi64>
    gpu.dealloc %b4 : memref<1xi64>
    gpu.dealloc %b5 : memref<1xi64>
    gpu.dealloc %b6 : memref<1xi64>
    gpu.dealloc %b7 : memref<1xi64>
    return
  }

  // 1 if %buf holds %v, else 0.
  func.func @same(%h : memref<1xi64>, %buf : memref<1xi64>, %v : i64) -> i64 {
    %c0 = arith.constant 0 : index
    gpu.memcpy %h, %buf : memref<1xi64>, memref<1xi64>
    %e = memref.load %h[%c0] : memref<1xi64>
    %ok = arith.cmpi eq, %e, %v : i64
    %r = arith.extui %ok : i1 to i64
    return %r : i64
  }

  func.func private @rtclock() -> f64
}
