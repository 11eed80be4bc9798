"""Child processes that do not outlive the process that started them.

The build runs each stage as ``python -m MODULE`` (common/runner.py), and a
stage may start its own (training, notebook kernels). When the parent is killed
outright (``kill -9``: no cleanup runs), an orphaned stage would go on writing
into build/ and starting kernels while the build lock is already free for the
next build. On Linux each child asks the kernel for SIGTERM when its parent
dies (``PR_SET_PDEATHSIG``); elsewhere children run as plain subprocesses.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _die_with(parent: int):
    def preexec() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)

    return preexec


def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    """``subprocess.run(command, **kwargs)``; the child gets SIGTERM if this process dies.

    Call it from the main thread: the kernel signals the child when the thread
    that started it ends."""
    if sys.platform.startswith("linux"):
        kwargs.setdefault("preexec_fn", _die_with(os.getpid()))
    return subprocess.run(command, **kwargs)
