"""A pytest plugin for the background lane's own pytest (support/background.py
LANE_TESTS): each test's outcome and, when it failed, pytest's report of it,
written as JSON to $COURSE_LANE_REPORT when the session ends."""

from __future__ import annotations

import json
import os

_found: dict = {}


def pytest_runtest_logreport(report):
    seen = _found.setdefault(report.nodeid, {"outcome": "passed", "report": "", "seconds": 0.0})
    seen["seconds"] += report.duration
    if report.failed:
        seen["outcome"] = "failed"
        seen["report"] += f"\n--- {report.when} ---\n{report.longreprtext}"
    elif report.skipped and seen["outcome"] == "passed":
        seen["outcome"] = "skipped"
        seen["report"] = str(report.longrepr)


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("COURSE_LANE_REPORT")
    if path:
        with open(path + ".part", "w", encoding="utf-8") as f:
            json.dump(_found, f)
        os.replace(path + ".part", path)
