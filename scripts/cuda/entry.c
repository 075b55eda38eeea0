//===- entry.c - Entry point of a CUDA integration test built ahead of time -===//
//
// The executables of scripts/cuda/cuda-suite.sh link one lowered MLIR test (its
// host code, with the GPU binaries embedded) with this file. It does what
// mlir-runner does around the test's entry function:
//
//   1. run the module's global constructors (they load the GPU binaries);
//   2. call the entry function (renamed to cuda_suite_entry in the object);
//   3. run the module's global destructors (they unload the binaries);
//   4. call the destroy hook of the runtime libraries that have one (the
//      async runtime: it joins its worker threads);
//   5. for a non-void entry, print the result as mlir-runner does.
//
// suite.py moves llvm.global_ctors/dtors into cuda_suite_init/fini so that
// steps 1 and 3 happen here, in this order, and not from .init_array and
// .fini_array, where the unloads would run after atexit handlers.
//
// Compiled once per entry result type, with one of
// -DCUDA_SUITE_RESULT_{VOID,I32,I64,F32}.
//
//===----------------------------------------------------------------------===//

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

void cuda_suite_init(void);
void cuda_suite_fini(void);

// Exported by libmlir_async_runtime.so only; null when it is not linked.
void __mlir_execution_engine_destroy(void) __attribute__((weak));

#if defined(CUDA_SUITE_RESULT_I32)
int32_t cuda_suite_entry(void);
#elif defined(CUDA_SUITE_RESULT_I64)
int64_t cuda_suite_entry(void);
#elif defined(CUDA_SUITE_RESULT_F32)
float cuda_suite_entry(void);
#elif defined(CUDA_SUITE_RESULT_VOID)
void cuda_suite_entry(void);
#else
#error "define one of CUDA_SUITE_RESULT_{VOID,I32,I64,F32}"
#endif

int main(void) {
  cuda_suite_init();
#if defined(CUDA_SUITE_RESULT_VOID)
  cuda_suite_entry();
#else
  __typeof__(cuda_suite_entry()) result = cuda_suite_entry();
#endif
  cuda_suite_fini();
  if (__mlir_execution_engine_destroy)
    __mlir_execution_engine_destroy();
  // mlir-runner prints a returned value with llvm::outs(): integers in
  // decimal, floats as a double in exponent form.
#if defined(CUDA_SUITE_RESULT_I32)
  printf("%" PRId32 "\n", result);
#elif defined(CUDA_SUITE_RESULT_I64)
  printf("%" PRId64 "\n", result);
#elif defined(CUDA_SUITE_RESULT_F32)
  printf("%e\n", (double)result);
#endif
  fflush(stdout);
  return 0;
}
