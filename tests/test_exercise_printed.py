"""Every exercise readable without JavaScript (issue 34 item 4): each deck page
and each reading view holds, right after the exercise's box, its printed copy:
the question, the hint, the worked steps and the answer for the printed seed,
the solution folded in a closed <details>. The texts are the ones the
exercise's JavaScript writes for that seed (exercise_texts.drawn: the kind's
question, hint and steps under Node), and the answer is the Python reference's
(export/exercises.py), rounded as the question asks. Needs build/site (make
site) and Node.js. Their equality with what the widget shows in Chromium, and
what print and ?print-pdf show, is tests/test_exercise_printed_browser.py."""

from __future__ import annotations

import re
import tomllib
from html import unescape
from pathlib import Path

import pytest
from markupsafe import Markup

from export.exercises import answer
from site_builder.exercise_texts import drawn
from site_builder.exercises import exercise_box, printed_copy

ROOT = Path(__file__).resolve().parent.parent
CATALOG = tomllib.loads((ROOT / "content" / "exercises.toml").read_text(encoding="utf-8"))
DECKS = sorted({e["deck"] for e in CATALOG.values()})
COPY = re.compile(
    r'</details>\s*<div class="exercise-static" data-exercise-static="([a-z0-9-]+)" data-seed="(\d+)">(.*?)'
    r"</details>\s*</div>",
    re.S,
)


def text(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html)).strip()


def copies(page: Path) -> dict[str, tuple[int, str]]:
    found = {}
    for m in COPY.finditer(page.read_text(encoding="utf-8")):
        assert m.group(1) not in found, f"{page.name}: exercise {m.group(1)} printed twice"
        found[m.group(1)] = (int(m.group(2)), m.group(3))
    return found


@pytest.fixture(scope="module")
def js_texts():
    """(id, seed) -> the item exercise_texts.mjs draws: the JavaScript's own texts."""
    return {(item["id"], item["seed"]): item for items in drawn(ROOT / "web", 1).values() for item in items}


@pytest.mark.parametrize("medium", ["decks", "read"])
@pytest.mark.parametrize("deck", DECKS)
def test_every_exercise_is_printed_with_its_question_and_worked_solution(site_dir, js_texts, deck, medium):
    page = site_dir / medium / f"{deck}.html"
    found = copies(page)
    assert sorted(found) == sorted(k for k, e in CATALOG.items() if e["deck"] == deck), page
    for exercise_id, (seed, html) in found.items():
        item = js_texts[(exercise_id, seed)]  # the printed seed is one exercise_texts draws
        texts = item["texts"]  # question lines, "Hint: ...", steps, mistake messages, range message
        h = next(i for i, t in enumerate(texts) if t.startswith("Hint: "))
        asked = re.search(r'<div class="ex-question">(.*?)</div>', html, re.S).group(1)
        assert [text(p) for p in re.findall(r"<p[^>]*>.*?</p>", asked, re.S)] == texts[:h], exercise_id
        worked = re.search(r'<details class="ex-worked"><summary>Worked solution</summary>(.*)', html, re.S).group(1)
        assert text(re.search(r'<p class="ex-hint">(.*?)</p>', worked, re.S).group(1)) == texts[h]
        *steps, last = [text(li) for li in re.findall(r"<li[^>]*>(.*?)</li>", worked, re.S)]
        after = texts[h + 1 + len(steps) :]  # every step printed, in order: the mistakes' messages follow them
        assert steps and texts[h + 1 : h + 1 + len(steps)] == steps, exercise_id
        assert after[: len(item["mistakes"])] == [m["message"] for m in item["mistakes"]], exercise_id
        # the last line is the answer, as the Python reference computes it, to the digits shown
        number = r"(−?(?:\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?)"  # grouped from 1,000 on
        m = re.fullmatch(r"Answer \((a whole number|(a percentage, )?to \d decimals?)\): " + number + "%?", last)
        assert m, last
        digits = len(m.group(4)) - 1 if m.group(4) else 0
        shown = float(m.group(3).replace("−", "-").replace(",", ""))  # grouped from 1,000 on
        assert abs(shown - answer(exercise_id, item["inputs"])) <= 0.5 * 10**-digits * (1 + 1e-9), exercise_id
        assert text(re.search(r'<p class="ex-seed">(.*?)</p>', html, re.S).group(1)).startswith(f"Seed {seed}: ")


def test_the_printed_copy_is_text_never_html():
    shown = {
        "seed": 3,
        "seedLine": ["Seed 3: <b>", "a link", "</b>."],
        "question": ["x < y & z", "<script>alert(1)</script>?"],
        "hint": 'Hint: "quoted" <i>',
        "steps": ["a<b"],
        "answer": "Answer (a whole number): 1",
    }
    html = printed_copy("demo", shown)
    assert "<script>" not in html and "<b>" not in html and "<i>" not in html and "a<b" not in html
    assert "x &lt; y &amp; z" in html and "&lt;script&gt;alert(1)&lt;/script&gt;?" in html
    assert '<details class="ex-worked"><summary>' in html and '<details class="ex-worked" open' not in html


def test_an_exercise_the_javascript_does_not_define_stops_the_build():
    content = ROOT / "content"
    with pytest.raises(ValueError, match=r"exercise 'story-ids' is in content/exercises.toml but no web/core"):
        exercise_box(content, "story-ids", {})
    assert isinstance(exercise_box(content, "story-ids"), Markup)
