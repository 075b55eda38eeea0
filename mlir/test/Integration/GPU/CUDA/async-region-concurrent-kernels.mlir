// The kernels are compiled first; -gpu-async-region then sees gpu.binary
// ops, not their bodies (see below).
//
// RUN: mlir-opt %s \
// RUN:   -pass-pipeline='builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts),nvvm-attach-target,gpu-module-to-binary{format=%gpu_compilation_format})' \
// RUN: | mlir-opt -gpu-async-region="max-streams=0" \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=%gpu_compilation_format" \
// RUN: | env CUDA_MODULE_LOADING=EAGER mlir-runner \
// RUN:   --shared-libs=%mlir_cuda_runtime \
// RUN:   --shared-libs=%mlir_runner_utils \
// RUN:   --entry-point-result=void \
// RUN: | FileCheck %s

// The token graph, without running it: the launches are independent with
// max-streams=0 and one chain with the default (max-streams=1); with the
// kernel bodies still in the module (no binary yet) they are ordered even
// with max-streams=0. These lines need no ptxas (format=isa).
//
// RUN: mlir-opt %s \
// RUN:   -pass-pipeline='builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts),nvvm-attach-target,gpu-module-to-binary{format=isa})' \
// RUN: | mlir-opt -gpu-async-region="max-streams=0" \
// RUN: | FileCheck %s --check-prefix=DEPS
// RUN: mlir-opt %s \
// RUN:   -pass-pipeline='builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts),nvvm-attach-target,gpu-module-to-binary{format=isa})' \
// RUN: | mlir-opt -gpu-async-region \
// RUN: | FileCheck %s --check-prefix=CHAIN
// RUN: mlir-opt %s -gpu-async-region="max-streams=0" \
// RUN: | FileCheck %s --check-prefix=BODY

// Like concurrent-kernels.mlir, two kernels that each wait for the other:
// each one increments an arrival counter and spins until the counter reaches
// two. Unlike it, the host program is synchronous (no tokens), and
// -gpu-async-region="max-streams=0" decides what runs concurrently. Read
// sequentially, the program cannot finish: the second launch would only
// start once the first kernel had returned. It finishes only if the pass puts
// the launches on separate streams (and -gpu-to-llvm keeps them there).
//
// Why the pass may do that: the kernels communicate through memory the pass
// cannot see. The counter's address is passed as an i64, not as a memref,
// and the kernels are compiled to a gpu.binary before -gpu-async-region runs.
// A kernel whose body is not in the module may access any memory, so the
// pass would order the launches; these launches say otherwise with
// `gpu.only_memref_operand_accesses` (they access only the memory of their
// memref operands: none), so nothing orders them. (Were the gpu.func bodies
// still there, the attribute would not count: the atomics on a pointer not
// derived from a memref argument make each kernel access everything, and the
// launches are ordered: see the BODY lines.)
// Nor can the pass order the memset that clears the counters before the
// launches, or the copy that brings them back after the kernels: the program
// does both with a plain (host) `gpu.wait`, as a program whose kernels access
// more than their memref operands has to.
//
// A kernel does not spin forever: after about 5 s it gives up and counts a
// timeout in the second word of the buffer. Launches that are ordered (one
// stream, e.g. the default max-streams=1) therefore print [2, 1] after 5 s
// instead of hanging; concurrent ones print [2, 0].

// CHECK: [2, 0]

// DEPS-LABEL: func @main
// DEPS:       gpu.memset async
// DEPS-NEXT:  gpu.wait [
// DEPS-NOT:   gpu.wait
// DEPS:       %[[T1:.*]] = gpu.launch_func async @kernels::@rendezvous
// DEPS-NEXT:  %[[T2:.*]] = gpu.launch_func async @kernels::@rendezvous
// DEPS-NEXT:  gpu.wait [%[[T1]], %[[T2]]]

// CHAIN-LABEL: func @main
// CHAIN:       %[[T1:.*]] = gpu.launch_func async [%{{.*}}] @kernels::@
// CHAIN-NEXT:  %[[T2:.*]] = gpu.launch_func async [%[[T1]]] @kernels::@
// CHAIN-NEXT:  gpu.wait [%[[T2]]]

// BODY-LABEL: func @main
// BODY:       %[[T1:.*]] = gpu.launch_func async @kernels::@rendezvous
// BODY-NEXT:  %[[T2:.*]] = gpu.launch_func async [%[[T1]]] @kernels::@
// BODY-NEXT:  gpu.wait [%[[T2]]]

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // %addr: the address of two i32, [arrivals, timeouts].
    gpu.func @rendezvous(%addr : i64) kernel {
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      // Nanoseconds (%globaltimer).
      %limit = arith.constant 5000000000 : i64
      %arrivals = llvm.inttoptr %addr : i64 to !llvm.ptr
      %timeouts = llvm.getelementptr %arrivals[1]
          : (!llvm.ptr) -> !llvm.ptr, i32
      %start = nvvm.read.ptx.sreg.globaltimer : i64
      %before = llvm.atomicrmw add %arrivals, %one seq_cst : !llvm.ptr, i32
      // Spin until both kernels have arrived, or the time is up.
      scf.while : () -> () {
        %n = llvm.atomicrmw add %arrivals, %zero seq_cst : !llvm.ptr, i32
        %waiting = arith.cmpi slt, %n, %two : i32
        %now = nvvm.read.ptx.sreg.globaltimer : i64
        %elapsed = arith.subi %now, %start : i64
        %in_time = arith.cmpi ult, %elapsed, %limit : i64
        %spin = arith.andi %waiting, %in_time : i1
        scf.condition(%spin)
      } do {
        scf.yield
      }
      %n = llvm.atomicrmw add %arrivals, %zero seq_cst : !llvm.ptr, i32
      %alone = arith.cmpi slt, %n, %two : i32
      scf.if %alone {
        %t = llvm.atomicrmw add %timeouts, %one seq_cst : !llvm.ptr, i32
      }
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %counters = gpu.alloc () : memref<2xi32>
    gpu.memset %counters, %zero : memref<2xi32>, i32
    // The launches do not name %counters: they are not ordered after the
    // memset unless the host waits for it.
    gpu.wait
    %addr_index = memref.extract_aligned_pointer_as_index %counters
        : memref<2xi32> -> index
    %addr = arith.index_cast %addr_index : index to i64
    gpu.launch_func @kernels::@rendezvous
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%addr : i64) {gpu.only_memref_operand_accesses}
    gpu.launch_func @kernels::@rendezvous
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%addr : i64) {gpu.only_memref_operand_accesses}
    // Nor is the copy below ordered after the kernels, unless the host waits
    // for them.
    gpu.wait
    %host = memref.alloc() : memref<2xi32>
    gpu.memcpy %host, %counters : memref<2xi32>, memref<2xi32>
    gpu.dealloc %counters : memref<2xi32>
    %result = memref.cast %host : memref<2xi32> to memref<*xi32>
    call @printMemrefI32(%result) : (memref<*xi32>) -> ()
    memref.dealloc %host : memref<2xi32>
    return
  }

  func.func private @printMemrefI32(memref<*xi32>)
}
