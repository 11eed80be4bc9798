"""Offline after one visit, the whole course (issue 22): on a first visit to
any page the service worker keeps every deck, reading view, notebook page and
the index with the files they use (web/sw.js precacheSite), so a deck never
opened opens offline, with its math and widgets; what that adds to a first
visit is measured here."""

from __future__ import annotations

import re

from site_builder.serve import start_server
from support.pages import PageWatch, Recorded, assert_only_update_check, build_of, wait_for_precache, wait_kept

PRECACHE_BUDGET = 3_000_000  # bytes a first visit to the index may move, precache included (gzipped)


def pages(site_dir):
    """What the index links to, apart from the lab."""
    index = (site_dir / "index.html").read_text(encoding="utf-8")
    found = {h for h in re.findall(r'href="([^"#?]+\.html)"', index) if not h.startswith("lab/")}
    assert {
        f"{d}/{n}.html" for d in ("decks", "read", "notebooks") for n in ("maps", "part2", "part3", "results")
    } <= found
    return sorted(found)


def test_a_first_visit_keeps_every_page_and_an_unvisited_deck_opens_offline(browser, site_dir):
    server, url = start_server(site_dir, handler_class=Recorded)
    server.served = []
    context = browser.new_context()
    page = context.new_page()
    page.watch = PageWatch(page, url)
    try:
        build = build_of(site_dir)
        page.goto(f"{url}/index.html")
        page.wait_for_function("navigator.serviceWorker.controller !== null")
        wait_for_precache(page, build)
        moved = server.bytes_sent
        print(f"first visit to the index, precache included: {moved:,} bytes")
        assert moved < PRECACHE_BUDGET
        kept = [f"/{p}" for p in pages(site_dir)]
        kept += ["/widgets/part2-mask.js", "/widgets/exercise.js", "/vendor/reveal/reveal.js", "/assets/read.css"]
        wait_kept(page, build, kept, timeout_s=10)
        before, served = server.bytes_sent, len(server.served)
        context.set_offline(True)
        page.goto(f"{url}/decks/part2.html")  # never opened
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")
        assert page.locator(".slides .katex").count() >= 10 and page.locator(".slides .katex-error").count() == 0
        assert page.locator(".widget[data-mounted=true]").count() == page.locator(".widget[data-widget]").count() > 5
        for path in ("read/results.html", "notebooks/part3.html", "glossary.html"):
            page.goto(f"{url}/{path}")
            assert page.locator("main, article, body").first.inner_text().strip()
        # all of it from the worker's cache: nothing came over the network but, at most, the browser's
        # own update check of the worker's script (CI once saw its 4,824 gzipped bytes here)
        assert_only_update_check(server, before, served, site_dir)
        assert not page.watch.outside
    finally:
        context.set_offline(False)
        context.close()
        server.shutdown()
