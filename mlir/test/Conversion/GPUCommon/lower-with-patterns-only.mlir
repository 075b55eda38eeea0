// RUN: not mlir-opt %s -test-gpu-to-llvm-patterns 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ONLY
// RUN: mlir-opt %s -test-gpu-to-llvm-patterns=with-steps | FileCheck %s

// A downstream pass that lowers with populateGpuToLLVMConversionPatterns in a
// conversion of its own. The patterns destroy no stream: without
// finalizeGpuStreamLifetimes after the conversion, the stream would leak, and
// the mark that the patterns put on it fails the verifier after the pass.
// ONLY: error: 'gpu.lowered_stream' marks a stream that is never destroyed: run finalizeGpuStreamLifetimes after a conversion with populateGpuToLLVMConversionPatterns

// With the steps around the conversion, as -gpu-to-llvm runs them:
// CHECK-LABEL: llvm.func @memset
// CHECK:         %[[S:.*]] = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
// CHECK:         llvm.call @mgpuMemset32({{.*}}, %[[S]])
// CHECK:         llvm.call @mgpuStreamSynchronize(%[[S]])
// CHECK-NEXT:    llvm.call @mgpuStreamDestroy(%[[S]])
// CHECK-NOT:     gpu.lowered_stream
func.func @memset(%buf : memref<16xi32>, %value : i32) {
  %t0 = gpu.wait async
  %t1 = gpu.memset async [%t0] %buf, %value : memref<16xi32>, i32
  gpu.wait [%t1]
  return
}

// An event token with two users: prepareGpuAsyncTokensForLLVM gives it one
// (a stream that waits for it), so its event is destroyed once.
// CHECK-LABEL: llvm.func @event_two_users(
// CHECK-SAME:    %[[E:[^:]*]]: !llvm.ptr
// CHECK:         llvm.call @mgpuStreamWaitEvent(%{{.*}}, %[[E]])
// CHECK-NEXT:    llvm.call @mgpuEventDestroy(%[[E]])
// CHECK-NOT:     llvm.call @mgpuEventDestroy(%[[E]])
func.func @event_two_users(%t : !gpu.async.token, %buf : memref<16xi32>,
                           %value : i32) {
  %t1 = gpu.memset async [%t] %buf, %value : memref<16xi32>, i32
  %t2 = gpu.memset async [%t] %buf, %value : memref<16xi32>, i32
  gpu.wait [%t1, %t2]
  return
}
