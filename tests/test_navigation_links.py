"""Links followed to the place they name (issue 25, point 6), not only to a
file that exists: each reading view's "Slide N" opens the deck at slide N
with the same heading; "Previous" and "Next" lead to the decks before and
after in the index's order, and the first deck has no "Previous" (nor the last a "Next")."""

from __future__ import annotations

import re
from html import unescape

import pytest

from common.settings import ROOT
from support.decks import open_deck

DECKS = sorted(p.stem for p in (ROOT / "content" / "decks").glob("*.md"))


def deck_order(site_dir) -> list[str]:
    index = (site_dir / "index.html").read_text(encoding="utf-8")
    return re.findall(r'class="deck-link" href="decks/([\w-]+)\.html', index)


def test_previous_and_next_follow_the_index_order(site_dir):
    order = deck_order(site_dir)
    assert sorted(order) == DECKS
    for i, slug in enumerate(order):
        read = (site_dir / "read" / f"{slug}.html").read_text(encoding="utf-8")
        crumbs = re.search(r'<p class="read-crumbs">(.*?)</p>', read, re.S).group(1)
        previous = re.findall(r'Previous: <a href="\.\./read/([\w-]+)\.html">', crumbs)
        assert previous == ([order[i - 1]] if i else []), (slug, crumbs)
        for page in (read, (site_dir / "decks" / f"{slug}.html").read_text(encoding="utf-8")):
            nxt = re.findall(r'<li class="next-deck">Next: <a href="\.\./decks/([\w-]+)\.html">', page)
            assert nxt == ([order[i + 1]] if i + 1 < len(order) else []), (slug, nxt)
            assert ("This is the last deck" in page) == (i + 1 == len(order))


def heading(html: str) -> str:
    m = re.search(r"<h[12][^>]*>(.*?)</h[12]>", html, re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", "", m.group(1))).split()) if m else ""


@pytest.mark.parametrize("slug", DECKS)
def test_every_slide_link_of_the_reading_view_names_its_slide(site_dir, slug):
    read = (site_dir / "read" / f"{slug}.html").read_text(encoding="utf-8")
    deck = (site_dir / "decks" / f"{slug}.html").read_text(encoding="utf-8")
    slides = re.findall(r'<section data-slide="(\d+)"[^>]*>(.*?)</section>', deck, re.S)
    articles = re.findall(
        r'<article class="read-slide" id="slide-(\d+)" aria-label="Slide (\d+)">(.*?)</article>', read, re.S
    )
    assert len(articles) == len(slides) - 1  # the deck's closing "Where next" slide has no article
    for index, label, body in articles:
        link = re.search(r'<p class="read-number"><a href="\.\./decks/([\w-]+)\.html#/(\d+)">Slide (\d+)</a>', body)
        assert link and link.group(1) == slug and link.group(3) == label, (slug, label)
        target = int(link.group(2))
        assert target == int(index) == int(label) - 1, (slug, label, link.group(0))
        assert heading(slides[target][1]) == heading(body.split("</p>", 1)[1]), (slug, label)


@pytest.mark.parametrize("slug", DECKS[:2])
def test_a_slide_link_opens_the_deck_at_that_slide(page, site_url, slug):
    """In the browser: following "Slide N" shows slide N, the one with the reading view's heading."""
    page.goto(f"{site_url}/read/{slug}.html")
    links = page.evaluate("""() => [...document.querySelectorAll('article.read-slide[id] .read-number a')]
        .map((a) => ({ href: a.href, text: a.textContent,
          heading: a.closest('article').querySelector('h1, h2')?.textContent.trim() ?? '' }))""")
    assert len(links) > 3
    for link in (links[0], links[len(links) // 2], links[-1]):
        n = int(link["text"].split()[1])
        page.goto(link["href"])
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        got = page.evaluate("""() => ({ h: Reveal.getIndices().h,
            heading: Reveal.getCurrentSlide().querySelector('h1, h2')?.textContent.trim() ?? '' })""")
        assert got == {"h": n - 1, "heading": link["heading"]}, (slug, link, got)
    open_deck(page, site_url, slug)  # and the deck itself still opens at its first slide
    assert page.evaluate("Reveal.getIndices().h") == 0
