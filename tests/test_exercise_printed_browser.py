"""The printed copy of every exercise in Chromium (issue 34 item 4;
site_builder/exercises.py, web/widgets/exercise.js, exercise.css, deck.js).

In a deck opened at the printed seed, each copy is hidden once the widget has
mounted, and its texts (seed line, question, hint, worked steps, answer) are
exactly the ones the widget shows for that seed. Under ?print-pdf every copy
is shown with its solution unfolded and the widget is not, inside a printed
page (on its slide's page, or on a page of its own right after it). In the
reading view the copy is hidden on screen, shown unfolded in print; without
JavaScript it is shown with its solution folded, at 390 px without sideways
scrolling."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from support.decks import open_deck
from support.lab import AXE
from support.pages import PageWatch

ROOT = Path(__file__).resolve().parent.parent
CATALOG = tomllib.loads((ROOT / "content" / "exercises.toml").read_text(encoding="utf-8"))
DECKS = sorted({e["deck"] for e in CATALOG.values()})

# per exercise: the copy's texts and the widget's, read from the page
TEXTS = """() => [...document.querySelectorAll('.exercise-static')].map((copy) => {
  const id = copy.dataset.exerciseStatic;
  const widget = document.querySelector(`[data-exercise="${id}"]`);
  const read = (root) => ({
    seed: root.querySelector('.ex-seed').textContent,
    question: [...root.querySelectorAll('.ex-question p')].map((p) => p.textContent),
    ask: root.querySelector('.ex-question p:last-child').classList.contains('ex-ask'),
    hint: root.querySelector('.ex-hint').textContent,
    solution: [...root.querySelectorAll('.ex-solution li')].map((li) => li.textContent),
  });
  return { id, printedSeed: copy.dataset.seed, widgetSeed: widget.dataset.seed, hidden: copy.hidden,
           shown: copy.getClientRects().length > 0, copy: read(copy), widget: read(widget) };
})"""

# per exercise under print: is the copy drawn, its last solution line too, the widget not, and inside a page
PRINTED = """() => [...document.querySelectorAll('.exercise-static')].map((copy) => {
  const box = (e) => e.getBoundingClientRect();
  const page = copy.closest('.pdf-page');
  const answer = copy.querySelector('.ex-answer');
  const widget = document.querySelector(`[data-exercise="${copy.dataset.exerciseStatic}"]`);
  return { id: copy.dataset.exerciseStatic, copy: box(copy).height, answer: box(answer).height,
           widget: box(widget).height, paged: !!page,
           inside: !page || (box(copy).bottom <= box(page).bottom + 1 && box(copy).top >= box(page).top) };
})"""


def printed_seed(site_dir: Path, deck: str) -> str:
    html = (site_dir / "decks" / f"{deck}.html").read_text(encoding="utf-8")
    return html.split('class="exercise-static"', 1)[1].split('data-seed="', 1)[1].split('"', 1)[0]


@pytest.mark.parametrize("deck", DECKS)
def test_the_copy_says_what_the_widget_shows_and_hides_once_it_works(page, site_url, site_dir, deck):
    seed = printed_seed(site_dir, deck)
    open_deck(page, site_url, deck, f"?seed={seed}")
    rows = page.evaluate(TEXTS)
    assert sorted(r["id"] for r in rows) == sorted(k for k, e in CATALOG.items() if e["deck"] == deck)
    for r in rows:
        assert r["printedSeed"] == r["widgetSeed"] == seed, r["id"]
        assert r["hidden"] and not r["shown"], f"{r['id']}: the copy still shows beside the working widget"
        assert r["copy"] == r["widget"], r["id"]
        assert r["copy"]["ask"] and len(r["copy"]["solution"]) >= 2 and r["copy"]["solution"][-1].startswith("Answer (")
    page.watch.assert_clean()


@pytest.mark.parametrize("deck", DECKS)
def test_print_pdf_shows_every_question_and_solution_on_a_page(page, site_url, deck):
    page.set_viewport_size({"width": 1280, "height": 720})
    open_deck(page, site_url, deck, "?print-pdf")
    page.wait_for_function("document.querySelector('.pdf-page')")
    page.wait_for_timeout(300)  # deck.js moves a copy that would overflow its slide after pdf-ready
    rows = page.evaluate(PRINTED)
    assert sorted(r["id"] for r in rows) == sorted(k for k, e in CATALOG.items() if e["deck"] == deck)
    for r in rows:
        assert r["paged"] and r["inside"], f"{r['id']}: printed outside its page"
        assert r["copy"] > 0 and r["answer"] > 0 and r["widget"] == 0, r
    # a copy on a page of its own carries its title, and the slide's line says where it went
    for title in page.locator(".exercise-page h2").all_text_contents():
        assert title.startswith("Exercise · ")
    moved = page.locator(".exercise-moved").count()
    assert moved == page.locator(".exercise-page .exercise-static").count()
    page.watch.assert_clean()


@pytest.mark.parametrize("deck", DECKS)
def test_the_reading_view_prints_the_copies_and_hides_them_on_screen(page, site_url, deck):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{site_url}/read/{deck}.html")
    page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")
    assert all(r["hidden"] and not r["shown"] for r in page.evaluate(TEXTS))
    page.emulate_media(media="print")
    for r in page.evaluate(PRINTED):
        assert r["copy"] > 0 and r["answer"] > 0 and r["widget"] == 0, r
    # the copies as a reader without JavaScript meets them, one solution open: axe finds nothing serious
    page.emulate_media(media="screen")
    page.evaluate("""document.querySelectorAll('.exercise-static').forEach((c) => { c.hidden = false; });
                     document.querySelector('.ex-worked').open = true;""")
    page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        "axe.run({include: [...document.querySelectorAll('.exercise-static')]}, {resultTypes: ['violations']})"
    )
    bad = [
        (v["id"], [n["target"] for n in v["nodes"][:3]])
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert not bad, bad
    page.watch.assert_clean()


@pytest.mark.parametrize("deck", DECKS)
def test_without_javascript_the_reading_view_shows_the_question_and_folds_the_solution(browser, site_url, deck):
    context = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    page = context.new_page()
    watch = PageWatch(page, site_url)
    page.goto(f"{site_url}/read/{deck}.html")
    copies = page.locator(".exercise-static")
    assert copies.count() == sum(1 for e in CATALOG.values() if e["deck"] == deck)
    for i in range(copies.count()):
        copy = copies.nth(i)
        copy.scroll_into_view_if_needed()
        assert copy.locator(".ex-ask").is_visible() and not copy.locator(".ex-answer").is_visible()
        copy.locator(".ex-worked > summary").click()
        assert copy.locator(".ex-answer").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    watch.assert_clean()
    context.close()
