"""Runs the calling script inside the Debian sysroot of scripts/common.sh
when the toolchain it needs (Debian's LLVM 23 tools under /usr/lib/llvm-23)
is only there: on a Debian 12 host, where scripts/install-deps.sh put it into
the sysroot. Inside the sysroot, or where the host has the toolchain, it does
nothing.

The sysroot sees the repository and the cache at their host paths, and the
script runs in the same working directory: paths on its command line must be
in one of them (not under /tmp, say)."""

import os
import sys

SYSROOT_MARK = "/.mlir-gpu-series-sysroot"
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def reexec_if_needed(tool="/usr/lib/llvm-23/bin/mlir-opt"):
    """Re-executes sys.argv in the sysroot unless this process is in it, or
    `tool` exists here."""
    if os.path.exists(SYSROOT_MARK) or os.path.exists(tool):
        return
    sys.stdout.flush()
    os.execvp("bash", [
        "bash", "-c",
        'source "$1/scripts/common.sh" && shift && '
        'use_sysroot || die "$1 needs Debian'"'"'s LLVM 23 tools, which '
        'scripts/install-deps.sh installs" && run_in_sysroot python3 "$@"',
        "in_sysroot", REPO_ROOT, os.path.abspath(sys.argv[0]), *sys.argv[1:]
    ])
