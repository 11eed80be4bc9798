"""Opening a deck lays out only the slides near the one shown (issue 36):
site_builder/static/deck.js measures a slide (a forced layout: shown, measured,
tightened, measured again) when it or a neighbour is shown, not every slide of
the deck at ready and again on every widget's ready signal. Measured slides
carry data-fitted; the test counts them on opening the largest deck, and walks
it to check that every slide shown was measured and fits its canvas untightened
(an overfull slide is split, not shrunk: issue 35 item 3); a slide made overfull
on purpose still gets .dense/.denser when shown, so the measure still acts."""

from __future__ import annotations

from support.decks import open_deck

FITTED = "document.querySelectorAll('.reveal .slides section[data-fitted]').length"
SHOWN = (
    "(() => { const s = Reveal.getCurrentSlide(); return {fitted: s.dataset.fitted === 'true', "
    "over: s.scrollHeight - s.clientHeight, dense: s.matches('.dense, .denser')}; })()"
)

OVERFILL = """(() => { const s = Reveal.getSlides()[3]; const block = document.createElement('div');
  block.style.height = '900px'; s.appendChild(block); delete s.dataset.fitted; })()"""


def test_opening_a_deck_measures_only_the_slide_shown_and_its_neighbours(page, site_url):
    page.set_viewport_size({"width": 1280, "height": 720})
    open_deck(page, site_url, "part2")
    total = page.evaluate("Reveal.getTotalSlides()")
    assert total > 20
    page.wait_for_timeout(300)  # widgets that mount after ready re-measure only their own slide
    assert page.evaluate(FITTED) <= 2  # the first slide and the one after it
    assert page.evaluate("Reveal.getCurrentSlide().dataset.fitted") == "true"
    page.evaluate("Reveal.slide(10)")
    assert page.evaluate(FITTED) <= 5  # and 9, 10, 11
    dense = 0
    for i in range(total):
        page.evaluate(f"Reveal.slide({i})")
        shown = page.evaluate(SHOWN)
        assert shown["fitted"], f"slide {i + 1} shown but not measured"
        assert shown["over"] <= 1 or shown["dense"], f"slide {i + 1} overflows by {shown['over']} px, not tightened"
        dense += shown["dense"]
    assert dense == 0  # every slide fits at full size (issue 35 item 3; tests/test_slide_grid.py, all decks)
    # no slide needs tightening any more, so the measure is shown to act on a slide
    # made overfull here: a block taller than the canvas is added to the slide after
    # the one shown, its measure is cleared, and showing it measures it again
    page.evaluate("Reveal.slide(2)")
    page.evaluate(OVERFILL)
    page.evaluate("Reveal.slide(3)")
    shown = page.evaluate(SHOWN)
    assert shown["fitted"] and shown["dense"], "an overfull slide was not tightened: the measure no longer acts"
