"""“Watch the prediction move” (web/widgets/part2-bars.js) at 390x844 and at
1280x720 (issue 35 item 2): no value, bar or candidate name is drawn over
another's, nothing in the widget runs past its box (so it needs no sideways
scroll), and each bar's length is its probability against the tallest bar
of either sentence, in every state of the widget (context, bypass).

Needs build/site."""

from __future__ import annotations

import json

import pytest

from support.phone_figures import PHONE_VIEW
from support.slide_metrics import open_deck

WIDE_VIEW = {"viewport": {"width": 1280, "height": 720}}

# every value, bar and name of the widget, by candidate, in CSS px of the page
BOXES = """(w) => {
  const box = (e) => { const b = e.getBoundingClientRect();
    return {x: b.left, y: b.top, w: b.width, h: b.height}; };
  return {
    widget: box(w), scroll: w.scrollWidth, client: w.clientWidth,
    cols: [...w.querySelectorAll('.p2-col')].map((c) => ({
      value: box(c.querySelector('.v')), bar: box(c.querySelector('.b')), name: box(c.querySelector('.n')),
      text: c.querySelector('.v').textContent, label: c.querySelector('.n').textContent })),
  };
}"""


def _overlap(a: dict, b: dict) -> bool:
    """Two boxes share more than half a pixel each way."""
    return min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"]) > 0.5 and (
        min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"]) > 0.5
    )


@pytest.fixture(scope="module")
def predict(site_dir):
    return json.loads((site_dir / "tables" / "part2_predict.json").read_text(encoding="utf-8"))


def _widget(browser, site_url, view):
    context = browser.new_context(**view)
    page = context.new_page()
    open_deck(page, f"{site_url}/decks/part2.html")
    widget = page.locator('.widget[data-widget="part2-bars"]')
    index = widget.evaluate("el => Reveal.getIndices(el.closest('section')).h")
    page.evaluate(f"Reveal.slide({index})")
    page.wait_for_function(f"Reveal.getIndices().h === {index}")
    page.wait_for_timeout(300)
    return context, page, widget


def _states(widget):
    """Each state of the widget in turn: (context, bypassed)."""
    for name, button in (("river", "River sentence"), ("cheque", "Cheque sentence")):
        widget.get_by_role("button", name=button).click()
        for bypass in (False, True):
            box = widget.get_by_label("Bypass attention")
            box.check() if bypass else box.uncheck()
            yield name, bypass


@pytest.mark.parametrize("view", [PHONE_VIEW, WIDE_VIEW], ids=["phone", "wide"])
def test_prediction_bars_print_nothing_over_each_other(browser, site_url, predict, view):
    context, page, widget = _widget(browser, site_url, view)
    try:
        if view is PHONE_VIEW:
            assert page.evaluate("document.documentElement.classList.contains('deck-phone')")
        for name, bypass in _states(widget):
            m = widget.evaluate(BOXES)
            assert [c["label"] for c in m["cols"]] == predict["candidates"]
            assert m["scroll"] <= m["client"] + 1, f"{name} {bypass}: the widget scrolls sideways"
            parts = [(c["label"], kind, c[kind]) for c in m["cols"] for kind in ("value", "name")]
            parts += [(c["label"], "bar", c["bar"]) for c in m["cols"] if c["bar"]["w"] and c["bar"]["h"]]
            clash = [(a[:2], b[:2]) for i, a in enumerate(parts) for b in parts[i + 1 :] if _overlap(a[2], b[2])]
            assert not clash, f"{name} bypass={bypass}: overlapping {clash[:6]}"
            for _, kind, b in parts:
                assert b["x"] >= m["widget"]["x"] - 0.5, (name, kind, b)
                assert b["x"] + b["w"] <= m["widget"]["x"] + m["widget"]["w"] + 0.5, (name, kind, b)
            # a bar's length (its width on a phone, its height on a slide) is its probability
            # against the largest probability of either sentence, with or without attention
            ctx = predict["contexts"][name]
            probs = ctx["probs_bypass"] if bypass else ctx["probs"]
            ceiling = max(p for c in predict["contexts"].values() for p in c["probs"] + c["probs_bypass"])
            along = "w" if view is PHONE_VIEW else "h"
            lengths = [c["bar"][along] for c in m["cols"]]
            longest = lengths[probs.index(max(probs))] * ceiling / max(probs)
            for p, length in zip(probs, lengths):
                assert length == pytest.approx(longest * p / ceiling, abs=1.0), (name, bypass, p, length)
            if view is PHONE_VIEW:  # one candidate a row: name, bar, value from left to right
                for c in m["cols"]:
                    assert c["name"]["x"] + c["name"]["w"] <= c["bar"]["x"] + 0.5
                    assert c["bar"]["x"] + c["bar"]["w"] <= c["value"]["x"] + 0.5
    finally:
        context.close()
