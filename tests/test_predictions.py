"""Predictions on the slides (issue 34 item 2; site_builder/predictions.py, m.predict).

Every deck asks at least three; each deck page and each reading view holds
every prediction's question and, after it, its answer (folded), readable
without JavaScript. The answer is the tables' own: the test reads each value
the box prints from build/tables (by the path the box names), formats it as
the slides do, and works out the right choice from those values itself (the
largest, the smallest, or the direction of the change). The browser side
(buttons, reveal, keyboard, print, axe) is tests/test_predictions_browser.py.
Needs build/site and build/tables (make site)."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from markupsafe import Markup

from site_builder.predictions import prediction_box
from site_builder.provenance import Provenance
from site_builder.values import fmt, track
from support.predictions import DECKS, expected_choice, lookup

BOX = re.compile(r'<div class="prediction" id="pr-([a-z0-9-]+)"(.*?)</details></div>', re.S)
VALUE = re.compile(r'<span class="v" data-source="([^"]+)" data-digits="(\d+)" data-kind="num">([^<]*)</span>')


def text(html: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", "", html))).strip()


def boxes(html: str) -> dict[str, str]:
    found = {}
    for m in BOX.finditer(html):
        assert m.group(1) not in found, f"prediction {m.group(1)} twice on one page"
        found[m.group(1)] = m.group(0)
    return found


def attr(box: str, name: str) -> str:
    return unescape(re.search(rf'\b{name}="([^"]*)"', box).group(1))


@pytest.mark.parametrize("medium", ["decks", "read"])
@pytest.mark.parametrize("deck", DECKS)
def test_every_prediction_asks_then_answers_with_the_tables_values(site_dir, table, deck, medium):
    page = (site_dir / medium / f"{deck}.html").read_text(encoding="utf-8")
    found = boxes(page)
    assert len(found) >= 3, f"{medium}/{deck}.html: {len(found)} predictions"
    for ident, box in found.items():
        choices = json.loads(attr(box, "data-choices"))
        sources = json.loads(attr(box, "data-values"))
        pick, digits = attr(box, "data-pick"), int(attr(box, "data-digits"))
        values = [lookup(table, s) for s in sources]
        right = expected_choice(pick, values)
        assert int(attr(box, "data-correct")) == right, ident
        # the question (with its choices) comes first, the answer after it, folded
        ask = text(re.search(r'<p class="pr-ask"[^>]*>(.*?)</p>', box, re.S).group(1))
        assert ask.startswith("Predict · ") and ask.endswith("?"), ident
        options = text(re.search(r'<p class="pr-options">(.*?)</p>', box, re.S).group(1))
        assert all(c in options for c in choices), ident
        answer_at = box.index("<details")
        assert box.index('class="pr-ask"') < box.index('class="pr-options"') < answer_at, ident
        assert '<details class="pr-answer" data-prediction-answer><summary>Answer</summary>' in box, ident
        answer = box[answer_at:]
        result = re.search(r'<p class="pr-result">(.*?)</p>', answer, re.S).group(1)
        assert text(re.search(r"<strong>(.*?)</strong>", result).group(1)) == choices[right], ident
        # every number the answer prints is the table's, to the digits the box states
        printed = VALUE.findall(answer)
        assert {s for s, _, _ in printed} == set(sources), ident
        for source, d, shown in printed:
            assert int(d) == digits and shown == fmt(lookup(table, source), digits), (ident, source)
        if pick == "change":  # before, then after
            assert [s for s, _, _ in VALUE.findall(result)] == sources, ident
        else:  # the right choice's value in the answer line, then every choice with its own
            assert [s for s, _, _ in VALUE.findall(result)] == [sources[right]], ident
            listed = re.findall(r'<span data-choice="(\d+)">(.*?) <span class="v" data-source="([^"]+)"', answer)
            assert [(int(i), text(c), s) for i, c, s in listed] == list(
                zip(range(len(choices)), choices, sources, strict=True)
            ), ident


@pytest.mark.parametrize("deck", DECKS)
def test_the_deck_and_its_reading_view_ask_the_same_predictions(site_dir, deck):
    on_slides = boxes((site_dir / "decks" / f"{deck}.html").read_text(encoding="utf-8"))
    in_reading = boxes((site_dir / "read" / f"{deck}.html").read_text(encoding="utf-8"))
    assert on_slides == in_reading


def provenance(tables: dict) -> Provenance:
    p = Provenance()
    p.start({name: track(value, name) for name, value in tables.items()})
    return p


def test_the_right_choice_is_computed_and_each_value_keeps_its_path():
    p = provenance({"t": {"words": ["a", "b", "c"], "w": [0.2, 0.5, 0.3], "before": 1.0, "after": 0.5}})
    html = str(prediction_box(p, "demo", "Which?", "t.words", "t.w", measure="weight"))
    assert 'data-correct="1"' in html and "<strong>b</strong>" in html
    assert [s for s, *_ in p.printed] == ["t.w.0", "t.w.1", "t.w.2"]
    low = str(prediction_box(p, "low", "Which?", ["x", "y", "z"], ["t.w.0", "t.w.1", "t.w.2"], pick="min"))
    assert 'data-correct="0"' in low and "<strong>x</strong>" in low
    html = str(
        prediction_box(p, "down", "Up?", ["rises", "falls"], ["t.before", "t.after"], "change", labels=["then", "now"])
    )
    assert 'data-correct="1"' in html and "<strong>falls</strong>" in html and "(then)" in html


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"values": "t.tie"}, "share the max value"),
        ({"values": "t.w", "choices": ["a", "b"]}, "3 values"),
        ({"values": "t.w", "pick": "most"}, "not one of"),
        ({"values": [0.2, 0.5, 0.3]}, "read from a table"),
        ({"values": "t.w", "choices": ["a", "a", "b"]}, "read the same"),
        (
            {"values": ["t.w.0", "t.w.0"], "choices": ["up", "down"], "pick": "change", "labels": ["x", "y"]},
            "not change",
        ),
        ({"values": ["t.w.0", "t.w.1"], "choices": ["up", "down"], "pick": "change"}, "labels"),
        ({"values": "t.w", "ident": "Bad Id"}, "the id"),
        ({"values": "t.nope"}, "no key"),
    ],
)
def test_a_prediction_without_one_answer_from_the_tables_stops_the_build(kwargs, message):
    p = provenance({"t": {"words": ["a", "b", "c"], "w": [0.2, 0.5, 0.3], "tie": [0.5, 0.5, 0.1]}})
    args = {"ident": "demo", "question": "Which?", "choices": "t.words", **kwargs}
    with pytest.raises(ValueError, match=message):
        prediction_box(p, args.pop("ident"), args.pop("question"), args.pop("choices"), args.pop("values"), **args)


def test_the_question_and_choices_are_text_never_html():
    p = provenance({"t": {"words": ["<b>", "x & y"], "w": [0.1, 0.9]}})
    html = prediction_box(p, "esc", "Is <script>1</script> safe?", "t.words", "t.w")
    assert isinstance(html, Markup)
    assert "<script>" not in html and "<b>" not in html and "&lt;b&gt;" in html and "x &amp; y" in html
