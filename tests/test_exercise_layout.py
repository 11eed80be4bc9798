"""Exercises laid out as part of their slide (issue 34 item 3; web/widgets/exercise.js
openWhenAlone and besideWhenOpen, exercise.css).

No slide is only a closed exercise line: every slide of every deck, shown at 1280x720 once its widgets have mounted:
what is visible in its body is never just the summary line of closed
exercise boxes. A slide whose body holds nothing but exercises ("Your turn")
shows its exercise open in place, in the slide's flow (not the overlay that
covers a slide), with its question, answer field and buttons inside the
slide and above its takeaway; a slide with anything else keeps its exercise
closed until the learner opens it.

An opened exercise never covers its slide: each exercise of each deck, opened
by a click at 1280x720 and at 390x844, has a box that meets none of the slide's
figures (svg, img, table, canvas) nor its text, as they are painted (clipped to
whatever scrolls them), and stays inside the slide above the takeaway strip;
on a wide screen it stands beside the slide's content, on a phone under it,
and closing it puts the slide back as it was.

Exercises and predictions share one form: the same box (border, ground,
radius), the same heading line (font, size, weight, colour) and the same
buttons, in all four decks."""

from __future__ import annotations

import json

import pytest

from support.decks import open_deck
from support.exercise_walk import SLIDE_OF

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


SIZES = [(1280, 720), (390, 844)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("deck", DECKS)
def test_an_opened_exercise_covers_no_figure_and_stays_on_its_slide(exercise_walk, deck, size):
    walk = exercise_walk(deck, size)
    phone = size[0] < 600
    assert len(walk.boxes) >= 5
    problems, beside = [], 0
    for m in walk.boxes:
        where = f"{deck} {m['slide'] + 1} {m['title']!r} {m['id']} at {size[0]}px"
        b, s, foot = m["box"], m["slide_box"], m["foot"]
        if not m["open"] or not m["ask"]:
            problems.append(f"{where}: the opened exercise does not show its question")
        if m["covered"]:
            problems.append(f"{where}: the box covers {m['covered']}")
        if m["hidden"]:
            problems.append(f"{where}: the box covers the slide's text {m['hidden'][:4]}")
        if m["position"] in ("absolute", "fixed"):
            problems.append(f"{where}: the box lies over the slide ({m['position']})")
        if b["l"] < s["l"] - 1 or b["r"] > s["r"] + 1 or (foot and b["b"] > foot["t"] + 1):
            problems.append(f"{where}: the box runs out of its slide or under its takeaway ({b}, {s}, foot {foot})")
        if not phone and (b["t"] < s["t"] - 1 or b["b"] > s["b"] + 1):
            problems.append(f"{where}: the box runs past the slide's top or bottom")
        for f in m["figures"]:
            if phone and f["raw"]["b"] > b["t"] + 1:
                problems.append(f"{where}: {f['name']} is not above the box on a phone")
            if not phone and f["painted"]["r"] > b["l"] + 1 and f["painted"]["b"] > f["painted"]["t"]:
                problems.append(f"{where}: {f['name']} is not beside the box (to its left)")
        if m["figures"] and not m["alone"]:
            beside += 1
        if m["after"] != m["before"]:
            problems.append(f"{where}: closing the exercise leaves the slide laid out otherwise")
    assert not problems, "\n".join(problems)
    assert beside >= 2, f"{deck}: only {beside} exercises share a slide with a figure"
    walk.assert_clean()


# the computed form of a box, its heading line and its first plain button
FORM = """(sel) => [...document.querySelectorAll(sel)].map((box) => {
  const cs = (e, keys) => { const c = getComputedStyle(e); return Object.fromEntries(keys.map((k) => [k, c[k]])); };
  const head = box.querySelector(':scope > summary, :scope > .pr-ask');
  const button = box.querySelector('button:not([data-action=check]):not([aria-pressed=true])');
  return {
    name: box.dataset.prediction || box.querySelector('[data-exercise]').dataset.exercise,
    box: cs(box, ['borderTopWidth', 'borderTopStyle', 'borderTopColor', 'borderLeftWidth', 'borderLeftColor',
                  'borderBottomWidth', 'borderRightColor', 'backgroundColor', 'borderTopLeftRadius',
                  'borderBottomRightRadius', 'paddingLeft']),
    head: cs(head, ['fontFamily', 'fontSize', 'fontWeight', 'color', 'lineHeight']),
    button: button && cs(button, ['fontFamily', 'fontSize', 'borderTopWidth', 'borderTopColor', 'borderTopLeftRadius',
                                  'backgroundColor', 'color', 'paddingLeft', 'paddingTop']),
  };
})"""


def test_exercises_and_predictions_share_one_form_in_every_deck(page, site_url):
    page.set_viewport_size({"width": 1280, "height": 720})
    seen = []
    for deck in DECKS:
        open_deck(page, site_url, deck)
        predictions = page.evaluate(FORM, "[data-prediction]")
        closed = page.evaluate(FORM, "details.exercise-box:not([open])")
        assert len(predictions) >= 3 and closed, deck
        # open one exercise beside its figure, to see its buttons
        first = page.locator("details.exercise-box:not(.exercise-alone)").first
        slide = first.evaluate(SLIDE_OF)
        page.evaluate("(i) => Reveal.slide(i)", slide)
        first.locator("> summary").click()
        opened = page.evaluate(FORM, "details.exercise-box[open]")
        seen += [(deck, "prediction", p) for p in predictions] + [(deck, "exercise", e) for e in closed + opened]
    assert {kind for _, kind, _ in seen} == {"prediction", "exercise"}
    ref = next(f for _, kind, f in seen if kind == "prediction")
    ref_button = next(f["button"] for _, kind, f in seen if kind == "exercise" and f["button"])
    assert ref["button"] == ref_button, ("a prediction's button and an exercise's", ref["button"], ref_button)
    assert ref["box"]["borderTopStyle"] == "solid" and ref["box"]["borderTopWidth"] != "0px"
    assert ref["box"]["backgroundColor"] not in ("rgba(0, 0, 0, 0)", "transparent")
    differ = [
        (deck, kind, f["name"], part, {k: (v, ref[part][k]) for k, v in f[part].items() if v != ref[part][k]})
        for deck, kind, f in seen
        for part in ("box", "head", "button")
        if f[part] is not None and f[part] != (ref[part] if part != "button" else ref_button)
    ]
    assert not differ, json.dumps(differ, indent=1)
    page.watch.assert_clean()
