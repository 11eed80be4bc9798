"""Shared fixtures: the built site served on localhost (site_builder.serve),
Debian's Chromium driven by Playwright (common.chromium), and the tables that
`make site` wrote to build/tables.

`make test` runs `make site` first, so build/site and build/tables exist; the
browser tests use the site, the table tests read the tables.

Tiers (markers registered in pyproject.toml, given here by
``pytest_collection_modifyitems``): ``browser`` (a Playwright page or browser,
or a browser engine), ``engines`` (Firefox and WebKit too, tests/test_engines.py),
``training`` (trains a model), ``build`` (a real full build or a site build in a
subprocess). `make check` runs every test with none of them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from common.chromium import launch
from common.settings import SITE_DIR, SITE_ONNX, TABLES_DIR
from models.checkpoints import load_checkpoint, load_vocab
from models.nets import KINDS
from site_builder.serve import start_server
from support.pages import PageWatch


@pytest.fixture(scope="session")
def site_dir() -> Path:
    assert (SITE_DIR / "index.html").exists(), "build/site is missing: run `make site` (make test does)"
    return SITE_DIR


@pytest.fixture(scope="session")
def tables_dir() -> Path:
    """build/tables as `make site` wrote it (python -m export.tables, the real code
    over the committed inputs): the tests that only read a table read it here."""
    assert (TABLES_DIR / "maps_mlp.json").exists(), "build/tables is missing: run `make site` (make test does)"
    return TABLES_DIR


@pytest.fixture(scope="session")
def table(tables_dir):
    """table(NAME): build/tables/NAME.json, parsed afresh on each call (a test may
    change what it gets)."""
    texts: dict[str, str] = {}

    def read(name: str):
        if name not in texts:
            path = tables_dir / f"{name}.json"
            assert path.exists(), f"build/tables/{name}.json is missing: run `make site` (make test does)"
            texts[name] = path.read_text(encoding="utf-8")
        return json.loads(texts[name])

    return read


@pytest.fixture(scope="session")
def site_url(site_dir):
    server, url = start_server(site_dir)
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def playwright_instance():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def plain_browser(playwright_instance):
    """Chromium without SwiftShader (common/chromium.py "wasm"): the decks, reading
    views and pages, and labs that choose their runtime themselves. SwiftShader's
    GPU process rasterises every frame of a page on the CPU (a deck walk cost
    about 20 s of its CPU, 2.6 s without it), which the other tests' work waits for."""
    b = launch(playwright_instance, "wasm")
    yield b
    b.close()


@pytest.fixture(scope="session")
def gpu_browser(playwright_instance):
    """Chromium with WebGPU on SwiftShader enabled (WASM works in it too): the shared
    lab and the tests that need WebGPU offered (they take it by name)."""
    b = launch(playwright_instance, "webgpu")
    yield b
    b.close()


@pytest.fixture(scope="module")
def browser(plain_browser):
    """The Chromium of a test's own pages: plain_browser; a test whose page needs
    WebGPU offered takes gpu_browser by name."""
    return plain_browser


@pytest.fixture(scope="session")
def shared_lab(gpu_browser, site_url):
    """One WASM lab for the whole session, loaded once; tests take it through a
    fixture that calls support.lab.reset_lab (controls back to their start-up
    values, no job running, a clean status). Tests that need a broken,
    offline, first-visit, phone or throttled lab open their own."""
    from support.lab import SNAPSHOT, open_lab

    context = gpu_browser.new_context(viewport={"width": 1280, "height": 720})
    pg = context.new_page()
    pg.watch = PageWatch(pg, site_url)
    status = open_lab(pg, site_url, "?backend=wasm")
    assert status["ok"], status
    pg.defaults = pg.evaluate(SNAPSHOT)
    yield pg
    context.close()


def _watched_page(browser, site_url):
    context = browser.new_context()
    pg = context.new_page()
    pg.watch = PageWatch(pg, site_url)
    return context, pg


@pytest.fixture
def page(browser, site_url):
    context, pg = _watched_page(browser, site_url)
    yield pg
    context.close()


@pytest.fixture
def gpu_page(gpu_browser, site_url):
    """A page of the SwiftShader Chromium (WebGPU offered), watched like ``page``."""
    context, pg = _watched_page(gpu_browser, site_url)
    yield pg
    context.close()


@pytest.fixture(scope="session")
def vocab():
    """The committed course vocabulary (models/checkpoints/vocab.json)."""
    return load_vocab()


@pytest.fixture(scope="session")
def course_corpus():
    """The prepared course corpus (models.corpus.prepare("course"): data/ only, some
    ten seconds), prepared once for every test that reads it."""
    from models.corpus import prepare

    return prepare("course")


@pytest.fixture(scope="session")
def torch_models():
    """The committed checkpoints, one per kind, in eval mode."""
    return {kind: load_checkpoint(kind)[0].eval() for kind in KINDS}


@pytest.fixture
def mini(tmp_path):
    """A small content folder (two decks, the real maps, index) and one table:
    (content, tables, out) for the build tests."""
    from support.builds import make_mini

    return make_mini(tmp_path)


@pytest.fixture(scope="module")
def references(site_dir):
    """The export's metadata, PyTorch parity references and presets."""
    onnx = site_dir / SITE_ONNX
    return {
        name: json.loads((onnx / f"{name}.json").read_text(encoding="utf-8"))
        for name in ("metadata", "parity", "presets")
    }


def _walks(kind: str, make):
    """The walks of ``kind`` ("deck" or "exercise"): read from the background lane's
    file (support/prefetch.py) when it made that walk ahead, waiting for it;
    otherwise made now in the session's plain Chromium by ``make``."""
    from support import prefetch

    walks = {}

    def get(slug: str, size="1280x720"):
        name = prefetch.spec(kind, slug, prefetch.size_text(size))
        if name not in walks:
            if name in _prefetch.get("specs", ()):
                walks[name] = _prefetched(kind, name)
            else:
                walks[name] = make(slug, size)
        return walks[name]

    return get


def _prefetched(kind: str, name: str):
    import time

    from support import prefetch

    job, out = _prefetch["job"], _prefetch["out"]
    done, failed = prefetch.file_of(out, name), prefetch.file_of(out, name, ".error")
    job.start()
    while not done.exists() and not failed.exists():
        if not job.running():
            result = job.result()
            if done.exists() or failed.exists():
                break
            raise AssertionError(f"the walk {name} was never written: {result.stderr[-3000:]}")
        time.sleep(0.05)
    if failed.exists():
        raise AssertionError(f"the walk {name} failed:\n{failed.read_text()}")
    return prefetch.load(kind, done)


@pytest.fixture(scope="session")
def deck_walk(plain_browser, site_url):
    """``deck_walk(slug, size)``: the one walk of a deck at "1280x720" or
    "390x844" (support/walks.py), made ahead in the background lane
    (support/prefetch.py) or the first time a test asks for it."""
    from support.walks import walk_deck

    return _walks("deck", lambda slug, size: walk_deck(plain_browser, site_url, slug, size))


@pytest.fixture(scope="session")
def exercise_walk(plain_browser, site_url):
    """``exercise_walk(slug, (width, height))``: every exercise box of a deck opened
    in turn at that size, measured and checked by axe (support/exercise_walk.py),
    made ahead in the background lane (support/prefetch.py) or the first time a
    test asks for it."""
    from support.exercise_walk import walk_exercises

    return _walks("exercise", lambda slug, size: walk_exercises(plain_browser, site_url, slug, size))


# ---------------------------------------------------------------- tiers

BROWSER_FIXTURES = {"browser", "plain_browser", "gpu_browser", "page", "playwright_instance"}
# module -> the tests (all of the module: None) of a tier besides browser, by what
# they do; the seconds are one run's on 2 busy cores (`make test` prints the slowest)
TIERS = {
    "training": {
        "test_train.py": {
            "test_committed_checkpoints_reproduce_the_seed_11_test_loss",  # scores the course test split, 108 s
        },  # and every test of the smoke protocol run (the smoke_run fixture, 580 s)
        "test_trace.py": {"test_recording_leaves_the_run_unchanged"},  # two short runs, 58 s
        "test_protocol.py": {"test_best_validation_state_is_restored_scored_and_saved"},  # a protocol run, 25 s
        "test_trace_replay.py": None,  # 100 updates of attn1, ten of mlp and attn4 (the trace_replay job)
    },
    "build": {
        "test_export.py": {"test_export_skips_when_unchanged_and_keeps_output_on_failure"},  # real exports, 190 s
        "test_notebooks.py": {  # each executes notebooks in fresh kernels
            "test_a_wrong_number_in_the_deck_fails_the_notebook",
            "test_only_changed_notebooks_are_executed_again",
            "test_a_failing_notebook_stops_the_step_and_writes_nothing",
        },
        "test_build_faults.py": {"test_concurrent_builds_leave_a_complete_site"},  # six site builds in subprocesses
    },
}
TRAINING_FIXTURES = {"smoke_run", "trace_replay"}


def tiers_of(module: str, name: str, fixtures) -> set[str]:
    """The markers a test gets besides those written on it."""
    out = set()
    if module == "test_engines.py":
        out |= {"engines", "browser"}
    if BROWSER_FIXTURES & set(fixtures):
        out.add("browser")
    if TRAINING_FIXTURES & set(fixtures):
        out.add("training")
    for tier, modules in TIERS.items():
        if module in modules and (modules[module] is None or name in modules[module]):
            out.add(tier)
    return out


def pytest_collection_modifyitems(config, items):
    for item in items:
        name = getattr(item, "originalname", None) or item.name.split("[")[0]
        for tier in sorted(tiers_of(item.path.name, name, item.fixturenames)):
            item.add_marker(getattr(pytest.mark, tier))


@pytest.fixture
def models_copy(tmp_path) -> Path:
    """A copy of the committed models folder (checkpoints, results, audit, trace) to break."""
    import shutil

    from common.layout import MODELS

    models = tmp_path / "models"
    shutil.copytree(MODELS.checkpoints, models / "checkpoints")
    for path in (MODELS.results, MODELS.audit, MODELS.trace):
        shutil.copy(path, models / path.name)
    return models


@pytest.fixture
def trained(monkeypatch) -> list:
    """The `python -m models.train` calls models.ensure makes, recorded instead of run."""
    from models import ensure

    calls = []
    monkeypatch.setattr(ensure, "train_cli", lambda args: calls.append(args) or 0)
    return calls


# ---------------------------------------------------------------- background lane

# long one-core subprocess work that starts as soon as the tests are collected, one
# job after another (support/background.py Lane): the walks the selected tests will
# ask for (support/prefetch.py), then the JOBS whose fixture a selected test asks for
_jobs: dict = {}
_prefetch: dict = {}
_lanes: list = []
WALK_FIXTURES = {"deck_walk": "deck", "exercise_walk": "exercise"}


def _job(name: str):
    import sys

    from common.settings import ROOT
    from support.background import JOBS, Job

    if name not in _jobs:
        _jobs[name] = Job(name, [sys.executable, *JOBS[name]], str(ROOT), timeout_s=900)
    return _jobs[name]


def wanted_walks(items) -> list[str]:
    """The walks the items will ask for, in the order they ask: a test's deck and
    size where it is parametrized by them, every deck and both sizes where not."""
    from support import prefetch

    decks = sorted(p.stem for p in (Path(__file__).resolve().parent.parent / "content" / "decks").glob("*.md"))
    specs: list[str] = []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        for fixture, kind in WALK_FIXTURES.items():
            if fixture in getattr(item, "fixturenames", ()):
                slug = params.get("slug") or params.get("deck")
                size = params.get("size")
                for s in [slug] if slug in decks else decks:
                    for z in [prefetch.size_text(size)] if size else prefetch.SIZES:
                        if prefetch.spec(kind, s, z) not in specs:
                            specs.append(prefetch.spec(kind, s, z))
    return specs


class LaneResult(pytest.Item):
    """A test that ran in the background lane's pytest (support/background.py
    LANE_TESTS), reported in its place at the end of the session: it passes or
    fails as it did there, with that run's report."""

    def __init__(self, *, job, original, **kwargs):
        super().__init__(**kwargs)
        self.job = job
        self.own_markers = list(original.own_markers)
        self.keywords.update(original.keywords)

    def runtest(self):
        found = self.job.outcome(self.nodeid)
        self.user_properties.append(("lane_seconds", round(found["seconds"], 2)))
        if found["outcome"] != "passed":
            raise LaneFailure(f"in the background lane: {found['outcome']}{found['report']}")

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, LaneFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"{self.name} (in the background lane)"


class LaneFailure(AssertionError):
    pass


def pytest_collection_finish(session):
    import os

    if session.config.option.collectonly or os.environ.get("COURSE_IN_LANE"):
        return  # the lane's own pytest runs its tests itself
    import sys
    import tempfile

    from common.settings import ROOT
    from support.background import JOBS, Job, Lane, LaneTests, in_lane, tests_path

    lane = []
    here = [item for item in session.items if not in_lane(item.nodeid)]
    away = [item for item in session.items if in_lane(item.nodeid)] if here else []
    specs = wanted_walks(here)
    if specs or away:  # the lane's files: the walks and the lane tests' report
        out = _prefetch["out"] = Path(tempfile.mkdtemp(prefix="lane-"))
    if specs:
        env = {"PYTHONPATH": tests_path(ROOT)}
        job = Job("walks", [sys.executable, "-m", "support.prefetch", str(out), *specs], str(ROOT), 900, env)
        _prefetch.update(job=job, specs=set(specs))
        lane.append(job)
    wanted = {name for item in here for name in JOBS if name in getattr(item, "fixturenames", ())}
    lane += [_job(name) for name in sorted(wanted)]
    if away:
        tests = LaneTests([item.nodeid for item in away], str(ROOT), str(out / "lane-report.json"))
        lane.append(tests)
        # reported last, where the lane has most likely finished them
        session.items[:] = here + [
            LaneResult.from_parent(item.parent, name=item.name, job=tests, original=item) for item in away
        ]
    if lane:
        _lanes.append(Lane(lane))


def pytest_sessionfinish(session, exitstatus):
    for lane in _lanes:
        lane.stop()
    if _prefetch.get("out"):
        import shutil

        shutil.rmtree(_prefetch["out"], ignore_errors=True)


@pytest.fixture(scope="session")
def trace_replay():
    """models.trace_check over every kind (JOBS), as it finished: a CompletedProcess."""
    return _job("trace_replay").result()
