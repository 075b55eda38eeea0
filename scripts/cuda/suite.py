#!/usr/bin/env python3
"""Builds MLIR's CUDA integration tests as native executables.

Each test under mlir/test/Integration/GPU/CUDA is a lit test whose RUN lines
pipe the source through mlir-opt, JIT-compile the result with mlir-runner
and FileCheck its output. The GPU machines that can run these tests have no
LLVM or MLIR installed, so this helper does ahead of time what mlir-runner
would do at run time:

  mlir-opt stages  ->  mlir-translate --mlir-to-llvmir  ->  [opt -On]  ->  llc
  -> object with the entry function renamed  ->  linked with a small C entry
  shim (scripts/cuda/entry.c) and the --shared-libs of the RUN line.

The executable then behaves like `mlir-runner ... --entry-point-result=void`:
global constructors (GPU module loads) run before the entry function,
global destructors (module unloads) after it, then the library destroy hook
(async runtime), all before the process exits.

One RUN line is one job. A job is
  exec         built into bin/<name>; its output is FileChecked later;
  compile      no mlir-runner stage: run and FileChecked here, at build time;
  unsupported  cannot be expressed this way; `reason` says why;
  failed       should have built but a step failed; `reason` says which.

The result is a manifest (manifest.json, and manifest.tsv for POSIX sh on
the GPU machine) plus a copy of every test source under tests/ (their CHECK
lines are needed to check the results later).

Used by scripts/cuda/cuda-suite.sh; not meant to be run by hand, but
`suite.py build --help` lists the options.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time

# lit substitutions of mlir/test/lit.cfg.py and the CUDA lit.local.cfg. The
# libraries are named by file: they are linked from the suite's lib/ folder.
LIBRARY_SUBSTITUTIONS = {
    "%mlir_cuda_runtime": "libmlir_cuda_runtime.so",
    "%mlir_runner_utils": "libmlir_runner_utils.so",
    "%mlir_c_runner_utils": "libmlir_c_runner_utils.so",
    "%mlir_async_runtime": "libmlir_async_runtime.so",
}

# Defaults of the NVVM target options when a pipeline does not set them
# (GPU/Pipelines/Passes.h and the nvvm-attach-target pass in Passes.td).
PIPELINE_DEFAULT_CHIP = "sm_50"
PIPELINE_DEFAULT_FEATURES = "+ptx60"
ATTACH_DEFAULT_CHIP = "sm_50"

# The PTX ISA version a raised target gets, by SM number. PTX 8.0 can target
# everything up to sm_90a; newer chips need newer PTX.
PTX_FOR_SM = {75: 80, 80: 80, 86: 80, 87: 80, 89: 80, 90: 80,
              100: 86, 101: 86, 103: 88, 120: 87, 121: 88}

# The names the entry shim (entry.c) links against.
ENTRY_SYMBOL = "cuda_suite_entry"
INIT_SYMBOL = "cuda_suite_init"
FINI_SYMBOL = "cuda_suite_fini"

# The entry point result types mlir-runner supports, and the shim's macro.
ENTRY_RESULTS = {"void": "VOID", "i32": "I32", "i64": "I64", "f32": "F32"}

# Tests whose host side cannot run under the checking runtime for a reason
# that the symbol check below does not find by itself. Keyed by job name.
NOT_HOST_CHECKABLE = {}

STAGE_TIMEOUT_S = 900


class Unsupported(Exception):
    """A RUN line this helper cannot turn into an executable."""


class StepFailed(Exception):
    """A build step that should have worked did not."""


# ---------------------------------------------------------------------------
# RUN line parsing.
# ---------------------------------------------------------------------------

def read_run_commands(path):
    """Returns the RUN commands of a lit test, continuation lines joined."""
    commands, pending = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.search(r"(?://|#)\s*RUN:(.*)$", line)
            if not m:
                if pending is not None:
                    raise Unsupported("RUN line continued by a non-RUN line")
                continue
            text = m.group(1).strip()
            if text.endswith("\\"):
                pending = (pending or "") + text[:-1] + " "
                continue
            commands.append((pending or "") + text)
            pending = None
    if pending is not None:
        raise Unsupported("last RUN line ends with a continuation")
    return commands


def substitute(command, fmt):
    """Applies the lit substitutions this suite knows; %s stays for later."""
    for key in sorted(LIBRARY_SUBSTITUTIONS, key=len, reverse=True):
        command = command.replace(key, LIBRARY_SUBSTITUTIONS[key])
    command = command.replace("%gpu_compilation_format", fmt)
    unknown = sorted(set(re.findall(r"%[A-Za-z_{][\w}]*", command)) - {"%s"})
    if unknown:
        raise Unsupported("uses lit substitution(s) %s, which have no "
                          "ahead-of-time equivalent here" % ", ".join(unknown))
    return command


class Stage:
    """One command of a RUN pipeline."""

    def __init__(self, argv, env, merge_stderr):
        self.argv = argv
        self.env = env
        self.merge_stderr = merge_stderr

    @property
    def tool(self):
        return self.argv[0]


def split_pipeline(command):
    """Splits a RUN command into stages on `|`; handles `env A=B` and `2>&1`."""
    try:
        tokens = shlex.split(command)
    except ValueError as e:
        raise Unsupported("cannot parse RUN line: %s" % e)
    stages, current = [], []
    for token in tokens + ["|"]:
        if token != "|":
            current.append(token)
            continue
        if not current:
            raise Unsupported("empty pipeline stage")
        env, merge = {}, False
        if current[0] == "env":
            current = current[1:]
            while current and re.match(r"^[A-Za-z_]\w*=", current[0]):
                key, value = current[0].split("=", 1)
                env[key] = value
                current = current[1:]
        if current and current[-1] == "2>&1":
            merge = True
            current = current[:-1]
        for token in current:
            if token in ("&&", "||", ";", "&") or re.match(r"^\d?[<>]", token):
                raise Unsupported("shell construct '%s' in RUN line" % token)
        if not current:
            raise Unsupported("pipeline stage with only an environment")
        stages.append(Stage(current, env, merge))
        current = []
    return stages


# ---------------------------------------------------------------------------
# Retargeting: the tests name chips CUDA 13 can no longer compile for (its
# ptxas dropped everything before sm_75) or PTX versions too old for the GPU
# the suite is built for. Every NVVM target below the requested chip is raised
# to it; targets at or above it (the sm_90a tests) are left alone.
# ---------------------------------------------------------------------------

def sm_number(chip):
    m = re.match(r"^sm_(\d+)[a-z]?$", chip)
    if not m:
        raise Unsupported("unrecognized NVVM chip '%s'" % chip)
    return int(m.group(1))


def split_options(text):
    """Splits `k=v k='a b' k={...}` at top-level spaces, keeping order."""
    items, current, quote, depth = [], "", None, 0
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == " " and depth == 0:
            if current:
                items.append(current)
            current = ""
            continue
        current += ch
    if quote or depth:
        raise Unsupported("unbalanced pass options '%s'" % text)
    if current:
        items.append(current)
    return [tuple(item.split("=", 1)) if "=" in item else (item, None)
            for item in items]


def join_options(items):
    return " ".join(k if v is None else "%s=%s" % (k, v) for k, v in items)


def raise_target(items, chip_key, features_key, default_chip,
                 default_features, want, notes, where):
    """Raises the chip (and its PTX version) of one option list in place."""
    options = dict(items)
    have = options.get(chip_key) or default_chip
    if sm_number(have) >= sm_number(want):
        return items
    ptx = PTX_FOR_SM.get(sm_number(want))
    assert ptx is not None, "main() validates --chip"
    out = [(k, v) for k, v in items if k not in (chip_key, features_key)]
    out.append((chip_key, want))
    features = options.get(features_key, default_features) or ""
    m = re.search(r"\+ptx(\d+)", features)
    if m and int(m.group(1)) < ptx:
        features = features.replace(m.group(0), "+ptx%d" % ptx)
    if features:
        out.append((features_key, features))
    notes.append("%s: %s -> %s%s" % (where, have, want,
                                     (" " + features) if features else ""))
    return out


def retarget_arg(arg, chip, notes):
    """Returns one mlir-opt argument with its NVVM targets raised to `chip`."""
    m = re.match(r"^(--?gpu-lower-to-nvvm-pipeline)(?:=(.*))?$", arg, re.S)
    if m:
        items = raise_target(split_options(m.group(2) or ""), "cubin-chip",
                             "cubin-features", PIPELINE_DEFAULT_CHIP,
                             PIPELINE_DEFAULT_FEATURES, chip, notes,
                             "gpu-lower-to-nvvm-pipeline")
        return "%s=%s" % (m.group(1), join_options(items))
    m = re.match(r"^(--?nvvm-attach-target)(?:=(.*))?$", arg, re.S)
    if m:
        items = raise_target(split_options(m.group(2) or ""), "chip",
                             "features", ATTACH_DEFAULT_CHIP, "", chip, notes,
                             "nvvm-attach-target")
        return "%s=%s" % (m.group(1), join_options(items)) if items else arg
    m = re.match(r"^(--?pass-pipeline=)(.*)$", arg, re.S)
    if m:
        def attach(match):
            items = raise_target(split_options(match.group(1) or ""), "chip",
                                 "features", ATTACH_DEFAULT_CHIP, "", chip,
                                 notes, "nvvm-attach-target")
            return ("nvvm-attach-target{%s}" % join_options(items)
                    if items else "nvvm-attach-target")
        return m.group(1) + re.sub(r"nvvm-attach-target(?:\{([^}]*)\})?",
                                   attach, m.group(2))
    return arg


# ---------------------------------------------------------------------------
# Planning: one job per RUN line.
# ---------------------------------------------------------------------------

class RunnerOptions:
    """What mlir-runner was asked to do, in ahead-of-time terms."""

    def __init__(self, stage):
        self.libs, self.entry, self.result, self.opt_level = [], "main", "void", None
        self.env = stage.env
        args = stage.argv[1:]
        while args:
            arg, args = args[0], args[1:]
            m = re.match(r"^--?(shared-libs|entry-point-result|e)(?:=(.*))?$", arg)
            if m:
                value = m.group(2)
                if value is None:
                    if not args:
                        raise Unsupported("mlir-runner option %s without a value" % arg)
                    value, args = args[0], args[1:]
                if m.group(1) == "shared-libs":
                    self.libs += [lib for lib in value.split(",") if lib]
                elif m.group(1) == "entry-point-result":
                    if value not in ENTRY_RESULTS:
                        raise Unsupported("mlir-runner entry point result '%s'" % value)
                    self.result = value
                else:
                    self.entry = value
            elif re.match(r"^-O[0-3]$", arg):
                self.opt_level = int(arg[2])
            elif arg == "-":
                pass
            else:
                raise Unsupported("mlir-runner option '%s' has no "
                                  "ahead-of-time equivalent here" % arg)
        for lib in self.libs:
            if lib not in LIBRARY_SUBSTITUTIONS.values():
                raise Unsupported("mlir-runner loads '%s', which the suite "
                                  "does not provide" % lib)


class Job:
    """One RUN line: how to build it and, after building, what it became."""

    def __init__(self, name, source, run):
        self.name, self.source, self.run = name, source, run
        self.kind, self.reason = "unsupported", ""
        self.opt_stages, self.runner, self.filecheck = [], None, None
        self.merge_stderr = False
        self.retarget = []
        self.host_check, self.host_reason = False, ""
        self.result = None  # compile jobs: "pass" or "fail"
        self.seconds = None

    def manifest(self):
        entry = {
            "name": self.name,
            "source": self.source,
            "run": self.run,
            "kind": self.kind,
            "reason": self.reason,
            "exe": "bin/" + self.name if self.kind == "exec" else None,
            "filecheck": self.filecheck,
            "stdout_includes_stderr": self.merge_stderr,
            "env": self.runner.env if self.runner else {},
            "libs": self.runner.libs if self.runner else [],
            "entry": ({"function": self.runner.entry,
                       "result": self.runner.result,
                       "opt_level": self.runner.opt_level}
                      if self.runner else None),
            "retarget": self.retarget,
            "host_check": self.host_check,
            "host_reason": self.host_reason,
            "build_seconds": self.seconds,
        }
        if self.kind == "compile":
            entry["result"] = self.result
        return entry


def test_name(rel):
    return re.sub(r"\.(mlir|py)$", "", rel).replace("/", ".")


def plan_test(tests_root, rel, fmt, chip):
    """Returns the jobs of one test file (none if it has no RUN lines)."""
    path = os.path.join(tests_root, rel)
    base = test_name(rel)
    try:
        commands = read_run_commands(path)
    except Unsupported as e:
        job = Job(base, rel, 1)
        job.reason = str(e)
        return [job]
    jobs = []
    for index, command in enumerate(commands, 1):
        name = base if len(commands) == 1 else "%s.run%d" % (base, index)
        job = Job(name, rel, index)
        try:
            plan_job(job, command, fmt, chip)
        except Unsupported as e:
            job.kind, job.reason = "unsupported", str(e)
        jobs.append(job)
    return jobs


def plan_job(job, command, fmt, chip):
    if "%PYTHON" in command:
        raise Unsupported("driven by Python (MLIR Python bindings and the JIT "
                          "ExecutionEngine), not by an mlir-opt pipeline")
    stages = split_pipeline(substitute(command, fmt))
    if stages[-1].tool != "FileCheck" and "mlir-runner" not in [s.tool for s in stages]:
        raise Unsupported("pipeline ends in '%s', neither mlir-runner nor "
                          "FileCheck" % stages[-1].tool)
    if stages[-1].tool == "FileCheck":
        check = stages.pop()
        if check.env:
            raise Unsupported("FileCheck with an environment")
        args = check.argv[1:]
        if any(re.search(r"\s", a) for a in args):
            raise Unsupported("FileCheck argument with white space")
        job.filecheck = args
    runner_at = [i for i, s in enumerate(stages) if s.tool == "mlir-runner"]
    if len(runner_at) > 1 or (runner_at and runner_at[0] != len(stages) - 1):
        raise Unsupported("mlir-runner is not the last stage before FileCheck")
    if runner_at:
        runner = stages.pop()
        job.runner = RunnerOptions(runner)
        job.merge_stderr = runner.merge_stderr
    for stage in stages:
        if stage.tool != "mlir-opt":
            raise Unsupported("pipeline stage '%s' (only mlir-opt stages can "
                              "come before mlir-runner)" % stage.tool)
        if stage.env:
            raise Unsupported("mlir-opt with an environment")
        for arg in stage.argv[1:]:
            if re.match(r"^--?debug-only", arg):
                raise Unsupported(
                    "uses %s, an option that Debian's LLVMSupport (built "
                    "without assertions) does not register in "
                    "build/bin/mlir-opt; compile-only, needs no GPU"
                    % arg.split("=")[0])
        stage.argv = [stage.argv[0]] + [retarget_arg(a, chip, job.retarget)
                                        for a in stage.argv[1:]]
    if not stages or "%s" not in stages[0].argv:
        raise Unsupported("the first stage does not read the test file (%s)")
    job.opt_stages = stages
    if job.runner is None:
        if job.filecheck is None:
            raise Unsupported("compile-only RUN line without FileCheck")
        job.kind = "compile"
        job.merge_stderr = stages[-1].merge_stderr
    else:
        job.kind = "exec"


# ---------------------------------------------------------------------------
# Building.
# ---------------------------------------------------------------------------

class Tools:
    def __init__(self, args):
        self.mlir_opt = args.mlir_opt
        llvm = args.llvm_bin
        self.translate = os.path.join(llvm, "mlir-translate")
        self.opt = os.path.join(llvm, "opt")
        self.llc = os.path.join(llvm, "llc")
        self.objcopy = os.path.join(llvm, "llvm-objcopy")
        self.nm = os.path.join(llvm, "llvm-nm")
        self.clang = os.path.join(llvm, "clang")
        self.filecheck = os.path.join(llvm, "FileCheck")


def wait_for(path, seconds=120):
    """mlir-opt may be relinked by a concurrent build; wait for it to return."""
    deadline = time.time() + seconds
    while not os.access(path, os.X_OK):
        if time.time() > deadline:
            raise StepFailed("%s is missing" % path)
        time.sleep(2)


def run_step(what, argv, log, stdin=None, stdout=None, merge=False, env=None):
    """Runs one build step; stderr goes to `log`. Raises StepFailed."""
    with open(log, "ab") as err:
        err.write(("$ %s\n" % shlex.join(argv)).encode())
        err.flush()
        fin = open(stdin, "rb") if stdin else subprocess.DEVNULL
        fout = open(stdout, "wb") if stdout else err
        try:
            proc = subprocess.run(argv, stdin=fin, stdout=fout,
                                  stderr=(subprocess.STDOUT if merge else err),
                                  env=env, timeout=STAGE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise StepFailed("%s timed out after %ds (log: %s)"
                             % (what, STAGE_TIMEOUT_S, log))
        except OSError as e:
            raise StepFailed("%s could not start: %s" % (what, e))
        finally:
            if stdin:
                fin.close()
            if stdout:
                fout.close()
    if proc.returncode != 0:
        raise StepFailed("%s failed with exit status %d (log: %s)"
                         % (what, proc.returncode, log))


def run_opt_stages(job, tools, tests_root, work, log, env):
    """Runs the mlir-opt stages; returns the file holding the last output."""
    src = os.path.join(tests_root, job.source)
    current = None
    for i, stage in enumerate(job.opt_stages, 1):
        argv = [tools.mlir_opt] + [src if a == "%s" else a for a in stage.argv[1:]]
        out = os.path.join(work, "stage%d.mlir" % i)
        wait_for(tools.mlir_opt)
        run_step("mlir-opt stage %d" % i, argv, log, stdin=current, stdout=out,
                 merge=stage.merge_stderr, env=env)
        current = out
    return current


def lift_global_structors(ll_text, log_name):
    """Moves llvm.global_ctors/dtors into cuda_suite_init/fini functions.

    mlir-runner's ExecutionEngine runs the module's constructors (which load
    the GPU binaries) before the entry function and its destructors (which
    unload them) right after it, while the process is still fully alive. In a
    native executable they would run from .init_array/.fini_array instead,
    and the unloads would come after atexit handlers (the checking runtime's
    report, the CUDA driver's own teardown). So the arrays are removed and
    the entry shim calls the functions explicitly: each list by ascending
    priority, in array order within one priority (the GPU binaries' loads and
    unloads all have priority 123, so that is the order of the gpu.binary ops).
    """
    functions = {}
    lines = []
    for line in ll_text.splitlines():
        m = re.match(r"^@llvm\.global_(ctors|dtors) = appending global .*$", line)
        if not m:
            lines.append(line)
            continue
        entries = re.findall(
            r"\{ i32 (\d+), ptr (@(?:\"[^\"]+\"|[-\w.$]+)), ptr ([^ }]+) \}", line)
        if not entries and "zeroinitializer" not in line:
            raise StepFailed("cannot parse %s in %s" % (line[:60], log_name))
        for _, _, data in entries:
            if data != "null":
                raise StepFailed("llvm.global_%s entry with data %s" % (m.group(1), data))
        functions[m.group(1)] = [f for _, f in sorted(
            ((int(p), i), f) for i, (p, f, _) in enumerate(entries))]
    for kind, symbol in (("ctors", INIT_SYMBOL), ("dtors", FINI_SYMBOL)):
        lines.append("")
        lines.append("define void @%s() {" % symbol)
        for f in functions.get(kind, []):
            lines.append("  call void %s()" % f)
        lines.append("  ret void")
        lines.append("}")
    return "\n".join(lines) + "\n"


def symbols(tools, path, flag):
    out = subprocess.run([tools.nm, flag, "-D" if path.endswith(".so") else "-g",
                          "--format=just-symbols", path],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise StepFailed("llvm-nm %s failed: %s" % (path, out.stderr.strip()))
    return set(out.stdout.split())


_entry_lock = threading.Lock()


def build_entry_object(tools, args, result):
    """Compiles the C entry shim once per entry result type. Jobs run in
    parallel (--jobs), so the first one to need an object builds it under a
    lock and the others wait for it."""
    obj = os.path.join(args.out, "work", "entry-%s.o" % result)
    with _entry_lock:
        if not os.path.exists(obj):
            log = os.path.join(args.out, "work", "entry-%s.log" % result)
            run_step("compiling entry.c", [tools.clang, "-c", "-O2", "-fPIC",
                     "-Wall", "-DCUDA_SUITE_RESULT_%s" % ENTRY_RESULTS[result],
                     args.entry_source, "-o", obj + ".tmp"], log)
            os.replace(obj + ".tmp", obj)
    return obj


def build_exec(job, tools, args, env, check_exports, cuda_exports):
    work = os.path.join(args.out, "work", job.name)
    log = os.path.join(work, "build.log")
    mlir = run_opt_stages(job, tools, args.tests, work, log, env)
    ll = os.path.join(work, "host.ll")
    run_step("mlir-translate", [tools.translate, "--mlir-to-llvmir", mlir,
                                "-o", ll], log)
    with open(ll, encoding="utf-8") as f:
        text = lift_global_structors(f.read(), ll)
    fixed = os.path.join(work, "host.entry.ll")
    with open(fixed, "w", encoding="utf-8") as f:
        f.write(text)
    # mlir-runner optimizes the IR only when given -On, and generates code at
    # that level (the JIT's default, -O2, otherwise).
    level = job.runner.opt_level
    if level is not None:
        optimized = os.path.join(work, "host.opt.ll")
        run_step("opt", [tools.opt, "-S", "-passes=default<O%d>" % level,
                         fixed, "-o", optimized], log)
        fixed = optimized
    obj = os.path.join(work, "host.o")
    run_step("llc", [tools.llc, "-O%d" % (2 if level is None else level),
                     "-relocation-model=pic", "-filetype=obj", fixed,
                     "-o", obj], log)
    defined = symbols(tools, obj, "--defined-only")
    if job.runner.entry not in defined:
        raise StepFailed("entry function '%s' not found in %s"
                         % (job.runner.entry, obj))
    if job.runner.entry != ENTRY_SYMBOL:
        run_step("llvm-objcopy", [tools.objcopy, "--redefine-sym",
                 "%s=%s" % (job.runner.entry, ENTRY_SYMBOL), obj], log)
    entry = build_entry_object(tools, args, job.runner.result)
    exe = os.path.join(args.out, "bin", job.name)
    libs = ["-l:" + lib for lib in job.runner.libs]
    # The executable finds its libraries next to it ($ORIGIN/../lib), so the
    # folder can be moved. libcuda.so.1 (needed by libmlir_cuda_runtime.so)
    # exists only on GPU machines: do not resolve it at link time.
    run_step("link", [tools.clang, "-fuse-ld=lld", obj, entry, "-o", exe,
                      "-L" + os.path.join(args.out, "lib"),
                      "-Wl,--no-as-needed"] + libs +
             ["-lm", "-Wl,-rpath,$ORIGIN/../lib",
              "-Wl,--allow-shlib-undefined"], log)
    # Host-checkable: every symbol the test takes from the CUDA runtime
    # wrappers must also be exported by the checking runtime.
    missing = sorted((symbols(tools, obj, "--undefined-only") & cuda_exports)
                     - check_exports)
    if missing:
        job.host_check = False
        job.host_reason = ("calls %s, which the checking runtime does not "
                           "provide" % ", ".join(missing))
    elif job.name in NOT_HOST_CHECKABLE:
        job.host_check, job.host_reason = False, NOT_HOST_CHECKABLE[job.name]
    else:
        job.host_check = True


def run_filecheck(tools, args, job, input_path, log):
    check = [os.path.join(args.tests, job.source) if a == "%s" else a
             for a in job.filecheck]
    with open(log, "ab") as err:
        err.write(("$ FileCheck %s < %s\n" % (shlex.join(check), input_path)).encode())
        err.flush()
        with open(input_path, "rb") as fin:
            proc = subprocess.run([tools.filecheck] + check, stdin=fin,
                                  stdout=err, stderr=err)
    return proc.returncode == 0


def build_compile(job, tools, args, env):
    """A compile-only RUN line needs no GPU: run and check it now."""
    work = os.path.join(args.out, "work", job.name)
    log = os.path.join(work, "build.log")
    out = run_opt_stages(job, tools, args.tests, work, log, env)
    job.result = "pass" if run_filecheck(tools, args, job, out, log) else "fail"


def build_job(job, tools, args, env, check_exports, cuda_exports):
    work = os.path.join(args.out, "work", job.name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    start = time.time()
    try:
        if job.kind == "exec":
            build_exec(job, tools, args, env, check_exports, cuda_exports)
        else:
            build_compile(job, tools, args, env)
    except StepFailed as e:
        job.kind, job.reason = "failed", str(e)
    job.seconds = round(time.time() - start, 1)
    return job


# ---------------------------------------------------------------------------
# Manifest.
# ---------------------------------------------------------------------------

def tsv_field(value):
    text = "-" if value in (None, "", [], {}) else str(value)
    return re.sub(r"[\t\n]", " ", text)


def write_manifest(jobs, args):
    entries = [j.manifest() for j in jobs]
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump({"chip": args.chip, "format": args.format,
                   "tests": args.tests_label, "jobs": entries}, f, indent=1)
        f.write("\n")
    # For POSIX sh (run.sh on the GPU machine) and bash: one job a line,
    #   name kind exe env merge host filecheck source reason
    # with '-' for empty fields and space-separated lists.
    with open(os.path.join(args.out, "manifest.tsv"), "w") as f:
        f.write("# name\tkind\texe\tenv\tmerge\thost\tfilecheck\tsource\treason\n")
        for e in entries:
            reason = e["reason"] or e["host_reason"]
            if e["kind"] == "compile":
                reason = "checked at build time: %s" % e["result"]
            fields = [e["name"], e["kind"], e["exe"],
                      " ".join("%s=%s" % kv for kv in sorted(e["env"].items())),
                      "1" if e["stdout_includes_stderr"] else "0",
                      "yes" if e["host_check"] else "no",
                      " ".join(e["filecheck"]) if e["filecheck"] is not None else None,
                      e["source"], reason]
            f.write("\t".join(tsv_field(x) for x in fields) + "\n")


def discover(tests_root):
    found = []
    for dirpath, dirnames, filenames in os.walk(tests_root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith((".mlir", ".py")):
                rel = os.path.relpath(os.path.join(dirpath, name), tests_root)
                found.append(rel)
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="plan and build every test")
    b.add_argument("--tests", required=True, help="the CUDA integration test folder")
    b.add_argument("--tests-label", default="", help="how to name it in the manifest")
    b.add_argument("--out", required=True, help="suite folder (lib/ must be there)")
    b.add_argument("--chip", default="sm_90")
    b.add_argument("--format", default="fatbin", help="%%gpu_compilation_format")
    b.add_argument("--mlir-opt", required=True)
    b.add_argument("--llvm-bin", required=True, help="folder of mlir-translate, llc, ...")
    b.add_argument("--check-runtime", required=True, help="libmlir_gpu_check_runtime.so")
    b.add_argument("--entry-source", required=True, help="scripts/cuda/entry.c")
    b.add_argument("--jobs", type=int, default=1)
    b.add_argument("--only", action="append", default=[],
                   help="build only jobs whose name starts with this (repeatable)")
    args = p.parse_args()

    try:
        if sm_number(args.chip) not in PTX_FOR_SM:
            p.error("--chip %s: no PTX version known for it (PTX_FOR_SM)"
                    % args.chip)
    except Unsupported as e:
        p.error("--chip: %s" % e)
    tools = Tools(args)
    # A fresh bin/ and tests/: nothing of a test that no longer exists (or of
    # an earlier --only selection) may linger there.
    for path in ("bin", "tests"):
        shutil.rmtree(os.path.join(args.out, path), ignore_errors=True)
    for path in ("bin", "work"):
        os.makedirs(os.path.join(args.out, path), exist_ok=True)
    env = dict(os.environ)
    check_exports = symbols(tools, args.check_runtime, "--defined-only")
    cuda_exports = symbols(tools, os.path.join(args.out, "lib",
                                               "libmlir_cuda_runtime.so"),
                           "--defined-only")

    jobs = []
    for rel in discover(args.tests):
        jobs += plan_test(args.tests, rel, args.format, args.chip)
    if args.only:
        jobs = [j for j in jobs if any(j.name.startswith(o) for o in args.only)]
    # The CHECK lines are read from these copies later (and on other machines).
    for rel in sorted({j.source for j in jobs}):
        dst = os.path.join(args.out, "tests", rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(os.path.join(args.tests, rel), dst)

    todo = [j for j in jobs if j.kind in ("exec", "compile")]
    done = 0
    with concurrent.futures.ThreadPoolExecutor(max(1, min(args.jobs, 2))) as pool:
        futures = [pool.submit(build_job, j, tools, args, env, check_exports,
                               cuda_exports) for j in todo]
        for future in concurrent.futures.as_completed(futures):
            job = future.result()
            done += 1
            status = {"exec": "built", "compile": "compile-only, FileCheck %s"
                      % job.result, "failed": "error: " + job.reason}[job.kind]
            print("[%d/%d] %s: %s (%.1fs)" % (done, len(todo), job.name, status,
                                              job.seconds), flush=True)

    write_manifest(jobs, args)
    built = [j for j in jobs if j.kind == "exec"]
    unsupported = [j for j in jobs if j.kind == "unsupported"]
    compiled = [j for j in jobs if j.kind == "compile"]
    failed = [j for j in jobs if j.kind == "failed" or
              (j.kind == "compile" and j.result != "pass")]
    for j in unsupported:
        print("unsupported: %s: %s" % (j.name, j.reason))
    for j in compiled:
        print("compile-only (checked now): %s: %s" % (j.name, j.result))
    for j in built:
        if not j.host_check:
            print("not host-checkable: %s: %s" % (j.name, j.host_reason))
    print("built %d, unsupported %d" % (len(built), len(unsupported)))
    print("compile-only checked at build time %d (%d passed); host-checkable %d"
          % (len(compiled), sum(j.result == "pass" for j in compiled),
             sum(j.host_check for j in built)))
    for j in failed:
        print("error: %s: %s" % (j.name, j.reason or "FileCheck failed (log: %s)"
                                 % os.path.join(args.out, "work", j.name, "build.log")),
              file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
