// RUN: mlir-opt %s --gpu-to-llvm -split-input-file -verify-diagnostics
// RUN: not mlir-opt %s --gpu-to-llvm -split-input-file 2>&1 | FileCheck %s

// A host function that -gpu-to-llvm cannot lower makes the pass fail.

// A memref in a memory space that the host's type converter cannot map to an
// address space: the converter reports it (at an unknown location) and the
// function stays a func.func.
// CHECK: error: conversion of memref memory space #gpu.address_space<global> to integer address space failed
// CHECK: error: 'func.func' op was not lowered to LLVM
// expected-error @unknown {{conversion of memref memory space #gpu.address_space<global> to integer address space failed}}
// expected-error @below {{'func.func' op was not lowered to LLVM}}
func.func @memory_space_without_conversion(%arg0 : memref<?xi8, #gpu.address_space<global>>) {
  return
}

// -----

// -gpu-to-llvm keeps !async.token for -async-to-llvm, so a function taking
// or returning one has no C interface to emit.
// CHECK: error: C interface cannot be emitted: an argument or result type has no LLVM-compatible type
// CHECK: error: 'func.func' op was not lowered to LLVM
// expected-error @below {{C interface cannot be emitted: an argument or result type has no LLVM-compatible type}}
// expected-error @below {{'func.func' op was not lowered to LLVM}}
func.func @c_interface_token_argument(%arg0 : !async.token) attributes {llvm.emit_c_interface} {
  return
}

// -----

// CHECK: error: C interface cannot be emitted: an argument or result type has no LLVM-compatible type
// CHECK: error: 'func.func' op was not lowered to LLVM
// expected-error @below {{C interface cannot be emitted: an argument or result type has no LLVM-compatible type}}
// expected-error @below {{'func.func' op was not lowered to LLVM}}
func.func private @c_interface_token_result() -> !async.token attributes {llvm.emit_c_interface}
