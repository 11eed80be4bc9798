"""No slide is only a closed exercise line (issue 34 item 3; web/widgets/exercise.js
openWhenAlone, exercise.css .exercise-alone).

Every slide of every deck, shown at 1280x720 once its widgets have mounted:
what is visible in its body is never just the summary line of closed
exercise boxes. A slide whose body holds nothing but exercises ("Your turn")
shows its exercise open in place, in the slide's flow (not the overlay that
covers a slide), with its question, answer field and buttons inside the
slide and above its takeaway; a slide with anything else keeps its exercise
closed until the learner opens it."""

from __future__ import annotations

import pytest

from support.decks import open_deck

DECKS = ["maps", "part2", "part3", "results"]

# the slide shown: its visible leaves (text, pictures, controls), how many of them are
# only a closed exercise's summary line, and each exercise opened in place
SHOWN = """() => {
  const s = Reveal.getCurrentSlide(), body = s.querySelector('.slide-body');
  if (!body) return null;
  const seen = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const leaves = [...body.querySelectorAll('*')].filter((e) => seen(e)
    && (e.matches('svg, img, canvas, input, button, select, summary')
        || [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
    && !e.closest('svg *'));
  const closedLine = (e) => !!e.closest('details.exercise-box:not([open]) > summary');
  const foot = s.querySelector('.slide-foot'), r = s.getBoundingClientRect();
  const alone = [...body.querySelectorAll('.exercise-box.exercise-alone')].map((box) => {
    const b = box.getBoundingClientRect();
    return { open: box.open, position: getComputedStyle(box).position,
             asks: !!box.querySelector('.ex-ask') && seen(box.querySelector('.ex-ask')),
             field: seen(box.querySelector('input')), check: seen(box.querySelector('[data-action=check]')),
             inside: b.bottom <= r.bottom + 1 && (!foot || b.bottom <= foot.getBoundingClientRect().top + 1) };
  });
  return { leaves: leaves.length, closed: leaves.filter(closedLine).length,
           boxes: body.querySelectorAll('.exercise-box').length, alone,
           title: (s.querySelector('h1, h2') || {}).textContent || '' };
}"""


@pytest.mark.parametrize("deck", DECKS)
def test_no_slide_shows_only_a_closed_exercise_line(page, site_url, deck):
    page.set_viewport_size({"width": 1280, "height": 720})
    open_deck(page, site_url, deck)
    total = page.evaluate("Reveal.getTotalSlides()")
    problems, opened = [], 0
    for i in range(total):
        page.evaluate("(i) => Reveal.slide(i)", i)
        shown = page.evaluate(SHOWN)
        if shown is None:
            continue
        if shown["boxes"] and shown["leaves"] == shown["closed"]:
            problems.append(f"{deck} {i + 1} {shown['title']!r}: only a closed exercise line")
        for a in shown["alone"]:
            opened += 1
            if not (a["open"] and a["position"] == "static" and a["asks"] and a["field"] and a["check"]):
                problems.append(f"{deck} {i + 1} {shown['title']!r}: the exercise is not open in place ({a})")
            elif not a["inside"]:
                problems.append(f"{deck} {i + 1} {shown['title']!r}: the opened exercise runs off its slide")
    assert not problems, problems
    if deck == "part2":  # its six "Your turn" slides hold nothing but an exercise
        assert opened >= 6
    page.watch.assert_clean()
