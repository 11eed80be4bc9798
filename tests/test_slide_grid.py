"""The slide grid and the takeaway strip (issue 35, items 3 and 4).

Every slide of every deck, measured in the session's one walk per deck and
size (support/walks.py; support/slide_metrics.py GRID):

- at 1280x720 every slide with a title starts its body at one place under the
  title (the same y on every slide, within a few px), the title fits its row
  (one line, not off the right edge), and a table or a figure in the body is
  centred in the body's width or takes all of it;
- at 1280x720 and at 390x844 the takeaway, wherever the slide is scrolled to,
  never meets reveal's arrows or the slide number;
- the takeaway has one look in every deck and no "Takeaway:" prefix.
"""

from __future__ import annotations

import re

import pytest

from common.settings import ROOT

DECKS = sorted(p.stem for p in (ROOT / "content" / "decks").glob("*.md"))
SIZES = ("1280x720", "390x844")
BAND_PX = 3  # how far a body's first element may sit from the deck-wide line
CENTRED_PX = 2  # how unequal the space left and right of a centred table or figure may be


def test_every_body_starts_on_one_line_under_its_title(deck_walk):
    slides = [dict(s["grid"], deck=slug, n=s["n"]) for slug in DECKS for s in deck_walk(slug, "1280x720").slides]
    titled = [s for s in slides if s["head"] and s["body_top"] is not None]
    assert len(titled) > 150
    line = min(s["body_top"] for s in titled)
    off = [f"{s['deck']} {s['n']}: {s['body_top']}" for s in titled if s["body_top"] > line + BAND_PX]
    assert not off, f"bodies start at {line} px on most slides, lower on: {off}"
    # under the title, not over it, and close to it (top-aligned, not centred)
    assert all(s["head_bottom"] <= s["body_top"] <= s["head_bottom"] + 12 for s in titled)
    assert line < 120, f"bodies start {line} px down the slide"
    wraps = [f"{s['deck']} {s['n']}: {s['title_over']} px" for s in titled if s["title_over"] > 8]
    assert not wraps, f"titles that do not fit their row: {wraps}"


def test_tables_and_figures_sit_centred_or_full_width(deck_walk):
    placed = [
        (slug, s["n"], p) for slug in DECKS for s in deck_walk(slug, "1280x720").slides for p in s["grid"]["placed"]
    ]
    assert sum(p["tag"].startswith("table") for _, _, p in placed) > 10
    off = [
        f"{slug} {n} {p['tag']}: {p['left']} px left, {p['right']} px right"
        for slug, n, p in placed
        if abs(p["left"] - p["right"]) > CENTRED_PX and not (p["left"] <= 1 and p["right"] <= 1)
    ]
    assert not off, off


# Slides still set tighter because one line of a code listing is wider than the
# canvas at full size (site_builder/static/deck.js counts a listing that scrolls
# sideways as overflow); splitting the slide does not shorten the line. They leave
# this list when the source line is shortened (models/corpus.py make_windows's
# signature; common/config.py AttentionSizes.heads's comment); the test fails
# while one of them no longer needs tightening and is still listed.
def test_no_slide_is_tightened_at_full_size(deck_walk):
    """Issue 35 item 3: an overfull slide is split (or its secondary detail moved
    to the speaker notes), not shrunk; no slide gets .dense or .denser at 1280x720.
    A code line wider than the canvas scrolls in its own listing (deck.js fits by
    height only): its slide keeps full-size text."""
    tight = {
        (slug, s["heading"]): s["grid"]["dense"]
        for slug in DECKS
        for s in deck_walk(slug, "1280x720").slides
        if s["grid"]["dense"]
    }
    assert not tight, tight


@pytest.mark.parametrize("size", SIZES)
def test_the_takeaway_never_meets_the_arrows_or_the_slide_number(deck_walk, size):
    slides = [dict(s["grid"], deck=slug, n=s["n"]) for slug in DECKS for s in deck_walk(slug, size).slides]
    with_takeaway = [s for s in slides if s["takeaway"]]
    assert len(with_takeaway) > 150
    problems = []
    for s in with_takeaway:
        # what it is measured against is on screen: the slide number and an arrow
        if "slide-number" not in s["controls"] or not {"navigate-left", "navigate-right"} & set(s["controls"]):
            problems.append(f"{s['deck']} {s['n']}: controls not shown ({s['controls']})")
        if not s["takeaway"]["shown"]:
            problems.append(f"{s['deck']} {s['n']}: the takeaway is never on screen")
        if s["takeaway"]["hits"]:
            problems.append(f"{s['deck']} {s['n']}: the takeaway meets {s['takeaway']['hits']}")
    assert not problems, problems


@pytest.mark.parametrize("size", SIZES)
def test_one_takeaway_style_in_every_deck(deck_walk, size):
    takeaways = {}
    for slug in DECKS:
        for s in deck_walk(slug, size).slides:
            if s["grid"]["takeaway"]:
                takeaways.setdefault(s["grid"]["takeaway"]["style"], []).append(f"{slug} {s['n']}")
    assert len(takeaways) == 1, {style: where[:3] for style, where in takeaways.items()}
    decks_with_one = {where.split()[0] for where in next(iter(takeaways.values()))}
    assert decks_with_one == set(DECKS)


def test_no_takeaway_carries_a_prefix(site_dir):
    """Parts I-II wrote `Takeaway: ...` lines, Parts III-IV raw takeaway
    paragraphs: on every slide the strip alone says what it is."""
    found = 0
    for slug in DECKS:
        html = (site_dir / "decks" / f"{slug}.html").read_text(encoding="utf-8")
        texts = [re.sub(r"<[^>]+>", "", t).strip() for t in re.findall(r'<p class="takeaway">(.*?)</p>', html, re.S)]
        found += len(texts)
        prefixed = [t[:40] for t in texts if re.match(r"takeaway\b", t, re.I)]
        assert not prefixed, f"{slug}: {prefixed}"
    assert found > 150


def test_a_takeaway_written_mid_slide_moves_to_the_foot():
    from markupsafe import Markup

    from site_builder.deck import Slide

    html = (
        '<h2>T</h2>\n<p>a</p>\n<p class="takeaway">x</p>\n<details><summary>e</summary><p>q</p></details>\n<p>code</p>'
    )
    parts = Slide(Markup(html), None).parts
    assert parts["head"] == "<h2>T</h2>" and parts["foot"] == '<p class="takeaway">x</p>'
    assert (
        "takeaway" not in parts["body"] and parts["body"].startswith("<p>a</p>") and parts["body"].endswith("code</p>")
    )
    # one inside a block stays there: moving it would break the block
    nested = '<h2>T</h2>\n<details><summary>e</summary><p class="takeaway">x</p></details>'
    assert Slide(Markup(nested), None).parts == {"head": "<h2>T</h2>", "map": "", "body": nested[11:], "foot": ""}
    # a map strip after the title goes to the kicker row, not the body
    strip = '<nav class="map" data-map="m"><ol></ol></nav>'
    mapped = Slide(Markup(f"<h2>T</h2>\n{strip}\n<p>a</p>"), None).parts
    assert (mapped["head"], mapped["map"], mapped["body"]) == ("<h2>T</h2>", strip, "<p>a</p>")
