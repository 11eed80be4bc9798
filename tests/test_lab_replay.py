"""The lab's Training replay panel (web/lab/replay-view.js) in Chromium: the
trace is not fetched before the panel opens; for a chosen step and probe the
panel shows exactly the numbers of models/training_trace.json (top-5 and each
head's attention row); the slider, the probe menu and play/pause work from the
keyboard; axe-core finds nothing serious; a 390 px phone never scrolls sideways.
Also: the export's trimmed copy keeps every number of the trace unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from common.layout import MODELS
from common.settings import EXPORT_DIR
from export.lab_trace import TOP, lab_trace
from models.checkpoints import load_vocab
from models.nets import KINDS
from support.lab import open_lab
from support.pages import PageWatch

ROOT = Path(__file__).resolve().parent.parent
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
TRACE_URL = "onnx/training_trace.json"


@pytest.fixture(scope="module")
def trace() -> dict:
    return json.loads(MODELS.trace.read_text())


@pytest.fixture(scope="module")
def itos() -> list[str]:
    return load_vocab(MODELS).itos


@pytest.fixture(scope="module")
def replay_page(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.watch = PageWatch(page, site_url)
    page.requested = []
    page.on("request", lambda r: page.requested.append(r.url))
    assert open_lab(page, site_url, "?backend=wasm")["ok"]
    yield page
    context.close()


def set_step(page, index: int):
    page.evaluate(
        "i => { const s = document.querySelector('#replay-step'); s.value = i;"
        " s.dispatchEvent(new Event('input', {bubbles: true})); }",
        index,
    )


def shown(page, kind: str) -> dict:
    block = page.locator(f'.replay-model[data-kind="{kind}"]')
    top = block.locator("table.replay-top tbody tr")
    rows = [
        (top.nth(r).locator("td").nth(0).text_content(), top.nth(r).locator("td").nth(1)) for r in range(top.count())
    ]
    cells = block.locator("table.replay-attention td")
    weights = {}
    for c in range(cells.count()):
        cell = cells.nth(c)
        slot = int(cell.evaluate("td => td.parentElement.dataset.slot"))
        weights[(int(cell.get_attribute("data-head")), slot)] = (
            float(cell.get_attribute("data-weight")),
            cell.text_content(),
        )
    return {
        "step": int(block.get_attribute("data-step")),
        "top": [(tok, float(td.get_attribute("data-p")), td.text_content()) for tok, td in rows],
        "weights": weights,
    }


def test_the_export_copy_keeps_the_trace_numbers(trace, itos):
    copy = json.loads((EXPORT_DIR / "training_trace.json").read_text())
    assert copy == lab_trace(trace, itos)
    for kind in KINDS:
        for mine, theirs in zip(copy["runs"][kind]["points"], trace["runs"][kind]["points"]):
            assert mine["validation_loss"] == theirs["validation_loss"]
            assert [[q for _, q in row] for row in mine["top"]] == [
                [q for _, q in row[:TOP]] for row in theirs["top10"]
            ]


def test_the_trace_is_fetched_only_when_the_panel_opens(replay_page):
    assert not [u for u in replay_page.requested if TRACE_URL in u]
    assert replay_page.locator("#replay .replay-model").count() == 0
    replay_page.click("#replay > summary")
    replay_page.wait_for_selector("#replay .replay-model")
    assert len([u for u in replay_page.requested if TRACE_URL in u]) == 1
    replay_page.click("#replay > summary")  # closed and opened again: no second download
    replay_page.click("#replay > summary")
    assert len([u for u in replay_page.requested if TRACE_URL in u]) == 1


@pytest.mark.parametrize("probe, step", [("river", "selected"), ("fisherman", 50), ("test_story", 0)])
def test_the_panel_shows_the_trace_numbers_for_a_chosen_step_and_probe(replay_page, trace, itos, probe, step):
    if replay_page.locator("#replay .replay-model").count() == 0:
        replay_page.click("#replay > summary")
        replay_page.wait_for_selector("#replay .replay-model")
    names = [p["name"] for p in trace["probes"]]
    i = names.index(probe)
    replay_page.select_option("#replay-probe", str(i))
    step = trace["runs"]["attn4"]["selected_step"] if step == "selected" else step
    index = [p["step"] for p in trace["runs"]["attn4"]["points"]].index(step)
    set_step(replay_page, index)
    n = len(trace["probes"][i]["ids"])
    for kind in KINDS:
        point = trace["runs"][kind]["points"][index]
        got = shown(replay_page, kind)
        assert got["step"] == step
        expected = point["top10"][i][:5]
        assert [(t, p) for t, p, _ in got["top"]] == [(itos[t], p) for t, p in expected], kind
        for _, p, text in got["top"]:
            assert text == (f"{100 * p:.1f}%" if p >= 0.0995 else f"{100 * p:.2f}%")
        if kind == "mlp":
            assert got["weights"] == {}
            continue
        heads = point["attention"][i]
        assert len(got["weights"]) == len(heads) * n
        for (h, slot), (w, text) in got["weights"].items():
            assert w == heads[h][-n:][slot] and text == f"{w:.2f}"
        assert all(w == 0 for head in heads for w in head[:-n])  # nothing left out: PAD slots hold no weight
    kept = [k for k in KINDS if trace["runs"][k]["selected_step"] == step]
    readout = replay_page.text_content("#replay-readout")
    assert f"Step {step:,} of" in readout and (("★ kept" in readout) == bool(kept))
    for kind in KINDS:
        loss = trace["runs"][kind]["points"][index]["validation_loss"]
        assert f"{loss:.3f}" in replay_page.text_content(f'.replay-model[data-kind="{kind}"]')


def test_keyboard_play_pause_and_axe(replay_page):
    page = replay_page
    if page.locator("#replay .replay-model").count() == 0:
        page.click("#replay > summary")
        page.wait_for_selector("#replay .replay-model")
    set_step(page, 0)
    page.focus("#replay-step")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.get_attribute('.replay-model[data-kind="mlp"]', "data-step") == "10"
    assert "Step 10 of" in page.get_attribute("#replay-step", "aria-valuetext")
    page.focus("#replay-play")
    page.keyboard.press("Enter")
    assert page.get_attribute("#replay-play", "aria-pressed") == "true"
    page.wait_for_function("document.querySelector('.replay-model').dataset.step !== '10'", timeout=5000)
    page.keyboard.press("Enter")
    assert page.get_attribute("#replay-play", "aria-pressed") == "false"
    moved = page.get_attribute('.replay-model[data-kind="mlp"]', "data-step")
    page.wait_for_timeout(1500)
    assert page.get_attribute('.replay-model[data-kind="mlp"]', "data-step") == moved  # paused
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        "async () => (await axe.run(document.querySelector('#replay'))).violations.map((v) => ({id: v.id,"
        " impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))"
    )
    assert not [v for v in found if v["impact"] in ("serious", "critical")], found
    page.watch.assert_clean()


def test_the_panel_fits_a_phone(browser, site_url):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{site_url}/lab/?backend=wasm")
    page.click("#replay > summary")
    page.wait_for_selector('#replay .replay-model[data-kind="attn4"] table.replay-attention')
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.locator("#replay-step").bounding_box()["width"] >= 150
    context.close()


def opened(page):
    if page.locator("#replay .replay-model").count() == 0:
        page.click("#replay > summary")
        page.wait_for_selector("#replay .replay-model")


@pytest.mark.parametrize("probe", ["river", "held_out", "test_story"])
def test_the_timeline_holds_each_models_top_guess_at_every_step(replay_page, trace, itos, probe):
    opened(replay_page)
    i = [p["name"] for p in trace["probes"]].index(probe)
    replay_page.select_option("#replay-probe", str(i))
    for kind in KINDS:
        row = replay_page.locator(f'.replay-timeline tr[data-kind="{kind}"]')
        cells = row.locator(".tl-step")
        want = [itos[point["top10"][i][0][0]] for point in trace["runs"][kind]["points"]]
        assert cells.evaluate_all("bs => bs.map((b) => b.dataset.token)") == want, kind
        assert row.locator(".tl-tok").all_text_contents() == want
        first = want.index(want[-1])  # the first step whose top guess is the final one
        assert int(row.get_attribute("data-first-final")) == first
        marked = row.locator("td.first-final .tl-step")
        assert marked.count() == 1 and int(marked.get_attribute("data-index")) == first
        assert marked.locator(".tl-mark").text_content() == "◆"
        assert "the first step with its final guess" in marked.text_content()
    steps = [p["step"] for p in trace["runs"]["attn4"]["points"]]
    heads = replay_page.locator(".replay-timeline thead th").all_text_contents()[1:]
    assert heads == [f"{s:,}" for s in steps]


def test_a_timeline_step_selects_that_step(replay_page, trace):
    page = replay_page
    opened(page)
    set_step(page, 0)
    steps = [p["step"] for p in trace["runs"]["attn4"]["points"]]
    page.click('.replay-timeline .tl-step[data-kind="attn1"][data-index="4"]')
    assert page.input_value("#replay-step") == "4"
    for kind in KINDS:
        assert int(page.get_attribute(f'.replay-model[data-kind="{kind}"]', "data-step")) == steps[4]
    pressed = page.locator('.replay-timeline .tl-step[aria-pressed="true"]')
    assert pressed.evaluate_all("bs => bs.map((b) => b.dataset.index)") == ["4"] * len(KINDS)
    assert page.evaluate("document.activeElement.dataset.kind") == "attn1"  # focus stays on the step chosen
    # by keyboard: one Tab stop, the arrow keys move, Enter selects
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    assert page.input_value("#replay-step") == "5"
    assert f"Step {steps[5]:,} of" in page.text_content("#replay-readout")
    assert page.locator('.replay-timeline .tl-step[tabindex="0"]').count() == 1
    page.watch.assert_clean()


def test_both_attention_loss_lines_can_be_seen(replay_page):
    opened(replay_page)
    lines = replay_page.locator(".replay-curve polyline.loss")
    drawn = lines.evaluate_all(
        "ls => ls.map((l) => ({kind: l.dataset.kind, dash: l.getAttribute('stroke-dasharray'),"
        " width: Number(l.getAttribute('stroke-width')), points: l.getAttribute('points')}))"
    )
    style = {d["kind"]: (d["dash"], d["width"]) for d in drawn}
    assert sorted(style) == sorted(KINDS) and len(set(style.values())) == len(KINDS)  # no two lines look alike
    order = [d["kind"] for d in drawn]
    # the one-head line is drawn over the four-head one and narrower or dashed: where they meet both show
    assert order.index("attn1") > order.index("attn4")
    one, four = style["attn1"], style["attn4"]
    assert one[1] < four[1] and one[0] not in (None, "none")
    # the key draws each line as the curve does
    for kind in KINDS:
        sample = replay_page.locator(f'.replay-key .key[data-kind="{kind}"] line')
        assert (sample.get_attribute("stroke-dasharray"), float(sample.get_attribute("stroke-width"))) == style[kind]


def test_links_to_the_replay_open_it(replay_page):
    page = replay_page
    page.evaluate("document.querySelector('#replay').open = false")
    link = page.locator('#results a[href="#replay"]')
    assert link.is_visible()
    link.click()
    assert page.evaluate("document.querySelector('#replay').open")
    assert page.evaluate("document.activeElement === document.querySelector('#replay > summary')")
    page.wait_for_selector("#replay .replay-timeline .tl-step")


def test_the_timeline_passes_axe_on_a_phone(replay_page):
    page = replay_page
    opened(page)
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        if not page.evaluate("typeof axe !== 'undefined'"):
            page.add_script_tag(path=str(AXE))
        found = page.evaluate(
            "async () => (await axe.run(document.querySelector('#replay'))).violations.map((v) => ({id: v.id,"
            " impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))"
        )
        assert not [v for v in found if v["impact"] in ("serious", "critical")], found
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        box = page.locator(".replay-timeline .tl-step").first.bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})
