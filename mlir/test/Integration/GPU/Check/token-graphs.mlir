// 100 random token graphs (forks, joins, synchronous waits, uses in scf.if
// and scf.for bodies, tokens carried by scf.for, yielded by scf.if, passed to
// and returned from a function, yielded by async.execute and awaited; see
// Inputs/token_graphs.py) lowered and run with the checking runtime: every
// stream and event is destroyed exactly once and never used after
// destruction.

// REQUIRES: host-supports-nvptx
// RUN: %PYTHON %S/Inputs/token_graphs.py --seed 1 -n 100 \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=isa" \
// RUN: | mlir-opt -async-to-async-runtime -async-runtime-ref-counting \
// RUN:   -convert-async-to-llvm -convert-to-llvm -reconcile-unrealized-casts \
// RUN: | mlir-runner --entry-point-result=void -O0 \
// RUN:   --shared-libs=%mlir_gpu_check_runtime \
// RUN:   --shared-libs=%mlir_async_runtime 2>&1 \
// RUN: | FileCheck %s

// CHECK-NOT: gpu-check: error
// CHECK: gpu-check: live streams 0, events 0, allocations 0
// CHECK: gpu-check: 0 violation(s)
