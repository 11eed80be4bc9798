"""The built site on an ordinary static host (issue 36): Debian's nginx with its
stock mime.types and http block, the site under a sub-path (/course/), no
setting made for this course (bench/nginx.py). The lab comes up and generates
greedily, a deck opens with its widgets, every script arrives typed as
JavaScript; and a host that types the runtime's module wrongly gets a page
that names what it sent and what to change."""

from __future__ import annotations

import re
from urllib.parse import urlparse

from bench.nginx import serve
from common.chromium import evaluate
from support.lab import KINDS
from support.pages import PageWatch

JAVASCRIPT = re.compile(r"^(text|application)/javascript\b")


def test_the_lab_and_a_deck_work_behind_stock_nginx_under_a_sub_path(browser, site_dir):
    assert not list(site_dir.rglob("*.mjs")), "a .mjs file in the site: stock nginx sends it untyped"
    with serve(site_dir) as host:
        url = host.url
        origin = "{0.scheme}://{0.netloc}".format(urlparse(url))
        context = browser.new_context()
        page = context.new_page()
        page.watch = PageWatch(page, origin)
        scripts = []
        context.on(
            "response",
            lambda r: r.request.resource_type == "script" and scripts.append((r.url, r.status, r.headers)),
        )
        try:
            page.goto(f"{url}lab/?backend=wasm")
            status = evaluate(page, "return await window.lab.ready;", timeout_s=240)
            assert status["ok"], status
            out = evaluate(page, "return await window.lab.generate({prompt: 'the cat sat', limit: 6, mode: 'greedy'});")
            for kind in KINDS:
                assert len(out["models"][kind]["ids"]) > 0, (kind, out["models"][kind])
            page.goto(f"{url}decks/part2.html")
            page.wait_for_function("window.Reveal && Reveal.isReady()")
            page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")
            assert page.evaluate("document.documentElement.dataset.widgetsReady") not in ("failed", "0")
            assert page.locator(".slides .katex").count() >= 10
            page.watch.assert_clean()
            assert scripts, "no script response seen"
            for u, code, headers in scripts:
                assert urlparse(u).path.startswith("/course/"), u
                assert code in (200, 304), (u, code)
                if code == 200:
                    assert JAVASCRIPT.match(headers.get("content-type", "")), (u, headers.get("content-type"))
            assert not [r for r in host.requests() if r["path"].split("?")[0].endswith(".mjs")]
        finally:
            context.close()


# a host whose table types the runtime's folder wrongly, as stock nginx did `.mjs`
UNTYPED_RUNTIME = """location /course/vendor/onnxruntime-web/ {
            alias %s/vendor/onnxruntime-web/;
            types { }
            default_type application/octet-stream;
        }"""


def test_a_runtime_module_sent_untyped_is_named_with_what_the_host_sent(browser, site_dir):
    with serve(site_dir, extra=UNTYPED_RUNTIME % site_dir.resolve()) as host:
        url = host.url
        context = browser.new_context()
        page = context.new_page()
        try:
            page.goto(f"{url}lab/?backend=wasm")
            status = evaluate(page, "return await window.lab.ready;", timeout_s=240)
            assert not status["ok"], status
            page.wait_for_function("document.body.innerText.includes('application/octet-stream')", timeout=30000)
            text = page.inner_text("body")
            said = next(line for line in text.splitlines() if "application/octet-stream" in line)
            assert "ort.wasm.min.esm.js" in said and "text/javascript" in said, said
        finally:
            context.close()


def test_the_readme_recommends_the_compression_the_measurements_use():
    """bench/pages.py, the first-visit tests and Lighthouse runs serve the site with
    bench/nginx.py's compressed http block; README's "Publishing the site" gives
    a host the same two lines, so its numbers hold on a host set up as it says."""
    from pathlib import Path

    from bench.nginx import GZIP_LEVEL, GZIP_TYPES

    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    assert f"`gzip_types {GZIP_TYPES};`" in readme
    assert f"`gzip_comp_level {GZIP_LEVEL};`" in readme
