"""Subprocess checks that start when the session starts and are asserted on
later (conftest.py ``background``).

A check that runs on one core for a long time (the trace replay: training is
pinned to one thread, models/numerics.py) and needs nothing from the tests
before it starts as soon as the tests are collected, when a selected test
asks for it; the test that asserts on it waits for it then. The suite's other
tests leave about a third of the machine's two cores idle (browser round
trips, served files), which the job uses. It runs exactly the command it
would run in the test, so what it checks does not change; only when.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

# name -> the Python command line (after the interpreter); conftest.py's fixture of
# the same name waits for it
JOBS = {
    # `make trace-check`'s 100 updates of attn1, and the first ten of the other kinds
    # (models/trace_check.py; one process, the corpus prepared once)
    "trace_replay": ["-m", "models.trace_check", "--kind", "attn1", "mlp", "attn4", "--steps", "100", "10", "10"],
}


@dataclass
class Job:
    name: str
    argv: list[str]
    cwd: str
    timeout_s: float
    _process: subprocess.Popen | None = None
    _out: object = None
    _err: object = None
    _started: float = 0.0
    _done: subprocess.CompletedProcess | None = field(default=None, repr=False)

    def start(self) -> None:
        if self._process is None:
            self._out, self._err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
            self._started = time.monotonic()
            env = dict(os.environ, PYTHONUNBUFFERED="1")
            self._process = subprocess.Popen(
                self.argv, cwd=self.cwd, stdout=self._out, stderr=self._err, text=True, env=env
            )

    def result(self) -> subprocess.CompletedProcess:
        """The finished run (started now if it was not); a run past its timeout is
        stopped and fails naming the job and what it printed."""
        if self._done is None:
            self.start()
            left = self.timeout_s - (time.monotonic() - self._started)
            try:
                code = self._process.wait(timeout=max(left, 1))
            except subprocess.TimeoutExpired:
                self.stop()
                raise AssertionError(f"{self.name}: {' '.join(self.argv)} ran over {self.timeout_s:.0f} s") from None
            self._out.seek(0)
            self._err.seek(0)
            self._done = subprocess.CompletedProcess(self.argv, code, self._out.read(), self._err.read())
        return self._done

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()
