"""Issue 35, item 4: a takeaway is one line that signals the point to take, not a
paragraph. Every takeaway strip in the built decks (the build moves each
``Takeaway:`` line or ``<p class="takeaway">`` into the slide's foot) has at most
18 words; the detail lives in the slide body or the speaker notes. A formula
typeset by KaTeX counts as one word (its MathML copy is left out)."""

from __future__ import annotations

import re

import pytest

from support.statements import text_of

MAX_WORDS = 18
DECKS = ("maps", "part2", "part3", "results")
FOOT = re.compile(r'<div class="slide-foot"><p class="takeaway">(.*?)</p>', re.S)


def takeaways(site_dir, slug: str) -> list[tuple[int, str]]:
    """(0-based slide index, takeaway text) for every takeaway strip of a deck."""
    html = (site_dir / "decks" / f"{slug}.html").read_text(encoding="utf-8")
    out = []
    for index, section in enumerate(re.split(r"<section\b", html)[1:]):
        out += [(index, text_of(body)) for body in FOOT.findall(section)]
    return out


@pytest.mark.parametrize("slug", DECKS)
def test_every_takeaway_is_at_most_eighteen_words(site_dir, slug):
    found = takeaways(site_dir, slug)
    assert found, f"{slug}: no takeaway strip found (has the slide-foot markup changed?)"
    long = [(i, len(t.split()), t) for i, t in found if len(t.split()) > MAX_WORDS]
    assert long == [], "\n".join(f"{slug} slide {i}: {n} words: {t}" for i, n, t in long)
