"""The built site in Chromium: the index and every deck load with no console
error and no request outside the origin, the keyboard reaches the last slide,
math is typeset by KaTeX, and every table that names its JSON source shows
exactly that JSON's values (formatted by the rule in site_builder/README.md)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from common.settings import ROOT
from support.pages import build_of, wait_kept

DECKS = sorted(p.stem for p in (ROOT / "content" / "decks").glob("*.md"))


def fmt(value, digits: int, group: bool = True) -> str:
    """The README's number formatting, written out independently of site_builder:
    ints and floats grouped with a comma from 1,000 on, lists never grouped."""
    if value is None:
        return "—"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, float) and math.isinf(value):
        return "−∞" if value < 0 else "∞"
    if isinstance(value, (int, float)):
        text = f"{value:d}" if isinstance(value, int) else f"{value:.{digits}f}"
        if set(text) <= set("-0."):
            text = text.lstrip("-")
        if group:
            whole, dot, frac = text.partition(".")
            sign, whole = ("-", whole[1:]) if whole.startswith("-") else ("", whole)
            groups = []
            while len(whole) > 3:
                whole, groups = whole[:-3], [whole[-3:]] + groups
            text = sign + ",".join([whole] + groups) + dot + frac
        return text.replace("-", "−")
    if isinstance(value, list):
        return "[" + ", ".join(fmt(v, digits, group=False) for v in value) + "]"
    return str(value)


def label(value) -> str:
    """A header or label cell: a whole number grouped, text as is."""
    return fmt(value, 0) if isinstance(value, int) and not isinstance(value, bool) else str(value)


def squash(text: str) -> str:
    """Math typesetting drops the spaces inside a list: compare without spaces."""
    return "".join(text.split())


def lookup(site_dir: Path, source: str):
    name, *path = source.split(".")
    value = json.loads((site_dir / "tables" / f"{name}.json").read_text(encoding="utf-8"))
    for key in path:
        value = value[int(key)] if isinstance(value, list) else value[key]
    return value


def open_deck(page, site_url, slug, query=""):
    page.goto(f"{site_url}/decks/{slug}.html{query}")
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")


def test_index_links_every_deck_the_code_and_the_lab(page, site_url, site_dir):
    page.goto(f"{site_url}/index.html")
    page.wait_for_load_state("load")
    hrefs = page.eval_on_selector_all("a", "els => els.map(a => a.getAttribute('href'))")
    for slug in DECKS:
        assert f"decks/{slug}.html" in hrefs
    has_lab = (ROOT / "web" / "lab" / "index.html").exists()
    assert ("lab/index.html" in hrefs) == has_lab
    download = next(h for h in hrefs if h.startswith("downloads/") and h.endswith(".zip"))
    response = page.request.get(f"{site_url}/{download}")
    assert response.ok and response.body()[:2] == b"PK"
    page.watch.assert_clean()


@pytest.mark.parametrize("slug", DECKS)
def test_deck_loads_clean_and_the_keyboard_reaches_the_last_slide(deck_walk, site_dir, slug):
    """The wide walk's keyboard path (support/walks.py walk_keyboard): one press a
    slide and a fragment reaches the last slide and the address follows; one
    back; the last slide's address opens it; no console error on the way."""
    assert (site_dir / "decks" / f"{slug}.html").exists()
    walk = deck_walk(slug, "1280x720")
    total = walk.keyboard["total"]
    assert total > 1 and len(walk.slides) == total
    assert walk.keyboard["last"], walk.keyboard
    assert walk.keyboard["back"] == total - 2 and walk.keyboard["opened"] == total - 1, walk.keyboard
    walk.assert_clean()


@pytest.mark.parametrize("slug", DECKS)
def test_every_sourced_value_shows_the_json_values(deck_walk, site_dir, slug):
    walk = deck_walk(slug, "1280x720")
    checked = numbers = 0
    for el in walk.sourced:
        value = lookup(site_dir, el["source"])
        if el["kind"] == "unavailable":
            assert isinstance(value, dict) and value.get("available") is False, el["source"]
        elif el["kind"] == "table":
            rows = value["rows"] if isinstance(value, dict) else value
            expected = [[fmt(c, el["digits"]) for c in row] for row in rows]
            assert el["rows"] == expected, el["source"]
        elif el["kind"] == "bars":
            values = value["values"] if isinstance(value, dict) else value
            assert el["bars"] == [fmt(v, el["digits"]) for v in values], el["source"]
            if isinstance(value, dict) and "labels" in value:
                assert el["labels"] == [label(x) for x in value["labels"]]
        elif el["kind"] in ("num", "list"):  # a number printed in prose or math (m.num, {{ data... }}, m.ids)
            assert squash(el["text"]) == squash(fmt(value, el["digits"])), el["source"]
            numbers += 1
        elif el["kind"] == "abs":  # m.num(..., magnitude=True)
            assert squash(el["text"]) == squash(fmt(abs(value), el["digits"])), el["source"]
            numbers += 1
        elif el["kind"] == "name":  # a seed printed as a name, never grouped (sourced(..., "name"))
            assert el["text"] == fmt(value, 0, group=False), el["source"]
            numbers += 1
        elif el["kind"] == "len":
            assert el["text"] == fmt(len(value), 0), el["source"]
            numbers += 1
        else:
            raise AssertionError(f"unknown data-source element {el['kind']}: {el['source']}")
        checked += 1
    assert numbers >= 5, f"{slug}: only {numbers} numbers in the prose name their JSON source"
    # every direction word (m.compare) matches the values it compares
    for c in walk.compared:
        a, b = lookup(site_dir, c["a"]), lookup(site_dir, c["b"])
        less, more, same = c["words"].split("|")
        assert c["text"] == (less if a < b else more if a > b else same), (c["a"], c["b"])
    if slug == "maps":
        assert checked >= 40
    walk.assert_clean()


def test_maps_deck_has_no_table_without_a_json_source(page, site_url):
    open_deck(page, site_url, "maps")
    unsourced = page.evaluate(
        "[...document.querySelectorAll('.slides table:not(.map-code)')].filter(t => !t.dataset.source).length"
    )
    assert unsourced == 0


def test_maps_deck_quotes_the_worked_numbers_and_the_audit(page, site_url, site_dir):
    open_deck(page, site_url, "maps")
    text = page.evaluate("document.querySelector('.slides').textContent")
    assert "0.1444295" in text and "2.2394907" in text
    audit = lookup(site_dir, "corpus_audit")
    if audit.get("available"):
        train = audit["splits"]["train"]
        cells = page.evaluate("""[...document.querySelectorAll('table[data-source="corpus_audit"] tbody tr')]
                                 .map(tr => [...tr.children].map(td => td.textContent))""")
        assert [
            "train",
            fmt(train["documents"], 0),
            fmt(train["tokens"], 0),
            fmt(train["tokens"] + train["documents"], 0),
            fmt(train["unk_tokens"], 0),
        ] in cells
    else:
        assert page.locator(".unavailable[data-source='corpus_audit']").count() > 0


def test_maps_math_is_typeset_with_katex_fonts(page, site_url):
    open_deck(page, site_url, "maps")
    assert page.locator(".slides .katex").count() >= 10
    assert page.locator(".slides .katex-error").count() == 0
    slide = page.evaluate("""[...document.querySelectorAll('.slides > section')]
                             .findIndex(s => s.querySelector('.katex-display'))""")
    page.evaluate(f"Reveal.slide({slide})")
    page.wait_for_function("""() => document.fonts.ready.then(() =>
        [...document.fonts].some(f => f.family.includes('KaTeX') && f.status === 'loaded'))""")
    family = page.evaluate("getComputedStyle(Reveal.getCurrentSlide().querySelector('.katex')).fontFamily")
    assert "KaTeX" in family
    page.watch.assert_clean()


def test_maps_every_slide_has_speaker_notes_and_maps_highlight_one_stage(page, site_url):
    open_deck(page, site_url, "maps")
    info = page.evaluate("""[...document.querySelectorAll('.slides > section')].map(s => [
        !!s.querySelector('aside.notes'),
        [...s.querySelectorAll('nav.map')].map(m => m.querySelectorAll('li.current').length)])""")
    assert all(has_notes for has_notes, _ in info)
    strips = [n for _, maps in info for n in maps]
    assert len(strips) >= 30 and all(n >= 1 for n in strips)


def test_maps_cdf_widget_works_from_the_keyboard(page, site_url, site_dir):
    open_deck(page, site_url, "maps")
    gen = lookup(site_dir, "maps_generation")
    widget = page.locator(".widget[data-widget='maps-cdf']")
    assert widget.get_attribute("data-mounted") == "true"
    slide = page.evaluate("""[...document.querySelectorAll('.slides > section')]
                             .findIndex(s => s.querySelector(".widget[data-widget='maps-cdf']"))""")
    page.evaluate(f"Reveal.slide({slide})")
    assert widget.get_attribute("data-chosen") == gen["sample"]  # the fixed draw
    slider = widget.get_by_label("Draw u")
    slider.focus()
    slider.press("End")
    assert widget.get_attribute("data-chosen") == gen["bars"]["labels"][-1]
    slider.press("Home")
    first_possible = next(lab for lab, p in zip(gen["bars"]["labels"], gen["p"]) if p > 0)
    assert widget.get_attribute("data-chosen") == first_possible
    slider.press("ArrowRight")
    assert page.evaluate("Reveal.getIndices().h") == slide  # the arrow moved the slider, not the deck
    assert "sampled token is" in widget.locator(".cdf-result").text_content()
    page.watch.assert_clean()


def test_print_view_lays_out_every_slide(page, site_url, site_dir):
    open_deck(page, site_url, "maps", "?print-pdf")
    # reveal switches to print mode and lays out the pages asynchronously, after it
    # reports ready (the sections are detached while it works): wait until the page
    # is in print mode with every slide in its own page (plus the pages deck.js gives
    # the exercise copies that would overflow their slide)
    total = (site_dir / "decks" / "maps.html").read_text(encoding="utf-8").count("<section data-slide=")
    page.wait_for_function(
        f"""document.documentElement.classList.contains('print-pdf')
            && document.querySelectorAll('.pdf-page:has(> section[data-slide])').length === {total}
            && document.querySelectorAll('.pdf-page section[data-slide]').length === {total}"""
    )
    assert total > 1
    page.watch.assert_clean()


def test_speaker_view_opens_with_the_notes(page, site_url):
    open_deck(page, site_url, "maps", "#/9")
    outside = []
    page.context.on(
        "request",
        lambda r: (
            r.url.split(":")[0] in ("http", "https") and not r.url.startswith(site_url + "/") and outside.append(r.url)
        ),
    )
    with page.context.expect_page() as popup_info:
        page.keyboard.press("s")
    popup = popup_info.value
    errors = []
    popup.on("console", lambda m: m.type == "error" and errors.append(m.text))
    expected = page.evaluate("Reveal.getCurrentSlide().querySelector('aside.notes').textContent.trim().split('\\n')[0]")
    popup.wait_for_function(
        "document.body && document.body.innerText.includes('NOTES') || "
        "document.body.innerText.toLowerCase().includes('notes')"
    )
    popup.wait_for_function(f"document.body.innerText.includes({json.dumps(expected[:40])})")
    assert not errors and not outside
    page.watch.assert_clean()


def test_a_visited_deck_and_its_reading_view_open_offline(page, site_url, site_dir):
    """Every page registers the site's service worker (web/sw.js) and keeps what
    it loaded: with the network off, a reload of a deck visited once still
    runs reveal.js, typesets the math and starts its widgets."""
    build = build_of(site_dir)
    open_deck(page, site_url, "maps")
    wait_kept(page, build, ("/decks/maps.html", "/vendor/reveal/reveal.js", "/widgets/loader.js"))
    page.goto(f"{site_url}/read/maps.html")
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    wait_kept(page, build, ("/read/maps.html", "/assets/read.css"))
    page.context.set_offline(True)
    try:
        open_deck(page, site_url, "maps")
        assert page.locator(".slides .katex").count() >= 10
        assert page.locator(".slides .katex-error").count() == 0
        assert page.evaluate("document.documentElement.dataset.widgetsReady") != "failed"
        page.goto(f"{site_url}/read/maps.html")
        assert page.locator("article.read-slide").count() > 10
    finally:
        page.context.set_offline(False)


def test_the_service_worker_keeps_the_pages_opened_after_it_took_control(page, site_url, site_dir):
    """The page stores what it loaded only on a visit no worker of its build
    controlled; every later page is kept by the service worker itself: a deck
    first opened once the worker is in control (its widgets' modules and
    tables included) is in the worker's cache and opens offline."""
    page.goto(f"{site_url}/index.html")
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    open_deck(page, site_url, "part2")
    assert page.evaluate("navigator.serviceWorker.controller !== null")  # opened under the worker's control
    widgets = page.evaluate(
        "[...new Set([...document.querySelectorAll('.widget[data-widget]')].map((w) => w.dataset.widget))]"
    )
    tables = page.evaluate(
        "[...new Set([...document.querySelectorAll('.widget[data-table]')].map((w) => w.dataset.table))]"
    )
    assert len(widgets) >= 5 and tables
    kept = ["/decks/part2.html", "/widgets/loader.js", "/assets/deck.js", "/vendor/katex/katex.min.css"]
    kept += [f"/widgets/{name}.js" for name in widgets] + [f"/tables/{name}.json" for name in tables if name]
    wait_kept(page, build_of(site_dir), kept)
    page.context.set_offline(True)
    try:
        page.reload()
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")
        assert page.locator(".widget[data-mounted=true]").count() == page.locator(".widget[data-widget]").count()
        assert page.locator(".widget-error").count() == 0
    finally:
        page.context.set_offline(False)


def test_a_deck_opened_as_a_file_says_how_to_serve_its_widgets(browser, site_dir):
    """Over file:// browsers run no module scripts: each widget says how to serve
    the site instead of staying at "loading…"."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto((site_dir / "decks" / "part2.html").as_uri())
        # every slide's body in place (static/deck.js runs over file://; the later ones come when idle)
        page.wait_for_function("document.documentElement.dataset.slidesPlaced === 'true'")
        texts = page.evaluate("[...document.querySelectorAll('.widget .widget-loading')].map((p) => p.textContent)")
        assert len(texts) >= 5
        for text in texts:
            assert not text.endswith("loading…") and "make serve" in text, text
            assert "python3 -m http.server -d build/site" in text
    finally:
        context.close()
