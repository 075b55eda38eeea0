// RUN: mlir-opt %s --gpu-to-llvm -split-input-file -verify-diagnostics
// RUN: not mlir-opt %s --gpu-to-llvm -split-input-file 2>&1 | FileCheck %s

// Types that -gpu-to-llvm cannot convert make the pass fail with an error.

// A memref in a memory space that the host's type converter cannot convert:
// the converter reports an error (at an unknown location) and leaves the
// function.
// CHECK: error: conversion of memref memory space #gpu.address_space<global> to integer address space failed
// expected-error @unknown {{conversion of memref memory space #gpu.address_space<global> to integer address space failed}}
func.func @memory_space_without_conversion(%arg0 : memref<?xi8, #gpu.address_space<global>>) {
  return
}

// -----

// -gpu-to-llvm keeps !async.token for -async-to-llvm, so a function taking
// one has no C interface to emit.
// CHECK: error: C interface cannot be emitted: an argument or result type has no LLVM-compatible type
// expected-error @below {{C interface cannot be emitted: an argument or result type has no LLVM-compatible type}}
func.func @c_interface_token_argument(%arg0 : !async.token) attributes {llvm.emit_c_interface} {
  return
}
