"""The lab as one instrument (issue 33): an experiment set in the inspect view
(a head off, a word hidden) reaches Generate and Score, each run shown beside
the plain one with the first diverging token marked, each model reports its
own chosen token before and after on its own context, and only the learner
clears the experiment."""

from __future__ import annotations

import numpy as np
import torch

from common.chromium import evaluate
from export.ablation import step_logits
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
    assert note.is_visible() and "head 2 off" in note.text_content() and '"dog"' in note.text_content()

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
    lab.check('input[name="task"][value="generate"]')

    # only the learner clears it, and the page says so
    lab.click("#clear-experiment")
    assert "Experiment cleared" in lab.locator("#experiment-note").text_content()
    assert not lab.watch.errors
