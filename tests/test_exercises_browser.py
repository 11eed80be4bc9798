"""Every exercise in Chromium (m.exercise, web/widgets/exercise.js), through the
test contract: [data-exercise] with data-inputs, one <input>, buttons
[data-action=check|new|solution], [data-verdict] and [data-solution].

In its deck, by keyboard only: the box opens, the numbers come from ?seed=, a
named mistake is refused with its message, the right answer (a comma decimal)
is accepted, bad input gets a message and no verdict, the arrow keys in the
field do not turn the slide, and "New numbers" changes the inputs and the
answer; then every named mistake of the exercise, each typed where it
applies, is refused with its own name and message. The answers are checked against the Python reference
(export/exercises.py), not against the page. In the reading view at 390 px
(tests/test_reading_view.py): every exercise opens and accepts its answer,
the page does not scroll sideways, and axe-core finds nothing serious."""

from __future__ import annotations

import json
import math
import re

import pytest

from export.exercises import answer
from support.decks import axe_in_slide, open_deck
from support.exercises import CATALOG, DECKS, IDS, KIND, SEED, box, rounded
from support.pages import PageWatch

BAD_INPUTS = ["", "abc", "NaN", "1e400", "0.5 0.6"]


def last_number(text: str) -> float:
    """The last number of a text; whole numbers are grouped from 1,000 on (2,009)."""
    numbers = re.findall(r"-?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?", text.replace("−", "-"))
    assert numbers, text
    return float(numbers[-1].replace(",", ""))


def check(page, field, text: str) -> None:
    """Empty the field, type into it from the keyboard and press Enter (the form's submit)."""
    field.fill("")
    if text:
        page.keyboard.type(text)
    page.keyboard.press("Enter")


def open_box(page, exercise_id: str) -> int:
    """Go to the exercise's slide and open its box from the keyboard; its slide index."""
    slide = page.evaluate(
        """(id) => {
          document.querySelectorAll('details.exercise-box[open]').forEach((d) => { d.open = false; });
          const i = [...document.querySelectorAll('.slides > section')]
            .findIndex((s) => s.querySelector(`[data-exercise='${id}']`));
          if (i >= 0) Reveal.slide(i);
          return i;
        }""",
        exercise_id,
    )
    assert slide >= 0
    box(page, exercise_id).locator("summary").focus()
    page.keyboard.press("Enter")
    opened, shown = page.evaluate(
        "(id) => [document.querySelector(`details.exercise-box:has([data-exercise='${id}'])`).open, "
        "Reveal.getIndices().h]",
        exercise_id,
    )
    assert opened and shown == slide
    return slide


def open_in_deck(page, site_url: str, exercise_id: str) -> int:
    open_deck(page, site_url, CATALOG[exercise_id]["deck"], f"?seed={SEED}")
    return open_box(page, exercise_id)


@pytest.fixture(scope="module")
def deck_pages(browser, site_url):
    """One page per deck opened at ?seed=SEED, shared by its exercises (each
    exercise is tried once, so each starts from the seed's numbers)."""
    context = browser.new_context()
    pages = {}

    def get(deck: str):
        if deck not in pages:
            pg = context.new_page()
            pg.watch = PageWatch(pg, site_url)
            open_deck(pg, site_url, deck, f"?seed={SEED}")
            pages[deck] = pg
        return pages[deck]

    yield get
    context.close()


# the exercise's state as the tests read it, in one call
STATE = """(id) => {
  const ex = document.querySelector(`[data-exercise='${id}']`), verdict = ex.querySelector('[data-verdict]');
  const field = ex.querySelector('input'), solution = ex.querySelector('[data-solution]');
  // Playwright's is_visible(): a non-empty box and not visibility: hidden
  const shown = (e) => { if (!e) return false; const b = e.getBoundingClientRect();
    return b.width > 0 && b.height > 0 && getComputedStyle(e).visibility !== 'hidden'; };
  return { verdict: verdict.getAttribute('data-verdict'), mistake: verdict.getAttribute('data-mistake'),
           said: verdict.textContent, role: verdict.getAttribute('role'),
           message: ex.querySelector('.ex-message').textContent, invalid: field.getAttribute('aria-invalid'),
           value: field.value, inputs: JSON.parse(ex.dataset.inputs), seed: ex.dataset.seed,
           solution: solution.textContent, solution_shown: shown(solution),
           hint_shown: shown(ex.querySelector('.ex-hint')), slide: Reveal.getIndices().h };
}"""


@pytest.mark.parametrize("exercise_id", IDS)
def test_exercise_in_its_deck_by_keyboard(deck_pages, exercise_id):
    page = deck_pages(CATALOG[exercise_id]["deck"])
    slide = open_box(page, exercise_id)
    ex = page.locator(f"[data-exercise='{exercise_id}']")
    parts = ex.evaluate(
        """(ex) => ({mounted: ex.dataset.mounted, inputs: ex.querySelectorAll('input').length,
                   actions: ['check', 'new', 'solution']
                     .map((a) => ex.querySelectorAll(`button[data-action=${a}]`).length),
                   seed: ex.querySelector('.ex-seed').textContent})"""
    )
    assert parts["mounted"] == "true" and parts["inputs"] == 1 and parts["actions"] == [1, 1, 1], parts
    assert f"Seed {SEED}" in parts["seed"]
    field = ex.locator("input")
    st = page.evaluate(STATE, exercise_id)
    inputs = st["inputs"]
    expected = answer(exercise_id, inputs)
    kind = page.evaluate(KIND, [exercise_id, inputs])
    digits, tol = kind["digits"], 0.5 * 10 ** -kind["digits"] * (1 + 1e-9)
    # the worked solution ends with the answer, rounded as asked
    assert abs(last_number(st["solution"]) - expected) <= tol
    assert not st["solution_shown"]
    ex.locator("[data-action=solution]").focus()
    page.keyboard.press("Enter")
    st = page.evaluate(STATE, exercise_id)
    assert st["solution_shown"] and st["hint_shown"]
    # bad input: a message next to the field, no verdict
    for bad in BAD_INPUTS:
        check(page, field, bad)
        st = page.evaluate(STATE, exercise_id)
        assert st["message"].strip(), bad
        assert st["verdict"] == "", bad
        assert st["invalid"] == "true", bad
    # the arrow keys move the caret, not the deck
    field.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("Reveal.getIndices().h") == slide
    # a named mistake is refused with its name
    assert kind["slips"], f"{exercise_id}: no named mistake applies to seed {SEED}"
    slip = kind["slips"][0]
    check(page, field, slip["typed"])
    st = page.evaluate(STATE, exercise_id)
    assert st["verdict"] == "wrong" and st["mistake"] == slip["name"], st
    assert slip["message"] in st["said"]
    assert st["role"] == "status"
    # a plainly wrong answer is refused, without a message about the input
    check(page, field, rounded(expected + 1000, digits))
    st = page.evaluate(STATE, exercise_id)
    assert st["verdict"] == "wrong" and st["message"] == "", st
    # the right one, written with a comma decimal where it has decimals
    typed = rounded(expected, digits).replace(".", ",") + ("%" if kind["percent"] else "")
    check(page, field, typed)
    st = page.evaluate(STATE, exercise_id)
    assert st["verdict"] == "correct", (typed, st["said"])
    assert st["invalid"] is None
    # New numbers: other inputs, another answer, a fresh form
    ex.locator("[data-action=new]").focus()
    page.keyboard.press("Enter")
    st = page.evaluate(STATE, exercise_id)
    new_inputs = st["inputs"]
    assert new_inputs != inputs
    assert abs(answer(exercise_id, new_inputs) - expected) > tol
    assert st["seed"] != str(SEED)
    assert st["verdict"] == "" and st["value"] == ""
    assert not st["solution_shown"]
    assert abs(last_number(st["solution"]) - answer(exercise_id, new_inputs)) <= tol
    assert st["slide"] == slide
    page.watch.assert_clean()


NAMES = """(id) => import(new URL('../core/exercises.js', location.href).href)
  .then((m) => m.kindOf(id).mistakes.map((mk) => mk.name))"""


@pytest.mark.parametrize("exercise_id", IDS)
def test_every_named_mistake_is_named_in_its_deck(deck_pages, exercise_id):
    """Each mistake of the exercise, typed from the keyboard as it computes it, is
    refused with its own name and message: on the page's numbers, or on the
    first "New numbers" draw where it applies (runs after the test above, on
    the same page, so it starts wherever that one left the exercise)."""
    page = deck_pages(CATALOG[exercise_id]["deck"])
    open_box(page, exercise_id)
    ex = page.locator(f"[data-exercise='{exercise_id}']")
    field = ex.locator("input")
    names = page.evaluate(NAMES, exercise_id)
    assert len(names) >= 3
    named: set[str] = set()
    for _ in range(30):
        inputs = page.evaluate(STATE, exercise_id)["inputs"]
        for slip in page.evaluate(KIND, [exercise_id, inputs])["slips"]:
            if slip["name"] in named:
                continue
            check(page, field, slip["typed"])
            st = page.evaluate(STATE, exercise_id)
            assert st["verdict"] == "wrong" and st["mistake"] == slip["name"], (exercise_id, slip, st)
            assert slip["message"] in st["said"], (exercise_id, slip)
            named.add(slip["name"])
        if named == set(names):
            break
        ex.locator("[data-action=new]").focus()
        page.keyboard.press("Enter")
    assert named == set(names), f"{exercise_id}: never named {sorted(set(names) - named)}"
    page.watch.assert_clean()


@pytest.mark.parametrize("deck", DECKS)
def test_exercises_keep_their_seed_and_pass_axe_in_the_deck(page, site_url, exercise_walk, deck):
    first = next(i for i in IDS if CATALOG[i]["deck"] == deck)
    open_in_deck(page, site_url, first)
    before = {
        i: page.locator(f"[data-exercise='{i}']").get_attribute("data-inputs")
        for i in IDS
        if CATALOG[i]["deck"] == deck
    }
    page.reload()
    page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")
    after = {i: page.locator(f"[data-exercise='{i}']").get_attribute("data-inputs") for i in before}
    assert before == after  # the same seed, the same numbers
    open_in_deck(page, site_url, first)
    check(page, page.locator(f"[data-exercise='{first}'] input"), "1e400")
    refused = axe_in_slide(page, f"details.exercise-box:has([data-exercise='{first}'])")
    assert not refused, ("1280 px, a refused answer shown", refused)
    page.watch.assert_clean()
    # every opened exercise, wide and on a phone (the exercise walk opens each in turn)
    for size in ((1280, 720), (390, 844)):
        walk = exercise_walk(deck, size)
        assert sorted(m["id"] for m in walk.boxes) == sorted(before), size
        for m in walk.boxes:
            assert not m["axe"], (size[0], m["id"], m["axe"])
        walk.assert_clean()


def test_a_seed_in_the_address_gives_the_deck_and_the_reading_view_the_same_numbers(page, site_url):
    """A teacher's seed above 9,999 (seeds run to 2**32 - 1) reaches every exercise
    of the deck and its reading view; a broken one is named, not silently replaced."""
    page.goto(f"{site_url}/read/part2.html?seed=20240")
    page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")
    read = page.locator("[data-exercise='causal-mask']").get_attribute("data-inputs")
    assert page.locator("[data-exercise='causal-mask']").get_attribute("data-seed") == "20240"
    page.goto(f"{site_url}/decks/part2.html?seed=20240")
    page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")
    assert page.locator("[data-exercise='causal-mask']").get_attribute("data-inputs") == read
    assert "Seed 20240:" in page.locator("[data-exercise='causal-mask'] .ex-seed").text_content()
    assert math.isfinite(answer("causal-mask", json.loads(read)))
    # a broken seed: named on the seed line, then a fresh seed, shown
    page.goto(f"{site_url}/decks/part2.html?seed=banana%3Cb%3E")
    page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")
    line = page.locator("[data-exercise='causal-mask'] .ex-seed")
    shown = line.text_content()
    refused = (
        'The address\'s seed "banana<b>" is not a whole number from 0 to 4,294,967,295, so this page drew its own.'
    )
    assert shown.startswith(refused) and re.match(r" Seed \d+:", shown[len(refused) :]), shown
    assert line.locator("b").count() == 0  # the address is text, never HTML
    page.watch.assert_clean()
