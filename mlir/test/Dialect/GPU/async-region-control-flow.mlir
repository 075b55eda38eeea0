// RUN: mlir-opt %s -split-input-file -gpu-async-region="max-streams=0" | FileCheck %s
// RUN: mlir-opt %s -split-input-file -gpu-async-region="max-streams=0" -gpu-async-region="max-streams=0" | FileCheck %s --check-prefix=TWICE

// -gpu-async-region with dependences across region boundaries: GPU work
// pending before a region op is depended on directly inside its regions;
// scf.if and scf.index_switch yield the work their regions leave pending as a
// token result; scf.for carries the work of the previous iteration as a token
// iter_arg. The host waits inside a region only where it touches data a GPU
// op may still be using.

// TWICE-LABEL: func @loop_carried

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // Reads %in, writes %out.
    gpu.func @copy(%in : memref<16xf32>, %out : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %in[%c0] : memref<16xf32>
      memref.store %x, %out[%c0] : memref<16xf32>
      gpu.return
    }
    // Reads and writes %a.
    gpu.func @update(%a : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<16xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %a[%c0] : memref<16xf32>
      gpu.return
    }
  }

  // Each iteration updates %a: iteration i+1 waits for iteration i through the
  // token iter_arg. No host wait inside the loop; the host load after it waits
  // for the loop's token.
  // CHECK-LABEL: func @loop_carried
  // CHECK: %[[INIT:.*]] = gpu.wait async
  // CHECK-NEXT: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ARG:.*]] = %[[INIT]]) -> (!gpu.async.token)
  // CHECK-NEXT: %[[T:.*]] = gpu.launch_func async [%[[ARG]]] @kernels::@update
  // CHECK-NEXT: scf.yield %[[T]] : !gpu.async.token
  // CHECK-NEXT: }
  // CHECK-NEXT: gpu.wait [%[[R]]]
  // CHECK-NEXT: memref.load
  // CHECK-NOT: gpu.wait
  // CHECK: return
  func.func @loop_carried(%a : memref<16xf32>, %n : index) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    }
    %v = memref.load %a[%c0] : memref<16xf32>
    return %v : f32
  }

  // The iterations only read %a, so they do not wait for each other: the
  // token iter_arg is joined into each iteration's token, not depended on.
  // The launch before the loop that writes %a is the initial value.
  // CHECK-LABEL: func @loop_independent_iterations
  // CHECK: %[[W:.*]] = gpu.launch_func async @kernels::@update
  // CHECK-NEXT: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ARG:.*]] = %[[W]]) -> (!gpu.async.token)
  // CHECK-NEXT: memref.alloc
  // CHECK-NEXT: %[[T:.*]] = gpu.launch_func async [%[[W]]] @kernels::@copy
  // CHECK-NEXT: %[[J:.*]] = gpu.wait async [%[[ARG]], %[[T]]]
  // CHECK-NEXT: scf.yield %[[J]] : !gpu.async.token
  // CHECK-NEXT: }
  // CHECK-NEXT: gpu.wait [%[[R]]]
  // CHECK-NEXT: return
  func.func @loop_independent_iterations(%a : memref<16xf32>, %n : index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    scf.for %i = %c0 to %n step %c1 {
      %b = memref.alloc() : memref<16xf32>
      gpu.launch_func @kernels::@copy blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1)
          args(%a : memref<16xf32>, %b : memref<16xf32>)
    }
    return
  }

  // The host reads %a inside the loop: it waits there, for the launch of the
  // same iteration only.
  // CHECK-LABEL: func @loop_host_access
  // CHECK: scf.for
  // CHECK-NEXT: %[[T:.*]] = gpu.launch_func async [%{{.*}}] @kernels::@update
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // CHECK-NEXT: memref.load
  // CHECK-NEXT: scf.yield
  func.func @loop_host_access(%a : memref<16xf32>, %n : index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      %v = memref.load %a[%c0] : memref<16xf32>
    }
    return
  }

  // A branch yields the token of its work; the other branch yields a token of
  // no work. A launch after the scf.if that touches what the branch wrote
  // depends on the result; one that does not, does not.
  // CHECK-LABEL: func @if_result
  // CHECK: %[[R:.*]] = scf.if %{{.*}} -> (!gpu.async.token) {
  // CHECK-NEXT: %[[T:.*]] = gpu.launch_func async @kernels::@update
  // CHECK-NEXT: scf.yield %[[T]] : !gpu.async.token
  // CHECK-NEXT: } else {
  // CHECK-NEXT: %[[E:.*]] = gpu.wait async
  // CHECK-NEXT: scf.yield %[[E]] : !gpu.async.token
  // CHECK-NEXT: }
  // CHECK-NEXT: %[[T1:.*]] = gpu.launch_func async @kernels::@update {{.*}} args(%arg2
  // CHECK-NEXT: %[[T2:.*]] = gpu.launch_func async [%[[R]]] @kernels::@update {{.*}} args(%arg1
  // CHECK-NEXT: gpu.wait [%[[T1]], %[[T2]]]
  func.func @if_result(%cond : i1, %a : memref<16xf32> {llvm.noalias},
                       %b : memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    scf.if %cond {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    }
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }

  // The branch fills %x, copies it to %y and stores to %y from the host: the
  // host waits in the branch for the copy, which implies the fill. Nothing is
  // left pending in the branch, so the scf.if passes no token on, and the copy
  // of %x after it depends on nothing defined in the branch.
  // CHECK-LABEL: func @if_host_store
  // CHECK: scf.if
  // CHECK-NEXT: %[[M:.*]] = gpu.memset async
  // CHECK-NEXT: %[[C:.*]] = gpu.memcpy async [%[[M]]]
  // CHECK-NEXT: gpu.wait [%[[C]]]
  // CHECK-NEXT: memref.store
  // CHECK-NEXT: }
  // CHECK-NEXT: %[[C2:.*]] = gpu.memcpy async %{{.*}}, %{{.*}} :
  // CHECK-NEXT: gpu.wait [%[[C2]]]
  // CHECK-NEXT: return
  func.func @if_host_store(%cond : i1, %f : f32) {
    %c0 = arith.constant 0 : index
    %x = memref.alloc() : memref<16xf32>
    %y = memref.alloc() : memref<16xf32>
    %z = memref.alloc() : memref<16xf32>
    scf.if %cond {
      gpu.memset %x, %f : memref<16xf32>, f32
      gpu.memcpy %y, %x : memref<16xf32>, memref<16xf32>
      memref.store %f, %y[%c0] : memref<16xf32>
    }
    gpu.memcpy %z, %x : memref<16xf32>, memref<16xf32>
    return
  }

  // The host waits for the fill of %x in one branch only: after the scf.if,
  // the load of %x waits for it too, since the other branch did not.
  // CHECK-LABEL: func @wait_in_one_branch
  // CHECK: %[[M:.*]] = gpu.memset async
  // CHECK-NEXT: scf.if
  // CHECK-NEXT: gpu.wait [%[[M]]]
  // CHECK-NEXT: memref.store
  // CHECK-NEXT: }
  // CHECK-NEXT: gpu.wait [%[[M]]]
  // CHECK-NEXT: memref.load
  func.func @wait_in_one_branch(%cond : i1, %f : f32) -> f32 {
    %c0 = arith.constant 0 : index
    %x = memref.alloc() : memref<16xf32>
    gpu.memset %x, %f : memref<16xf32>, f32
    scf.if %cond {
      memref.store %f, %x[%c0] : memref<16xf32>
    }
    %v = memref.load %x[%c0] : memref<16xf32>
    return %v : f32
  }

  // Only one branch writes %a, after the write before the scf.if: the launch
  // after the scf.if depends on both, since the other branch passes the first
  // write on in no token.
  // CHECK-LABEL: func @if_keeps_earlier_writer
  // CHECK: %[[W:.*]] = gpu.launch_func async @kernels::@update
  // CHECK-NEXT: %[[R:.*]] = scf.if
  // CHECK-NEXT: %[[T:.*]] = gpu.launch_func async [%[[W]]] @kernels::@update
  // CHECK: %[[T2:.*]] = gpu.launch_func async [%[[W]], %[[R]]] @kernels::@update
  func.func @if_keeps_earlier_writer(%cond : i1, %a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    scf.if %cond {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    }
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }

  // Each iteration copies the buffer of the previous one into a fresh one and
  // passes that on: the allocation escapes the iteration, so the copy of the
  // next iteration, which reads it, waits for the previous iteration.
  // CHECK-LABEL: func @loop_escaping_allocation
  // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[ARG:.*]] = %{{.*}}) -> (memref<16xf32>, !gpu.async.token)
  // CHECK: gpu.launch_func async [%[[ARG]]] @kernels::@copy
  func.func @loop_escaping_allocation(%a : memref<16xf32>, %n : index)
      -> memref<16xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%m = %a)
        -> memref<16xf32> {
      %b = memref.alloc() : memref<16xf32>
      gpu.launch_func @kernels::@copy blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1)
          args(%m : memref<16xf32>, %b : memref<16xf32>)
      scf.yield %b : memref<16xf32>
    }
    return %r : memref<16xf32>
  }

  // scf.index_switch: each case yields its token.
  // CHECK-LABEL: func @index_switch
  // CHECK: %[[R:.*]] = scf.index_switch %{{.*}} -> !gpu.async.token
  // CHECK: case 1 {
  // CHECK-NEXT: %[[T:.*]] = gpu.launch_func async @kernels::@update
  // CHECK-NEXT: scf.yield %[[T]] : !gpu.async.token
  // CHECK: default {
  // CHECK-NEXT: %[[E:.*]] = gpu.wait async
  // CHECK-NEXT: scf.yield %[[E]] : !gpu.async.token
  // CHECK: gpu.wait [%[[R]]]
  // CHECK-NEXT: memref.load
  func.func @index_switch(%i : index, %a : memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.index_switch %i
    case 1 {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      scf.yield
    }
    default {
    }
    %v = memref.load %a[%c0] : memref<16xf32>
    return %v : f32
  }

  // Loops in loops: the inner loop's token is the outer iteration's work.
  // CHECK-LABEL: func @nested_loops
  // CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (!gpu.async.token)
  // CHECK-NEXT: %[[RI:.*]] = scf.for {{.*}} iter_args(%[[AI:.*]] = %[[A]]) -> (!gpu.async.token)
  // CHECK-NEXT: %[[T:.*]] = gpu.launch_func async [%[[AI]]] @kernels::@update
  // CHECK-NEXT: scf.yield %[[T]] : !gpu.async.token
  // CHECK-NEXT: }
  // CHECK-NEXT: scf.yield %[[RI]] : !gpu.async.token
  // CHECK-NEXT: }
  // CHECK-NEXT: gpu.wait [%[[R]]]
  func.func @nested_loops(%a : memref<16xf32>, %n : index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
            threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      }
    }
    return
  }

  // scf.while carries a token like scf.for: the `before` region gets the work
  // of the previous iterations and forwards its own to the `after` region,
  // which yields its work to the next iteration; no host wait in either
  // region. The host load after the loop waits for the loop's token.
  // CHECK-LABEL: func @while_loop
  // CHECK: %[[INIT:.*]] = gpu.wait async
  // CHECK-NEXT: %[[R:.*]]:2 = scf.while (%{{.*}} = %{{.*}}, %[[C:.*]] = %[[INIT]]) : (index, !gpu.async.token) -> (index, !gpu.async.token)
  // CHECK-NEXT: %[[B:.*]] = gpu.launch_func async [%[[C]]] @kernels::@update
  // CHECK-NEXT: arith.cmpi
  // CHECK-NEXT: scf.condition(%{{.*}}) %{{.*}}, %[[B]] : index, !gpu.async.token
  // CHECK-NEXT: } do {
  // CHECK-NEXT: ^bb0(%{{.*}}: index, %[[F:.*]]: !gpu.async.token):
  // CHECK-NEXT: %[[T:.*]] = gpu.launch_func async [%[[F]]] @kernels::@update
  // CHECK-NEXT: arith.addi
  // CHECK-NEXT: scf.yield %{{.*}}, %[[T]] : index, !gpu.async.token
  // CHECK-NEXT: }
  // CHECK-NEXT: gpu.wait [%[[R]]#1]
  // CHECK-NEXT: memref.load
  func.func @while_loop(%a : memref<16xf32>, %n : index) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.while (%i = %c0) : (index) -> index {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      %cond = arith.cmpi slt, %i, %n : index
      scf.condition(%cond) %i : index
    } do {
    ^bb0(%j : index):
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      %next = arith.addi %j, %c1 : index
      scf.yield %next : index
    }
    %v = memref.load %a[%c0] : memref<16xf32>
    return %v : f32
  }

  // Each iteration of an scf.for has its own stack memory, gone at the end of
  // the iteration: the copy that reads it is waited for before the yield, not
  // carried into the next iteration.
  // CHECK-LABEL: func @loop_stack_memory
  // CHECK: scf.for
  // CHECK: %[[T:.*]] = gpu.memcpy async
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // CHECK-NEXT: scf.yield
  func.func @loop_stack_memory(%a : memref<16xf32>, %n : index, %f : f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      %stack = memref.alloca() : memref<16xf32>
      memref.store %f, %stack[%c0] : memref<16xf32>
      gpu.memcpy %a, %stack : memref<16xf32>, memref<16xf32>
    }
    return
  }

  // The same with the stack memory of the iteration allocated in an scf.if:
  // it lives until the end of the iteration, not of the scf.if, whose token
  // result stands for the copy into it.
  // CHECK-LABEL: func @loop_stack_memory_in_branch
  // CHECK: scf.for
  // CHECK: %[[R:.*]] = scf.if
  // CHECK: gpu.memcpy async
  // CHECK: gpu.wait [%[[R]]]
  // CHECK-NEXT: scf.yield
  func.func @loop_stack_memory_in_branch(%a : memref<16xf32>, %n : index,
                                         %c : i1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      scf.if %c {
        %stack = memref.alloca() : memref<16xf32>
        gpu.memcpy %stack, %a : memref<16xf32>, memref<16xf32>
      }
    }
    return
  }

  // A buffer that scf.if yields may be either allocation: the memset of the
  // result waits for both, although neither was looked up when it was made.
  // CHECK-LABEL: func @if_yields_allocation
  // CHECK: %[[A:.*]], %[[TA:.*]] = gpu.alloc async () : memref<16xf32>
  // CHECK-NEXT: %[[B:.*]], %[[TB:.*]] = gpu.alloc async () : memref<16xf32>
  // CHECK-NEXT: %[[R:.*]] = scf.if
  // CHECK: %[[M:.*]] = gpu.memset async [%[[TA]], %[[TB]]] %[[R]]
  // CHECK-NEXT: gpu.wait [%[[M]]]
  func.func @if_yields_allocation(%c : i1, %v : f32) {
    %a = gpu.alloc () : memref<16xf32>
    %b = gpu.alloc () : memref<16xf32>
    %r = scf.if %c -> memref<16xf32> {
      scf.yield %a : memref<16xf32>
    } else {
      scf.yield %b : memref<16xf32>
    }
    gpu.memset %r, %v : memref<16xf32>, f32
    return
  }
}

// -----

// A synchronous gpu.alloc and a memset of it, then a GPU op on it in a nested
// region: the op inside depends on the memset (a value of the enclosing
// block), and the output verifies. scf.while and scf.execute_region pass a
// token out; the regions of other ops (scf.parallel, async.execute) wait for
// their own work at their end.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @update(%a : memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<16xf32>
      memref.store %x, %a[%c0] : memref<16xf32>
      gpu.return
    }
  }

  // CHECK-LABEL: func @alloc_then_while
  // CHECK: %[[A:.*]], %[[TA:.*]] = gpu.alloc async () : memref<16xf32>
  // CHECK-NEXT: %[[M:.*]] = gpu.memset async [%[[TA]]] %[[A]]
  // CHECK-NEXT: %[[R:.*]] = scf.while (%[[C:.*]] = %[[M]]) : (!gpu.async.token) -> !gpu.async.token
  // CHECK-NEXT: scf.condition(%{{.*}}) %[[C]] : !gpu.async.token
  // CHECK-NEXT: } do {
  // CHECK-NEXT: ^bb0(%[[F:.*]]: !gpu.async.token):
  // CHECK-NEXT: %[[T:.*]] = gpu.launch_func async [%[[F]]] @kernels::@update
  // CHECK-NEXT: scf.yield %[[T]] : !gpu.async.token
  // CHECK: gpu.wait [%[[R]]]
  // CHECK-NEXT: return
  func.func @alloc_then_while(%f : f32, %cond : i1) {
    %c1 = arith.constant 1 : index
    %a = gpu.alloc () : memref<16xf32>
    gpu.memset %a, %f : memref<16xf32>, f32
    scf.while : () -> () {
      scf.condition(%cond)
    } do {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      scf.yield
    }
    return
  }

  // CHECK-LABEL: func @alloc_then_execute_region
  // CHECK: %[[A:.*]], %[[TA:.*]] = gpu.alloc async () : memref<16xf32>
  // CHECK-NEXT: %[[M:.*]] = gpu.memset async [%[[TA]]] %[[A]]
  // CHECK-NEXT: %[[R:.*]] = scf.execute_region -> !gpu.async.token {
  // CHECK-NEXT: %[[T:.*]] = gpu.launch_func async [%[[M]]] @kernels::@update
  // CHECK-NEXT: scf.yield %[[T]] : !gpu.async.token
  // CHECK: gpu.wait [%[[M]], %[[R]]]
  // CHECK-NEXT: return
  func.func @alloc_then_execute_region(%f : f32) {
    %c1 = arith.constant 1 : index
    %a = gpu.alloc () : memref<16xf32>
    gpu.memset %a, %f : memref<16xf32>, f32
    scf.execute_region {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      scf.yield
    }
    return
  }

  // CHECK-LABEL: func @alloc_then_parallel
  // CHECK: %[[M:.*]] = gpu.memset async
  // CHECK-NEXT: scf.parallel
  // CHECK-NEXT: %[[T:.*]] = gpu.launch_func async [%[[M]]] @kernels::@update
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // CHECK-NEXT: scf.reduce
  func.func @alloc_then_parallel(%f : f32, %n : index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = gpu.alloc () : memref<16xf32>
    gpu.memset %a, %f : memref<16xf32>, f32
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      scf.reduce
    }
    return
  }

  // CHECK-LABEL: func @alloc_then_if
  // CHECK: %[[M:.*]] = gpu.memset async
  // CHECK-NEXT: %[[R:.*]] = scf.if
  // CHECK-NEXT: %[[T:.*]] = gpu.launch_func async [%[[M]]] @kernels::@update
  // CHECK-NEXT: scf.yield %[[T]]
  // CHECK: gpu.wait [%[[M]], %[[R]]]
  func.func @alloc_then_if(%f : f32, %cond : i1) {
    %c1 = arith.constant 1 : index
    %a = gpu.alloc () : memref<16xf32>
    gpu.memset %a, %f : memref<16xf32>, f32
    scf.if %cond {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    }
    return
  }

  // async.execute bodies wait for their own work (and the wait moves to the
  // async.execute's results, as without dependences).
  // CHECK-LABEL: func @alloc_then_execute
  // CHECK: %[[M:.*]] = gpu.memset async
  // CHECK: async.execute
  // CHECK-NEXT: %[[T:.*]] = gpu.launch_func async [%[[M]]] @kernels::@update
  func.func @alloc_then_execute(%f : f32) {
    %c1 = arith.constant 1 : index
    %a = gpu.alloc () : memref<16xf32>
    gpu.memset %a, %f : memref<16xf32>, f32
    %token = async.execute {
      gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      async.yield
    }
    async.await %token : !async.token
    return
  }

  // A call may touch any memory: the host waits for everything before it.
  // CHECK-LABEL: func @call
  // CHECK: %[[T:.*]] = gpu.launch_func async
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // CHECK-NEXT: call @opaque
  func.func private @opaque()
  func.func @call(%a : memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@update blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    func.call @opaque() : () -> ()
    return
  }
}
