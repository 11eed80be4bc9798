"""The lab as one instrument (issue 33): an experiment set in the inspect view
(a head off, a word hidden) reaches Generate and Score, each run shown beside
the plain one with the first diverging token marked, each model reports its
own chosen token before and after on its own context, and only the learner
clears the experiment."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from common.chromium import evaluate
from export.ablation import attention_steps, step_logits
from export.decoding import start_history
from support.lab import KINDS, reset_lab

PROMPT = "The little dog ran to the park and"
STEP = 2
HEADS_OFF = {"attn4": [1]}
HIDE = [3]  # "dog"


def set_experiment(lab, result):
    """Inspect step STEP of the four-head card, switch its head 2 off and hide "dog" there."""
    lab.click(f'.model-card[data-kind="attn4"] .tok[data-step="{STEP}"]')
    lab.wait_for_selector(".intervention .hide-strip")
    lab.locator('.inspect-attention[data-kind="attn4"] .head-toggle[data-head="1"]').click()
    lab.wait_for_function("document.querySelector('.intervention-state').textContent.includes('head 2 off')")
    lab.locator(f'.hide-tok[data-pos="{HIDE[0]}"]').click()
    lab.wait_for_function("document.querySelector('.intervention-state').textContent.includes('1 word hidden')")


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def test_experiment_reaches_generate_and_score_beside_the_plain_run(shared_lab, torch_models, vocab):
    lab = reset_lab(shared_lab, {"width": 1280, "height": 800})
    opts = {"prompt": PROMPT, "mode": "greedy", "limit": 8, "backend": "wasm"}
    plain = evaluate(lab, "return await window.lab.generate(arg);", opts)
    set_experiment(lab, plain)
    note = lab.locator("#experiment-note")
    assert note.is_visible() and "head 2 off" in note.text_content() and "“dog”" in note.text_content()

    # each model's own chosen token, before and after, on its own context (PyTorch's numbers)
    for kind in KINDS:
        line = lab.locator(f'.inspect-model[data-kind="{kind}"] .before-after')
        chosen = ([*plain["models"][kind]["ids"], 2])[STEP]
        assert int(line.get_attribute("data-target")) == chosen, kind
        history = start_history(vocab.encode(PROMPT)) + plain["models"][kind]["ids"][:STEP]
        before = torch.softmax(step_logits(torch_models[kind], history)[-1].double(), -1)[chosen].item()
        after = torch.softmax(step_logits(torch_models[kind], history, HEADS_OFF.get(kind, ()), HIDE)[-1].double(), -1)[
            chosen
        ].item()
        assert abs(float(line.get_attribute("data-before")) - before) < 1e-5, kind
        assert abs(float(line.get_attribute("data-after")) - after) < 1e-5, kind
        # the hidden word is drawn as a masked slot, not removed
        assert lab.locator(f'.inspect-model[data-kind="{kind}"] .ctx-tok.masked[data-pos="{HIDE[0]}"]').count() == 1
    assert lab.locator('.inspect-attention[data-kind="attn4"] td.cell.masked').count() == 4  # one per head
    # a greedy run's panel says nothing of sampling
    assert lab.locator(".sampled-col").count() == 0
    assert "Sampled with" not in lab.locator("#inspect-body").text_content()

    # Generate from the page: the plain run and the experimental one, side by side
    lab.click("#generate")
    lab.wait_for_function(
        """() => [...document.querySelectorAll('.model-card .experiment-run')].every((b) => !b.hidden &&
           b.querySelector('.exp-verdict') && !b.querySelector('.exp-verdict').textContent.includes('Running') &&
           b.querySelector('.exp-verdict').textContent.length > 0)""",
        timeout=120_000,
    )
    assert lab.locator("#experiment-note").is_visible()  # the new run kept the experiment
    want = evaluate(lab, "return await window.lab.generate(arg);", {**opts, "heads_off": HEADS_OFF, "hide": HIDE})
    # lab.generate redrew the cards with its own run: Generate from the page again, then read
    lab.click("#generate")
    lab.wait_for_function(
        """() => [...document.querySelectorAll('.model-card .experiment-run')].every((b) => !b.hidden &&
           b.querySelector('.exp-verdict') && !b.querySelector('.exp-verdict').textContent.includes('Running') &&
           b.querySelector('.exp-verdict').textContent.length > 0)""",
        timeout=120_000,
    )
    changed = 0
    for kind in KINDS:
        box = lab.locator(f'.model-card[data-kind="{kind}"] .experiment-run')
        ids = [int(x) for x in box.locator(".exp-tok").evaluate_all("ts => ts.map((t) => t.dataset.id)")]
        mine = want["models"][kind]["ids"] + ([2] if want["models"][kind]["stop"] == "eos" else [])
        assert ids == mine, kind
        ref = plain["models"][kind]["ids"] + ([2] if plain["models"][kind]["stop"] == "eos" else [])
        at = first_difference(ref, ids)
        assert box.get_attribute("data-diverge") == ("" if at is None else str(at)), kind
        if at is not None:
            changed += 1
            assert box.locator(f'.exp-tok.diverge[data-step="{at}"]').count() == 1
            if at < len(ref):
                card = lab.locator(f'.model-card[data-kind="{kind}"] > .output .tok.diverge')
                assert card.get_attribute("data-step") == str(at)
            assert f"step {at + 1}" in box.locator(".exp-verdict").text_content()
        else:
            assert "The same" in box.locator(".exp-verdict").text_content()
        settings = lab.locator(f'.model-card[data-kind="{kind}"] .run-settings').text_content()
        assert "greedy" in settings and "limit 8" in settings
    assert changed >= 1  # head 2 off and "dog" hidden change at least one model's continuation

    # Score from the page: the same text scored with the experiment, beside the plain scores
    lab.check('input[name="task"][value="score"]')
    lab.fill("#prompt", PROMPT)
    lab.click("#score")
    lab.wait_for_selector(".score-experiment li[data-kind='attn4']", timeout=120_000)
    shown = {
        k: float(lab.locator(f".score-experiment li[data-kind='{k}']").get_attribute("data-cross-entropy"))
        for k in KINDS
    }
    api = evaluate(lab, "return await window.lab.score(arg);", {"text": PROMPT, "heads_off": HEADS_OFF, "hide": HIDE})
    for kind in KINDS:
        np.testing.assert_allclose(shown[kind], api["models"][kind]["cross_entropy"], atol=1e-9)
    assert "without the <EOS> target" in lab.locator("#score-body .run-settings").text_content()
    lab.check('input[name="task"][value="generate"]')

    # only the learner clears it, and the page says so
    lab.click("#clear-experiment")
    assert "Experiment cleared" in lab.locator("#experiment-note").text_content()
    assert not lab.watch.errors


def torch_effects(model, history, target, heads_off=(), hide=()):
    """PyTorch's attention beside effect: each shown word of the last window hidden alone."""
    base = torch.log_softmax(step_logits(model, history, heads_off, hide)[-1].double(), -1)[target].item()
    first = len(history) - 64
    positions = [p for p in range(max(0, first), len(history) - 1) if p not in hide]
    delta = [
        torch.log_softmax(step_logits(model, history, heads_off, [*hide, p])[-1].double(), -1)[target].item() - base
        for p in positions
    ]
    return positions, delta, first


def test_attention_beside_effect_matches_pytorch(shared_lab, references, torch_models, vocab):
    lab = reset_lab(shared_lab, {"width": 1280, "height": 800})
    story = next(p for p in references["presets"] if p["group"] == "Training story")["source"]["text"]
    long = start_history(vocab.encode(story))[:90]  # the window slides: positions 26..88 can be hidden
    short = start_history(vocab.encode(PROMPT))
    worst = 0.0
    for history, heads_off, hide in [(short, {}, []), (long, {}, []), (long, HEADS_OFF, [40])]:
        for kind in KINDS:
            model = torch_models[kind]
            off = heads_off.get(kind, ())
            target = int(step_logits(model, history, off, hide)[-1][4:].argmax()) + 4
            got = evaluate(
                lab,
                "return await window.lab.wordEffects(arg.kind, arg.ids, arg.opts);",
                {"kind": kind, "ids": history, "opts": {"target": target, "heads_off": heads_off, "hide": hide}},
            )
            positions, delta, first = torch_effects(model, history, target, off, hide)
            assert got["positions"] == positions and got["target"] == target, kind
            worst = max(worst, float(np.abs(np.array(got["delta"]) - np.array(delta)).max()))
            top_effect = positions[int(np.argmax(np.abs(delta)))]
            if kind == "mlp":
                assert got["attention"] is None and got["top_weight"] is None and got["same"] is None
            else:
                if not off and not hide:
                    want = attention_steps(model, history)[-1].numpy()[:, [p - first for p in positions]]
                    worst = max(worst, float(np.abs(np.array(got["attention"]) - want).max()))
                mean = np.array(got["attention"]).mean(0)
                top_weight = positions[int(np.argmax(mean))]
                assert got["top_weight"] == top_weight and got["same"] == (top_weight == top_effect), kind
            assert got["top_effect"] == top_effect, kind
    print(f"attention beside effect vs PyTorch: max |d| {worst:.2e}")
    assert worst <= 1e-5

    # the page's inspect view: the same rows for all three models, and the line says whether the words agree
    plain = evaluate(lab, "return await window.lab.generate(arg);", {"prompt": PROMPT, "mode": "greedy", "limit": 4})
    lab.click(f'.model-card[data-kind="attn1"] .tok[data-step="{STEP}"]')
    lab.wait_for_selector('.effects[data-kind="attn4"] .effect-verdict')
    for kind in KINDS:
        history = short + plain["models"][kind]["ids"][:STEP]
        chosen = [*plain["models"][kind]["ids"], 2][STEP]
        positions, delta, _ = torch_effects(torch_models[kind], history, chosen)
        rows = lab.locator(f'.effects[data-kind="{kind}"] tbody tr')
        assert [int(p) for p in rows.evaluate_all("rs => rs.map((r) => r.dataset.pos)")] == positions
        shown = [float(d) for d in rows.evaluate_all("rs => rs.map((r) => r.dataset.delta)")]
        assert float(np.abs(np.array(shown) - np.array(delta)).max()) <= 1e-5, kind
        verdict = lab.locator(f'.effects[data-kind="{kind}"] .effect-verdict')
        if kind != "mlp":
            same = verdict.get_attribute("data-same") == "true"
            assert ("the same word" in verdict.text_content()) == same
            assert ("different words" in verdict.text_content()) == (not same)
    assert not lab.watch.errors


def test_attention_steps_is_bounded_and_stops_after_the_current_batch(shared_lab):
    """Issue 38.4: past the bound refused by name at once; a long allowed call ends on lab.stop()."""
    lab = reset_lab(shared_lab, {"width": 1280, "height": 800})
    limit = evaluate(lab, "return window.lab.limits.max_history_tokens;")
    got = evaluate(
        lab,
        """const ids = [1, ...Array(arg).fill(20)];
        const t0 = performance.now();
        let message = null;
        try { await window.lab.attentionSteps('attn4', ids); } catch (e) { message = e.message; }
        return {message, ms: performance.now() - t0};""",
        limit,
    )
    assert f"{limit + 1:,} tokens" in got["message"] and "at most" in got["message"]
    assert got["ms"] < 1000, got  # refused before any model call
    stopped = evaluate(
        lab,
        """const ids = [1, ...Array(arg - 1).fill(20)];
        const run = window.lab.attentionSteps('attn4', ids).then(() => 'finished', (e) => e.message);
        await new Promise((r) => setTimeout(r, 50));
        const t0 = performance.now();
        await window.lab.stop();
        const message = await run;
        return {message, ms: performance.now() - t0, busy: document.querySelector('#stop').disabled};""",
        limit,
    )
    assert "stopped by you" in stopped["message"], stopped
    assert stopped["ms"] < 5000, stopped  # one batch of 64 windows, not the whole history
    # the lab runs again at once
    rows = evaluate(lab, "return await window.lab.attentionSteps('attn1', [1, 20, 30]);")
    assert len(rows) == 3 and len(rows[0]) == 1 and len(rows[0][0]) == 64


def test_api_guards_refuse_holes_and_check_a_copy(shared_lab):
    """Issue 38.10: sparse arrays are refused by index; a context is copied, then checked (a getter that
    answers one thing to the check and another later cannot reach the model); lab.ready is ok only with
    a usable model."""
    lab = reset_lab(shared_lab, {"width": 1280, "height": 800})
    for call, message in [
        ("lab.generateMany({prompts: ['Once', , 'The dog'], hide: [50]})", r"prompts\[1\] is a hole"),
        ("lab.attentionSteps('attn4', [1, , 5])", "hole at index 1"),
        ("lab.wordEffects('attn4', [1, , 5])", "hole at index 1"),
        ("lab.run('attn4', [Array(64).fill(1), , Array(64).fill(1)])", "contexts has a hole at index 1"),
        ("lab.logits('mlp', (() => { const a = Array(64).fill(1); delete a[7]; return a; })())", "hole at index 7"),
        ("lab.attentionSteps('attn4', [1, 0, 5])", "PAD"),
        ("lab.wordEffects('attn4', [1, 5], {target: 4000})", "target must be a token ID"),
    ]:
        with pytest.raises(Exception, match=message):
            evaluate(lab, f"return await window.{call};")
    got = evaluate(
        lab,
        """const ctx = Array(64).fill(1);
        let reads = 0;
        Object.defineProperty(ctx, 63, { get: () => (reads++ ? 99999 : 5), enumerable: true });
        const out = await window.lab.logits('mlp', ctx);
        const plain = await window.lab.logits('mlp', [...Array(63).fill(1), 5]);
        return {reads, same: out.every((v, i) => v === plain[i]), n: out.length};""",
    )
    assert got["reads"] == 1 and got["same"], got  # read once, and what was checked is what ran
    assert evaluate(lab, "return (await window.lab.ready).ok;") is True


def test_a_copied_link_opens_the_same_setup_in_a_new_browser_context(shared_lab, browser, site_url):
    lab = reset_lab(shared_lab, {"width": 1280, "height": 800})
    settings = {
        "prompt": PROMPT,
        "mode": "sampled",
        "temperature": 0.7,
        "top_k": 20,
        "top_p": 0.9,
        "seed": 5,
        "limit": 6,
        "backend": "wasm",
    }
    plain = evaluate(lab, "return await window.lab.generate(arg);", settings)
    set_experiment(lab, plain)
    lab.click("#generate")
    lab.wait_for_function(
        "[...document.querySelectorAll('.model-card .exp-verdict')].every((v) => v.textContent.length > 0 && "
        "!v.textContent.includes('Running'))",
        timeout=120_000,
    )
    lab.click(f'.model-card[data-kind="attn4"] .tok[data-step="{STEP}"]')
    lab.wait_for_selector('.effects[data-kind="attn4"]')

    def state(page):
        return page.evaluate(
            """() => ({
              controls: ['prompt', 'temperature', 'top-k', 'top-p', 'seed', 'limit', 'backend']
                .map((id) => document.getElementById(id).value),
              mode: document.querySelector('input[name="mode"]:checked').value,
              experiment: document.querySelector('#experiment-note').textContent,
              exp: [...document.querySelectorAll('.model-card .exp-tok')].map((t) => t.dataset.id),
              plain: [...document.querySelectorAll('.model-card > .output .tok')].map((t) => t.textContent),
              selected: document.querySelector('.model-card[data-kind="attn4"] .tok.selected')?.dataset.step,
              settings: document.querySelector('.model-card[data-kind="attn4"] .run-settings').textContent,
            })"""
        )

    before = state(lab)
    lab.click("#copy-link")
    link = lab.input_value("#copy-link-out")
    assert "heads_off=attn4" in link and "step=attn4" in link and "run=1" in link
    assert "sampled: T = 0.70, top-k 20, top-p 0.90, seed 5" in before["settings"]
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.goto(link)
        assert evaluate(page, "return (await window.lab.ready).ok;", timeout_s=240)
        page.wait_for_selector('.effects[data-kind="attn4"]', timeout=120_000)
        page.wait_for_function(
            "[...document.querySelectorAll('.model-card .exp-verdict')].every((v) => v.textContent.length > 0 && "
            "!v.textContent.includes('Running'))",
            timeout=120_000,
        )
        after = state(page)
        assert after == before
        # a bad value is refused by name, and the rest still loads
        bad = f"{site_url}/lab/?backend=wasm&prompt=the+red+ball&temperature=abc&top_k=-1&limit=5&mode=sampled&step=x:1"
        page.goto(bad)
        assert evaluate(page, "return (await window.lab.ready).ok;", timeout_s=240)
        note = page.locator("#address-note")
        assert note.is_visible()
        text = note.text_content()
        assert 'temperature="abc"' in text and 'top_k="-1"' in text and 'step="x:1"' in text
        assert page.input_value("#prompt") == "the red ball" and page.input_value("#limit") == "5"
        assert page.locator('input[name="mode"][value="sampled"]').is_checked()
    finally:
        context.close()
    lab.click("#clear-experiment")
    assert not lab.watch.errors


def test_back_from_a_slide_keeps_the_experiment_and_the_inspected_step(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.goto(f"{site_url}/lab/?backend=wasm")
        assert evaluate(page, "return (await window.lab.ready).ok;", timeout_s=240)
        page.fill("#prompt", PROMPT)
        page.fill("#limit", "5")
        page.click("#generate")
        page.wait_for_selector(f'.model-card[data-kind="attn4"] .tok[data-step="{STEP}"]', timeout=120_000)
        page.wait_for_function("!document.querySelector('#generate').disabled", timeout=120_000)
        set_experiment(page, None)
        note = page.locator("#experiment-note").text_content()
        page.locator('#inspect a[data-slide="greedy"]').first.click()
        page.wait_for_url(re.compile(r"/decks/.*\.html#/\d+"))
        page.go_back()
        assert evaluate(page, "return (await window.lab.ready).ok;", timeout_s=240)
        page.wait_for_selector('.effects[data-kind="attn4"]', timeout=120_000)
        assert page.locator("#experiment-note").text_content() == note
        assert page.locator('.model-card[data-kind="attn4"] .tok.selected').get_attribute("data-step") == str(STEP)
        assert "head 2 off" in page.locator(".intervention-state").text_content()
    finally:
        context.close()
