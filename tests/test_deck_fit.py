"""Opening a deck lays out only the slides near the one shown (issue 36):
site_builder/static/deck.js measures a slide (a forced layout: shown, measured,
tightened, measured again) when it or a neighbour is shown, not every slide of
the deck at ready and again on every widget's ready signal. Measured slides
carry data-fitted; the test counts them on opening the largest deck, and walks
it to check that every slide shown was measured and fits its canvas."""

from __future__ import annotations

from support.decks import open_deck

FITTED = "document.querySelectorAll('.reveal .slides section[data-fitted]').length"
SHOWN = (
    "(() => { const s = Reveal.getCurrentSlide(); return {fitted: s.dataset.fitted === 'true', "
    "over: s.scrollHeight - s.clientHeight, dense: s.matches('.dense, .denser')}; })()"
)


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
    assert dense > 0  # the deck has slides that need tightening: the measure still acts
