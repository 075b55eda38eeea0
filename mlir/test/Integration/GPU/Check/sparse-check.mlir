// Tests of the sparse (cuSPARSE, cuSPARSELt) and cooperative launch entry
// points of the checking GPU runtime (libmlir_gpu_check_runtime): the
// programs below call the runtime directly, the way lowered code does.

// RUN: mlir-opt %s -convert-func-to-llvm -convert-arith-to-llvm \
// RUN:   -reconcile-unrealized-casts > %t.mlir
// DEFINE: %{run} = mlir-runner %t.mlir --entry-point-result=void \
// DEFINE:   --shared-libs=%mlir_gpu_check_runtime \
// DEFINE:   --shared-libs=%mlir_c_runner_utils

// RUN: env MLIR_GPU_CHECK_VERBOSE=1 %{run} -e spmv 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SPMV \
// RUN:       --implicit-check-not="gpu-check: error"
// RUN: env MLIR_GPU_CHECK_VERBOSE=1 %{run} -e operations 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OPS \
// RUN:       --implicit-check-not="gpu-check: error"
// RUN: env MLIR_GPU_CHECK_VERBOSE=1 %{run} -e cusparselt 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LT \
// RUN:       --implicit-check-not="gpu-check: error"
// RUN: env MLIR_GPU_CHECK_VERBOSE=1 %{run} -e cooperative 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COOP \
// RUN:       --implicit-check-not="gpu-check: error"
// RUN: not %{run} -e leak 2>&1 | FileCheck %s --check-prefix=LEAK
// RUN: env MLIR_GPU_CHECK_LEAKS=report %{run} -e leak 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LEAKREPORT
// RUN: not %{run} -e use_after_destroy 2>&1 | FileCheck %s --check-prefix=UAD
// RUN: not %{run} -e double_destroy 2>&1 | FileCheck %s --check-prefix=DOUBLE
// RUN: not %{run} -e wrong_kind 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not %{run} -e cooperative_wrong_kind 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COOPKIND
// RUN: not %{run} -e cusparselt_reuse_live 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LTREUSE

func.func private @mgpuStreamCreate() -> !llvm.ptr
func.func private @mgpuStreamDestroy(!llvm.ptr)
func.func private @mgpuStreamSynchronize(!llvm.ptr)
func.func private @mgpuMemAlloc(i64, !llvm.ptr, i8) -> !llvm.ptr
func.func private @mgpuMemFree(!llvm.ptr, !llvm.ptr)
func.func private @mgpuModuleLoad(!llvm.ptr, i64) -> !llvm.ptr
func.func private @mgpuModuleUnload(!llvm.ptr)
func.func private @mgpuModuleGetFunction(!llvm.ptr, !llvm.ptr) -> !llvm.ptr
func.func private @mgpuLaunchKernelCooperative(!llvm.ptr, i64, i64, i64, i64,
    i64, i64, i64, i64, i64, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func private @mgpuCreateDnVec(i64, !llvm.ptr, i32, !llvm.ptr) -> !llvm.ptr
func.func private @mgpuDestroyDnVec(!llvm.ptr, !llvm.ptr)
func.func private @mgpuCreateDnMat(i64, i64, !llvm.ptr, i32, !llvm.ptr)
    -> !llvm.ptr
func.func private @mgpuDestroyDnMat(!llvm.ptr, !llvm.ptr)
func.func private @mgpuCreateCoo(i64, i64, i64, !llvm.ptr, !llvm.ptr,
    !llvm.ptr, i32, i32, !llvm.ptr) -> !llvm.ptr
func.func private @mgpuCreateCsr(i64, i64, i64, !llvm.ptr, !llvm.ptr,
    !llvm.ptr, i32, i32, i32, !llvm.ptr) -> !llvm.ptr
func.func private @mgpuDestroySpMat(!llvm.ptr, !llvm.ptr)
func.func private @mgpuSpMVBufferSize(i32, !llvm.ptr, !llvm.ptr, !llvm.ptr,
    i32, !llvm.ptr) -> i64
func.func private @mgpuSpMV(i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32,
    !llvm.ptr, !llvm.ptr)
func.func private @mgpuSpMMBufferSize(i32, i32, !llvm.ptr, !llvm.ptr,
    !llvm.ptr, i32, !llvm.ptr) -> i64
func.func private @mgpuSpMM(i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32,
    !llvm.ptr, !llvm.ptr)
func.func private @mgpuSDDMMBufferSize(i32, i32, !llvm.ptr, !llvm.ptr,
    !llvm.ptr, i32, !llvm.ptr) -> i64
func.func private @mgpuSDDMM(i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32,
    !llvm.ptr, !llvm.ptr)
func.func private @mgpuSpGEMMCreateDescr(!llvm.ptr) -> !llvm.ptr
func.func private @mgpuSpGEMMDestroyDescr(!llvm.ptr, !llvm.ptr)
func.func private @mgpuSpGEMMWorkEstimation(!llvm.ptr, i32, i32, !llvm.ptr,
    !llvm.ptr, !llvm.ptr, i32, i64, !llvm.ptr, !llvm.ptr) -> i64
func.func private @mgpuSpGEMMCompute(!llvm.ptr, i32, i32, !llvm.ptr,
    !llvm.ptr, !llvm.ptr, i32, i64, !llvm.ptr, !llvm.ptr) -> i64
func.func private @mgpuSpGEMMCopy(!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr,
    !llvm.ptr, i32, !llvm.ptr)
func.func private @mgpuSpMatGetSize(!llvm.ptr, !llvm.ptr, !llvm.ptr,
    !llvm.ptr, !llvm.ptr)
func.func private @mgpuSetCsrPointers(!llvm.ptr, !llvm.ptr, !llvm.ptr,
    !llvm.ptr, !llvm.ptr)
func.func private @mgpuCreateCuSparseLtDnMat(!llvm.ptr, i64, i64, !llvm.ptr,
    i32, !llvm.ptr)
func.func private @mgpuDestroyCuSparseLtDnMat(!llvm.ptr, !llvm.ptr)
func.func private @mgpuCusparseLtCreate2To4SpMat(!llvm.ptr, i64, i64,
    !llvm.ptr, i32, !llvm.ptr)
func.func private @mgpuDestroyCuSparseLtSpMat(!llvm.ptr, !llvm.ptr)
func.func private @mgpuCuSparseLtSpMMBufferSize(!llvm.ptr, i32, i32,
    !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, !llvm.ptr)
func.func private @mgpuCuSparseLtSpMM(!llvm.ptr, !llvm.ptr, !llvm.ptr,
    !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func private @printI64(i64)
func.func private @printNewline()

func.func @print(%i : i64) {
  call @printI64(%i) : (i64) -> ()
  call @printNewline() : () -> ()
  return
}

// A CSR matrix times a dense vector on a stream: the operation is recorded on
// the stream, everything created is destroyed. The runtime never reads the
// data, so all arrays share one allocation.
// SPMV-DAG: gpu-check: op {{[0-9]+}}: spmv on stream 1
// SPMV-DAG: {{^}}16{{$}}
// SPMV: gpu-check: report (exit)
// SPMV-DAG: gpu-check: calls mgpuCreateCsr 1
// SPMV-DAG: gpu-check: calls mgpuCreateDnVec 2
// SPMV-DAG: gpu-check: calls mgpuSpMVBufferSize 1
// SPMV-DAG: gpu-check: calls mgpuSpMV 1
// SPMV-DAG: gpu-check: calls mgpuDestroySpMat 1
// SPMV-DAG: gpu-check: calls mgpuDestroyDnVec 2
// SPMV: gpu-check: live streams 0, events 0, allocations 0
// SPMV-NEXT: gpu-check: live sparse matrices 0, dense vectors 0, dense matrices 0, SpGEMM descriptors 0, cuSPARSELt sparse matrices 0, cuSPARSELt dense matrices 0
// SPMV: gpu-check: 0 violation(s)
func.func @spmv() {
  %false = arith.constant 0 : i8
  %c4 = arith.constant 4 : i64
  %c64 = arith.constant 64 : i64
  %i32 = arith.constant 2 : i32 // CUSPARSE_INDEX_32I
  %f32 = arith.constant 0 : i32 // CUDA_R_32F
  %mode = arith.constant 0 : i32 // CUSPARSE_OPERATION_NON_TRANSPOSE
  %s = call @mgpuStreamCreate() : () -> !llvm.ptr
  %mem = call @mgpuMemAlloc(%c64, %s, %false)
      : (i64, !llvm.ptr, i8) -> !llvm.ptr
  %a = call @mgpuCreateCsr(%c4, %c4, %c4, %mem, %mem, %mem, %i32, %i32, %f32,
      %s) : (i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32,
      !llvm.ptr) -> !llvm.ptr
  %x = call @mgpuCreateDnVec(%c4, %mem, %f32, %s)
      : (i64, !llvm.ptr, i32, !llvm.ptr) -> !llvm.ptr
  %y = call @mgpuCreateDnVec(%c4, %mem, %f32, %s)
      : (i64, !llvm.ptr, i32, !llvm.ptr) -> !llvm.ptr
  %size = call @mgpuSpMVBufferSize(%mode, %a, %x, %y, %f32, %s)
      : (i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr) -> i64
  call @print(%size) : (i64) -> ()
  %buf = call @mgpuMemAlloc(%size, %s, %false)
      : (i64, !llvm.ptr, i8) -> !llvm.ptr
  call @mgpuSpMV(%mode, %a, %x, %y, %f32, %buf, %s) : (i32, !llvm.ptr,
      !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr) -> ()
  call @mgpuDestroySpMat(%a, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuDestroyDnVec(%x, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuDestroyDnVec(%y, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuMemFree(%buf, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuMemFree(%mem, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
  call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  return
}

// SpMM, SDDMM and the SpGEMM sequence (work estimation, compute, size query,
// setting the result's pointers, copy): each operation is recorded on the
// stream it is given; buffer sizes are 16 bytes, matrix sizes 0.
// OPS-DAG: gpu-check: op {{[0-9]+}}: spmm on stream 1
// OPS-DAG: gpu-check: op {{[0-9]+}}: sddmm on stream 1
// OPS-DAG: gpu-check: op {{[0-9]+}}: spgemm work estimation on stream 1
// OPS-DAG: gpu-check: op {{[0-9]+}}: spgemm compute on the default stream
// OPS-DAG: gpu-check: op {{[0-9]+}}: spgemm copy on stream 1
// OPS-DAG: {{^}}16{{$}}
// OPS-DAG: {{^}}16{{$}}
// OPS-DAG: {{^}}16{{$}}
// OPS-DAG: {{^}}16{{$}}
// OPS-DAG: {{^}}0{{$}}
// OPS-DAG: {{^}}0{{$}}
// OPS-DAG: {{^}}0{{$}}
// OPS: gpu-check: live streams 0, events 0, allocations 0
// OPS-NEXT: gpu-check: live sparse matrices 0, dense vectors 0, dense matrices 0, SpGEMM descriptors 0, cuSPARSELt sparse matrices 0, cuSPARSELt dense matrices 0
// OPS: gpu-check: 0 violation(s)
func.func @operations() {
  %false = arith.constant 0 : i8
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c4 = arith.constant 4 : i64
  %c64 = arith.constant 64 : i64
  %i32 = arith.constant 2 : i32
  %f32 = arith.constant 0 : i32
  %mode = arith.constant 0 : i32
  %null = llvm.mlir.zero : !llvm.ptr
  %s = call @mgpuStreamCreate() : () -> !llvm.ptr
  %mem = call @mgpuMemAlloc(%c64, %s, %false)
      : (i64, !llvm.ptr, i8) -> !llvm.ptr
  %a = call @mgpuCreateCoo(%c4, %c4, %c4, %mem, %mem, %mem, %i32, %f32, %s)
      : (i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, !llvm.ptr)
      -> !llvm.ptr
  %b = call @mgpuCreateDnMat(%c4, %c4, %mem, %f32, %s)
      : (i64, i64, !llvm.ptr, i32, !llvm.ptr) -> !llvm.ptr
  %c = call @mgpuCreateDnMat(%c4, %c4, %mem, %f32, %s)
      : (i64, i64, !llvm.ptr, i32, !llvm.ptr) -> !llvm.ptr
  %spmmSize = call @mgpuSpMMBufferSize(%mode, %mode, %a, %b, %c, %f32, %s)
      : (i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr) -> i64
  call @print(%spmmSize) : (i64) -> ()
  call @mgpuSpMM(%mode, %mode, %a, %b, %c, %f32, %mem, %s) : (i32, i32,
      !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr) -> ()
  %sddmmSize = call @mgpuSDDMMBufferSize(%mode, %mode, %b, %c, %a, %f32, %s)
      : (i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr) -> i64
  call @print(%sddmmSize) : (i64) -> ()
  call @mgpuSDDMM(%mode, %mode, %b, %c, %a, %f32, %mem, %s) : (i32, i32,
      !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr) -> ()

  // C = A * A, C created empty.
  %d = call @mgpuCreateCsr(%c4, %c4, %c0, %mem, %null, %null, %i32, %i32,
      %f32, %s) : (i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32,
      i32, !llvm.ptr) -> !llvm.ptr
  %desc = call @mgpuSpGEMMCreateDescr(%s) : (!llvm.ptr) -> !llvm.ptr
  %workSize = call @mgpuSpGEMMWorkEstimation(%desc, %mode, %mode, %a, %a, %d,
      %f32, %c0, %null, %s) : (!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr,
      !llvm.ptr, i32, i64, !llvm.ptr, !llvm.ptr) -> i64
  call @print(%workSize) : (i64) -> ()
  // On the default stream: a null stream is valid.
  %computeSize = call @mgpuSpGEMMCompute(%desc, %mode, %mode, %a, %a, %d,
      %f32, %c0, %null, %null) : (!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr,
      !llvm.ptr, i32, i64, !llvm.ptr, !llvm.ptr) -> i64
  call @print(%computeSize) : (i64) -> ()
  %sizes = llvm.alloca %c4 x i64 : (i64) -> !llvm.ptr
  %rows = llvm.getelementptr %sizes[1] : (!llvm.ptr) -> !llvm.ptr, i64
  %cols = llvm.getelementptr %sizes[2] : (!llvm.ptr) -> !llvm.ptr, i64
  %nnz = llvm.getelementptr %sizes[3] : (!llvm.ptr) -> !llvm.ptr, i64
  llvm.store %c1, %rows : i64, !llvm.ptr
  llvm.store %c1, %cols : i64, !llvm.ptr
  llvm.store %c1, %nnz : i64, !llvm.ptr
  call @mgpuSpMatGetSize(%d, %rows, %cols, %nnz, %s) : (!llvm.ptr, !llvm.ptr,
      !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  %r = llvm.load %rows : !llvm.ptr -> i64
  %cc = llvm.load %cols : !llvm.ptr -> i64
  %n = llvm.load %nnz : !llvm.ptr -> i64
  call @print(%r) : (i64) -> ()
  call @print(%cc) : (i64) -> ()
  call @print(%n) : (i64) -> ()
  call @mgpuSetCsrPointers(%d, %mem, %mem, %mem, %s) : (!llvm.ptr, !llvm.ptr,
      !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  call @mgpuSpGEMMCopy(%desc, %mode, %mode, %a, %a, %d, %f32, %s)
      : (!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr)
      -> ()
  call @mgpuSpGEMMDestroyDescr(%desc, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuDestroySpMat(%d, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuDestroySpMat(%a, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuDestroyDnMat(%b, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuDestroyDnMat(%c, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuMemFree(%mem, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  return
}

// cuSPARSELt handles live in storage the program allocates (as the lowering
// does, with llvm.alloca): the storage is the handle, from create to destroy,
// and may be reused once destroyed. The buffer-size function writes three
// sizes; pruning runs on the stream.
// LT-DAG: gpu-check: op {{[0-9]+}}: cusparselt prune on stream 1
// LT-DAG: gpu-check: op {{[0-9]+}}: cusparselt spmm on stream 1
// LT-DAG: {{^}}16{{$}}
// LT-DAG: {{^}}16{{$}}
// LT-DAG: {{^}}16{{$}}
// LT: gpu-check: calls mgpuCreateCuSparseLtDnMat 3
// LT: gpu-check: calls mgpuDestroyCuSparseLtDnMat 3
// LT: gpu-check: live streams 0, events 0, allocations 0
// LT-NEXT: gpu-check: live sparse matrices 0, dense vectors 0, dense matrices 0, SpGEMM descriptors 0, cuSPARSELt sparse matrices 0, cuSPARSELt dense matrices 0
// LT: gpu-check: 0 violation(s)
func.func @cusparselt() {
  %false = arith.constant 0 : i8
  %c3 = arith.constant 3 : i64
  %c4 = arith.constant 4 : i64
  %c64 = arith.constant 64 : i64
  %spSize = arith.constant 44104 : i64
  %dnSize = arith.constant 11032 : i64
  %f16 = arith.constant 2 : i32 // CUDA_R_16F
  %mode = arith.constant 0 : i32
  %prune = arith.constant 2 : i32 // prune and check
  %s = call @mgpuStreamCreate() : () -> !llvm.ptr
  %mem = call @mgpuMemAlloc(%c64, %s, %false)
      : (i64, !llvm.ptr, i8) -> !llvm.ptr
  %a = llvm.alloca %spSize x i8 {alignment = 16 : i64} : (i64) -> !llvm.ptr
  %b = llvm.alloca %dnSize x i8 {alignment = 16 : i64} : (i64) -> !llvm.ptr
  %c = llvm.alloca %dnSize x i8 {alignment = 16 : i64} : (i64) -> !llvm.ptr
  call @mgpuCusparseLtCreate2To4SpMat(%a, %c4, %c4, %mem, %f16, %s)
      : (!llvm.ptr, i64, i64, !llvm.ptr, i32, !llvm.ptr) -> ()
  call @mgpuCreateCuSparseLtDnMat(%b, %c4, %c4, %mem, %f16, %s)
      : (!llvm.ptr, i64, i64, !llvm.ptr, i32, !llvm.ptr) -> ()
  call @mgpuCreateCuSparseLtDnMat(%c, %c4, %c4, %mem, %f16, %s)
      : (!llvm.ptr, i64, i64, !llvm.ptr, i32, !llvm.ptr) -> ()
  %bs = llvm.alloca %c3 x i64 {alignment = 16 : i64} : (i64) -> !llvm.ptr
  call @mgpuCuSparseLtSpMMBufferSize(%bs, %mode, %mode, %a, %b, %c, %f16,
      %prune, %s) : (!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr,
      i32, i32, !llvm.ptr) -> ()
  %bs1 = llvm.getelementptr %bs[1] : (!llvm.ptr) -> !llvm.ptr, i64
  %bs2 = llvm.getelementptr %bs[2] : (!llvm.ptr) -> !llvm.ptr, i64
  %size0 = llvm.load %bs : !llvm.ptr -> i64
  %size1 = llvm.load %bs1 : !llvm.ptr -> i64
  %size2 = llvm.load %bs2 : !llvm.ptr -> i64
  call @print(%size0) : (i64) -> ()
  call @print(%size1) : (i64) -> ()
  call @print(%size2) : (i64) -> ()
  call @mgpuCuSparseLtSpMM(%a, %b, %c, %mem, %mem, %mem, %s)
      : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr,
      !llvm.ptr) -> ()
  call @mgpuDestroyCuSparseLtSpMat(%a, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuDestroyCuSparseLtDnMat(%b, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuDestroyCuSparseLtDnMat(%c, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  // The storage of a destroyed handle can hold a new one.
  call @mgpuCreateCuSparseLtDnMat(%b, %c4, %c4, %mem, %f16, %s)
      : (!llvm.ptr, i64, i64, !llvm.ptr, i32, !llvm.ptr) -> ()
  call @mgpuDestroyCuSparseLtDnMat(%b, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuMemFree(%mem, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  return
}

llvm.mlir.global internal constant @kernel_name("kernel\00")
    {addr_space = 0 : i32}

// A cooperative launch is checked and recorded like any other launch.
// COOP: gpu-check: op 0: launch kernel on stream 1
// COOP: gpu-check: calls mgpuLaunchKernelCooperative 1
// COOP: gpu-check: live streams 0, events 0, allocations 0
// COOP-NOT: live sparse
// COOP: gpu-check: 0 violation(s)
func.func @cooperative() {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %smem = arith.constant 0 : i32
  %null = llvm.mlir.zero : !llvm.ptr
  %name = llvm.mlir.addressof @kernel_name : !llvm.ptr
  %m = call @mgpuModuleLoad(%null, %c0) : (!llvm.ptr, i64) -> !llvm.ptr
  %f = call @mgpuModuleGetFunction(%m, %name)
      : (!llvm.ptr, !llvm.ptr) -> !llvm.ptr
  %s = call @mgpuStreamCreate() : () -> !llvm.ptr
  call @mgpuLaunchKernelCooperative(%f, %c1, %c1, %c1, %c0, %c0, %c0, %c1,
      %c1, %c1, %smem, %s, %null, %null) : (!llvm.ptr, i64, i64, i64, i64,
      i64, i64, i64, i64, i64, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
  call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  call @mgpuModuleUnload(%m) : (!llvm.ptr) -> ()
  return
}

// COOPKIND: gpu-check: error: wrong-handle-kind: mgpuLaunchKernelCooperative given module #1, expected a function
// COOPKIND: gpu-check: error: use-after-destroy: mgpuLaunchKernelCooperative given destroyed stream #1
// COOPKIND: gpu-check: 2 violation(s)
func.func @cooperative_wrong_kind() {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %smem = arith.constant 0 : i32
  %null = llvm.mlir.zero : !llvm.ptr
  %m = call @mgpuModuleLoad(%null, %c0) : (!llvm.ptr, i64) -> !llvm.ptr
  %s = call @mgpuStreamCreate() : () -> !llvm.ptr
  call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  call @mgpuLaunchKernelCooperative(%m, %c1, %c1, %c1, %c0, %c0, %c0, %c1,
      %c1, %c1, %smem, %s, %null, %null) : (!llvm.ptr, i64, i64, i64, i64,
      i64, i64, i64, i64, i64, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  call @mgpuModuleUnload(%m) : (!llvm.ptr) -> ()
  return
}

// A sparse matrix never destroyed is a leak, like a stream.
// LEAK: gpu-check: error: leak: sparse matrix #2 never destroyed
// LEAK: gpu-check: live streams 0, events 0, allocations 0
// LEAK-NEXT: gpu-check: live sparse matrices 1, dense vectors 0, dense matrices 0, SpGEMM descriptors 0, cuSPARSELt sparse matrices 0, cuSPARSELt dense matrices 0
// LEAK: gpu-check: violations leak 1
// LEAK: gpu-check: 1 violation(s)
// LEAKREPORT: gpu-check: leak: sparse matrix #2 never destroyed
// LEAKREPORT: gpu-check: 0 violation(s)
func.func @leak() {
  %c4 = arith.constant 4 : i64
  %i32 = arith.constant 2 : i32
  %f32 = arith.constant 0 : i32
  %null = llvm.mlir.zero : !llvm.ptr
  %a = call @mgpuCreateCsr(%c4, %c4, %c4, %null, %null, %null, %i32, %i32,
      %f32, %null) : (i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32,
      i32, i32, !llvm.ptr) -> !llvm.ptr
  %b = call @mgpuCreateCsr(%c4, %c4, %c4, %null, %null, %null, %i32, %i32,
      %f32, %null) : (i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32,
      i32, i32, !llvm.ptr) -> !llvm.ptr
  call @mgpuDestroySpMat(%a, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  return
}

// UAD: gpu-check: error: use-after-destroy: mgpuSpMV given destroyed dense vector #1
// UAD: gpu-check: 1 violation(s)
func.func @use_after_destroy() {
  %c4 = arith.constant 4 : i64
  %i32 = arith.constant 2 : i32
  %f32 = arith.constant 0 : i32
  %mode = arith.constant 0 : i32
  %null = llvm.mlir.zero : !llvm.ptr
  %a = call @mgpuCreateCsr(%c4, %c4, %c4, %null, %null, %null, %i32, %i32,
      %f32, %null) : (i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32,
      i32, i32, !llvm.ptr) -> !llvm.ptr
  %x = call @mgpuCreateDnVec(%c4, %null, %f32, %null)
      : (i64, !llvm.ptr, i32, !llvm.ptr) -> !llvm.ptr
  %y = call @mgpuCreateDnVec(%c4, %null, %f32, %null)
      : (i64, !llvm.ptr, i32, !llvm.ptr) -> !llvm.ptr
  call @mgpuDestroyDnVec(%x, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuSpMV(%mode, %a, %x, %y, %f32, %null, %null) : (i32, !llvm.ptr,
      !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr) -> ()
  call @mgpuDestroySpMat(%a, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuDestroyDnVec(%y, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  return
}

// DOUBLE: gpu-check: error: double-destroy: mgpuSpGEMMDestroyDescr given SpGEMM descriptor #1, already destroyed
// DOUBLE: gpu-check: 1 violation(s)
func.func @double_destroy() {
  %null = llvm.mlir.zero : !llvm.ptr
  %desc = call @mgpuSpGEMMCreateDescr(%null) : (!llvm.ptr) -> !llvm.ptr
  call @mgpuSpGEMMDestroyDescr(%desc, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuSpGEMMDestroyDescr(%desc, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  return
}

// Dense vectors and dense matrices are different kinds of handle, as are
// cuSPARSE and cuSPARSELt ones; a sparse function's stream is checked too.
// KIND: gpu-check: error: wrong-handle-kind: mgpuSpMV given dense matrix #1, expected a dense vector
// KIND: gpu-check: error: wrong-handle-kind: mgpuDestroyDnVec given dense matrix #1, expected a dense vector
// KIND: gpu-check: error: wrong-handle-kind: mgpuDestroyCuSparseLtDnMat given dense matrix #1, expected a cuSPARSELt dense matrix
// KIND: gpu-check: error: wrong-handle-kind: mgpuCreateDnVec given dense matrix #1, expected a stream
// KIND: gpu-check: 4 violation(s)
func.func @wrong_kind() {
  %c4 = arith.constant 4 : i64
  %i32 = arith.constant 2 : i32
  %f32 = arith.constant 0 : i32
  %mode = arith.constant 0 : i32
  %null = llvm.mlir.zero : !llvm.ptr
  %a = call @mgpuCreateCsr(%c4, %c4, %c4, %null, %null, %null, %i32, %i32,
      %f32, %null) : (i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32,
      i32, i32, !llvm.ptr) -> !llvm.ptr
  %m = call @mgpuCreateDnMat(%c4, %c4, %null, %f32, %null)
      : (i64, i64, !llvm.ptr, i32, !llvm.ptr) -> !llvm.ptr
  %y = call @mgpuCreateDnVec(%c4, %null, %f32, %null)
      : (i64, !llvm.ptr, i32, !llvm.ptr) -> !llvm.ptr
  call @mgpuSpMV(%mode, %a, %m, %y, %f32, %null, %null) : (i32, !llvm.ptr,
      !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr) -> ()
  call @mgpuDestroyDnVec(%m, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuDestroyCuSparseLtDnMat(%m, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  %z = call @mgpuCreateDnVec(%c4, %null, %f32, %m)
      : (i64, !llvm.ptr, i32, !llvm.ptr) -> !llvm.ptr
  call @mgpuDestroySpMat(%a, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuDestroyDnMat(%m, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuDestroyDnVec(%y, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  call @mgpuDestroyDnVec(%z, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  return
}

// Creating a cuSPARSELt handle in the storage of a live one leaks that one.
// LTREUSE: gpu-check: error: leak: cuSPARSELt dense matrix #1 never destroyed before mgpuCreateCuSparseLtDnMat reused its storage
// LTREUSE: gpu-check: live streams 0, events 0, allocations 0
// LTREUSE-NEXT: gpu-check: live sparse matrices 0, dense vectors 0, dense matrices 0, SpGEMM descriptors 0, cuSPARSELt sparse matrices 0, cuSPARSELt dense matrices 0
// LTREUSE: gpu-check: 1 violation(s)
func.func @cusparselt_reuse_live() {
  %c4 = arith.constant 4 : i64
  %dnSize = arith.constant 11032 : i64
  %f16 = arith.constant 2 : i32
  %null = llvm.mlir.zero : !llvm.ptr
  %b = llvm.alloca %dnSize x i8 {alignment = 16 : i64} : (i64) -> !llvm.ptr
  call @mgpuCreateCuSparseLtDnMat(%b, %c4, %c4, %null, %f16, %null)
      : (!llvm.ptr, i64, i64, !llvm.ptr, i32, !llvm.ptr) -> ()
  call @mgpuCreateCuSparseLtDnMat(%b, %c4, %c4, %null, %f16, %null)
      : (!llvm.ptr, i64, i64, !llvm.ptr, i32, !llvm.ptr) -> ()
  call @mgpuDestroyCuSparseLtDnMat(%b, %null) : (!llvm.ptr, !llvm.ptr) -> ()
  return
}
