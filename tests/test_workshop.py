"""The test suite's own rules (issue 30): no test module imports another test
module or conftest.py; every helper a test needs lives in tests/support/ or in
conftest.py's fixtures (read from the source, ast, so it costs no imports).
And the background lane's report: a test that fails in the lane fails the
session (two small pytest runs in subprocesses)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from importlib.util import find_spec
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
PROJECT = {"common", "models", "export", "site_builder", "bench"}  # the packages a test may import
PYPROJECT = tomllib.loads((TESTS.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]
# the distributions pyproject.toml names (an extra such as mutmut may not be installed here)
DECLARED = {
    re.split(r"[=<>\[ ]", spec)[0].lower().replace("-", "_")
    for spec in [
        *PYPROJECT["dependencies"],
        *(s for extra in PYPROJECT["optional-dependencies"].values() for s in extra),
    ]
}
MODULES = sorted([*TESTS.glob("*.py"), *(TESTS / "support").glob("*.py")])


def imported(path: Path) -> list[tuple[int, str, int]]:
    """(line, dotted module, relative level) of every import in the file, at any depth."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append((node.lineno, node.module or "", node.level))
    return out


def allowed(module: str, level: int) -> str | None:
    """Why an import is not allowed (None when it is)."""
    top = module.split(".")[0]
    if level:
        return "a relative import (import from support, or from a project package)"
    if top == "conftest" or top.startswith("test_") or top == "tests":
        return "a test module or conftest.py (move the helper to tests/support/ or a fixture)"
    if top in PROJECT or top == "support" or top in sys.stdlib_module_names or top == "__future__":
        return None
    if top not in DECLARED and find_spec(top) is None:
        return "neither the standard library, an installed package, a project package nor support"
    return None


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(TESTS)))
def test_a_test_module_imports_no_other_test_module(path):
    bad = [
        f"line {line}: {module or '.'}: {why}"
        for line, module, level in imported(path)
        if (why := allowed(module, level))
    ]
    assert not bad, f"{path.relative_to(TESTS.parent)}: " + "; ".join(bad)


def test_the_import_check_sees_a_test_module_import(tmp_path):
    bad = tmp_path / "test_x.py"
    bad.write_text(
        "import json\nfrom test_lab_browser import start\n\ndef f():\n    import conftest\n    from . import y\n"
    )
    found = [(line, module, why) for line, module, level in imported(bad) if (why := allowed(module, level))]
    assert [(line, module) for line, module, _ in found] == [(2, "test_lab_browser"), (5, "conftest"), (6, "")]
    assert allowed("support.builds", 0) is None and allowed("export.tables", 0) is None
    assert allowed("torch", 0) is None and allowed("nonexistent_pkg_for_the_check", 0) is not None


# ---------------------------------------------------------------- the background lane


def test_lane_canary():
    """Passes, but fails where COURSE_LANE_CANARY says "fail": the test below runs
    it in the background lane (COURSE_LANE_EXTRA) to see the session report that."""
    assert os.environ.get("COURSE_LANE_CANARY") != "fail", "the canary failed, as asked"


def test_a_test_that_fails_in_the_lane_fails_the_session_with_its_report():
    """A test run in the background lane (support/background.py LANE_TESTS) that
    fails there fails the session, named, with the lane's own failure report; one
    that passes there passes."""
    canary = "tests/test_workshop.py::test_lane_canary"
    beside = "tests/test_workshop.py::test_the_import_check_sees_a_test_module_import"
    env = {k: v for k, v in os.environ.items() if k not in ("COURSE_IN_LANE", "PYTEST_ADDOPTS")}
    for outcome in ("fail", "pass"):
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", canary, beside],
            cwd=TESTS.parent,
            env={**env, "COURSE_LANE_EXTRA": canary, "COURSE_LANE_CANARY": outcome},
            capture_output=True,
            text=True,
            timeout=300,
        )
        if outcome == "fail":
            assert done.returncode == 1, done.stdout[-2000:]
            assert f"FAILED {canary} - in the background lane: failed" in done.stdout, done.stdout[-2000:]
            assert "the canary failed, as asked" in done.stdout, done.stdout[-2000:]
            assert "2 passed" not in done.stdout and "1 failed, 1 passed" in done.stdout
        else:
            assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout[-2000:]
