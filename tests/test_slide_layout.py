"""Slides that read on a projector and on a phone (issue 20).

Every slide of every deck is measured in Chromium the way
../shared/tools/look.py measures it (tests/slide_metrics.py): at 1280x720
the smallest text is at least 18 px on at least 95% of slides, and nothing
the site's type scale or the drawing kit sets is smaller (a widget's own
styles and a size a deck sets inline are the decks' to fix); every figure
label is at least 18 units. At 390x844 every slide of every deck is the
screen at scale 1 with text of at least 16 CSS px, nothing sticks out
sideways, next and previous are on screen, a swipe changes the slide, a
deep link lands on its slide and the reading view has contents and marks
what scrolls sideways. Every slide passes axe-core (no serious or critical
violation) at both sizes. The map strip never goes back within a deck.

At most 90 prose words on 95% of slides, a figure or widget on half of them
and nothing overflowing a slide: ``python tests/slide_metrics.py`` reports
each deck's figures and names the slides that miss.
"""

from __future__ import annotations

import json
import re

import pytest

from common.settings import ROOT, TABLES_DIR
from common.typeface import PHONE_MIN_PX, SLIDE_MIN_PX
from support.figures import svgs_in
from support.slide_metrics import GOALS, SHOW_SLIDE, open_deck

DECKS = sorted(p.stem for p in (ROOT / "content" / "decks").glob("*.md"))
PHONE_VIEW = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@pytest.fixture(scope="module")
def wide(deck_walk):
    """Every slide of every deck at 1280x720, all fragments shown (the session's one walk per deck)."""
    return {slug: deck_walk(slug, "1280x720").slides for slug in DECKS}


@pytest.fixture
def phone(browser):
    context = browser.new_context(**PHONE_VIEW, device_scale_factor=1)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.errors = errors
    yield page
    context.close()


# ---------------------------------------------------------------- a projector: 1280x720
def test_smallest_text_is_18_px_on_at_least_95_percent_of_slides(wide):
    slides = [s for deck in wide.values() for s in deck]
    ok = [min(s["min_font_px"], s["min_rendered_px"]) >= SLIDE_MIN_PX for s in slides]
    per_deck = {
        slug: f"{sum(min(s['min_font_px'], s['min_rendered_px']) >= 18 for s in d)}/{len(d)}"
        for slug, d in wide.items()
    }
    assert len(slides) > 100
    assert sum(ok) / len(ok) >= GOALS["share"], per_deck


def test_the_type_scale_and_the_figures_set_nothing_under_18_px(wide):
    small = [
        f"{slug} {s['n']} {s['title'][:30]!r}: {s['min_own_px']} px ({s['min_own_text']!r})"
        for slug, deck in wide.items()
        for s in deck
        if s["min_own_px"] < SLIDE_MIN_PX
    ]
    assert not small, small


def test_slides_are_short_pictured_and_fit(wide):
    """At most 90 prose words on 95% of slides, a figure or a widget on half of
    them, and nothing sticking out of any slide at 1280x720."""
    slides = [dict(s, deck=slug) for slug, deck in wide.items() for s in deck]
    wordy = [f"{s['deck']} {s['n']} {s['title'][:40]!r}: {s['prose_words']}" for s in slides if s["prose_words"] > 90]
    pictured = sum(bool(s["figures"] or s["widgets"]) for s in slides)
    over = [f"{s['deck']} {s['n']} {s['title'][:40]!r}" for s in slides if s["overflowing"]]
    assert len(wordy) <= (1 - GOALS["share"]) * len(slides), wordy
    assert pictured >= GOALS["pictures"] * len(slides), f"{pictured} of {len(slides)} slides have a figure or widget"
    assert not over, over


def test_every_figure_label_is_at_least_18_units():
    sizes = []
    for path in sorted(TABLES_DIR.glob("*.json")):
        for svg in svgs_in(json.loads(path.read_text(encoding="utf-8"))):
            found = [float(x) for x in re.findall(r'font-size="([\d.]+)"', svg)]
            sizes += [(x, path.stem) for x in found]
    assert len(sizes) > 300
    assert min(sizes)[0] >= SLIDE_MIN_PX, min(sizes)


# ---------------------------------------------------------------- a phone: 390x844
@pytest.mark.parametrize("slug", DECKS)
def test_a_deck_reads_on_a_phone(deck_walk, slug):
    walk = deck_walk(slug, "390x844")
    slides = walk.slides
    assert walk.phone_class
    assert not walk.scroll_view, "reveal's scroll view is on"
    problems = []
    for i, s in enumerate(slides):
        if s["scale"] != 1:
            problems.append(f"{s['n']}: drawn at scale {s['scale']}")
        if s["min_font_css_px"] < PHONE_MIN_PX:
            problems.append(f"{s['n']}: text {s['min_font_css_px']} px ({s['min_font_text']!r})")
        if s["cut"] or s["page_scroll_width"] > s["width"]:
            problems.append(f"{s['n']}: sticks out sideways {s['cut']} ({s['page_scroll_width']} px)")
        for name, needed in (("next", i < len(slides) - 1), ("prev", i > 0)):
            button = s[name]
            if needed and not (button and button["inside"] and min(button["w"], button["h"]) >= 40):
                problems.append(f"{s['n']}: no {name} button to tap ({button})")
    assert not problems, problems
    assert not walk.errors, walk.errors


def _swipe(page, x0, y0, x1, y1):
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for k in range(1, 9):
        x, y = x0 + (x1 - x0) * k / 8, y0 + (y1 - y0) * k / 8
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    page.wait_for_timeout(300)


def test_a_swipe_changes_the_slide_and_a_tall_slide_scrolls(phone, site_url):
    open_deck(phone, f"{site_url}/decks/part2.html#/5")
    assert phone.evaluate("Reveal.getIndices().h") == 5
    # across the heading: lower down, a figure wider than the phone takes a
    # sideways swipe as its own scroll (site_builder/README.md, "Diagrams")
    _swipe(phone, 320, 110, 60, 120)
    assert phone.evaluate("Reveal.getIndices().h") == 6
    _swipe(phone, 60, 110, 320, 115)
    assert phone.evaluate("Reveal.getIndices().h") == 5
    # a slide taller than the screen scrolls up and down, and stays on its slide
    tall = phone.evaluate("""() => Reveal.getSlides().findIndex(s => {
        s.style.display = 'flex'; const t = s.scrollHeight > s.clientHeight + 40; s.style.display = ''; return t; })""")
    assert tall >= 0
    phone.evaluate(SHOW_SLIDE, tall)
    phone.wait_for_timeout(200)
    _swipe(phone, 200, 700, 205, 250)
    assert phone.evaluate("Reveal.getIndices().h") == tall
    assert phone.evaluate("Reveal.getCurrentSlide().scrollTop") > 0
    assert not phone.errors, phone.errors


@pytest.mark.parametrize("slug, n", [("part3", 7), ("maps", 30)])
def test_a_deep_link_lands_on_its_slide_on_a_phone(phone, site_url, site_dir, slug, n):
    open_deck(phone, f"{site_url}/decks/{slug}.html#/{n}")
    assert phone.evaluate("Reveal.getIndices().h") == n
    assert phone.evaluate("Reveal.getCurrentSlide().getBoundingClientRect().top") >= 0
    # the deck offers its reading view at the same slide
    href = phone.get_attribute(".home-link .reading-link", "href")
    assert href.endswith(f"read/{slug}.html#slide-{n}"), href
    assert f'id="slide-{n}"' in (site_dir / "read" / f"{slug}.html").read_text(encoding="utf-8")
    assert phone.locator(".home-link .reading-link").is_visible()


def test_the_reading_view_has_contents_and_marks_what_scrolls_sideways(phone, site_url, site_dir):
    phone.goto(f"{site_url}/read/part2.html")
    phone.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")
    links = phone.eval_on_selector_all(".read-toc a", "els => els.map(a => [a.getAttribute('href'), a.textContent])")
    slides = phone.eval_on_selector_all("article.read-slide[id]", "els => els.map(a => a.id)")
    assert [h for h, _ in links] == [f"#{i}" for i in slides] and len(slides) > 20
    assert all(text.strip() for _, text in links)
    marked = phone.evaluate("""() => [...document.querySelectorAll('.scrolls')].map(el => ({
        wider: el.scrollWidth > el.clientWidth, hint: !!(el.previousElementSibling
        && el.previousElementSibling.classList.contains('scroll-hint')), tab: el.getAttribute('tabindex')}))""")
    assert marked and all(m["wider"] and m["hint"] and m["tab"] == "0" for m in marked), marked
    # and a figure keeps a readable scale: it scrolls rather than shrinks (a
    # figure drawn twice shows one arrangement: the other has no box)
    drawn = phone.evaluate("""() => [...document.querySelectorAll('.diagram-figure svg')]
        .filter(svg => svg.getBoundingClientRect().width > 0).map(svg =>
        svg.getBoundingClientRect().width / svg.viewBox.baseVal.width)""")
    assert drawn and min(drawn) >= 0.85, drawn
    assert not phone.errors, phone.errors


# ---------------------------------------------------------------- axe on every slide
@pytest.mark.parametrize("size", ["1280x720", "390x844"])
@pytest.mark.parametrize("slug", DECKS)
def test_every_slide_passes_axe(deck_walk, slug, size):
    walk = deck_walk(slug, size)
    assert walk.slides
    bad = [f"slide {s['n']}: {v}" for s in walk.slides for v in s["axe"]] + [f"page: {v}" for v in walk.axe_document]
    assert not bad, bad


# ---------------------------------------------------------------- the map strip
def test_the_map_strip_never_goes_back_within_a_deck(site_dir):
    """Per deck and map, the filled part of the strip (every stage done or
    current) never shrinks; the current stage is named in visible text."""
    for slug in DECKS:
        html = (site_dir / "decks" / f"{slug}.html").read_text(encoding="utf-8")
        reached: dict[str, int] = {}
        strips = re.findall(r'<nav class="map" data-map="([^"]+)"[^>]*>(.*?)</nav>', html, flags=re.S)
        assert strips or slug == "results"
        for name, body in strips:
            states = re.findall(r'<li class="([^"]+)"', body)
            filled = max(i for i, c in enumerate(states) if "todo" not in c)
            assert filled >= reached.get(name, -1), f"{slug}: the {name} map goes back"
            reached[name] = filled
            # (an index in the label is a <sub>: W<sub>O</sub>)
            assert re.search(r'class="current[^"]*"[^>]*><span class="map-label">(?:[^<]|</?sub>)+</span>', body)


# ---------------------------------------------------------------- the drawing kit's cells
def test_cells_print_every_value_coloured_by_its_meaning():
    import xml.etree.ElementTree as ET

    from common import palette
    from export.tables.kit import cells

    q = [2.7, 0.0, -0.68]
    svg = cells.vectors(
        "t-q", "The query", "q = [2.7, 0, -0.68]", [("q₇", q), ("k₇", [1.0, -2.7, 0.5])], "part2-vectors"
    )
    texts = [t.text for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")]
    assert ["2.70", "0.00", "−0.68"] == texts[:3] and "q₇" in texts and "value" in texts  # cells, labels, legend
    assert ["−3", "3", "0"] == [t for t in texts if t in ("−3", "3", "0")]  # the named scale's rounded ends, and 0
    # one scale per meaning: signed values symmetric about 0 (the middle stop), weights from the lab's scale
    assert cells.colour(0.0, "signed", 2.7) == palette.hex_colour(palette.SIGNED_SCALE[2])
    assert cells.colour(2.7, "signed", 2.7) == palette.hex_colour(palette.SIGNED_SCALE[-1])
    assert cells.colour(-2.7, "signed", 2.7) == palette.hex_colour(palette.SIGNED_SCALE[0])
    assert cells.colour(0.25, "weight", 1.0) == palette.scale_colour(0.25)
    assert cells.top([[0.2, None], [-3.0, 1.0]], "signed") == 3.0 and cells.top([[0.2]], "weight") == 1.0
    for size in re.findall(r'font-size="([\d.]+)"', svg):
        assert float(size) >= SLIDE_MIN_PX
