#!/usr/bin/env python3
"""Checks the GPU runtimes against their shared list of functions.

  scripts/verify/check-runtime-abi.py [TREE]

TREE is an llvm-project tree with the series applied (default: the overlay,
mlir/ of this repository). mlir/lib/ExecutionEngine/GPURuntimeFunctions.def
lists the functions of the GPU runtime wrappers that host code calls, with
their handle types as macros (MGPU_STREAM, ...) that each runtime defines.
The checking runtime and the CUDA wrappers declare their functions from the
list, so the compiler checks their definitions where it builds them (not
the CUDA wrappers' cuSPARSE functions unless cuSPARSE is on); the ROCm
wrappers keep their own declarations. This script checks the text of all
three at the ABI level:
- every runtime function that -gpu-to-llvm calls (the names in
  GPUToLLVMConversion.cpp) is listed;
- every function of the list is defined by the checking runtime and by the
  CUDA wrappers (the ROCm wrappers define a part: no sparse functions);
- a wrapper file that defines a listed function gives it the list's
  signature, compared at the ABI level: each pointer or driver handle is a
  pointer, `int` is `int32_t`, `unsigned` is `uint32_t`, and signedness does
  not count (a value's bits are passed the same way);
- a function that a wrapper file defines and the list lacks is one of
  UNLISTED (helpers that no lowering calls and the checking runtime does
  not define).
Prints one line per problem and exits 1 if there is any.
"""

import argparse
import os
import re
import sys

HANDLES = {
    "CUstream", "CUevent", "CUmodule", "CUfunction", "CUgraphExec", "CUgraph",
    "hipStream_t", "hipEvent_t", "hipModule_t", "hipFunction_t",
    "hipGraphExec_t", "MGPU_MODULE", "MGPU_KERNEL", "MGPU_STREAM",
    "MGPU_EVENT", "MGPU_GRAPH", "MGPU_MEMREF",
}
# Wrapper functions that are not in the list, on purpose.
UNLISTED = {
    "mgpuCreateSparseEnv", "mgpuDestroySparseEnv", "mgpuCreateSparseLtEnv",
    "mgpuDestroySparseLtEnv", "mgpuTensorMapEncodeTiled",
    "mgpuTensorMapEncodeTiledMemref", "mgpuMemGetDeviceMemRef1dFloat",
    "mgpuMemGetDeviceMemRef1dInt32",
}
SCALARS = {
    "int": "i32", "int32_t": "i32", "unsigned": "i32", "unsigned int": "i32",
    "uint32_t": "i32", "short": "i16", "unsigned short": "i16",
    "uint16_t": "i16", "int16_t": "i16", "short int": "i16", "int short": "i16",
    "int64_t": "i64", "uint64_t": "i64",
    "intptr_t": "i64", "size_t": "i64", "bool": "i1", "char": "i8",
    "int8_t": "i8", "void": "void", "float": "f32", "double": "f64",
}


def abi_type(text):
    """The ABI class of a C type: `ptr` for any pointer or handle."""
    text = " ".join(text.replace("*", " * ").replace("&", " & ").split())
    text = re.sub(r"\b(const|volatile|struct)\b ?", "", text).strip()
    if "*" in text or "&" in text or "<" in text:
        return "ptr"
    if text in HANDLES:
        return "ptr"
    return SCALARS.get(text, text)


def split_top(text):
    """Splits `text` at the commas outside of <> and ()."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "<(":
            depth += 1
        elif char in ">)":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return [part.strip() for part in parts if part.strip()]


def parameter_type(parameter):
    """The type of a parameter declaration, with or without its name."""
    tokens = parameter.replace("*", " * ").split()
    words = {"unsigned", "signed", "short", "long", "int", "char"}
    if (len(tokens) > 1 and tokens[-1] != "*" and
            re.match(r"^\w+$", tokens[-1]) and tokens[-1] not in words):
        tokens = tokens[:-1]
    return abi_type(" ".join(tokens))


def signature(ret, parameters):
    params = split_top(parameters)
    if params == ["void"]:
        params = []
    return (abi_type(ret), tuple(parameter_type(p) for p in params))


def strip_comments(text):
    return re.sub(r"/\*.*?\*/", "", re.sub(r"//[^\n]*", "", text), flags=re.S)


def listed(path):
    text = strip_comments(open(path).read())
    result = {}
    for match in re.finditer(
            r"MGPU_FUNCTION\(\s*([^,]+?),\s*(mgpu\w+),\s*\((.*?)\)\s*\)",
            text, re.S):
        result[match.group(2)] = signature(match.group(1), match.group(3))
    return result


def defined(path):
    """The mgpu* functions that a runtime file defines (those with a body)."""
    text = strip_comments(open(path).read())
    result = {}
    for match in re.finditer(
            r'(?:MLIR_\w+_EXPORT|extern\s+"C"(?!\s*\{))\s+([^;{}()]*?)\b'
            r"(mgpu\w+)\s*\(([^()]*)\)\s*\{", text):
        ret = re.sub(r"MLIR_\w+_EXPORT", "", match.group(1))
        result[match.group(2)] = signature(ret, match.group(3))
    return result


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("tree", nargs="?", default=root,
                        help="llvm-project tree (default: this repository's overlay)")
    args = parser.parse_args()
    engine = os.path.join(args.tree, "mlir", "lib", "ExecutionEngine")
    functions = listed(os.path.join(engine, "GPURuntimeFunctions.def"))
    if not functions:
        sys.exit("error: no MGPU_FUNCTION entries in GPURuntimeFunctions.def")
    bad = 0
    lowering = os.path.join(args.tree, "mlir", "lib", "Conversion",
                            "GPUCommon", "GPUToLLVMConversion.cpp")
    called = set(re.findall(r'"(mgpu\w+)"', open(lowering).read()))
    for name in sorted(called - set(functions)):
        print(f"GPUToLLVMConversion.cpp: calls {name}, which is not listed")
        bad += 1
    checking = defined(os.path.join(engine, "GPUCheckRuntime.cpp"))
    for name in sorted(set(functions) - set(checking)):
        print(f"GPUCheckRuntime.cpp: {name} is listed but not defined")
        bad += 1
    for wrapper, complete in (("CudaRuntimeWrappers.cpp", True),
                              ("RocmRuntimeWrappers.cpp", False)):
        functions_there = defined(os.path.join(engine, wrapper))
        if complete:
            for name in sorted(set(functions) - set(functions_there)):
                print(f"{wrapper}: {name} is listed but not defined")
                bad += 1
        for name in sorted(set(functions_there) - set(functions) - UNLISTED):
            print(f"{wrapper}: {name} is defined but not listed")
            bad += 1
        common = sorted(set(functions) & set(functions_there))
        for name in common:
            if functions_there[name] != functions[name]:
                print(f"{wrapper}: {name} takes {functions_there[name]}, "
                      f"the list {functions[name]}")
                bad += 1
        print(f"{wrapper}: {len(common)} listed function(s) checked")
    print(f"GPURuntimeFunctions.def: {len(functions)} function(s), "
          f"{len(called)} called by -gpu-to-llvm, {bad} problem(s)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
