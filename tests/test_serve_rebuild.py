"""`make serve` keeps the served site current (issue 30): editing a figure's
code under export/tables while site_builder.serve runs updates that slide.

End to end, on a copy of the project (its code, content, data, models and
the build `make site` left, with the runner's records), so that the repo's
own files and build/ are never touched: the server is started there, one
label of a figure function is edited in the copy's export/tables, and the
served deck is polled until it shows the new label. The runner reruns the
tables (their code changed), the notebooks stage (the tables changed; no
notebook checks that figure, so none is executed again) and the site; the
stages before the tables stay skipped."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from common.runner import Runner
from common.settings import BUILD_DIR, ROOT

pytestmark = pytest.mark.build

COPIED = ("common", "models", "export", "site_builder", "notebooks", "content", "web", "data", "bench")
COPIED_FILES = ("package.json", "package-lock.json", "pyproject.toml", "README.md")
BUILT = ("export", "experiments", "tables", "notebooks", "site", ".stages")
FIGURE = Path("export/tables/maps/corpus_figures.py")  # the maps deck's story-length chart (maps_corpus_figures)
OLD, NEW = '"tokens per story"', '"tokens per story, as edited while serving"'
DECK = "decks/maps.html"
SERVING = re.compile(r"serving (\S+) at (\S+)/")
WAIT_S = 600  # the tables, the notebooks stage and the site on a busy two-core machine, with room to spare


def wait_for(what: str, condition, timeout: float, log: list[str]):
    """Poll ``condition`` until it returns something true; fail naming what was awaited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.25)
    tail = "".join(log[-40:])
    pytest.fail(f"waited {timeout:.0f} s for {what}; the server's output ended with:\n{tail}")


def served_url(log: list[str]) -> str | None:
    """The URL of serve's "serving FOLDER at URL/" line, once it printed it."""
    found = [m for m in map(SERVING.search, log) if m]
    return found[0].group(2) if found else None


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.read().decode("utf-8")
    except OSError:
        return ""


@pytest.fixture
def copy(tmp_path) -> Path:
    """The project copied into a temporary root (node_modules linked: only read)."""
    if not (BUILD_DIR / "site" / DECK).is_file():
        pytest.fail("build/site is missing: run `make site` (make test does)")
    root = tmp_path / "project"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in COPIED:
        shutil.copytree(ROOT / name, root / name, ignore=ignore)
    for name in COPIED_FILES:
        shutil.copy2(ROOT / name, root / name)
    for name in BUILT:
        if (BUILD_DIR / name).exists():
            shutil.copytree(BUILD_DIR / name, root / "build" / name, symlinks=True)
    (root / "node_modules").symlink_to((ROOT / "node_modules").resolve())
    return root


def test_editing_a_figure_while_serving_updates_its_slide(copy):
    env = dict(os.environ, PYTHONPATH=str(copy), PYTHONUNBUFFERED="1")
    # The stages are current in the copy when they are in the project (fingerprints name files
    # relative to the root), the site excepted: without git its code download takes another file
    # list. A build that predates the runner's records is brought up to date here first.
    if set(Runner(root=copy, log=lambda *_: None).stale()) - {"site"}:
        subprocess.run([sys.executable, "-m", "common.runner"], cwd=copy, env=env, check=True)

    log: list[str] = []
    serve = subprocess.Popen(
        [sys.executable, "-m", "site_builder.serve", "--port", "0", "--interval", "0.2"],
        cwd=copy,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its stages are its children: stopped with it
    )
    threading.Thread(target=lambda: log.extend(iter(serve.stdout.readline, "")), daemon=True).start()
    try:
        url = wait_for("the server's 'serving FOLDER at URL' line", lambda: served_url(log), 120, log)
        assert str(copy / "build" / "site") in "".join(log)  # the copy's site, not the project's
        page = fetch(f"{url}/{DECK}")
        assert "tokens per story" in page and NEW.strip('"') not in page

        figure = copy / FIGURE
        source = figure.read_text(encoding="utf-8")
        assert source.count(OLD) == 1
        started = time.monotonic()
        figure.write_text(source.replace(OLD, NEW), encoding="utf-8")

        def updated():
            if serve.poll() is not None or any("build failed" in line for line in log):
                pytest.fail(f"the server stopped or its rerun failed:\n{''.join(log[-40:])}")
            return NEW.strip('"') in fetch(f"{url}/{DECK}")

        wait_for(f"the served {DECK} to show the edited label of {FIGURE}", updated, WAIT_S, log)
        seconds = time.monotonic() - started
        wait_for("the rerun to finish", lambda: any("up to date in" in line for line in log), 120, log)
        out = "".join(log)
        print(f"\nedit of {FIGURE} -> served {DECK} updated in {seconds:.1f} s\n{out}")
        assert "changed: export/tables/maps/corpus_figures.py" in out
        assert (
            "runner: tables runs `python -m export.tables` (code changed: export/tables/maps/corpus_figures.py)" in out
        )
        for name in ("models", "export", "experiments"):  # rerun from the first stale stage: the tables
            assert f"runner: {name} skipped: unchanged" in out and f"runner: {name} runs" not in out
        assert "runner: site ran in" in out
        assert "ran clean" not in out  # no notebook checks that figure: none was executed again
        assert serve.poll() is None  # still serving
    finally:
        os.killpg(serve.pid, signal.SIGINT)
        try:
            serve.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait()
