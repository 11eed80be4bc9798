"""The Part II deck in the browser: it loads cleanly, the keyboard reaches the
last slide, and every widget shows the numbers of its JSON table as it is used.

Needs build/site (make site, or `python -m export.tables && python -m site_builder`)."""

from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_UP, Decimal

import pytest

WIDGETS = {
    "part2-bars": "part2_predict",
    "part2-window": "part2_window",
    "part2-temperature": "part2_video",
    "part2-phases": "part2_bank",
    "part2-mask": "part2_mask",
    "part2-walkthrough": "part2_walk",
    "part2-update": "part2_bank",
    "part2-divisor": "part2_divisor",
}


def fmt(x, digits=3):
    """What the widgets show: JavaScript's toFixed (ties away from zero on the
    exact binary value), no negative zero, a true minus sign."""
    if isinstance(x, str):
        return x
    s = str(Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))
    if re.fullmatch(r"-0(\.0*)?", s):
        s = s[1:]
    return s.replace("-", "−")


def vec(values, digits=3):
    return "(" + ", ".join(fmt(v, digits) for v in values) + ")"


@pytest.fixture(scope="module")
def tables(site_dir):
    return {
        name: json.loads((site_dir / "tables" / f"{name}.json").read_text(encoding="utf-8"))
        for name in set(WIDGETS.values())
    }


def open_deck(page, site_url):
    page.goto(f"{site_url}/decks/part2.html")
    page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")
    return page


def show_widget(page, name):
    """Go to the slide holding the widget; return the widget's locator."""
    widget = page.locator(f'.widget[data-widget="{name}"]')
    assert widget.count() == 1, f"{name} should appear once in the deck"
    assert widget.get_attribute("data-mounted") == "true", f"{name} did not mount"
    index = widget.evaluate("el => Reveal.getIndices(el.closest('section')).h")
    page.evaluate(f"Reveal.slide({index})")
    page.wait_for_function(f"Reveal.getIndices().h === {index}")
    return widget


def text(widget, key):
    return widget.locator(f'[data-key="{key}"]').inner_text().strip()


def test_deck_loads_clean_with_every_widget_mounted(page, site_url):
    """The keyboard's way through the deck to its last slide is
    tests/test_site_pages.py's, for every deck."""
    open_deck(page, site_url)
    assert page.locator(".widget-error").count() == 0
    # the exercises (m.exercise) and predictions (m.predict) are widgets too; tests/test_exercises_browser.py
    # and tests/test_predictions_browser.py test them
    mounted = page.locator(".widget[data-mounted=true]:not(.exercise, .pr-pick)").evaluate_all(
        "els => els.map(e => e.dataset.widget)"
    )
    assert sorted(mounted) == sorted(WIDGETS)
    assert page.evaluate("Reveal.getTotalSlides()") > 30
    page.watch.assert_clean()


def test_hidden_answers_open_on_demand(page, site_url):
    open_deck(page, site_url)
    details = page.locator("section details:not(.exercise-box, .ex-worked, .pr-answer)")  # the self-check answers
    assert details.count() >= 4
    first = details.first
    index = first.evaluate("el => Reveal.getIndices(el.closest('section')).h")
    page.evaluate(f"Reveal.slide({index})")
    assert not first.evaluate("el => el.open")
    first.locator("summary").click()
    assert first.evaluate("el => el.open")
    assert first.locator("table").first.is_visible()
    page.watch.assert_clean()


def test_bars_follow_context_and_bypass(page, site_url, tables):
    t = tables["part2_predict"]
    w = show_widget(open_deck(page, site_url), "part2-bars")
    n = len(t["candidates"])

    def shown():
        return [text(w, f"p-{k}") for k in range(n)]

    river, cheque = t["contexts"]["river"], t["contexts"]["cheque"]
    assert shown() == [fmt(p, 2) for p in river["probs"]]
    assert text(w, "top") == river["top"] and text(w, "top-p") == fmt(river["top_prob"])
    here = page.evaluate("Reveal.getIndices().h")
    w.get_by_role("button", name="Cheque sentence").focus()
    page.keyboard.press("Space")  # a keyboard user switches context without leaving the slide
    assert page.evaluate("Reveal.getIndices().h") == here
    assert shown() == [fmt(p, 2) for p in cheque["probs"]]
    assert text(w, "top") == cheque["top"]
    w.get_by_label("Bypass attention").check()
    bypassed = shown()
    assert bypassed == [fmt(p, 2) for p in cheque["probs_bypass"]]
    assert text(w, "top") == ", ".join(t["bypass_top"])
    w.get_by_role("button", name="River sentence").click()
    assert shown() == bypassed == [fmt(p, 2) for p in river["probs_bypass"]]
    w.get_by_label("Bypass attention").uncheck()
    assert shown() == [fmt(p, 2) for p in river["probs"]]
    page.watch.assert_clean()


def test_window_slider_shows_counts(page, site_url, tables):
    t = tables["part2_window"]
    w = show_widget(open_deck(page, site_url), "part2-window")
    slider = w.get_by_label("Window width w")

    def check(width):
        x = t["by_w"][str(width)]
        assert text(w, "inputs") == str(x["inputs"])
        assert text(w, "mlp") == str(x["mlp_parameters"])
        assert text(w, "linear") == str(x["linear_parameters"])
        assert text(w, "river-inside") == ("yes" if x["river_inside"] else "no")
        assert text(w, "cheque-inside") == ("yes" if x["cheque_inside"] else "no")

    check(t["short"]["w"])
    slider.focus()
    page.keyboard.press("End")
    check(t["long"]["w"])
    page.keyboard.press("Home")
    check(t["widths"][0]["w"])
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    check(t["widths"][4]["w"])
    page.watch.assert_clean()


def test_temperature_slider_moves_from_hard_to_soft(page, site_url, tables):
    t = tables["part2_video"]
    w = show_widget(open_deck(page, site_url), "part2-temperature")
    w.get_by_label("Retrieval").focus()
    for i, setting in enumerate(t["settings"]):
        if i:
            page.keyboard.press("ArrowRight")
        assert [text(w, f"w-{j}") for j in range(len(t["titles"]))] == [fmt(x) for x in setting["weights"]]
        assert [text(w, f"r-{l}") for l in range(len(t["topics"]))] == [fmt(x, 2) for x in setting["returned"]]
    page.watch.assert_clean()


def test_divisor_slider_shows_each_divisor_weights_from_the_keyboard(page, site_url, tables):
    t = tables["part2_divisor"]
    w = show_widget(open_deck(page, site_url), "part2-divisor")
    slider = w.get_by_label("Divisor")
    slider.focus()
    slider.press("Home")
    tops = []
    for i, setting in enumerate(t["settings"]):
        if i:
            page.keyboard.press("ArrowRight")
        assert [text(w, f"w-{j}") for j in range(len(t["tokens"]))] == [fmt(x) for x in setting["weights"]]
        tops.append(setting["top"])
    assert tops == sorted(tops, reverse=True)  # a larger divisor flattens the weights
    page.watch.assert_clean()


def test_phases_step_through_and_explain_a_score(page, site_url, tables):
    t = tables["part2_bank"]
    w = show_widget(open_deck(page, site_url), "part2-phases")
    d = t["river"]
    n = len(d["tokens"])
    assert [text(w, f"raw-{j}") for j in range(n)] == [fmt(x) for x in d["raw"]]
    assert all(text(w, f"alpha-{j}") == "·" for j in range(n))
    next_step = w.get_by_role("button", name="Next step ▶")
    next_step.click()
    assert [text(w, f"scaled-{j}") for j in range(n)] == [fmt(x) for x in d["scaled"]]
    next_step.click()
    assert [text(w, f"alpha-{j}") for j in range(n)] == [fmt(x) for x in d["weights"]]
    next_step.click()
    next_step.click()
    assert [text(w, f"wv0-{j}") for j in range(n)] == [fmt(x[0]) for x in d["weighted"]]
    assert [text(w, "m-0"), text(w, "m-1")] == [fmt(x) for x in d["message"]]
    assert next_step.is_disabled()
    j = d["tokens"].index("river")
    w.locator(f'[data-key="raw-{j}"]').click()
    terms = text(w, "terms")
    assert terms.endswith(f"= {fmt(d['raw'][j])}")
    for a, b in zip(d["q"], d["keys"][j]):
        assert f"{fmt(a, 2)}×{fmt(b, 2)}" in terms
    w.get_by_role("button", name="Cheque sentence").click()
    c = t["cheque"]
    assert [text(w, f"alpha-{j}") for j in range(n)] == [fmt(x) for x in c["weights"]]
    assert [text(w, "m-0"), text(w, "m-1")] == [fmt(x) for x in c["message"]]
    assert text(w, "terms").endswith(f"= {fmt(c['raw'][j])}")
    page.watch.assert_clean()


def test_mask_toggle(page, site_url, tables):
    t = tables["part2_mask"]
    w = show_widget(open_deck(page, site_url), "part2-mask")
    n = len(t["tokens"])
    assert [text(w, f"alpha-{j}") for j in range(n)] == [fmt(x) for x in t["weights_on"]]
    assert [text(w, f"score-{j}") for j in range(n)] == [fmt(x) for x in t["masked_scores"]]
    assert text(w, "future") == fmt(t["future_mass_on"]) and text(w, "message") == vec(t["message_on"])
    w.get_by_label("Causal mask on").uncheck()
    assert [text(w, f"alpha-{j}") for j in range(n)] == [fmt(x) for x in t["weights_off"]]
    assert [text(w, f"score-{j}") for j in range(n)] == [fmt(x) for x in t["scaled"]]
    assert text(w, "future") == fmt(t["future_mass_off"]) and text(w, "message") == vec(t["message_off"])
    page.watch.assert_clean()


def test_walkthrough_query_choice(page, site_url, tables):
    t = tables["part2_walk"]
    w = show_widget(open_deck(page, site_url), "part2-walkthrough")
    n = len(t["river"]["tokens"])

    def check(d, i):
        assert [text(w, f"a-{j}") for j in range(n)] == [fmt(x) for x in d["A"][i]]
        assert [text(w, f"s-{j}") for j in range(n)] == [fmt(x) for x in d["S_masked"][i]]
        assert text(w, "m") == vec(d["H"][i]) and text(w, "d") == vec(d["dE"][i])
        assert text(w, "e") == vec(d["E"][i]) and text(w, "en") == vec(d["E_new"][i])

    check(t["river"], n - 1)
    select = w.get_by_label("Query token")
    select.select_option(str(6))
    check(t["river"], 6)
    w.locator('[data-key="s-5"]').click()
    assert text(w, "terms").endswith(f"= {fmt(t['river']['S'][6][5])}")
    select.select_option(str(2))
    check(t["river"], 2)
    # the keyboard works the select without moving the slides
    here = page.evaluate("Reveal.getIndices().h")
    select.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    check(t["river"], 4)
    assert page.evaluate("Reveal.getIndices().h") == here
    w.get_by_role("button", name="Cheque sentence").click()
    check(t["cheque"], 4)
    page.watch.assert_clean()


def test_update_slider_adds_the_update(page, site_url, tables):
    t = tables["part2_bank"]
    w = show_widget(open_deck(page, site_url), "part2-update")
    coords = t["coords"]

    def check(k):
        for name in ("river", "cheque"):
            row = t[name]["steps"][k]["row"]
            assert [text(w, f"row-{name}-{c}") for c in range(len(coords))] == [fmt(x) for x in row]

    check(0)
    w.get_by_label("Update added").focus()
    page.keyboard.press("End")
    check(len(t["river"]["steps"]) - 1)
    page.keyboard.press("ArrowLeft")
    check(len(t["river"]["steps"]) - 2)
    page.watch.assert_clean()
