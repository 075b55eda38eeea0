#!/usr/bin/env python3
"""Prints a module of N random host programs over GPU async tokens, with a
@main that runs them all.

The programs are built from async GPU ops (gpu.wait async,
gpu.launch_func async, gpu.memset async) that depend on random subsets of the
tokens produced so far (forks and joins), synchronous gpu.wait and token-less
gpu.memset, uses of earlier tokens inside scf.if and scf.for bodies, and
tokens that cross region boundaries: scf.for iter_args, scf.if results,
function arguments and results, one token passed on as two operands,
async.execute bodies and the tokens they yield (awaited once each). Some
tokens are never used. Lowered and run with the checking GPU runtime, they
must neither leak nor misuse a stream or an event.

  token_graphs.py [--seed S] [-n N] [--first K]
"""

import argparse
import random

HEADER = """module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%arg0 : memref<16xi32>) kernel {
      gpu.return
    }
  }
  func.func @helper(%t : !gpu.async.token, %buf : memref<16xi32>)
      -> !gpu.async.token {
    %c1 = arith.constant 1 : index
    %t1 = gpu.launch_func async [%t] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%buf : memref<16xi32>)
    %t2 = gpu.launch_func async [%t] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%buf : memref<16xi32>)
    %t3 = gpu.wait async [%t1, %t2]
    return %t3 : !gpu.async.token
  }
  func.func @helper2(%t : !gpu.async.token, %u : !gpu.async.token,
                     %buf : memref<16xi32>)
      -> (!gpu.async.token, !gpu.async.token) {
    %c1 = arith.constant 1 : index
    %t1 = gpu.launch_func async [%t, %u] @kernels::@kernel
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%buf : memref<16xi32>)
    return %t1, %t1 : !gpu.async.token, !gpu.async.token
  }
"""


class Program:
    def __init__(self, rng, index):
        self.rng = rng
        self.index = index
        self.lines = []
        self.tokens = []
        # The tokens that lower to events: results of regions and calls.
        self.events = []
        self.counter = 0

    def fresh(self):
        self.counter += 1
        return f"%t{self.counter}"

    def deps(self, low, high):
        k = self.rng.randint(low, min(high, len(self.tokens)))
        return self.rng.sample(self.tokens, k) if k else []

    @staticmethod
    def dep_list(deps):
        return f" [{', '.join(deps)}]" if deps else ""

    def launch(self, deps, indent="    "):
        token = self.fresh()
        self.lines.append(
            f"{indent}{token} = gpu.launch_func async{self.dep_list(deps)} "
            "@kernels::@kernel blocks in (%c1, %c1, %c1) "
            "threads in (%c1, %c1, %c1) args(%buf : memref<16xi32>)")
        return token

    def generate(self):
        rng = self.rng
        for _ in range(rng.randint(3, 14)):
            kind = rng.choices(
                ["wait_async", "launch", "memset", "sync_wait",
                 "sync_memset", "if", "for", "for_carried", "if_result",
                 "call", "twice", "execute"],
                weights=[3, 5, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1])[0]
            if kind == "wait_async":
                token = self.fresh()
                self.lines.append(
                    f"    {token} = gpu.wait async{self.dep_list(self.deps(0, 3))}")
                self.tokens.append(token)
            elif kind == "launch":
                self.tokens.append(self.launch(self.deps(0, 3)))
            elif kind == "memset":
                token = self.fresh()
                self.lines.append(
                    f"    {token} = gpu.memset async{self.dep_list(self.deps(0, 3))} "
                    "%buf, %v : memref<16xi32>, i32")
                self.tokens.append(token)
            elif kind == "sync_wait" and self.tokens:
                self.lines.append(f"    gpu.wait [{', '.join(self.deps(1, 2))}]")
            elif kind == "sync_memset":
                self.lines.append(
                    f"    gpu.memset{self.dep_list(self.deps(0, 2))} "
                    "%buf, %v : memref<16xi32>, i32")
            elif kind in ("if", "for") and self.tokens:
                deps = self.deps(1, 2)
                head = ("    scf.if %cond {" if kind == "if" else
                        "    scf.for %i = %c0 to %c2 step %c1 {")
                self.lines.append(head)
                if rng.random() < 0.5:
                    self.lines.append(f"      gpu.wait [{', '.join(deps)}]")
                else:
                    inner = self.launch(deps, indent="      ")
                    self.lines.append(f"      gpu.wait [{inner}]")
                self.lines.append("    }")
            elif kind == "for_carried" and self.tokens:
                init, = self.deps(1, 1)
                token, arg = self.fresh(), self.fresh()
                self.lines.append(
                    f"    {token} = scf.for %i = %c0 to %c2 step %c1 "
                    f"iter_args({arg} = {init}) -> !gpu.async.token {{")
                if rng.random() < 0.25:
                    yielded = arg
                else:
                    outer = self.deps(0, 1)
                    yielded = self.launch([arg] + outer, indent="      ")
                self.lines.append(f"      scf.yield {yielded} : !gpu.async.token")
                self.lines.append("    }")
                self.tokens.append(token)
                self.events.append(token)
            elif kind == "if_result" and self.tokens:
                token = self.fresh()
                self.lines.append(f"    {token} = scf.if %cond -> !gpu.async.token {{")
                inner = self.launch(self.deps(1, 2), indent="      ")
                self.lines.append(f"      scf.yield {inner} : !gpu.async.token")
                self.lines.append("    } else {")
                other, = self.deps(1, 1)
                self.lines.append(f"      scf.yield {other} : !gpu.async.token")
                self.lines.append("    }")
                self.tokens.append(token)
                self.events.append(token)
            elif kind == "twice" and self.tokens:
                self.pass_twice()
            elif kind == "call" and self.tokens:
                token = self.fresh()
                arg, = self.deps(1, 1)
                self.lines.append(
                    f"    {token} = func.call @helper({arg}, %buf) : "
                    "(!gpu.async.token, memref<16xi32>) -> !gpu.async.token")
                self.tokens.append(token)
                self.events.append(token)
            elif kind == "execute":
                handle, value, token = self.fresh(), self.fresh(), self.fresh()
                self.lines.append(
                    f"    {handle}, {value} = async.execute -> "
                    "!async.value<!gpu.async.token> {")
                inner = self.launch(self.deps(0, 2), indent="      ")
                self.lines.append(f"      async.yield {inner} : !gpu.async.token")
                self.lines.append("    }")
                self.lines.append(
                    f"    {token} = async.await {value} : "
                    "!async.value<!gpu.async.token>")
                self.tokens.append(token)
                self.events.append(token)
        # Wait for some of the work at the end; streams must be destroyed
        # whether or not they were waited for.
        if self.tokens and rng.random() < 0.7:
            self.lines.append(f"    gpu.wait [{', '.join(self.deps(1, 3))}]")

    def source(self):
        """A token to pass on twice: mostly one that lowers to an event."""
        if self.events and self.rng.random() < 0.75:
            return self.rng.choice(self.events)
        return self.deps(1, 1)[0]

    def pass_twice(self):
        """One token passed on as two operands: yielded twice by an scf.if,
        both initial values and both yielded values of an scf.for, or both
        arguments of a call that returns one token twice."""
        rng = self.rng
        first, second = self.fresh(), self.fresh()
        pair = "(!gpu.async.token, !gpu.async.token)"
        shape = rng.choice(["if", "for", "call"])
        if shape == "if":
            self.lines.append(f"    {first}, {second} = scf.if %cond -> {pair} {{")
            inner = self.launch(self.deps(1, 2), indent="      ")
            self.lines.append(f"      scf.yield {inner}, {inner} : "
                              "!gpu.async.token, !gpu.async.token")
            self.lines.append("    } else {")
            other = self.source()
            self.lines.append(f"      scf.yield {other}, {other} : "
                              "!gpu.async.token, !gpu.async.token")
            self.lines.append("    }")
        elif shape == "for":
            init = self.source()
            a, b = self.fresh(), self.fresh()
            self.lines.append(
                f"    {first}, {second} = scf.for %i = %c0 to %c2 step %c1 "
                f"iter_args({a} = {init}, {b} = {init}) -> {pair} {{")
            if rng.random() < 0.25:
                yielded = [b, a]
            else:
                inner = self.launch([a, b], indent="      ")
                yielded = [inner, inner]
            self.lines.append(f"      scf.yield {', '.join(yielded)} : "
                              "!gpu.async.token, !gpu.async.token")
            self.lines.append("    }")
        else:
            arg = self.source()
            self.lines.append(
                f"    {first}, {second} = func.call @helper2({arg}, {arg}, %buf)"
                " : (!gpu.async.token, !gpu.async.token, memref<16xi32>) -> "
                f"{pair}")
        self.tokens += [first, second]
        self.events += [first, second]

    def text(self):
        body = "\n".join(self.lines)
        return f"""  func.func @prog{self.index}(%buf : memref<16xi32>, %cond : i1) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %v = arith.constant 7 : i32
{body}
    return
  }}
"""



def module(seed, first, count):
    rng = random.Random(seed * 1000003 + first)
    programs = []
    for i in range(first, first + count):
        program = Program(rng, i)
        program.generate()
        programs.append(program)
    calls = "\n".join(
        f"    func.call @prog{p.index}(%buf, %{'t' if p.index % 2 else 'f'})"
        " : (memref<16xi32>, i1) -> ()" for p in programs)
    return HEADER + "".join(p.text() for p in programs) + f"""  func.func @main() {{
    %t = arith.constant true
    %f = arith.constant false
    %buf = gpu.alloc () : memref<16xi32>
{calls}
    gpu.dealloc %buf : memref<16xi32>
    return
  }}
}}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-n", type=int, default=100, help="number of programs")
    parser.add_argument("--first", type=int, default=0,
                        help="index of the first program")
    args = parser.parse_args()
    print(module(args.seed, args.first, args.n), end="")


if __name__ == "__main__":
    main()
