"""Subprocess work that starts when the session starts and is asserted on later
(conftest.py ``pytest_collection_finish``).

Work that runs long on about one core and needs nothing from the tests before
it (the trace replay: training is pinned to one thread, models/numerics.py;
the deck and exercise walks, support/prefetch.py) starts as soon as the tests
are collected, when a selected test asks for it, one job after another in one
lane beside the tests, at nice 19 (NICE); the test that asserts on
it waits for it then. The suite's other tests leave about a third of the
machine's two cores idle (browser round trips, served files, waits), which
the lane uses; run at the tests' own priority it took as much from the tests
beside it as it saved. Each job runs
exactly the command the test would run, so what it checks does not change;
only when.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

# the lane's jobs start at nice 19: at the tests' priority they slowed the tests beside
# them by about what they saved. Chromium, run as root, sets its own processes'
# priorities (browser and GPU process at nice -8, renderers at 0), so the walks' pages
# still run at about the tests' priority; Linux's idle class (`chrt --idle 0`, which
# Chromium's setpriority does not change) was tried for the walks and the trace replay
# and gained nothing measurable (four runs of the engine and exercise tests beside the
# walks: 171 and 172 s idle class, 182 and 162 s nice 19), at the risk of a walk starved
# past its timeouts while the tests hold both cores.
NICE = 19

# name -> the Python command line (after the interpreter); conftest.py's fixture of
# the same name waits for it
JOBS = {
    # `make trace-check`'s 100 updates of attn1, and the first ten of the other kinds
    # (models/trace_check.py; one process, the corpus prepared once)
    "trace_replay": ["-m", "models.trace_check", "--kind", "attn1", "mlp", "attn4", "--steps", "100", "10", "10"],
}


# tests that run in the lane's own pytest (a test module or one test, as pytest names
# it), at the end of the lane, when other tests are selected beside them: each is
# self-contained (its own folders, servers and browser contexts), spends its time
# waiting on a browser's timers (a service worker's install, a precache's quiet
# moment), and takes no build lock (build/.build.lock, common/publish.py). In the
# session their items are replaced by LaneResult items, run last, that report the
# lane's outcome (support/lane_report.py). Tried and left out: the subprocess
# builds and real exports (they hold the build lock the tests' own site builds then
# wait for, at the lane's low priority) and the CPU-bound tests (training, notebook
# kernels, `make serve`'s rebuild), which slowed the tests beside them by about
# what they saved.
LANE_TESTS = [
    "tests/test_offline_first_visit.py",  # nginx, and the quiet moments a precache waits for
    "tests/test_offline_precache.py",
    "tests/test_offline_damaged.py",
    "tests/test_sw_builds.py",
    "tests/test_versions_browser.py",
]


def tests_path(root) -> str:
    """PYTHONPATH for a lane process run from the project root: tests/ (support) and the root."""
    return os.pathsep.join([str(Path(root) / "tests"), str(root)])


def in_lane(nodeid: str) -> bool:
    # COURSE_LANE_EXTRA: more, comma-separated (tests/test_workshop.py's check of the lane itself)
    extra = [t for t in os.environ.get("COURSE_LANE_EXTRA", "").split(",") if t]
    return any(nodeid == t or nodeid.startswith((t + "::", t + "[")) for t in [*LANE_TESTS, *extra])


@dataclass
class Job:
    name: str
    argv: list[str]
    cwd: str
    timeout_s: float
    env: dict = field(default_factory=dict)
    _process: subprocess.Popen | None = None
    _out: object = None
    _err: object = None
    _started: float = 0.0
    _done: subprocess.CompletedProcess | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)  # starting
    _wait: threading.Lock = field(default_factory=threading.Lock, repr=False)  # waiting for the end

    def start(self) -> None:
        with self._lock:
            if self._process is None:
                self._out, self._err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
                self._started = time.monotonic()
                env = dict(os.environ, PYTHONUNBUFFERED="1", **self.env)
                # coreutils' nice, not a preexec_fn (which is unsafe in a process with threads)
                self._process = subprocess.Popen(
                    ["nice", "-n", str(NICE), *self.argv],
                    cwd=self.cwd,
                    stdout=self._out,
                    stderr=self._err,
                    text=True,
                    env=env,
                )

    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def result(self) -> subprocess.CompletedProcess:
        """The finished run (started now if it was not); a run past its timeout is
        stopped and fails naming the job and what it printed."""
        self.start()
        with self._wait:
            if self._done is None:
                left = self.timeout_s - (time.monotonic() - self._started)
                try:
                    code = self._process.wait(timeout=max(left, 1))
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait()
                    raise AssertionError(
                        f"{self.name}: {' '.join(self.argv)} ran over {self.timeout_s:.0f} s"
                    ) from None
                self._out.seek(0)
                self._err.seek(0)
                self._done = subprocess.CompletedProcess(self.argv, code, self._out.read(), self._err.read())
        return self._done

    def stop(self) -> None:
        if self.running():
            self._process.kill()
            self._process.wait()


class Lane:
    """Jobs run one after another in a thread beside the tests; a test that asks
    for a job the lane has not reached yet starts it at once."""

    def __init__(self, jobs: list[Job]):
        self.jobs = jobs
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="background lane", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        for job in self.jobs:
            if self._stopped:
                return
            job.start()
            try:
                job.result()
            except AssertionError:
                pass  # the test that asks for it says so

    def stop(self) -> None:
        self._stopped = True
        for job in self.jobs:
            job.stop()


class LaneTests(Job):
    """The lane's pytest over some tests; ``outcome(nodeid)`` once it ended."""

    def __init__(self, nodeids: list[str], cwd: str, out: str, timeout_s: float = 1800):
        import sys

        self.report = out
        super().__init__(
            "lane tests",
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "support.lane_report", *nodeids],
            cwd,
            timeout_s,
            # no PYTEST_ADDOPTS of the outer run (its --junitxml would be overwritten)
            {
                "COURSE_LANE_REPORT": out,
                "COURSE_IN_LANE": "1",
                "PYTEST_ADDOPTS": "",
                "PYTHONPATH": tests_path(cwd),
            },
        )

    def outcome(self, nodeid: str) -> dict:
        import json

        done = self.result()
        path = Path(self.report)
        found = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        if nodeid not in found:
            raise AssertionError(
                f"the lane's pytest (exit {done.returncode}) did not run {nodeid}:\n{done.stdout[-3000:]}\n"
                f"{done.stderr[-3000:]}"
            )
        return found[nodeid]
