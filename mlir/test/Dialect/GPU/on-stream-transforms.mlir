// RUN: mlir-opt %s -inline -canonicalize -cse | FileCheck %s

// The orderings of gpu.on_stream are carried by the op and its terminator,
// not by values: inlining its function, canonicalization and CSE keep them.
// The op is not inlined into its parent; an unused entry token and results
// that nothing uses do not make it dead; two equal regions are not merged.

func.func private @step(%s: !llvm.ptr, %a: memref<4xf32>, %f: f32) -> f32 {
  %r = gpu.on_stream <%s : !llvm.ptr> -> f32 {
  ^bb0(%t0: !gpu.async.token):
    gpu.memset %a, %f : memref<4xf32>, f32
    gpu.on_stream.yield %f : f32
  }
  return %r : f32
}

// CHECK-LABEL: func @caller
//  CHECK-SAME: (%[[S:.*]]: !llvm.ptr, %[[A:.*]]: memref<4xf32>, %[[F:.*]]: f32)
//       CHECK: gpu.on_stream <%[[S]] : !llvm.ptr> -> f32 {
//  CHECK-NEXT: ^bb0(%{{.*}}: !gpu.async.token):
//  CHECK-NEXT:   gpu.memset %[[A]], %[[F]]
//  CHECK-NEXT:   gpu.on_stream.yield %[[F]] : f32
//  CHECK-NEXT: }
//  CHECK-NEXT: gpu.on_stream <%[[S]] : !llvm.ptr> -> f32 {
//  CHECK-NEXT: ^bb0(%{{.*}}: !gpu.async.token):
//  CHECK-NEXT:   gpu.memset %[[A]], %[[F]]
//  CHECK-NEXT:   gpu.on_stream.yield %[[F]] : f32
//  CHECK-NEXT: }
//  CHECK-NEXT: gpu.on_stream <%[[S]] : !llvm.ptr> {
//  CHECK-NEXT: ^bb0(%[[T0:.*]]: !gpu.async.token):
//  CHECK-NEXT:   gpu.on_stream.yield [%[[T0]]]
//  CHECK-NEXT: }
//  CHECK-NEXT: return
func.func @caller(%s: !llvm.ptr, %a: memref<4xf32>, %f: f32) {
  %0 = call @step(%s, %a, %f) : (!llvm.ptr, memref<4xf32>, f32) -> f32
  %1 = call @step(%s, %a, %f) : (!llvm.ptr, memref<4xf32>, f32) -> f32
  gpu.on_stream <%s : !llvm.ptr> {
  ^bb0(%t0: !gpu.async.token):
    gpu.on_stream.yield [%t0]
  }
  return
}
