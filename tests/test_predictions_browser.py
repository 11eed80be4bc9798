"""Predictions in Chromium (issue 34 item 2; web/widgets/prediction.js,
site_builder/predictions.py, exercise.css).

In a deck, each prediction shows its question and one button per choice, the
answer hidden; a pick reveals the answer, with the value the tables hold (read
here from build/tables, by the path the box names, and formatted as the slides
do), and says whether the guess was right; "Show the answer" skips the guess.
Nothing blocks the deck: the keys still change the slide, Enter and Space on a
choice pick it without changing the slide, and an opened prediction stays
inside its slide. axe finds nothing serious in an opened prediction at 1280 px
and at 390 px. Under ?print-pdf and in the reading view's print every question
is followed by its answer, as text on the page, with no buttons; without
JavaScript the reading view asks first and folds the answer."""

from __future__ import annotations

import json

import pytest

from site_builder.values import fmt
from support.decks import open_deck
from support.pages import PageWatch
from support.predictions import DECKS, expected_choice, lookup

# per prediction: its id, slide, choices, value paths, pick and digits, read from the page
BOXES = """() => [...document.querySelectorAll('[data-prediction]')].map((b) => ({
  id: b.dataset.prediction, pick: b.dataset.pick, digits: Number(b.dataset.digits),
  choices: JSON.parse(b.dataset.choices), values: JSON.parse(b.dataset.values),
  slide: [...document.querySelectorAll('.slides > section')].findIndex((s) => s.contains(b)),
  ask: b.querySelector('.pr-ask').textContent }))"""


def expected(table, box: dict) -> tuple[int, list[str]]:
    """The right choice and each value as the slide writes it, from build/tables."""
    values = [lookup(table, s) for s in box["values"]]
    return expected_choice(box["pick"], values), [fmt(v, box["digits"]) for v in values]


def go(page, slide: int) -> None:
    page.evaluate("(i) => Reveal.slide(i)", slide)
    page.wait_for_function("(i) => Reveal.getIndices().h === i", arg=slide)


@pytest.mark.parametrize("deck", DECKS)
def test_a_pick_reveals_the_tables_value_and_says_whether_it_was_right(page, site_url, table, deck):
    page.set_viewport_size({"width": 1280, "height": 720})
    open_deck(page, site_url, deck)
    found = page.evaluate(BOXES)
    assert len(found) >= 3
    for b in found:
        right, shown = expected(table, b)
        go(page, b["slide"])
        box = page.locator(f"#pr-{b['id']}")
        answer = box.locator("[data-prediction-answer]")
        assert box.locator(".pr-ask").is_visible() and not answer.is_visible(), b["id"]
        assert not box.locator(".pr-options").is_visible(), f"{b['id']}: the choices' text beside the buttons"
        labels = box.locator("button[data-choice]").all_text_contents()
        assert labels == b["choices"] and box.locator("[data-action=skip]").is_visible()
        wrong = next(i for i in range(len(b["choices"])) if i != right)
        box.locator(f"button[data-choice='{wrong}']").click()
        verdict = box.locator("[data-verdict]")
        assert verdict.get_attribute("data-verdict") == "wrong", b["id"]
        assert b["choices"][right] in verdict.text_content()
        assert answer.is_visible() and box.get_attribute("data-revealed") == "true"
        result = box.locator(".pr-result")
        assert result.locator("strong").text_content() == b["choices"][right]
        revealed = result.locator(".v").all_text_contents()
        assert revealed == (shown if b["pick"] == "change" else [shown[right]]), b["id"]
        if b["pick"] != "change":
            assert box.locator(".pr-values .v").all_text_contents() == shown, b["id"]
        box.locator(f"button[data-choice='{right}']").click()
        assert verdict.get_attribute("data-verdict") == "right", b["id"]
        assert box.locator(f"button[data-choice='{right}']").get_attribute("aria-pressed") == "true"
        # the opened prediction stays on its slide, above the takeaway strip
        page.wait_for_timeout(100)  # deck.js measures the slide again
        inside = page.evaluate(
            """(id) => { const b = document.getElementById(id).getBoundingClientRect();
                 const s = document.getElementById(id).closest('section').getBoundingClientRect();
                 const foot = document.getElementById(id).closest('section').querySelector('.slide-foot');
                 const f = foot && !foot.closest('.prediction') ? foot.getBoundingClientRect() : null;
                 return b.bottom <= s.bottom + 1 && (!f || (b.bottom <= f.top + 1 && f.bottom <= s.bottom + 1)); }""",
            f"pr-{b['id']}",
        )
        assert inside, f"{b['id']}: the opened prediction runs off its slide or under its takeaway"
        assert page.evaluate("Reveal.getIndices().h") == b["slide"]
    page.watch.assert_clean()


@pytest.mark.parametrize("deck", DECKS)
def test_the_keyboard_picks_skips_and_never_blocks_the_deck(page, site_url, table, deck):
    page.set_viewport_size({"width": 1280, "height": 720})
    open_deck(page, site_url, deck)
    first, second, third = page.evaluate(BOXES)[:3]
    # Enter on a choice picks it; the slide stays
    go(page, first["slide"])
    right, _ = expected(table, first)
    page.locator(f"#pr-{first['id']} button[data-choice='{right}']").focus()
    page.keyboard.press("Enter")
    assert page.locator(f"#pr-{first['id']} [data-verdict]").get_attribute("data-verdict") == "right"
    assert page.evaluate("Reveal.getIndices().h") == first["slide"]
    # Space on "Show the answer" skips the guess
    go(page, second["slide"])
    page.locator(f"#pr-{second['id']} [data-action=skip]").focus()
    page.keyboard.press(" ")
    assert page.locator(f"#pr-{second['id']} [data-verdict]").get_attribute("data-verdict") == "skipped"
    assert page.locator(f"#pr-{second['id']} [data-prediction-answer]").is_visible()
    assert page.evaluate("Reveal.getIndices().h") == second["slide"]
    # a prediction left alone does not hold the deck: the arrow keys move on and back
    go(page, third["slide"])
    page.locator(f"#pr-{third['id']} button[data-choice='0']").focus()
    steps = page.evaluate("Reveal.getCurrentSlide().querySelectorAll('.fragment').length")
    for _ in range(steps + 1):  # the slide's steps (fragments) first, then the next slide
        page.keyboard.press("ArrowRight")
    page.wait_for_function("(i) => Reveal.getIndices().h === i + 1", arg=third["slide"])
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("(i) => Reveal.getIndices().h === i", arg=third["slide"])
    assert not page.locator(f"#pr-{third['id']} [data-prediction-answer]").is_visible()
    page.watch.assert_clean()


@pytest.mark.parametrize("size", [(1280, 720), (390, 844)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("deck", DECKS)
def test_an_opened_prediction_passes_axe(exercise_walk, deck, size):
    """Each prediction of the deck, its first choice clicked (support/exercise_walk.py,
    which opens the deck at this size once for its exercises and predictions)."""
    walk = exercise_walk(deck, size)
    assert len(walk.predictions) >= 3
    for p in walk.predictions:
        assert p["answer_shown"], p["id"]
        assert not p["axe"], (p["id"], p["axe"])
        if size[0] == 390:  # on a phone the box wraps, never scrolls sideways
            assert p["fits"], p["id"]
    walk.assert_clean()


@pytest.mark.parametrize("deck", DECKS)
def test_print_pdf_prints_every_question_then_its_answer(page, site_url, table, deck):
    page.set_viewport_size({"width": 1280, "height": 720})
    open_deck(page, site_url, deck, "?print-pdf")
    page.wait_for_function("document.querySelector('.pdf-page')")
    found = page.evaluate(BOXES)
    assert len(found) >= 3
    for b in found:
        right, shown = expected(table, b)
        seen = page.evaluate(
            """(id) => { const b = document.getElementById(id), page = b.closest('.pdf-page');
                 const r = (s) => b.querySelector(s).getBoundingClientRect();
                 return { text: page.innerText, ask: r('.pr-ask').top, answer: r('.pr-result').top,
                          height: r('.pr-result').height, buttons: r('.pr-pick').height,
                          inside: r('.pr-result').bottom <= page.getBoundingClientRect().bottom + 1 }; }""",
            f"pr-{b['id']}",
        )
        assert seen["height"] > 0 and seen["buttons"] == 0 and seen["ask"] < seen["answer"], b["id"]
        assert seen["inside"], f"{b['id']}: the printed answer runs off its page"
        flat = " ".join(seen["text"].split())
        assert " ".join(b["ask"].split()) in flat, b["id"]
        assert b["choices"][right] in flat and all(s in flat for s in shown), b["id"]
    page.watch.assert_clean()


@pytest.mark.parametrize("deck", DECKS)
def test_the_reading_view_asks_first_and_prints_the_answers(browser, site_url, table, deck):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    watch = PageWatch(page, site_url)
    page.goto(f"{site_url}/read/{deck}.html")
    page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")
    found = page.evaluate(BOXES)
    assert len(found) >= 3
    assert not any(page.locator(f"#pr-{b['id']} .pr-result").is_visible() for b in found)
    page.emulate_media(media="print")
    text = " ".join(page.inner_text("body").split())
    for b in found:
        right, shown = expected(table, b)
        assert page.locator(f"#pr-{b['id']} .pr-result").is_visible(), b["id"]
        assert not page.locator(f"#pr-{b['id']} .pr-pick button").first.is_visible(), b["id"]
        ask = " ".join(b["ask"].split())
        at = text.index(ask)
        assert text.index(b["choices"][right], at + len(ask)) > at, b["id"]
        assert all(s in text[at:] for s in shown), b["id"]
    watch.assert_clean()
    context.close()


@pytest.mark.parametrize("deck", DECKS)
def test_without_javascript_the_question_comes_first_and_the_answer_is_folded(browser, site_url, table, deck):
    context = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    page = context.new_page()
    watch = PageWatch(page, site_url)
    page.goto(f"{site_url}/read/{deck}.html")
    boxes = page.locator("[data-prediction]")
    assert boxes.count() >= 3
    for i in range(boxes.count()):
        box = boxes.nth(i)
        box.scroll_into_view_if_needed()
        choices = json.loads(box.get_attribute("data-choices"))
        assert box.locator(".pr-ask").is_visible() and box.locator(".pr-options").is_visible()
        assert all(c in box.locator(".pr-options").text_content() for c in choices)
        assert not box.locator(".pr-result").is_visible()
        box.locator(".pr-answer > summary").click()
        assert box.locator(".pr-result").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    watch.assert_clean()
    context.close()
