"""Shared fixtures: the built site served on localhost (site_builder.serve),
and Debian's Chromium driven by Playwright (common.chromium).

`make test` runs `make site` first, so build/site exists; browser tests use it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from common.chromium import launch
from common.settings import SITE_DIR, SITE_ONNX
from models.checkpoints import load_checkpoint, load_vocab
from models.nets import KINDS
from site_builder.serve import start_server
from support.pages import PageWatch


@pytest.fixture(scope="session")
def site_dir() -> Path:
    assert (SITE_DIR / "index.html").exists(), "build/site is missing: run `make site` (make test does)"
    return SITE_DIR


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
def browser(playwright_instance):
    """Chromium with WebGPU on SwiftShader enabled (WASM works in it too)."""
    b = launch(playwright_instance, "webgpu")
    yield b
    b.close()


@pytest.fixture(scope="session")
def shared_lab(browser, site_url):
    """One WASM lab for the whole session, loaded once; tests take it through a
    fixture that calls support.lab.reset_lab (controls back to their start-up
    values, no job running, a clean status). Tests that need a broken,
    offline, first-visit, phone or throttled lab open their own."""
    from support.lab import SNAPSHOT, open_lab

    context = browser.new_context(viewport={"width": 1280, "height": 720})
    pg = context.new_page()
    pg.watch = PageWatch(pg, site_url)
    status = open_lab(pg, site_url, "?backend=wasm")
    assert status["ok"], status
    pg.defaults = pg.evaluate(SNAPSHOT)
    yield pg
    context.close()


@pytest.fixture
def page(browser, site_url):
    context = browser.new_context()
    pg = context.new_page()
    pg.watch = PageWatch(pg, site_url)
    yield pg
    context.close()


@pytest.fixture(scope="session")
def vocab():
    """The committed course vocabulary (models/checkpoints/vocab.json)."""
    return load_vocab()


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
    import json

    onnx = site_dir / SITE_ONNX
    return {
        name: json.loads((onnx / f"{name}.json").read_text(encoding="utf-8"))
        for name in ("metadata", "parity", "presets")
    }


@pytest.fixture(scope="session")
def deck_walk(browser, site_url):
    """``deck_walk(slug, size)``: the one walk of a deck at "1280x720" or
    "390x844" (support/walks.py), made the first time a test asks for it."""
    from support.walks import walk_deck

    walks = {}

    def get(slug: str, size: str = "1280x720"):
        if (slug, size) not in walks:
            walks[slug, size] = walk_deck(browser, site_url, slug, size)
        return walks[slug, size]

    return get
