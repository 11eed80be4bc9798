"""The index is the course's front door (issue 35 item 7): one card per deck,
each with the deck's key figure (front matter `key_figure`: one of the
figures the deck's own slides show, with an accessible name, linked to the
slide that shows it) and a card for the lab; the glossary sets its terms in
bold and its slide links in the palette's muted colour.

Reads build/site (make site); the build-time checks of `key_figure` build a
small site of their own."""

from __future__ import annotations

import json
import re
import tomllib

import pytest

from common.settings import ROOT
from support.builds import run_build

DECKS = sorted(p.stem for p in (ROOT / "content" / "decks").glob("*.md"))

CARDS = """() => [...document.querySelectorAll('.deck-cards > li')].map(li => {
  const svg = li.querySelector('figure.card-figure svg');
  const name = svg && (svg.getAttribute('aria-labelledby') || '').split(/\\s+/).filter(Boolean)
    .map(id => (document.getElementById(id) || {}).textContent || '').join(' ').trim();
  const box = svg && svg.getBoundingClientRect();
  return {
    deck: li.querySelector('a.deck-link')?.getAttribute('href') ?? null,
    figure: li.querySelector('figure.card-figure')?.dataset.figure ?? null,
    role: svg && svg.getAttribute('role'), name, id: svg && svg.id,
    slide: li.querySelector('figure.card-figure figcaption a')?.getAttribute('href') ?? null,
    width: box ? box.width : 0, height: box ? box.height : 0, right: box ? box.right : 0,
  };
})"""


def front_matter(slug: str) -> dict:
    text = (ROOT / "content" / "decks" / f"{slug}.md").read_text(encoding="utf-8")
    return tomllib.loads(text.split("+++")[1])


def slide_sections(site_dir, slug: str) -> dict[int, str]:
    html = (site_dir / "decks" / f"{slug}.html").read_text(encoding="utf-8")
    return {int(n): body for n, body in re.findall(r'<section data-slide="(\d+)"[^>]*>(.*?)</section>', html, re.S)}


@pytest.mark.parametrize("size", [(1280, 720), (390, 844)])
def test_the_index_has_one_card_per_deck_with_its_key_figure(browser, site_url, site_dir, size):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    try:
        page.goto(f"{site_url}/index.html")
        page.wait_for_load_state("load")
        cards = page.evaluate(CARDS)
        assert [c["deck"] for c in cards] == [
            f"decks/{s}.html" for s in sorted(DECKS, key=lambda s: front_matter(s)["order"])
        ]
        for slug, card in zip(sorted(DECKS, key=lambda s: front_matter(s)["order"]), cards):
            source = front_matter(slug)["key_figure"]
            assert card["figure"] == source, (slug, card)
            # the figure is the deck's own: the slide the caption links to shows the same SVG
            n = int(card["slide"].split("#/")[1])
            assert card["slide"] == f"decks/{slug}.html#/{n}"
            shown = slide_sections(site_dir, slug)[n]
            assert f'data-figure="{source}"' in shown and f'id="{card["id"]}"' in shown, (slug, n)
            name, *path = source.split(".")
            svg = json.loads((site_dir / "tables" / f"{name}.json").read_text(encoding="utf-8"))
            for key in path:
                svg = svg[key]
            assert f'id="{card["id"]}"' in svg
            # an image with a real accessible name (its <title>, and the <desc>)
            assert card["role"] == "img" and len(card["name"]) >= 20, (slug, card["name"])
            # big enough to see, never wider than the screen
            assert card["width"] >= 150 and card["height"] >= 60, (slug, card)
            assert card["right"] <= size[0], (slug, card)
        assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    finally:
        context.close()


def test_the_index_has_a_lab_card(page, site_url):
    if not (ROOT / "web" / "lab" / "index.html").exists():
        pytest.fail("web/lab/index.html is missing: the course has a lab")
    page.goto(f"{site_url}/index.html")
    card = page.locator(".lab-card")
    assert card.count() == 1
    link = card.locator('a[href="lab/index.html"]')
    assert link.count() == 1 and link.is_visible()
    what = card.inner_text()
    assert "browser" in what and 10 <= len(what.split()) <= 40, what  # what it does, in one line
    assert page.request.get(f"{site_url}/lab/index.html").ok


def rgb(hex_colour: str) -> str:
    h = hex_colour.strip().lstrip("#")
    return f"rgb({int(h[0:2], 16)}, {int(h[2:4], 16)}, {int(h[4:6], 16)})"


def test_glossary_terms_are_bold_and_its_links_muted(page, site_url):
    page.goto(f"{site_url}/glossary.html")
    page.wait_for_load_state("load")
    styles = page.evaluate("""() => ({
      muted: getComputedStyle(document.documentElement).getPropertyValue('--muted'),
      accent: getComputedStyle(document.documentElement).getPropertyValue('--accent'),
      terms: [...document.querySelectorAll('dl.glossary dt')].map(dt => getComputedStyle(dt).fontWeight),
      means: [...document.querySelectorAll('dl.glossary dd')].map(dd => getComputedStyle(dd).fontWeight),
      links: [...document.querySelectorAll('dl.glossary dd a')].map(a => getComputedStyle(a).color),
    })""")
    n = len(tomllib.loads((ROOT / "content" / "glossary.toml").read_text(encoding="utf-8"))["term"])
    assert len(styles["terms"]) == n and len(styles["links"]) == n
    assert all(int(w) >= 700 for w in styles["terms"]), styles["terms"]
    assert all(int(w) < 600 for w in styles["means"])  # only the terms are bold
    assert styles["muted"] and rgb(styles["muted"]) != rgb(styles["accent"])
    assert set(styles["links"]) == {rgb(styles["muted"])}, set(styles["links"])


def test_glossary_sets_indices_as_math(site_dir):
    """W_O, d_k, W_Q ... in the terms, meanings and slide titles are typeset (KaTeX), never plain text."""
    html = (site_dir / "glossary.html").read_text(encoding="utf-8")
    shown = re.sub(r'<span class="katex">.*?</annotation></semantics></math></span>', "", html, flags=re.S)
    shown = re.sub(r'aria-label="[^"]*"', "", shown)
    assert not re.findall(r"(?<![\w.])[A-Za-z]_[A-Za-z0-9]+(?!\w)", re.sub(r"<[^>]+>", "", shown))
    assert html.count('class="katex"') >= 10


# ---- the build's checks of key_figure --------------------------------------------------

FIGURE = (
    '<svg xmlns="http://www.w3.org/2000/svg" class="diagram" id="mini-fig" role="img" viewBox="0 0 100 40" '
    'aria-labelledby="mini-fig-title mini-fig-desc"><title id="mini-fig-title">A mini figure</title>'
    '<desc id="mini-fig-desc">One box, for the build tests.</desc><rect width="10" height="10"/></svg>'
)


def key_deck(content, body: str) -> None:
    (content / "decks" / "keyed.md").write_text(
        f'+++\ntitle = "Keyed"\norder = 3\ntables = ["fig"]\nkey_figure = "fig.svg"\n+++\n{body}\n', encoding="utf-8"
    )


def test_the_key_figure_is_shown_on_the_index_linked_to_its_slide(mini, capsys):
    content, tables, out = mini
    (tables / "fig.json").write_text(json.dumps({"svg": FIGURE}))
    key_deck(content, "## Intro\n\nText.\n\n---\n\n## The picture\n\n{{ m.figure('fig.svg') }}")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 0, log
    index = (out / "index.html").read_text(encoding="utf-8")
    card = re.search(
        r'<li class="deck-card">\s*<figure class="card-figure" data-figure="fig.svg">(.*?)</li>', index, re.S
    )
    assert card and 'id="mini-fig"' in card.group(1)
    assert 'href="decks/keyed.html#/1">“The picture”</a>' in card.group(1)
    assert index.count('<li class="deck-card">') == 3  # the decks without a key figure keep a card, with no picture


def test_a_key_figure_no_slide_shows_stops_the_build(mini, capsys):
    content, tables, out = mini
    (tables / "fig.json").write_text(json.dumps({"svg": FIGURE}))
    key_deck(content, "## Intro\n\nNo figure here.")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 1
    assert "content/decks/keyed.md line 2: key_figure 'fig.svg' is not a figure any slide of this deck shows" in log


def test_an_unmeasured_key_figure_leaves_the_card_without_a_picture(mini, capsys):
    content, tables, out = mini
    (tables / "fig.json").write_text(json.dumps({"svg": {"available": False, "reason": "no runs yet"}}))
    key_deck(content, "## The picture\n\n{{ m.figure('fig.svg') }}")
    rc, log = run_build(capsys, content, tables, out, "--no-export")
    assert rc == 0, log
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'href="decks/keyed.html"' in index and 'data-figure="fig.svg"' not in index
