"""Where the learner is (issue 35, item 6: a "you are here" cue on every
content slide or on none): every content slide of every deck carries, in the
kicker row above its title, the deck's part and the section it belongs to
("Part II · Scaling the scores"); a deck's sections come from `Section:`
lines in its source (site_builder/deck.py), in that order, each one a single
run of slides; the reading view prints the same section beside each slide's
number.

The browser half reads the session's deck walks (support/slide_metrics.py
GRID): at 1280x720 and at 390x844 the cue is above the title, inside the
slide's width, clear of the page's links, and at the text floor of its size.
"""

from __future__ import annotations

import re
import tomllib
from html import unescape

import pytest

from common.settings import ROOT

DECKS = sorted(p.stem for p in (ROOT / "content" / "decks").glob("*.md"))
SIZES = {"1280x720": 18, "390x844": 16}  # the smallest text a slide sets at that size (px)
SECTION = re.compile(r"^Section:[ \t]+(.+?)[ \t]*$", re.M)


def source(slug: str) -> tuple[str, list[str]]:
    """The deck's part label and its sections in the order its source opens them."""
    text = (ROOT / "content" / "decks" / f"{slug}.md").read_text(encoding="utf-8")
    front = tomllib.loads(text.split("+++")[1])
    return front["part"], SECTION.findall(text)


def runs(names: list[str]) -> list[str]:
    """The names with each run of equal neighbours folded into one."""
    return [n for i, n in enumerate(names) if i == 0 or names[i - 1] != n]


def strip(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", "", html)).split())


def built_cues(site_dir, slug: str) -> dict[int, str]:
    """Slide index -> the text of its kicker's section cue, from the built deck."""
    html = (site_dir / "decks" / f"{slug}.html").read_text(encoding="utf-8")
    out = {}
    for n, body in re.findall(r'<section data-slide="(\d+)"[^>]*>(.*?)</section>', html, re.S):
        cue = re.findall(r'<div class="kicker"><p class="here">(.*?)</p>', body, re.S)
        assert len(cue) <= 1, f"{slug} slide {n} has {len(cue)} section cues"
        if cue:
            out[int(n)] = strip(cue[0])
    return out


@pytest.mark.parametrize("slug", DECKS)
def test_each_deck_names_its_sections_in_source_order(site_dir, slug):
    part, sections = source(slug)
    assert len(sections) >= 5, f"{slug}: {len(sections)} sections"
    assert len(set(sections)) == len(sections), f"{slug} opens a section twice: {sections}"
    cues = built_cues(site_dir, slug)
    assert all(text.startswith(f"{part} · ") for text in cues.values()), cues
    shown = [cues[n].removeprefix(f"{part} · ") for n in sorted(cues)]
    # every section appears, in the source's order, as one run of slides
    assert runs(shown) == sections, f"{slug}: {runs(shown)} against the source's {sections}"


@pytest.mark.parametrize("slug", DECKS)
def test_the_reading_view_prints_each_slides_section(site_dir, slug):
    part, sections = source(slug)
    cues = built_cues(site_dir, slug)
    html = (site_dir / "read" / f"{slug}.html").read_text(encoding="utf-8")
    read = {
        int(n): strip(m[0]) if (m := re.findall(r'<span class="here">(.*?)</span>', number, re.S)) else None
        for n, number in re.findall(r'<article[^>]*id="slide-(\d+)".*?<p class="read-number">(.*?)</p>', html, re.S)
    }
    assert read[0] is None, "the title slide belongs to no section"
    assert all(read[n] for n in read if 0 < n < max(read)), f"{slug}: slides without a section in the reading view"
    # the same section on the slide as in the reading view, slide by slide
    assert {n: f"{part} · {read[n]}" for n in cues} == cues
    assert runs([read[n] for n in sorted(read) if read[n]]) == sections


@pytest.mark.parametrize("size", SIZES)
def test_the_cue_sits_above_the_title_on_every_content_slide(deck_walk, size):
    checked = 0
    for slug in DECKS:
        part, _ = source(slug)
        for s in deck_walk(slug, size).slides:
            grid, where = s["grid"], f"{slug} slide {s['n']} at {size}"
            if not grid["head"]:
                continue  # the title slide, a section divider, the closing "Where next"
            cue = grid["here"]
            assert cue, f"{where}: a content slide without its section cue"
            assert cue["text"].startswith(f"{part} · "), (where, cue["text"])
            assert cue["above"], f"{where}: the cue is not above the title"
            assert cue["inside"], f"{where}: the cue runs past the slide's edge"
            assert not cue["links"], f"{where}: the cue meets the page's links"
            assert cue["font"] >= SIZES[size], f"{where}: the cue is set at {cue['font']} px"
            checked += 1
    assert checked > 170
