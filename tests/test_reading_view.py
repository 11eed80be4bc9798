"""Every deck's reading view (read/<slug>.html) and the links between the pages.

The reading view holds every slide of the deck in order with its notes, is
linked from the deck and the index, reads on a 390 px phone (no sideways page
scroll, body text at least 16 px; every exercise opens and accepts its answer
there) and has no serious or critical axe-core violation. Every link on the
index, the decks and the reading views resolves in the built site; each deck
ends with links to the next deck, the lab, its reading view and its notebook,
and carries its part label."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

import pytest

from export.exercises import answer
from support.exercises import CATALOG, IDS, KIND, SEED, box, rounded

ROOT = Path(__file__).resolve().parent.parent
DECKS = sorted(p.stem for p in (ROOT / "content" / "decks").glob("*.md"))
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
# the page's widths and its smallest body text at 390 px, and what is wider than the phone
SIZES = """() => {
    const doc = document.documentElement;
    const px = s => parseFloat(getComputedStyle(s).fontSize);
    const body = [...document.querySelectorAll('.read-body > p, .read-body li, .read-notes p')]
        .filter(e => e.textContent.trim().length > 20 && !e.closest('.two-col'));
    return {scroll: doc.scrollWidth, width: doc.clientWidth, body: Math.min(...body.map(px)), n: body.length,
            wideTables: [...document.querySelectorAll('table, pre, svg, .katex-display')].filter(t => {
                if (t.closest('.katex')) return false;   // KaTeX's own stretchy glyphs
                // what shows is the element cut by every ancestor that scrolls or clips
                let right = t.getBoundingClientRect().right;
                for (let e = t; e && e !== doc; e = e.parentElement) {
                    if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(e).overflowX))
                        right = Math.min(right, e.getBoundingClientRect().right);
                }
                return right > doc.clientWidth + 1;
            }).map(t => t.tagName + ' ' + (t.dataset.source || t.id || ''))};
}"""
PARTS = {"maps": "Part I", "part2": "Part II", "part3": "Part III", "results": "Part IV"}


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []
        self.sections = 0
        self.notes = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])
        if tag == "section" and "data-slide" in a and "end-slide" not in (a.get("class") or ""):
            self.sections += 1
        if tag == "aside" and "notes" in (a.get("class") or "").split():
            self.notes += 1


def parse(path: Path) -> _Links:
    p = _Links()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def order(site_dir: Path) -> list[str]:
    hrefs = parse(site_dir / "index.html").hrefs
    return [h.split("/")[1][:-5] for h in hrefs if re.fullmatch(r"decks/[a-z0-9-]+\.html", h)]


def test_every_deck_is_on_the_index_with_its_part_and_reading_view(site_dir):
    html = (site_dir / "index.html").read_text(encoding="utf-8")
    hrefs = parse(site_dir / "index.html").hrefs
    assert sorted(order(site_dir)) == DECKS
    for slug in DECKS:
        assert f"read/{slug}.html" in hrefs and f"notebooks/{slug}.ipynb" in hrefs
    parts = re.findall(r'<span class="deck-part">([^<]+)</span>', html)
    assert parts == [PARTS[s] for s in order(site_dir)], "parts on the index follow the deck order"


@pytest.mark.parametrize("slug", DECKS)
def test_deck_ends_with_next_lab_reading_and_notebook_links(site_dir, slug):
    decks = order(site_dir)
    page = site_dir / "decks" / f"{slug}.html"
    html = page.read_text(encoding="utf-8")
    assert f"<title>{PARTS[slug]} · " in html
    end = html[html.index('class="end-slide"') :]
    hrefs = re.findall(r'href="([^"]+)"', end)
    i = decks.index(slug)
    if i + 1 < len(decks):
        assert f"../decks/{decks[i + 1]}.html" in hrefs
    assert f"../read/{slug}.html" in hrefs and f"../notebooks/{slug}.ipynb" in hrefs
    if (ROOT / "web" / "lab" / "index.html").exists():
        assert "../lab/index.html" in hrefs
    # the reading view has the same slides and notes as the deck
    deck, read = parse(page), parse(site_dir / "read" / f"{slug}.html")
    read_html = (site_dir / "read" / f"{slug}.html").read_text(encoding="utf-8")
    assert read_html.count('<article class="read-slide" id="slide-') == deck.sections
    slides_html = html[: html.index('class="end-slide"')]
    assert read_html.count('<aside class="read-notes"') == slides_html.count('<aside class="notes">')
    assert f"../read/{slug}.html" in deck.hrefs and f"../decks/{slug}.html" in read.hrefs


def test_every_link_resolves_in_the_built_site(site_dir):
    """Index, decks and reading views: each relative link names a file of the site
    (and an id on that page for #fragments other than reveal's #/N). Notebooks are
    built by the notebook stage; until that stage writes site/notebooks/, links to
    them are the only ones allowed to dangle."""
    pages = (
        [site_dir / "index.html"]
        + sorted((site_dir / "decks").glob("*.html"))
        + sorted((site_dir / "read").glob("*.html"))
        + sorted(p for p in (site_dir / "notation.html", site_dir / "glossary.html") if p.exists())
        + sorted((site_dir / "notebooks").glob("*.html"))
    )
    notebooks_built = (site_dir / "notebooks").is_dir()
    broken, checked = [], 0
    for page in pages:
        base = "http://site/" + str(page.relative_to(site_dir))
        for href in parse(page).hrefs:
            if href.startswith(("mailto:", "data:")):
                continue
            url = urljoin(base, href)
            assert urlparse(url).netloc == "site", f"{page.name}: link leaves the site: {href}"
            path, frag = urldefrag(url)
            target = site_dir / urlparse(path).path.lstrip("/")
            if not notebooks_built and "/notebooks/" in path:
                continue
            checked += 1
            if not target.is_file():
                broken.append(f"{page.relative_to(site_dir)} -> {href}")
            elif frag and not frag.startswith("/") and f'id="{frag}"' not in target.read_text(encoding="utf-8"):
                broken.append(f"{page.relative_to(site_dir)} -> {href} (no id)")
    assert checked > 30 and not broken, broken


@pytest.mark.parametrize("slug", DECKS)
def test_reading_view_reads_on_a_phone_its_exercises_work_and_it_passes_axe(browser, site_url, slug):
    """At 390 px: no sideways page scroll, body text at least 16 px, nothing wider
    than the phone unless it scrolls inside itself; every exercise opens from a tap
    on its summary and accepts its answer (the Python reference's, at ?seed=),
    shows its solution, and widens nothing; then one axe-core run over the page with
    every box open (what a closed box shows, its summary, is in it too)."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
    page = context.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{site_url}/read/{slug}.html?seed={SEED}")
    page.wait_for_load_state("load")
    page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")
    sizes = page.evaluate(SIZES)
    assert sizes["scroll"] <= sizes["width"], f"the page scrolls sideways at 390 px: {sizes}"
    assert sizes["n"] > 5 and sizes["body"] >= 16, sizes
    assert not sizes["wideTables"], f"wider than the phone and not scrolling inside itself: {sizes['wideTables']}"
    ids = [i for i in IDS if CATALOG[i]["deck"] == slug]
    assert page.locator("details.exercise-box").count() == len(ids) >= 5
    for exercise_id in ids:
        box(page, exercise_id).locator("summary").click()
        ex = page.locator(f"[data-exercise='{exercise_id}']")
        inputs = json.loads(ex.get_attribute("data-inputs"))
        digits = page.evaluate(KIND, [exercise_id, inputs])["digits"]
        ex.locator("input").fill(rounded(answer(exercise_id, inputs), digits))
        ex.locator("[data-action=check]").click()
        assert ex.locator("[data-verdict]").get_attribute("data-verdict") == "correct", exercise_id
        ex.locator("[data-action=solution]").click()
        assert ex.locator("[data-solution]").is_visible()
        width = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert width[0] <= width[1], (exercise_id, width)
        assert ex.get_attribute("tabindex") is None, f"{exercise_id} scrolls sideways inside itself"
    font = page.evaluate("parseFloat(getComputedStyle(document.querySelector('.ex-question p')).fontSize)")
    assert font >= 16
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    bad = [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"][:3]])
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert not bad, bad
    assert not errors, errors
    context.close()
