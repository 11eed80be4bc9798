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
    """Type into the field from the keyboard and press Enter (the form's submit)."""
    field.focus()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    if text:
        page.keyboard.type(text)
    page.keyboard.press("Enter")


def open_box(page, exercise_id: str) -> int:
    """Go to the exercise's slide and open its box from the keyboard; its slide index."""
    page.evaluate("document.querySelectorAll('details.exercise-box[open]').forEach((d) => { d.open = false; })")
    slide = page.evaluate(
        f"""[...document.querySelectorAll('.slides > section')]
            .findIndex(s => s.querySelector("[data-exercise='{exercise_id}']"))"""
    )
    assert slide >= 0
    page.evaluate(f"Reveal.slide({slide})")
    summary = box(page, exercise_id).locator("summary")
    summary.focus()
    page.keyboard.press("Enter")
    assert box(page, exercise_id).get_attribute("open") is not None
    assert page.evaluate("Reveal.getIndices().h") == slide
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


@pytest.mark.parametrize("exercise_id", IDS)
def test_exercise_in_its_deck_by_keyboard(deck_pages, exercise_id):
    page = deck_pages(CATALOG[exercise_id]["deck"])
    slide = open_box(page, exercise_id)
    ex = page.locator(f"[data-exercise='{exercise_id}']")
    assert ex.get_attribute("data-mounted") == "true"
    assert ex.locator("input").count() == 1
    for action in ("check", "new", "solution"):
        assert ex.locator(f"button[data-action={action}]").count() == 1
    field, verdict = ex.locator("input"), ex.locator("[data-verdict]")
    assert f"Seed {SEED}" in ex.locator(".ex-seed").text_content()
    inputs = json.loads(ex.get_attribute("data-inputs"))
    expected = answer(exercise_id, inputs)
    kind = page.evaluate(KIND, [exercise_id, inputs])
    digits, tol = kind["digits"], 0.5 * 10 ** -kind["digits"] * (1 + 1e-9)
    # the worked solution ends with the answer, rounded as asked
    assert abs(last_number(ex.locator("[data-solution]").text_content()) - expected) <= tol
    assert ex.locator("[data-solution]").is_hidden()
    ex.locator("[data-action=solution]").focus()
    page.keyboard.press("Enter")
    assert ex.locator("[data-solution]").is_visible() and ex.locator(".ex-hint").is_visible()
    # bad input: a message next to the field, no verdict
    for bad in BAD_INPUTS:
        check(page, field, bad)
        assert ex.locator(".ex-message").text_content().strip(), bad
        assert verdict.get_attribute("data-verdict") == "", bad
        assert field.get_attribute("aria-invalid") == "true", bad
    # the arrow keys move the caret, not the deck
    field.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("Reveal.getIndices().h") == slide
    # a named mistake is refused with its name
    assert kind["slips"], f"{exercise_id}: no named mistake applies to seed {SEED}"
    slip = kind["slips"][0]
    check(page, field, slip["typed"])
    assert verdict.get_attribute("data-verdict") == "wrong"
    assert verdict.get_attribute("data-mistake") == slip["name"]
    assert slip["message"] in verdict.text_content()
    assert verdict.get_attribute("role") == "status"
    # a plainly wrong answer is refused, without a message about the input
    check(page, field, rounded(expected + 1000, digits))
    assert verdict.get_attribute("data-verdict") == "wrong"
    assert ex.locator(".ex-message").text_content() == ""
    # the right one, written with a comma decimal where it has decimals
    typed = rounded(expected, digits).replace(".", ",") + ("%" if kind["percent"] else "")
    check(page, field, typed)
    assert verdict.get_attribute("data-verdict") == "correct", (typed, verdict.text_content())
    assert field.get_attribute("aria-invalid") is None
    # New numbers: other inputs, another answer, a fresh form
    ex.locator("[data-action=new]").focus()
    page.keyboard.press("Enter")
    new_inputs = json.loads(ex.get_attribute("data-inputs"))
    assert new_inputs != inputs
    assert abs(answer(exercise_id, new_inputs) - expected) > tol
    assert ex.get_attribute("data-seed") != str(SEED)
    assert verdict.get_attribute("data-verdict") == "" and field.input_value() == ""
    assert ex.locator("[data-solution]").is_hidden()
    assert abs(last_number(ex.locator("[data-solution]").text_content()) - answer(exercise_id, new_inputs)) <= tol
    assert page.evaluate("Reveal.getIndices().h") == slide
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
    field, verdict = ex.locator("input"), ex.locator("[data-verdict]")
    names = page.evaluate(NAMES, exercise_id)
    assert len(names) >= 3
    named: set[str] = set()
    for _ in range(30):
        inputs = json.loads(ex.get_attribute("data-inputs"))
        for slip in page.evaluate(KIND, [exercise_id, inputs])["slips"]:
            if slip["name"] in named:
                continue
            check(page, field, slip["typed"])
            assert verdict.get_attribute("data-verdict") == "wrong", (exercise_id, slip)
            assert verdict.get_attribute("data-mistake") == slip["name"], (exercise_id, slip)
            assert slip["message"] in verdict.text_content(), (exercise_id, slip)
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
