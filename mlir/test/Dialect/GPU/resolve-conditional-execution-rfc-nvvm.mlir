// The example of resolve-conditional-execution-rfc.mlir, outlined and
// resolved, lowers to NVVM and LLVM and translates to LLVM IR.

// REQUIRES: host-supports-nvptx
// RUN: mlir-opt %S/resolve-conditional-execution-rfc.mlir \
// RUN:   --gpu-kernel-outlining --gpu-resolve-conditional-execution --inline \
// RUN: | mlir-opt -gpu-lower-to-nvvm-pipeline="cubin-format=isa" \
// RUN: | mlir-translate --mlir-to-llvmir | FileCheck %s

// The kernel, embedded as PTX, reads the thread id.
// CHECK: @launch_kernel_binary = internal constant {{.*}}%tid.x
// The host @thread_id returns 0; the launch and the host store remain.
// CHECK-LABEL: define i64 @thread_id()
// CHECK-NEXT: ret i64 0
// CHECK-LABEL: define void @launch(
// CHECK: call void @mgpuLaunchKernel(
// CHECK: store i64 0, ptr
