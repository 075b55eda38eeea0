// RUN: mlir-opt %s -gpu-async-region="max-streams=0" | FileCheck %s
// RUN: mlir-opt %s -gpu-async-region | FileCheck %s --check-prefix=CHAIN

// In the dependence mode, a block of a function body that GPU work may reach
// and whose predecessors all end with a cf branch gets a token argument for
// the GPU work they leave pending, instead of the host waiting for that work
// at each branch. The work may access anything: GPU work in the block
// depends on the token, a host op that accesses memory waits for it.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @update(%x : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<16xf32>
      memref.store %v, %x[%c0] : memref<16xf32>
      gpu.return
    }
  }

  // CHECK-LABEL: func @branches
  // CHECK:         %[[A:.*]] = gpu.launch_func async @kernels::@update
  // CHECK-NEXT:    cf.cond_br %{{.*}}, ^[[THEN:.*]](%[[A]] : !gpu.async.token), ^[[ELSE:.*]](%[[A]] : !gpu.async.token)
  // CHECK-NEXT:  ^[[THEN]](%[[T1:.*]]: !gpu.async.token):
  // CHECK-NEXT:    %[[B:.*]] = gpu.launch_func async [%[[T1]]] @kernels::@update
  // CHECK-NEXT:    cf.br ^[[JOIN:.*]](%[[B]] : !gpu.async.token)
  // CHECK-NEXT:  ^[[ELSE]](%[[T2:.*]]: !gpu.async.token):
  // CHECK-NEXT:    cf.br ^[[JOIN]](%[[T2]] : !gpu.async.token)
  // CHECK-NEXT:  ^[[JOIN]](%[[T3:.*]]: !gpu.async.token):
  // CHECK-NEXT:    gpu.wait [%[[T3]]]
  // CHECK-NEXT:    memref.load
  // CHAIN-LABEL: func @branches
  // CHAIN:         gpu.wait [%{{.*}}]
  // CHAIN-NEXT:    cf.cond_br %{{.*}}, ^{{.*}}, ^{{.*}}
  func.func @branches(%cond : i1, %a : memref<16xf32> {llvm.noalias},
                      %b : memref<16xf32> {llvm.noalias}) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    cf.cond_br %cond, ^then, ^else
  ^then:
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    cf.br ^join
  ^else:
    cf.br ^join
  ^join:
    %v = memref.load %a[%c0] : memref<16xf32>
    return %v : f32
  }

  // A loop of blocks: the token goes around the loop with the counter, and
  // the host waits only after it.
  // CHECK-LABEL: func @block_loop
  // CHECK:         %[[N:.*]] = gpu.wait async
  // CHECK:         cf.br ^[[HEAD:.*]](%{{.*}}, %[[N]] : index, !gpu.async.token)
  // CHECK-NEXT:  ^[[HEAD]](%[[I:.*]]: index, %[[T:.*]]: !gpu.async.token):
  // CHECK-NEXT:    arith.cmpi
  // CHECK-NEXT:    cf.cond_br %{{.*}}, ^[[BODY:.*]](%[[T]] : !gpu.async.token), ^[[EXIT:.*]](%[[T]] : !gpu.async.token)
  // CHECK-NEXT:  ^[[BODY]](%[[TB:.*]]: !gpu.async.token):
  // CHECK-NEXT:    %[[K:.*]] = gpu.launch_func async [%[[TB]]]
  // CHECK-NEXT:    arith.addi
  // CHECK-NEXT:    cf.br ^[[HEAD]](%{{.*}}, %[[K]] : index, !gpu.async.token)
  // CHECK-NEXT:  ^[[EXIT]](%[[TE:.*]]: !gpu.async.token):
  // CHECK-NEXT:    gpu.wait [%[[TE]]]
  // CHECK-NEXT:    return
  func.func @block_loop(%a : memref<16xf32>, %n : index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    cf.br ^head(%c0 : index)
  ^head(%i : index):
    %p = arith.cmpi slt, %i, %n : index
    cf.cond_br %p, ^body, ^exit
  ^body:
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %j = arith.addi %i, %c1 : index
    cf.br ^head(%j : index)
  ^exit:
    return
  }

  // The host waits for the kernel in the loop body: the back edge passes the
  // token of no work made at the function's start, no new one per iteration.
  // CHECK-LABEL: func @host_wait_in_block_loop
  // CHECK:         %[[N:.*]] = gpu.wait async
  // CHECK:         cf.br ^[[HEAD:.*]](%{{.*}}, %[[N]] : index, !gpu.async.token)
  // CHECK:         %[[K:.*]] = gpu.launch_func async
  // CHECK-NEXT:    gpu.wait [%[[K]]]
  // CHECK-NEXT:    memref.load
  // CHECK-NEXT:    arith.addi
  // CHECK-NEXT:    cf.br ^[[HEAD]](%{{.*}}, %[[N]] : index, !gpu.async.token)
  func.func @host_wait_in_block_loop(%a : memref<16xf32>, %n : index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    cf.br ^head(%c0 : index)
  ^head(%i : index):
    %p = arith.cmpi slt, %i, %n : index
    cf.cond_br %p, ^body, ^exit
  ^body:
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %v = memref.load %a[%c0] : memref<16xf32>
    %j = arith.addi %i, %c1 : index
    cf.br ^head(%j : index)
  ^exit:
    return
  }

  // ^other has a predecessor that is not a cf branch: it takes no token, and
  // the branch to it and to ^token waits on the host and passes ^token a
  // token of no work.
  // CHECK-LABEL: func @mixed_successors
  // CHECK:         %[[N:.*]] = gpu.wait async
  // CHECK:         %[[A:.*]] = gpu.launch_func async
  // CHECK-NEXT:    gpu.wait [%[[A]]]
  // CHECK-NEXT:    cf.cond_br %{{.*}}, ^{{.*}}(%[[N]] : !gpu.async.token), ^[[OTHER:[a-z0-9]*]]{{$}}
  func.func @mixed_successors(%cond : i1, %a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    cf.cond_br %cond, ^token, ^other
  ^token:
    llvm.br ^other
  ^other:
    return
  }

  // No GPU work reaches the blocks: no token, no runtime call.
  // CHECK-LABEL: func @no_gpu_work
  // CHECK-NOT:     gpu.
  // CHECK:         return
  // CHECK-NEXT:  }
  func.func @no_gpu_work(%a : memref<16xf32>, %n : index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f = arith.constant 1.0 : f32
    cf.br ^head(%c0 : index)
  ^head(%i : index):
    %p = arith.cmpi slt, %i, %n : index
    cf.cond_br %p, ^body, ^exit
  ^body:
    memref.store %f, %a[%i] : memref<16xf32>
    %j = arith.addi %i, %c1 : index
    cf.br ^head(%j : index)
  ^exit:
    return
  }
}
