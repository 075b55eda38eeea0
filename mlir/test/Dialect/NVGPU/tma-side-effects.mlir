// RUN: mlir-opt %s -test-side-effects -verify-diagnostics

// The TMA copies move data between shared memory and the global memory that
// their tensor map describes: nvgpu.tma.async.load writes its destination and
// reads through the tensor map, nvgpu.tma.async.store reads its source and
// writes through the tensor map.

!map = !nvgpu.tensormap.descriptor<tensor = memref<4x4xf32, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

func.func @tma_copies(%map : !map, %barriers : !barriers,
                      %tile : memref<4x4xf32, #gpu.address_space<workgroup>>) {
  // expected-remark @below {{operation has no memory effects}}
  %c0 = arith.constant 0 : index
  // expected-remark @below {{found an instance of 'write' on op operand 0, on resource '<Default>'}}
  // expected-remark @below {{found an instance of 'read' on op operand 2, on resource '<Default>'}}
  nvgpu.tma.async.load %map[%c0, %c0], %barriers[%c0] to %tile
      : !map, !barriers -> memref<4x4xf32, #gpu.address_space<workgroup>>
  // expected-remark @below {{found an instance of 'read' on op operand 0, on resource '<Default>'}}
  // expected-remark @below {{found an instance of 'write' on op operand 1, on resource '<Default>'}}
  nvgpu.tma.async.store %tile to %map[%c0, %c0]
      : memref<4x4xf32, #gpu.address_space<workgroup>> -> !map
  return
}
