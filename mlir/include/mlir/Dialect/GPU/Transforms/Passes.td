//===-- Passes.td - GPU pass definition file ---------------*- tablegen -*-===//
//
// Part of the LLVM Project, under the Apache License v2.0 with LLVM Exceptions.
// See https://llvm.org/LICENSE.txt for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_DIALECT_GPU_PASSES
#define MLIR_DIALECT_GPU_PASSES

include "mlir/Pass/PassBase.td"

def GpuLaunchSinkIndexComputationsPass
    : Pass<"gpu-launch-sink-index-computations"> {
  let summary = "Sink index computations into gpu.launch body";
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def GpuKernelOutliningPass : Pass<"gpu-kernel-outlining", "ModuleOp"> {
  let summary = "Outline gpu.launch bodies to kernel functions";
  let dependentDialects = ["mlir::DLTIDialect", "cf::ControlFlowDialect"];
  let options = [Option<"dataLayoutStr", "data-layout-str", "std::string",
                        /*default=*/"",
                        "String description of the data layout">];
}

def GpuResolveConditionalExecutionPass
    : Pass<"gpu-resolve-conditional-execution"> {
  let summary = "Replace each gpu.conditional_execution by the region of its "
                "context";
  let description = [{
    Resolves every `gpu.conditional_execution` op nested in the operation the
    pass runs on. In a device context (nested in a `gpu.module`, a `gpu.func`
    or a `gpu.launch`) the op is replaced by the contents of its `device`
    region, elsewhere by those of its `host` region; the values the region
    yields replace the op's results. When that region is missing (only
    possible for an op without results), the op is erased. Nested
    `gpu.conditional_execution` ops are resolved first, each by its own
    context, so a device region may itself hold host and device variants of
    something smaller.

    Run it after `-gpu-kernel-outlining`, which clones the functions a
    `gpu.launch` body calls into the kernel's `gpu.module` and keeps the
    originals for the host: each copy then gets its own region, and before
    the lowerings (`-convert-gpu-to-nvvm`, `-convert-gpu-to-rocdl` and, in
    host code, `-gpu-to-llvm` fail to legalize an unresolved op).

    Example, on the host:

    ```mlir
    %v = gpu.conditional_execution device {
      %id = gpu.thread_id x
      gpu.yield %id : index
    } host {
      %c0 = arith.constant 0 : index
      gpu.yield %c0 : index
    } -> index
    ```

    becomes `%v = arith.constant 0 : index`; inside a `gpu.module`, `%v =
    gpu.thread_id x`.
  }];
}

def GpuAsyncRegionPass : Pass<"gpu-async-region"> {
  let summary = "Make GPU ops async";
  let description = [{
    Makes the GPU ops of each block asynchronous (`gpu.launch_func async`,
    ...) and inserts the host synchronizations (`gpu.wait`) that keep the
    sequential semantics: before a terminator, and before a host op that may
    access memory that GPU work in flight accesses. Ops that are already
    async keep their dependencies; a host-shared `gpu.alloc` stays a
    synchronous host op, and a launch on an explicit stream (`asyncObject`)
    stays on that stream (see below).

    Both modes below ask `gpu::GpuAccessAnalysis` what an op accesses; two
    accesses conflict when they may touch the same memory and one writes it,
    and what the analysis cannot see accesses everything:

    - `gpu.launch_func` of a `gpu.func` in the module: the arguments its body
      reads and writes (memory effects followed through view-like ops).
      Workgroup and private memory (attributions, `gpu.dynamic_shared_memory`,
      memrefs in those `#gpu.address_space`s) and the kernel's own
      allocations belong to the launch, and `gpu.barrier` accesses nothing;
      globals, effects on no particular value and ops with unknown effects
      make it access everything.
    - A kernel whose body is not visible (in a `gpu.binary`, an external
      `gpu.func`, an `llvm.func`) may access any memory, unless the launch or
      the `gpu.binary`/`gpu.module` holding the kernel has the unit attribute
      `gpu.only_memref_operand_accesses`: then it reads and writes exactly the
      memory of its memref operands.
    - `gpu.memcpy` writes its destination and reads its source; `gpu.memset`,
      `gpu.alloc` and `gpu.dealloc` write their memref; other GPU ops (the
      sparse ones, which reach memory through handles) access everything.
    - Host ops: their memory effects (pure ops and fresh allocations access
      nothing; a `func.call` and other ops with unknown effects access
      everything, but see below for calls of functions of the module). The
      terminator of an automatic allocation scope (a function's return, the
      yield of an `scf.for` iteration, of an `async.execute` body) writes the
      stack memory allocated in it (`memref.alloca`): it is gone afterwards.
    - Buffers may alias unless alias analysis says they do not, they are
      distinct function arguments one of which is `llvm.noalias`, or one is
      allocated in the function and the other is a function argument.

    With `max-streams=1` (the default) the GPU work of a block forms one
    chain: each op depends on the previous one, and the host waits for it at
    the end of the block.

    With another value each GPU op depends only on the earlier GPU ops whose
    memory accesses conflict with its own (read after write, write after
    read, write after write), so independent work runs on separate streams,
    joined where it meets, and a host op waits only for the GPU ops whose
    memory it may touch. `max-streams=0` leaves the number of independent
    chains unbounded; N > 1 makes new independent work continue the oldest
    chain once N chains are open.

    An `async.execute` body whose token only `async.await` and other
    `async.execute` ops use does not wait for its GPU work at its end: the
    body yields it (unless it uses the body's stack memory), and after each
    `async.await` of the token that work is in flight: the first GPU op of
    the block depends on it, and so does each later GPU op that may conflict
    with it and is not ordered after the first one; the host waits for it
    before the first host op that may conflict with it or has unknown
    effects. A dependent `async.execute` body treats it the same way.

    Across regions, in the dependence mode: GPU work pending before a region
    op is depended on directly inside it. The buffers that the GPU work in
    its regions accesses (outside `gpu.on_stream` bodies, whose work goes to
    their stream) are divided into classes (buffers that may alias are one
    class; at most `max-streams` classes less the chains that stay open
    beside the op, at least one, or 8 if it is 0, the last one taking the
    buffers beyond; one class if the work may access anything), and the op
    passes one token per class: `scf.if`, `scf.index_switch` and
    `scf.execute_region` get token results, per class the join of what each
    region leaves pending on the class's buffers (a class no region leaves
    work on, or that passes the same tokens as an earlier one, gets no result
    of its own); `scf.for` gets per class a token iter_arg for the work of
    the previous iterations on those buffers (an op in the body depends on it
    only if it conflicts with what the body accesses there) and a token
    result; `scf.while` gets those iter_args in its `before` region, which
    forwards them with its own work to the `after` region and as the token
    results. A host op or GPU op after the region op waits only for the
    classes it may conflict with. In a function body of several blocks, a
    block that GPU work may reach through branches and whose predecessors
    all end with `cf.br`, `cf.cond_br` or `cf.switch` gets a token argument,
    to which each of them passes the join of the GPU work it leaves pending
    (a token of no work made at the function's start if there is none)
    instead of the host waiting for that work; the work may access
    anything: the GPU ops of the block that access memory depend on the
    token, and a host op that does waits for it. A branch to such a block
    and to another one waits on the host and passes a token of no work. The
    blocks of other region ops (`scf.parallel`, `async.execute`, multi-block
    regions) end with a host wait for their own GPU work.

    A `gpu.on_stream` body starts after the stream's earlier work (its entry
    token, of unknown accesses) and hands what each block leaves pending to
    the stream at its terminator, with no host wait. After the op, the host
    waits for that work (what the body's GPU work accesses, or everything
    if an op of unknown effects in it may have launched work; the stream's
    earlier work is no more ordered with code after the op than with code
    before it) before a host op or GPU op that may conflict with it, a
    `gpu.wait` and at the end of the block, but not at a function's return
    (without its stack memory) nor for a `gpu.on_stream` on that stream.
    Where control returns to an `scf.for`, `scf.while`, `scf.if`,
    `scf.index_switch` or `scf.execute_region` or goes on to its next
    iteration, that work stays pending (after the op too), unless the stream
    is a value defined inside the op; before such an op the host waits only
    for the streams whose work its regions may touch.

    A body of one block is split, so that its stream orders what the host
    would wait for otherwise: at each launch on the body's stream that may
    conflict with GPU work of the body before or after it, and at each of
    the SCF ops above that holds a launch on the stream that may conflict
    with GPU work of the body or, in the single chain (where control enters
    and leaves its blocks), any GPU work. The runs of ops between those
    points, and the ops of each block of those SCF ops, become
    `gpu.on_stream` ops on the same stream, which runs them in program
    order (ops without memory effects and launches on the stream need no
    such op). A body is left whole where an async token (its entry token
    included) or another GPU dialect value would cross from one piece to
    another.

    A launch on a stream (`gpu.launch_func <%s>`) runs after the work
    enqueued on `%s` and hands its own work to `%s`, with the accesses of its
    kernel: the host waits before it only for other GPU work that it may
    conflict with, and later ops wait for `%s` as above where they may
    conflict with the kernel. A host wait for a stream that is not an
    `!llvm.ptr` cannot be expressed and is an error. A call or another op of
    unknown effects may have launched work on each stream of the function
    (of its `gpu.on_stream` ops and launches) that dominates it, and left it
    pending: it hands work of unknown accesses to that stream, unless the
    stream may alias a value that a use in the function may end (a host op
    of unknown effects that takes it outside a `gpu.on_stream` on it, such
    as a runtime call that synchronizes the stream, begins or ends a capture
    of it or destroys it, or a store that lets it escape): the host never
    waits for a stream that may be destroyed or in a capture, and the
    function manages it itself.
    A pointer that the function does not use as a stream is not known to be
    one, and the host does not wait for it, unless the pass runs on the
    symbol table that holds the function (as `-gpu-async-region` on the
    command line does, on the module). The pass then first finds the
    arguments that the `func.func` ops with a body among the symbol table's
    children use as streams (as above, or passed on as such an argument,
    directly or through selects, branches and region ops' block arguments
    and results), and those they may end, and a call by name (not an
    indirect one) hands work of unknown accesses to each operand that it
    passes to such an argument: later ops that may conflict wait for it as
    above, unless a use in the function may end that stream, as above (a
    call of such a function ends it only where the function may end its
    argument so). Other ops of unknown effects hand no work to such an
    operand. The pass then rewrites those functions, in parallel. Run on a
    `func.func` (`func.func(gpu-async-region)`), it sees no callee.

    On a symbol table, the pass also summarizes, before it rewrites any
    function, what each called `func.func` with a body among its children
    accesses through its arguments (its host ops' effects and its GPU ops'
    accesses, as above; memory it allocates is its own): a call by name of
    such a function accesses what its operands refer to, and the host waits
    before it only for the work that conflicts with that. A function that
    may reach other memory (a global, a loaded pointer), has an op of unknown
    effects, calls a function that is not summarized (external, indirect, or
    on a cycle of calls) or uses a stream (`gpu.on_stream`, a launch on a
    stream) accesses everything.

    In the dependence mode, launches on a stream as frontends emit them are
    made concurrent: in a block outside `gpu.on_stream` and `async.execute`
    bodies, a run of launches on one `!llvm.ptr` stream (`gpu.launch_func
    <%s : !llvm.ptr>`, without async dependencies) with only ops without
    memory effects or regions between them, two consecutive ones of which
    may not conflict, becomes a `gpu.on_stream <%s>` whose body launches the
    kernels without a stream. The stream's earlier work comes first, the
    kernels are then ordered by their accesses, and their work is handed
    back to `%s` at the end, with no host wait. Launches on a stream of
    another type (a `!gpu.async.token` that stands for a stream) stay in
    program order on it.
  }];
  let dependentDialects = ["async::AsyncDialect"];
  let options = [Option<"maxStreams", "max-streams", "unsigned",
                        /*default=*/"1",
                        "Most independent chains of GPU work per block (1: "
                        "one chain, as before; 0: unbounded)">];
}

def GpuMapParallelLoopsPass
    : Pass<"gpu-map-parallel-loops", "mlir::func::FuncOp"> {
  let summary = "Greedily maps loops to GPU hardware dimensions.";
  let description = [{
    Maps the parallel loops found in the given function to workgroups. The first
    loop encountered will be mapped to the global workgroup and the second loop
    encountered to the local workgroup. Within each mapping, the first three
    dimensions are mapped to x/y/z hardware ids and all following dimensions are
    mapped to sequential loops.

    Ordering of the loop mapping against the different dimensions is controlled
    by the `mapping-policy` option.
    Two policies are supported:
       1. `outermost-first` (default): the outermost loop maps to X, then Y
          and finally Z.
       2. `innermost-first`: the innermost loop maps to X, then Y and finally Z.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
  let options = [Option<"mappingPolicyStr", "mapping-policy", "std::string",
                        /*default=*/"\"outermost-first\"",
                        "Policy outlining how to assign loops to GPU dimensions."
                        "Supported values are `outermost-first` and `innermost-first`.">];
}

def GpuEliminateBarriers
    : Pass<"gpu-eliminate-barriers", "mlir::func::FuncOp"> {
  let summary = "Erase unnecessary barriers";
  let description = [{
    Barrier elimination pass. If a barrier does not enforce any conflicting
    pair of memory effects, including a pair that is enforced by another
    barrier, it is unnecessary and can be removed. Adapted from
    "High-Performance GPU-to-CPU Transpilation and Optimization via High-Level
    Parallel Constructs" by Moses, Ivanov, Domke, Endo, Doerfert, and Zinenko in
    PPoPP 2023 and implementation in Polygeist.
  }];
  let dependentDialects = [
    "mlir::gpu::GPUDialect",
    "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect"
  ];
}

def GpuDecomposeMemrefsPass : Pass<"gpu-decompose-memrefs"> {
  let summary = "Decomposes memref index computation into explicit ops.";
  let description = [{
    This pass decomposes memref index computation into explicit computations on
    sizes/strides, obtained from `memref.extract_memref_metadata` which it tries
    to place outside of `gpu.launch` body. Memrefs are then reconstructed using
    `memref.reinterpret_cast`.
    This is needed for as some targets (SPIR-V) lower memrefs to bare pointers
    and sizes/strides for dynamically-sized memrefs are not available inside
    `gpu.launch`.
  }];
  let dependentDialects = [
    "mlir::gpu::GPUDialect", "mlir::memref::MemRefDialect",
    "mlir::affine::AffineDialect"
  ];
}

def GpuModuleToBinaryPass
    : Pass<"gpu-module-to-binary", ""> {
  let summary = "Transforms a GPU module into a GPU binary.";
  let description = [{
    This pass searches for all nested GPU modules and serializes the module
    using the target attributes attached to the module, producing a GPU binary
    with an object for every target.

    The `format` argument can have the following values:
    1. `offloading`, `llvm`: produces an offloading representation.
    2. `assembly`, `isa`: produces assembly code.
    3. `binary`, `bin`: produces binaries.
    4. `fatbinary`, `fatbin`: produces fatbinaries.
  }];
  let options = [
    Option<"toolkitPath", "toolkit", "std::string", [{""}],
           "Toolkit path.">,
    ListOption<"linkFiles", "l", "std::string",
           "Extra files to link to.">,
    Option<"cmdOptions", "opts", "std::string", [{""}],
           "Command line options to pass to the tools.">,
    Option<"compilationTarget", "format", "std::string", [{"fatbin"}],
           "The target representation of the compilation process.">,
    Option<"elfSection", "section", "std::string", [{""}],
           "ELF section where binary is to be located.">
  ];
}

def GpuNVVMAttachTarget: Pass<"nvvm-attach-target", ""> {
  let summary = "Attaches an NVVM target attribute to a GPU Module.";
  let description = [{
    This pass searches for all GPU Modules in the immediate regions and attaches
    an NVVM target if the module matches the name specified by the `module` argument.

    Example:
    ```
    // File: in.mlir:
    gpu.module @nvvm_module_1 {...}
    gpu.module @nvvm_module_2 {...}
    gpu.module @rocdl_module_1 {...}
    // mlir-opt --nvvm-attach-target="module=nvvm.* chip=sm_90" in.mlir
    gpu.module @nvvm_module_1 [#nvvm.target<chip = "sm_90">] {...}
    gpu.module @nvvm_module_2 [#nvvm.target<chip = "sm_90">] {...}
    gpu.module @rocdl_module_1 {...}
    ```
  }];
  let options = [
    Option<"moduleMatcher", "module", "std::string",
           /*default=*/ [{""}],
           "Regex used to identify the modules to attach the target to.">,
    Option<"triple", "triple", "std::string",
           /*default=*/ "\"nvptx64-nvidia-cuda\"",
           "Target triple.">,
    Option<"chip", "chip", "std::string",
           /*default=*/"\"sm_75\"",
           "Target chip.">,
    Option<"features", "features", "std::string",
           /*default=*/"\"\"",
           "Target features.">,
    Option<"optLevel", "O", "unsigned",
           /*default=*/"2",
           "Optimization level.">,
    Option<"fastFlag", "fast", "bool",
           /*default=*/"false",
           "Enable fast math mode.">,
    Option<"ftzFlag", "ftz", "bool",
           /*default=*/"false",
           "Enable flush to zero for denormals.">,
    Option<"compilerDiagnosticsFlag", "collect-compiler-diagnostics", "bool",
           /*default=*/"false",
           "Enable collection of compiler diagnostics.">,
    ListOption<"linkLibs", "l", "std::string",
           "Extra bitcode libraries paths to link to.">,
    Option<"cmdOptions", "ptxas-cmd-options", "std::string",
           /*default=*/ [{""}],
           "Command line options passed to downstream compiler">,
    Option<"verifyTarget", "verify-target-arch", "bool",
           /*default=*/"true",
           "Enable verification of the target architecture">,
  ];
}

def GpuROCDLAttachTarget: Pass<"rocdl-attach-target", ""> {
  let summary = "Attaches a ROCDL target attribute to a GPU Module.";
  let description = [{
    This pass searches for all GPU Modules in the immediate regions and attaches
    a ROCDL target if the module matches the name specified by the `module` argument.

    Example:
    ```
    // File: in.mlir:
    gpu.module @nvvm_module_1 {...}
    gpu.module @nvvm_module_2 {...}
    gpu.module @rocdl_module_1 {...}
    // mlir-opt --nvvm-attach-target="module=rocdl.* chip=gfx90a" in.mlir
    gpu.module @nvvm_module_1 {...}
    gpu.module @nvvm_module_2 {...}
    gpu.module @rocdl_module_1 [#rocdl.target<chip = "gfx90a">] {...}
    ```
  }];
  let options = [
    Option<"moduleMatcher", "module", "std::string",
           /*default=*/ [{""}],
           "Regex used to identify the modules to attach the target to.">,
    Option<"triple", "triple", "std::string",
           /*default=*/ "\"amdgcn-amd-amdhsa\"",
           "Target triple.">,
    Option<"chip", "chip", "std::string",
           /*default=*/"\"gfx900\"",
           "Target chip.">,
    Option<"features", "features", "std::string",
           /*default=*/"\"\"",
           "Target features.">,
    Option<"abiVersion", "abi", "std::string",
           /*default=*/"\"600\"",
           "ABI version.">,
    Option<"optLevel", "O", "unsigned",
           /*default=*/"2",
           "Optimization level.">,
    Option<"wave64Flag", "wave64", "bool",
           /*default=*/"true",
           "Use Wave64 mode.">,
    Option<"fastFlag", "fast", "bool",
           /*default=*/"false",
           "Enable fast relaxed math opt.">,
    Option<"dazFlag", "daz", "bool",
           /*default=*/"false",
           "Enable denormals are zero opt.">,
    Option<"finiteOnlyFlag", "finite-only", "bool",
           /*default=*/"false",
           "Enable finite only opt.">,
    Option<"unsafeMathFlag", "unsafe-math", "bool",
           /*default=*/"false",
           "Enable unsafe math opt.">,
    Option<"correctSqrtFlag", "correct-sqrt", "bool",
           /*default=*/"true",
           "Enable correct rounded sqrt.">,
    ListOption<"linkLibs", "l", "std::string",
           "Extra bitcode libraries paths to link to.">,
  ];
}

def GpuSPIRVAttachTarget: Pass<"spirv-attach-target", ""> {
  let summary = "Attaches an SPIR-V target attribute to a GPU Module.";
  let description = [{
    This pass searches for all GPU Modules in the immediate regions and attaches
    an SPIR-V target if the module matches the name specified by the `module` argument.

    Example:
    ```
    // Given the following file: in1.mlir:
    gpu.module @nvvm_module_1 {...}
    gpu.module @spirv_module_1 {...}
    // With
    // mlir-opt --spirv-attach-target="module=spirv.* ver=v1.0 caps=Kernel" in1.mlir
    // it will generate,
    gpu.module @nvvm_module_1 {...}
    gpu.module @spirv_module_1 [#spirv.target<#spirv.vce<v1.0, [Kernel], []>, #spirv.resource_limits<>>] {...}
    ```
  }];
  let options = [
    Option<"moduleMatcher", "module", "std::string",
           /*default=*/ [{""}],
           "Regex used to identify the modules to attach the target to.">,
    Option<"spirvVersion", "ver", "std::string",
           /*default=*/ "\"v1.0\"",
           "SPIR-V Version.">,
    ListOption<"spirvCapabilities", "caps", "std::string",
           "List of supported SPIR-V Capabilities">,
    ListOption<"spirvExtensions", "exts", "std::string",
           "List of supported SPIR-V Extensions">,
    Option<"clientApi", "client_api", "std::string",
           /*default=*/ "\"Unknown\"",
           "Client API">,
    Option<"deviceVendor", "vendor", "std::string",
           /*default=*/ "\"Unknown\"",
           "Device Vendor">,
    Option<"deviceType", "device_type", "std::string",
           /*default=*/ "\"Unknown\"",
           "Device Type">,
    Option<"deviceId", "device_id", "uint32_t",
           /*default=*/ "",
           "Device ID">,
  ];
}

def GpuXeVMAttachTarget : Pass<"xevm-attach-target", ""> {
  let summary = "Attaches a XeVM target attribute to a GPU Module.";
  let description = [{
    This pass searches for all GPU Modules in the immediate regions and attaches
    a XeVM target if the module matches the name specified by the `module` argument.

    Example:
    ```
    // File: in.mlir:
    gpu.module @nvvm_module_1 {...}
    gpu.module @rocdl_module_2 {...}
    gpu.module @xevm_module_3 {...}
    // mlir-opt --xevm-attach-target="module=xevm.* chip=pvc" in.mlir
    gpu.module @nvvm_module_1 {...}
    gpu.module @rocdl_module_2 {...}
    gpu.module @xevm_module_3 [#xevm.target<chip = "pvc">] {...}
    ```
  }];
  let options =
      [Option<"moduleMatcher", "module", "std::string",
              /*default=*/[{""}],
              "Regex used to identify the modules to attach the target to.">,
       Option<"triple", "triple", "std::string",
              /*default=*/"\"spirv64-unknown-unknown\"", "Target triple.">,
       Option<"chip", "chip", "std::string",
              /*default=*/"\"bmg\"", "Target chip.">,
       Option<"optLevel", "O", "unsigned",
              /*default=*/"2", "Optimization level.">,
       ListOption<"linkLibs", "l", "std::string",
                  "Extra bitcode libraries paths to link to.">,
       Option<"cmdOptions", "cmd-options", "std::string",
              /*default=*/[{""}],
              "Command line options passed to downstream compiler">];
}
#endif // MLIR_DIALECT_GPU_PASSES
