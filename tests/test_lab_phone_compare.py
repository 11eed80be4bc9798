"""The lab as one instrument on a 390 x 844 phone (issue 33, phone): the three
models' continuations side by side without switching (the cards stack
compactly: after Generate all three continuations lie within one screen, and
the page never scrolls sideways), and each experiment's result beside the
control that changed it (a head toggle, a hidden word, a setting changed and
run again): after the action the line that shows the changed result is on
screen, within one screen of the control, and the control has not moved.
The desktop keeps its cards as they were (run details open, no folded line)."""

from __future__ import annotations

import pytest

from common.chromium import evaluate
from support.lab import KINDS, axe_serious, reset_lab

PHONE = {"width": 390, "height": 844}
WIDE = {"width": 1280, "height": 720}
PROMPT = "the little dog ran to the park and"

# every card's continuation (the direct child, not the experiment's), its box and its generated text
CONTINUATIONS = """() => [...document.querySelectorAll('.model-card')].map((card) => {
  const c = card.querySelector(':scope > .continuation');
  const b = c.getBoundingClientRect();
  return { kind: card.dataset.kind, top: b.top, bottom: b.bottom, height: b.height,
    generated: c.querySelector('.generated')?.textContent || '' };
})"""

BOX = "(s) => { const b = document.querySelector(s).getBoundingClientRect(); return {top: b.top, bottom: b.bottom}; }"


@pytest.fixture
def lab(shared_lab):
    page = reset_lab(shared_lab, PHONE)
    yield page
    reset_lab(page, WIDE)


def wait_done(page):
    page.wait_for_function(
        "document.querySelector('#stop').disabled && [...document.querySelectorAll('[data-stat=stop]')]"
        ".every((d) => d.dataset.reason)",
        timeout=120_000,
    )


def in_view(box, height=PHONE["height"]) -> bool:
    return box["bottom"] > 0 and box["top"] < height


def test_the_three_continuations_fit_one_phone_screen_after_generate(lab):
    lab.click("#generate")
    wait_done(lab)
    got = lab.evaluate(CONTINUATIONS)
    assert [c["kind"] for c in got] == KINDS
    for c in got:  # each card shows its own continuation, whole, on the screen
        assert c["generated"].strip() and c["height"] > 0, c
        assert c["top"] >= 0 and c["bottom"] <= PHONE["height"], c
    span = got[-1]["bottom"] - got[0]["top"]
    assert span <= PHONE["height"], f"the three continuations span {span:.0f} px, more than one screen"
    assert lab.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # the prompt's last words only (the same text: the rest is not drawn)
    echo = lab.locator('.model-card[data-kind="mlp"] .prompt-echo')
    assert echo.text_content().endswith(lab.locator('.model-card[data-kind="mlp"] .echo-tail').text_content())
    assert not echo.locator(".echo-head").is_visible() and echo.locator(".echo-tail").is_visible()
    # the run's numbers are one folded line per card, one tap away; its settings say what made it
    for kind in KINDS:
        card = lab.locator(f'.model-card[data-kind="{kind}"]')
        digest = card.locator(".run-digest")
        assert digest.is_visible() and not card.locator(".stats").is_visible()
        new = card.locator("[data-stat=new]").text_content()
        assert f"· {new} token" in digest.text_content()
    digest.click()
    assert lab.locator('.model-card[data-kind="attn4"] .stats').is_visible()

    # a setting changed and run again: the new continuations come into view, all three
    lab.check('input[name="mode"][value="sampled"]')
    lab.fill("#seed", "11")
    lab.click("#generate")
    wait_done(lab)
    for c in lab.evaluate(CONTINUATIONS):
        assert c["generated"].strip() and c["top"] >= 0 and c["bottom"] <= PHONE["height"], c
    settings = lab.locator('.model-card[data-kind="mlp"] .run-settings').text_content()
    assert "sampled" in settings and "seed 11" in settings


def test_the_desktop_cards_keep_their_numbers_open(lab):
    lab.set_viewport_size(WIDE)
    lab.click("#generate")
    wait_done(lab)
    tops = {c["kind"]: c["top"] for c in lab.evaluate(CONTINUATIONS)}
    assert len(set(round(t) for t in tops.values())) == 1, tops  # side by side, as before
    for kind in KINDS:
        card = lab.locator(f'.model-card[data-kind="{kind}"]')
        assert card.locator(".stats").is_visible() and not card.locator(".run-digest").is_visible()
        assert card.locator(".echo-head").is_visible()  # the whole prompt before each continuation


def inspect_attn4(page, step=2):
    evaluate(page, "return await window.lab.generate(arg);", {"prompt": PROMPT, "mode": "greedy", "limit": 6})
    page.evaluate("document.querySelector('#inspect-body').replaceChildren()")  # an earlier test's drawing: gone
    page.click(f'.model-card[data-kind="attn4"] .tok[data-step="{step}"]')
    page.wait_for_selector('.inspect-attention[data-kind="attn4"] .head-toggle')
    page.wait_for_selector(".exp-readouts .exp-readout")


def centre(page, selector):
    """Scroll ``selector`` to the middle of the screen (a learner reading it) and return its box."""
    page.evaluate("(s) => document.querySelector(s).scrollIntoView({block: 'center'})", selector)
    return page.evaluate(BOX, selector)


def test_a_head_toggles_result_is_right_under_it(lab):
    inspect_attn4(lab)
    toggle = '.inspect-attention[data-kind="attn4"] .head-toggle[data-head="1"]'
    readout = '.inspect-attention[data-kind="attn4"] .exp-readout'
    assert lab.locator(readout).get_attribute("data-for") == "heads"
    before = centre(lab, toggle)
    lab.click(toggle)
    lab.wait_for_selector(f"{readout}.changed")
    lab.wait_for_function("(s) => document.activeElement === document.querySelector(s)", arg=toggle)
    after = lab.evaluate(BOX, toggle)
    assert abs(after["top"] - before["top"]) <= 2, (before, after)  # the toggle stays where it was
    result = lab.evaluate(BOX, readout)
    assert in_view(result) and in_view(after), (result, after)
    assert 0 <= result["top"] - after["bottom"] <= PHONE["height"], (result, after)
    # the line says what the model's own card line says, before and after head 2 went off
    line = lab.locator('.inspect-model[data-kind="attn4"] .chosen-line')
    shown = lab.locator(readout)
    assert shown.get_attribute("data-after") == line.get_attribute("data-after")
    assert shown.get_attribute("data-before") == line.get_attribute("data-before")
    assert shown.get_attribute("data-before") != shown.get_attribute("data-after")
    # and that line, where the result was shown before, is off this screen: the readout is what a phone sees
    assert not in_view(lab.evaluate(BOX, '.inspect-model[data-kind="attn4"] .chosen-line'))


def test_a_hidden_words_results_are_right_under_the_strip(lab):
    inspect_attn4(lab)
    chip = '.hide-strip .hide-tok[data-pos="3"]'
    before = centre(lab, chip)
    lab.click(chip)
    lab.wait_for_selector(".exp-readouts .exp-readout.changed")
    lab.wait_for_function("(s) => document.activeElement === document.querySelector(s)", arg=chip)
    after = lab.evaluate(BOX, chip)
    assert abs(after["top"] - before["top"]) <= 2, (before, after)
    assert lab.get_attribute(chip, "aria-pressed") == "true"
    for kind in KINDS:  # every model's own chosen token, before and after, beside the strip
        sel = f'.exp-readouts .exp-readout[data-kind="{kind}"]'
        box = lab.evaluate(BOX, sel)
        assert in_view(box) and 0 <= box["top"] - after["bottom"] <= PHONE["height"], (kind, box, after)
        line = lab.locator(f'.inspect-model[data-kind="{kind}"] .chosen-line')
        assert lab.get_attribute(sel, "data-after") == line.get_attribute("data-after"), kind
        assert lab.get_attribute(sel, "data-before") == line.get_attribute("data-before"), kind


def test_switching_the_inspected_model_keeps_the_place(lab):
    inspect_attn4(lab)
    # the Inspect panel's sections (a scored text's detail, if an earlier test left one open, uses the same class)
    assert lab.locator('#inspect-body .inspect-model[data-kind="attn4"]').is_visible()
    assert not lab.locator('#inspect-body .inspect-model[data-kind="mlp"]').is_visible()
    # every card stays on the page: only the Inspect panel shows one model at a time
    assert all(lab.locator(f'.model-card[data-kind="{k}"]').is_visible() for k in KINDS)
    # scrolled into the four-head model's top ten, the switch lands on the one-head model's
    lab.evaluate(
        "() => { const t = document.querySelector('#inspect-body .inspect-model[data-kind=\"attn4\"] table.top10');"
        " window.scrollBy(0, t.getBoundingClientRect().top - 100); }"
    )
    lab.click('#model-tabs button[data-kind="attn1"]')
    bar = lab.evaluate(BOX, "#model-tabs")
    shown = lab.evaluate(BOX, '#inspect-body .inspect-model[data-kind="attn1"]')
    assert bar["top"] == 0 and abs(shown["top"] - bar["bottom"]) <= 2, (bar, shown)
    assert lab.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_with_an_experiment_on_the_three_cards_still_compare_on_one_screen(lab):
    inspect_attn4(lab)
    lab.click('.inspect-attention[data-kind="attn4"] .head-toggle[data-head="1"]')
    lab.wait_for_selector('.inspect-attention[data-kind="attn4"] .exp-readout.changed')
    lab.click("#generate")
    wait_done(lab)
    lab.wait_for_function(
        "[...document.querySelectorAll('.model-card .exp-verdict')].filter((v) => v.textContent"
        " && !v.textContent.startsWith('Running')).length === 3",
        timeout=120_000,
    )
    got = lab.evaluate(CONTINUATIONS)
    span = got[-1]["bottom"] - got[0]["top"]
    assert span <= PHONE["height"], f"with the experiment the three continuations span {span:.0f} px"
    same = 0
    for kind in KINDS:
        box = lab.locator(f'.model-card[data-kind="{kind}"] .experiment-run')
        assert box.locator(".exp-verdict").is_visible()
        if box.get_attribute("data-diverge") == "":  # the same tokens: the verdict alone, no second copy
            same += 1
            assert "The same" in box.locator(".exp-verdict").text_content()
            assert not box.locator(".experiment-text").is_visible() and not box.locator(".exp-output").is_visible()
        else:  # a different run: its text, beside the plain one
            assert box.locator(".experiment-text").is_visible()
    assert same >= 1  # head 2 of the four-head model off leaves the other two models' runs as they were


def test_the_sampling_settings_say_what_the_shown_continuations_were_made_with(lab):
    """Under the sliders, on screen with them: the settings the shown continuations
    were sampled with, and each one changed since (the effect shows after Generate)."""
    line = "#sampling-last"
    lab.check('input[name="mode"][value="sampled"]')
    evaluate(lab, f"return await window.lab.generate({{prompt: {PROMPT!r}, mode: 'sampled', limit: 4, seed: 5}});")
    t = lab.evaluate("() => Number(document.getElementById('temperature').value).toFixed(2)")
    text = lab.inner_text(line)
    assert text == f"The continuations shown were sampled with these settings (T {t}, top-k off, top-p off, seed 5)."
    lab.fill("#seed", "6")
    lab.dispatch_event("#seed", "input")
    lab.eval_on_selector("#temperature", "(e) => { e.value = '1.5'; e.dispatchEvent(new Event('input')); }")
    changed = lab.inner_text(line)
    assert changed.endswith(f"Changed since: T {t} → 1.50, seed 5 → 6: Generate to see the effect."), changed
    box, slider = lab.evaluate(BOX, line), lab.evaluate(BOX, "#temperature")
    assert 0 < box["top"] - slider["bottom"] < PHONE["height"], (box, slider)  # below the slider, within a screen
    evaluate(lab, f"return await window.lab.generate({{prompt: {PROMPT!r}, mode: 'greedy', limit: 2}});")
    lab.check('input[name="mode"][value="sampled"]')
    assert lab.inner_text(line).startswith("The continuations shown are greedy")


def test_the_experimental_continuations_follow_the_control_on_one_screen(lab):
    """With the cards showing a run with the experiment, a head toggled or a word hidden makes that run
    again, and each model's line (the same, or where it first differs) stands under the control, both on
    screen at once; the lines and the cards say what lab.generate says with the experiment as it is now."""
    lab.click("#generate")
    wait_done(lab)
    lab.click('.model-card[data-kind="attn4"] .tok[data-step="2"]')
    lab.click('.inspect-attention[data-kind="attn4"] .head-toggle[data-head="3"]')
    lab.wait_for_selector('.inspect-attention[data-kind="attn4"] .exp-readout.changed')
    lab.click("#generate")
    wait_done(lab)
    lab.click('.model-card[data-kind="attn4"] .tok[data-step="2"]')
    lab.wait_for_selector('.inspect-attention[data-kind="attn4"] .exp-readout.changed')
    opts = lab.evaluate(
        "() => ({prompt: document.querySelector('#prompt').value, mode: 'greedy', backend: 'wasm',"
        " limit: Number(document.querySelector('#limit').value)})"
    )
    lines = {}
    for control, place, ablation, what in [
        (
            '.inspect-attention[data-kind="attn4"] .head-toggle[data-head="1"]',
            '.inspect-attention[data-kind="attn4"]',
            {"heads_off": {"attn4": [1, 3]}},
            "Four-head attention: heads 2, 4 off",
        ),
        (
            '.hide-strip .hide-tok[data-pos="3"]',
            ".intervention",
            {"heads_off": {"attn4": [1, 3]}, "hide": [3]},
            "Four-head attention: heads 2, 4 off; hidden: ",
        ),
    ]:
        before = centre(lab, control)
        lab.click(control)
        lab.wait_for_function(
            "([s, what]) => (document.querySelector(`${s} .exp-runs`)?.dataset.experiment || '').startsWith(what)"
            " && document.querySelectorAll(`${s} .exp-runs .exp-run-line[data-done=true]`).length === 3"
            " && document.querySelector('#stop').disabled",
            arg=[place, what],
            timeout=120_000,
        )
        lab.wait_for_function("(s) => document.activeElement === document.querySelector(s)", arg=control)
        after = lab.evaluate(BOX, control)
        assert in_view(after) and after["top"] >= 0 and after["bottom"] <= PHONE["height"], (before, after)
        assert lab.locator(".exp-runs").count() == 1  # under the control used, nowhere else
        got = {}
        for kind in KINDS:
            sel = f'{place} .exp-runs .exp-run-line[data-kind="{kind}"]'
            box = lab.evaluate(BOX, sel)
            # the line whole on the same screen as the control, below it
            assert box["top"] >= after["bottom"] and box["bottom"] <= PHONE["height"], (kind, box, after)
            print(f"{place} {kind}: control {after}, its line {box}")
            got[kind] = lab.get_attribute(sel, "data-diverge")
            card = lab.locator(f'.model-card[data-kind="{kind}"] .experiment-run')
            assert card.get_attribute("data-diverge") == got[kind], kind  # the cards show the same run
        lines[control] = (got, ablation)
        assert not axe_serious(lab, "#inspect"), place
        assert lab.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # Restore: the experiment is gone, and so are its lines and the cards' runs with it
    lab.click(".intervention .restore")
    lab.wait_for_function("document.querySelector('.intervention-state').textContent.includes('Nothing changed')")
    assert lab.locator(".exp-runs").count() == 0
    assert all(lab.locator(f'.model-card[data-kind="{k}"] .experiment-run').is_hidden() for k in KINDS)
    plain = evaluate(lab, "return await window.lab.generate(arg);", opts)
    for got, ablation in lines.values():
        run = evaluate(lab, "return await window.lab.generate(arg);", {**opts, **ablation})
        for kind in KINDS:
            ref = plain["models"][kind]["ids"] + ([2] if plain["models"][kind]["stop"] == "eos" else [])
            mine = run["models"][kind]["ids"] + ([2] if run["models"][kind]["stop"] == "eos" else [])
            at = next((i for i, (x, y) in enumerate(zip(ref, mine)) if x != y), None)
            if at is None and len(ref) != len(mine):
                at = min(len(ref), len(mine))
            assert got[kind] == ("" if at is None else str(at)), (kind, ablation)
    assert not lab.watch.errors
