"""One build per tab across a rebuild, in the service worker (issue 38, items
2 and 3): a build-A tab controlled by A's worker, after the site was rebuilt
to C, gets A's bytes for a file it fetches lazily (from A's cache) or, for one
A never kept, no C bytes but a 410, on which the page reloads as C; and
offline, a deck whose newer-build copy was cut off mid-precache (its HTML kept,
its widgets not) opens from the newest build whose copy is whole."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from common.publish import MARKER, staging_dir, swap_in
from site_builder import versioning
from site_builder.static_server import start_server
from support.pages import build_of, wait_for_precache

PAGE_BUILD = "[...document.querySelectorAll('script[src*=\"?v=\"]')].map((s) => /[?&]v=(\\w+)/.exec(s.src)[1])[0]"


def deck_table(site: Path, slug: str) -> str:
    return re.search(r'data-table="(\w+)"', (site / "decks" / f"{slug}.html").read_text(encoding="utf-8"))[1]


def rebuilt(site_dir: Path, dest: Path, table: str) -> str:
    """A copy of the site with ``table`` changed (a key "rebuilt"), stamped again: another build id."""
    shutil.copytree(site_dir, dest)
    old = build_of(dest)
    for path in dest.rglob("*"):
        if path.suffix in (".html", ".js", ".css") and "vendor" not in path.relative_to(dest).parts:
            path.write_text(path.read_text(encoding="utf-8").replace(f"?v={old}", ""), encoding="utf-8")
    data = json.loads((dest / "tables" / f"{table}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    data["rebuilt"] = True
    (dest / "tables" / f"{table}.json").write_text(json.dumps(data), encoding="utf-8")
    return versioning.stamp(dest)


@pytest.fixture
def builds(site_dir, tmp_path):
    table = deck_table(site_dir, "part2")
    a = build_of(site_dir)
    c = rebuilt(site_dir, tmp_path / "c", table)
    assert c != a
    live = tmp_path / "live"
    shutil.copytree(site_dir, live)
    server, url = start_server(live)

    def rebuild():
        staging = staging_dir(live)
        shutil.copytree(tmp_path / "c", staging)
        assert (staging / MARKER).is_file()
        swap_in(staging, live)

    yield {"a": a, "c": c, "url": url, "rebuild": rebuild, "table": table}
    server.shutdown()


def open_deck(page, url, slug):
    page.goto(f"{url}/decks/{slug}.html")
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")


def test_an_open_tab_fetches_its_own_builds_files_after_a_rebuild(browser, builds):
    url, a, c = builds["url"], builds["a"], builds["c"]
    context = browser.new_context()
    context.set_default_timeout(120_000)
    page = context.new_page()
    try:
        open_deck(page, url, "part2")
        page.wait_for_function("navigator.serviceWorker.controller !== null")
        wait_for_precache(page, a)
        builds["rebuild"]()
        # a file A kept: A's bytes, not C's
        got = page.evaluate(
            "async (p) => { const r = await fetch(p); return {status: r.status, body: await r.json()}; }",
            f"{url}/tables/{builds['table']}.json?v={a}",
        )
        assert got["status"] == 200 and "rebuilt" not in got["body"], got["status"]
        # a file A never kept (the lab's metadata): no C bytes under A's name; the tab reloads as C
        with page.expect_navigation():
            status = page.evaluate("async (p) => (await fetch(p)).status", f"{url}/onnx/metadata.json?v={a}")
            assert status == 410
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        assert page.evaluate(PAGE_BUILD) == c
    finally:
        context.close()


def test_offline_a_cut_off_precache_of_a_new_build_leaves_the_whole_older_copy(browser, builds):
    url, a, c = builds["url"], builds["a"], builds["c"]
    context = browser.new_context()
    context.set_default_timeout(120_000)
    page = context.new_page()
    try:
        open_deck(page, url, "part2")
        page.wait_for_function("navigator.serviceWorker.controller !== null")
        wait_for_precache(page, a)
        builds["rebuild"]()
        # C's precache cut off after part3's page: its HTML in C's cache, none of its files
        page.evaluate(
            """async ([c, path]) => {
              const r = await fetch(path, {cache: 'no-store'});
              if (!(await r.clone().text()).includes(`?v=${c}`)) throw new Error('not build C');
              await (await caches.open(`attention-course-shell-${c}`)).put(location.origin + path, r);
            }""",
            [c, "/decks/part3.html"],
        )
        context.set_offline(True)
        open_deck(page, url, "part3")
        assert page.evaluate(PAGE_BUILD) == a
        widgets = page.locator(".widget[data-widget]").count()
        assert widgets > 0 and page.locator(".widget[data-mounted=true]").count() == widgets
    finally:
        context.set_offline(False)
        context.close()
