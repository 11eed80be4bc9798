"""A first visit that respects the connection (issue 36), behind nginx with the
README's gzip settings (bench/nginx.py): the lab's first visit moves what the
lab needs, the precache of the whole course (web/sw.js precacheSite) starts
only after lab.ready and once the page is idle, and a browser that asks to save
data (navigator.connection.saveData) gets no precache but a visible "Keep the
whole course offline" button, which keeps it all."""

from __future__ import annotations

import re

from bench.nginx import serve
from common.chromium import evaluate
from support.pages import build_of, wait_for_promise

PRECACHED = re.compile(r"/course/(decks|read|notebooks)/\w+\.html$")  # pages only the precache fetches from the lab
FIRST_VISIT_BUDGET = 26_000_000  # bytes over the wire until lab.ready (issue 36: the runtime gzipped, models FP32)
SAVE_DATA = """Object.defineProperty(Navigator.prototype, 'connection', { configurable: true,
  get: () => ({ saveData: true, effectiveType: '3g', addEventListener() {}, removeEventListener() {} }) });"""


def marker_kept(page, build, timeout_s):
    wait_for_promise(
        page,
        """async ([name, key]) => (await caches.has(name))
            && (await (await caches.open(name)).match(new URL(key, location.href).href)) !== undefined""",
        [f"attention-course-shell-{build}", f"/course/sw-precached.txt?v={build}"],
        timeout_s,
        "the precache marker",
    )


def test_the_labs_first_visit_moves_the_lab_and_the_precache_waits_for_ready(browser, site_dir):
    build = build_of(site_dir)
    with serve(site_dir, compress=True) as host:
        context = browser.new_context()
        page = context.new_page()
        try:
            page.goto(f"{host.url}lab/?backend=wasm")
            ready = evaluate(page, "const s = await window.lab.ready; return {ok: s.ok, t: Date.now() / 1000};", 240)
            assert ready["ok"]
            until_ready = [r for r in host.requests() if r["start"] <= ready["t"]]
            moved = sum(r["bytes"] for r in until_ready)
            print(
                f"lab first visit until lab.ready, behind nginx + gzip: {moved:,} bytes in {len(until_ready)} requests"
            )
            assert moved <= FIRST_VISIT_BUDGET
            assert not [r["path"] for r in until_ready if PRECACHED.search(r["path"].split("?")[0])]
            marker_kept(page, build, 120)
            pages = [r for r in host.requests() if PRECACHED.search(r["path"].split("?")[0])]
            assert len(pages) >= 8, [r["path"] for r in host.requests()][-20:]
            # the precache reads the index first (the lab itself never fetches it)
            first = min(r["start"] for r in host.requests() if r["path"].split("?")[0] == "/course/index.html")
            assert first <= min(r["start"] for r in pages)
            quiet = first - max(r["end"] for r in host.requests() if r["start"] < first)
            print(f"precache started {first - ready['t']:.1f} s after lab.ready, {quiet:.1f} s after the last request")
            assert first > ready["t"] and quiet >= 1.5  # after ready, and after a quiet moment
        finally:
            context.close()


def test_a_data_saving_browser_gets_a_button_not_a_precache(browser, site_dir):
    build = build_of(site_dir)
    with serve(site_dir, compress=True) as host:
        context = browser.new_context()
        context.add_init_script(SAVE_DATA)
        page = context.new_page()
        try:
            page.goto(f"{host.url}index.html")
            assert page.evaluate("navigator.connection.saveData") is True
            page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=30000)
            button = page.get_by_role("button", name="Keep the whole course offline")
            button.wait_for(state="visible", timeout=30000)
            page.wait_for_timeout(5000)  # longer than the quiet moment a precache would wait for
            assert not [r["path"] for r in host.requests() if PRECACHED.search(r["path"].split("?")[0])]
            page.goto(f"{host.url}decks/maps.html")  # a deck offers it too, and still fetches nothing more
            button = page.get_by_role("button", name="Keep the whole course offline")
            button.wait_for(state="visible", timeout=30000)
            assert button.bounding_box()["height"] >= 24
            page.wait_for_timeout(4000)
            fetched = {r["path"].split("?")[0] for r in host.requests()}
            assert not [p for p in fetched if PRECACHED.search(p) and not p.endswith("/decks/maps.html")]
            button.click()
            marker_kept(page, build, 120)
            fetched = {r["path"].split("?")[0] for r in host.requests()}
            assert {f"/course/decks/{d}.html" for d in ("part2", "part3", "results")} <= fetched
            page.get_by_text("The whole course is kept offline").wait_for(timeout=30000)
        finally:
            context.close()
