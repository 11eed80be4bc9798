"""Versioned updates in a real browser (issue 25, point 1): a learner visits a
deck and the lab, the site is rebuilt with changed pages and scripts, and the
next visit, a reload, a new tab and an offline reload each run exactly one
build (the new one), never a mix of old and new files.

The two builds are the real site with a tag written into every page (a meta
element) and every module (it records its tag and URL in globalThis.__builds,
in the page and in the lab's worker), then stamped again by
site_builder.versioning, which gives each its own build id."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

from common.chromium import evaluate
from common.publish import MARKER, staging_dir, swap_in
from site_builder import versioning
from site_builder.static_server import start_server
from support.pages import wait_kept

MODULE = re.compile(r"^(import|export) ", re.M)


def changed_model(site: Path) -> str:
    """attn4.onnx rewritten with another doc string (other bytes, same model), and
    metadata.json naming its new size and SHA-256; returns the SHA-256."""
    import onnx

    path = site / "onnx" / "attn4.onnx"
    model = onnx.load(str(path))
    model.doc_string = "the rebuilt attn4 of tests/test_versions_browser.py"
    onnx.save(model, str(path))
    data = path.read_bytes()
    meta_path = site / "onnx" / "metadata.json"
    metadata = json.loads(meta_path.read_text())
    sha = hashlib.sha256(data).hexdigest()
    metadata["models"]["attn4"].update(bytes=len(data), sha256=sha)
    meta_path.write_text(json.dumps(metadata))
    return sha


def tagged_build(site_dir: Path, dest: Path, tag: str) -> str:
    """A copy of the built site whose pages and modules carry ``tag``, with a
    build id of its own (the "new" one also with a changed attn4.onnx); returns the id."""
    shutil.copytree(site_dir, dest)
    if tag == "new":
        changed_model(dest)
    old = json.loads((dest / versioning.VERSION_FILE).read_text())["build"]
    for path in dest.rglob("*"):
        if path.suffix not in (".html", ".js", ".css") or "vendor" in path.relative_to(dest).parts:
            continue
        text = path.read_text(encoding="utf-8").replace(f"?v={old}", "")  # as the build leaves it before stamping
        if path.suffix == ".html":
            text = text.replace("<head>", f'<head>\n<meta name="build-tag" content="{tag}">', 1)
        elif MODULE.search(text):
            text += f"\n;(globalThis.__builds ??= []).push('{tag} ' + import.meta.url);\n"
        path.write_text(text, encoding="utf-8")
    return versioning.stamp(dest)


def seen(page) -> dict:
    """The build tags and URLs of what the page runs: its HTML, its modules, its
    worker's modules, and every same-origin file it loaded."""
    got = page.evaluate("""() => ({
        html: document.querySelector('meta[name=build-tag]')?.content ?? null,
        modules: globalThis.__builds ?? [],
        urls: performance.getEntriesByType('resource').map((e) => e.name)
            .filter((u) => new URL(u).origin === location.origin),
    })""")
    for worker in page.workers:
        got["modules"] += worker.evaluate("globalThis.__builds ?? []")
    return got


def assert_one_build(page, tag: str, build: str) -> None:
    got = seen(page)
    assert got["html"] == tag, got
    tags = {entry.split(" ")[0] for entry in got["modules"]}
    assert tags == {tag}, got["modules"]
    versions = {m for u in got["urls"] for m in re.findall(r"[?&]v=([0-9a-f]+)", u)}
    versions |= {m for entry in got["modules"] for m in re.findall(r"[?&]v=([0-9a-f]+)", entry)}
    assert versions == {build}, got


def open_deck(page, url):
    page.goto(f"{url}/decks/part2.html")
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")
    assert page.evaluate("document.documentElement.dataset.widgetsReady") not in ("failed", "0")


def open_lab(page, url):
    page.goto(f"{url}/lab/?backend=wasm")
    status = evaluate(page, "return await window.lab.ready;", timeout_s=240)
    assert status["ok"] and all(m["ok"] for m in status["models"].values()), status
    return status


def model_sha(page) -> str:
    """The SHA-256 of attn4.onnx in the metadata the page runs with."""
    return page.evaluate("window.lab.metadata.models.attn4.sha256")


@pytest.fixture
def two_builds(site_dir, tmp_path):
    builds = {tag: tagged_build(site_dir, tmp_path / tag, tag) for tag in ("old", "new")}
    live = tmp_path / "live"
    shutil.copytree(tmp_path / "old", live)
    server, url = start_server(live)

    def rebuild():
        staging = staging_dir(live)
        shutil.copytree(tmp_path / "new", staging)
        assert (staging / MARKER).is_file()
        swap_in(staging, live)

    yield builds, url, rebuild
    server.shutdown()


def test_after_a_rebuild_every_visit_runs_one_build(browser, two_builds):
    builds, url, rebuild = two_builds
    context = browser.new_context()
    context.set_default_timeout(120_000)  # two shared cores: a page load may take a while
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    open_deck(page, url)
    open_lab(page, url)
    assert_one_build(page, "old", builds["old"])
    old_sha = model_sha(page)
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    wait_kept(page, builds["old"], ["/lab/lab.js"])

    # the worker has just asked the host which build it serves (a versioned file
    # fetched from the network): a rebuild within seconds of that answer must not
    # make the worker refuse the new build's files as another build's
    page.evaluate("(v) => fetch(`/assets/site.css?v=${v}&asked=1`).then((r) => r.status)", builds["old"])
    rebuild()
    # the next visit: the new pages, the new scripts, nothing of the old build
    open_deck(page, url)
    assert_one_build(page, "new", builds["new"])
    status = open_lab(page, url)
    assert_one_build(page, "new", builds["new"])
    new_sha = model_sha(page)
    assert new_sha != old_sha and status["models"]["attn4"]["from"].startswith("network")  # the new model, checked
    # a reload
    page.reload()
    evaluate(page, "return await window.lab.ready;", timeout_s=240)
    assert_one_build(page, "new", builds["new"])
    # a new tab
    tab = context.new_page()
    open_deck(tab, url)
    assert_one_build(tab, "new", builds["new"])
    tab.close()
    # offline: the new build's copy, whole
    wait_kept(page, builds["new"], ["/lab/lab.js"])
    wait_kept(page, builds["new"], ["/widgets/loader.js"])
    wait_kept(page, builds["new"], ["/decks/part2.html"])
    wait_kept(page, builds["new"], ["/lab/"])
    context.set_offline(True)
    try:
        page.reload()
        status = evaluate(page, "return await window.lab.ready;", timeout_s=240)
        assert status["ok"] and all(m["ok"] and m["from"] == "cache" for m in status["models"].values()), status[
            "models"
        ]
        assert_one_build(page, "new", builds["new"])
        assert model_sha(page) == new_sha
        open_deck(page, url)
        assert_one_build(page, "new", builds["new"])
    finally:
        context.set_offline(False)
    assert not errors, errors
    context.close()
