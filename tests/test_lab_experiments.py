"""The lab's experiments in a real browser (issue 21): per-step attention
(lab.attentionSteps), heads switched off and words hidden (lab.generate and
lab.score options, the inspect view's toggles), each checked against PyTorch
(export/ablation.py) on WASM and WebGPU (SwiftShader) at 1e-5, with bad values
refused by name and nothing half-applied."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from common.chromium import evaluate
from export.ablation import ablated_teacher_forced, attention_steps, hide_window, step_logits
from export.decoding import greedy_choice, start_history
from models.tokenizer import EOS_ID
from support.lab import BACKENDS, KINDS, reset_lab

HEADS_OFF = {"attn1": [0], "attn4": [1, 3]}
TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def lab(shared_lab):
    return reset_lab(shared_lab, {"width": 1280, "height": 800})


def story(references, group="Held-out test story"):
    return next(p for p in references["presets"] if p["group"] == group)["source"]["text"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_attention_steps_match_pytorch_window_by_window(lab, references, torch_models, vocab, backend):
    """A history longer than the context: every step's window, as PyTorch's attend reads it."""
    text = story(references, "Training story")
    history = start_history(vocab.encode(text))
    if backend == "webgpu":  # SwiftShader is slow: a history that still slides past 64
        history = history[:80]
    assert len(history) > 64
    for kind in ("attn1", "attn4"):
        got = np.array(
            evaluate(
                lab,
                "return await window.lab.attentionSteps(arg.kind, arg.ids, {backend: arg.backend});",
                {"kind": kind, "ids": history, "backend": backend},
                timeout_s=300,
            )
        )
        want = attention_steps(torch_models[kind], history).numpy()
        assert got.shape == want.shape == (len(history), references["metadata"]["models"][kind]["heads"], 64)
        worst = float(np.abs(got - want).max())
        print(f"attentionSteps {kind} on {backend}: max |dw| {worst:.2e}")
        assert worst <= TOLERANCE
    for call, message in [
        ("lab.attentionSteps('mlp', [1, 5])", "no attention"),
        ("lab.attentionSteps('attn4', [5, 6])", "BOS"),
        ("lab.attentionSteps('attn4', [1, 0, 5])", "PAD"),
        ("lab.attentionSteps('attn4', [])", "non-empty"),
        ("lab.attentionSteps('attn9', [1])", "unknown model"),
    ]:
        with pytest.raises(Exception, match=message):
            evaluate(lab, f"return await window.{call};")


@pytest.mark.parametrize("backend", BACKENDS)
def test_score_with_heads_off_and_words_hidden_matches_pytorch(lab, references, torch_models, vocab, backend):
    text = story(references)
    if backend == "webgpu":  # SwiftShader is slow: the story's first 40 words, three scores of them
        text = " ".join(text.split()[:40])
    ids = vocab.encode(text)
    hide = [2, 5, len(ids)]  # the last position is the newest token for the EOS target only: never hidden there
    opts = {"text": text, "eos": True, "backend": backend}
    got = evaluate(
        lab,
        """const plain = await window.lab.score(arg.opts);
        const empty = await window.lab.score({...arg.opts, heads_off: {}, hide: []});
        const ablated = await window.lab.score({...arg.opts, heads_off: arg.heads_off, hide: arg.hide});
        return {plain, empty, ablated};""",
        {"opts": opts, "heads_off": HEADS_OFF, "hide": hide},
        timeout_s=600,
    )
    assert got["ablated"]["heads_off"] == HEADS_OFF and got["ablated"]["hide"] == hide
    worst = 0.0
    for kind in KINDS:
        # empty options: bit-identical to no options (the same graph, the same windows)
        assert got["empty"]["models"][kind]["probabilities"] == got["plain"]["models"][kind]["probabilities"]
        want = ablated_teacher_forced(torch_models[kind], ids, True, HEADS_OFF.get(kind, ()), hide)
        mine = np.array(got["ablated"]["models"][kind]["probabilities"])
        worst = max(worst, float(np.abs(mine - np.array(want)).max()))
        assert not np.allclose(mine, got["plain"]["models"][kind]["probabilities"], atol=1e-3), kind
    print(f"ablated score parity on {backend}: max |dp| {worst:.2e}")
    assert worst <= TOLERANCE


@pytest.mark.parametrize("backend", BACKENDS)
def test_generation_with_heads_off_and_words_hidden_matches_pytorch(lab, references, torch_models, vocab, backend):
    prompt = "Once upon a time, there was a little girl named Lily who loved her red ball."
    prompt_ids = vocab.encode(prompt)
    hide = [1, 3, 8]
    result = evaluate(
        lab,
        "return await window.lab.generate(arg);",
        {"prompt": prompt, "mode": "greedy", "limit": 10, "backend": backend, "heads_off": HEADS_OFF, "hide": hide},
        timeout_s=300,
    )
    assert result["options"]["heads_off"] == HEADS_OFF and result["options"]["hide"] == hide
    for kind in KINDS:
        model = torch_models[kind]
        history = start_history(prompt_ids)
        ids, stop = [], "limit"
        while len(ids) < 10:
            logits = step_logits(model, history, HEADS_OFF.get(kind, ()), hide)[-1].tolist()
            nxt = greedy_choice(logits)
            if nxt == EOS_ID:
                stop = "eos"
                break
            history.append(nxt)
            ids.append(nxt)
        got = result["models"][kind]
        assert (got["ids"], got["stop"]) == (ids, stop), kind
        assert got["first_context"] == hide_window(start_history(prompt_ids), hide), kind


def test_bad_experiment_values_are_named_and_nothing_is_half_applied(lab):
    lab.fill("#prompt", "the cat sat")
    cases = [
        ({"heads_off": {"attn9": [0]}}, "heads_off: unknown model"),
        ({"heads_off": {"attn4": [4]}}, "heads_off.attn4: head 4 does not exist"),
        ({"heads_off": {"attn1": [0.5]}}, "heads_off.attn1: 0.5 is not a whole"),
        ({"heads_off": {"attn4": [2, 2]}}, "heads_off.attn4 lists head 2 twice"),
        ({"heads_off": {"mlp": [0]}}, "heads_off.mlp"),
        ({"heads_off": [0]}, "heads_off must be an object"),
        ({"hide": [99]}, "hide: position 99 is outside the token history"),
        ({"hide": [-1]}, "hide: position -1"),
        ({"hide": ["2"]}, "hide"),
        ({"hide": [2, 2]}, "hide lists position 2 twice"),
    ]
    for options, message in cases:
        for call in ("generate", "score"):
            args = {"prompt": "a dog ran home", "text": "a dog ran home", "limit": 2, **options}
            with pytest.raises(Exception, match=message.replace(".", r"\.").replace("(", r"\(")):
                evaluate(lab, f"return await window.lab.{call}(arg);", args)
            assert lab.input_value("#prompt") == "the cat sat", (call, options)
    with pytest.raises(Exception, match="heads_off.attn4"):
        evaluate(lab, "return await window.lab.run('attn4', [Array(64).fill(1)], {heads_off: {attn4: [7]}});")
    # and the lab still works
    out = evaluate(lab, "return await window.lab.generate({prompt: 'the dog', limit: 2, backend: 'wasm'});")
    assert all(out["models"][k]["error"] is None for k in KINDS)


def test_inspect_view_toggles_heads_hides_words_and_restores(lab, torch_models, vocab):
    prompt = "The little dog ran to the park and"
    result = evaluate(
        lab,
        "return await window.lab.generate(arg);",
        {"prompt": prompt, "mode": "greedy", "limit": 5, "backend": "wasm"},
    )
    step = 3
    lab.click(f'.model-card[data-kind="attn4"] .tok[data-step="{step}"]')
    lab.wait_for_selector(".intervention .hide-strip")
    # each model keeps its own text at the step (issue 33): its own chosen token before and after
    histories = {k: start_history(vocab.encode(prompt)) + result["models"][k]["ids"][:step] for k in KINDS}
    history = histories["attn4"]

    def top_ids(kind):
        rows = lab.locator(f'.inspect-model[data-kind="{kind}"] table.top10 tbody tr')
        return [int(x) for x in rows.evaluate_all("rs => rs.map((r) => r.dataset.id)")]

    def want_top(kind, heads_off=(), hide=()):
        logits = step_logits(torch_models[kind], histories[kind], heads_off, hide)[-1].double()
        return list(np.argsort(-torch.softmax(logits, -1).numpy(), kind="stable")[:10])

    before = {k: top_ids(k) for k in KINDS}
    # switch head 2 of four off: the page says so, and the three models redraw, each on its own context
    toggle = lab.locator('.inspect-attention[data-kind="attn4"] .head-toggle[data-head="1"]')
    assert toggle.get_attribute("aria-pressed") == "true"
    toggle.click()
    lab.wait_for_function("document.querySelector('.intervention-state').textContent.includes('head 2 off')")
    assert (
        lab.locator('.inspect-attention[data-kind="attn4"] .head-toggle[data-head="1"]').get_attribute("aria-pressed")
        == "false"
    )
    assert lab.evaluate("document.activeElement.dataset.head") == "1"  # focus stays on the toggle
    assert top_ids("attn4") == want_top("attn4", [1])
    # hide a word (of the prompt: the same for all three) by clicking it: all three redraw without it
    lab.locator('.hide-tok[data-pos="2"]').click()
    lab.wait_for_function("document.querySelector('.intervention-state').textContent.includes('1 word hidden')")
    for kind in KINDS:
        assert top_ids(kind) == want_top(kind, [1] if kind == "attn4" else (), [2]), kind
    assert lab.locator(".before-after").count() == 3
    assert lab.locator(f'.hide-tok[data-pos="{len(history) - 1}"]').get_attribute("aria-disabled") == "true"
    # one click restores
    lab.locator(".intervention .restore").click()
    lab.wait_for_function("document.querySelector('.intervention-state').textContent.includes('Nothing changed')")
    assert {k: top_ids(k) for k in KINDS} == before
    assert lab.locator(".before-after").count() == 0
    assert not lab.watch.errors


def test_step_by_step_matrix_is_the_default_with_labels_and_agreement(lab, vocab):
    evaluate(
        lab,
        "return await window.lab.generate({prompt: 'the cat sat on the mat and', limit: 4, backend: 'wasm'});",
    )
    lab.click('.model-card[data-kind="attn4"] .tok[data-step="2"]')
    details = lab.locator('.inspect-attention[data-kind="attn4"] details.matrix-details')
    details.locator("summary").click()
    details.locator(".matrices canvas.matrix").first.wait_for()
    assert details.locator('input[value="steps"]').is_checked()
    assert details.locator(".matrices").get_attribute("data-mode") == "steps"
    assert details.locator(".matrix-figure").count() == 4
    real = len(details.locator(".matrix-figure").first.locator(".axis-rows li").all())
    assert real == len(details.locator(".matrix-figure").first.locator(".axis-cols li").all()) > 5
    agreement = details.locator(".agreement")
    rows = int(agreement.get_attribute("data-rows"))
    assert rows == 4 * real and 0 <= int(agreement.get_attribute("data-same")) <= rows
    assert "never trained" in details.text_content() or "trained to produce" in agreement.text_content()
    # the four heads sit in two columns at 1280 px: never three and one
    tops = details.locator(".matrix-figure").evaluate_all("fs => fs.map((f) => Math.round(f.offsetTop))")
    assert tops[0] == tops[1] and tops[2] == tops[3] and tops[2] > tops[0]
    # reading a cell marks exactly its row and column
    canvas = details.locator("canvas.matrix").first
    canvas.focus()
    lab.keyboard.press("ArrowLeft")
    lab.keyboard.press("ArrowUp")
    fig = details.locator(".matrix-figure").first
    on_rows = fig.locator(".axis-rows li.on")
    on_cols = fig.locator(".axis-cols li.on")
    assert on_rows.count() == 1 and on_cols.count() == 1
    readout = fig.locator(".readout")
    assert on_rows.get_attribute("data-axis-pos") == readout.get_attribute("data-q")
    assert on_cols.get_attribute("data-axis-pos") == readout.get_attribute("data-k")
    assert fig.locator(".axis-rows li.linked, .axis-cols li.linked").count() == 0
    # the one-pass view is one click away
    details.locator('input[value="one-pass"]').check()
    assert details.locator(".matrices").get_attribute("data-mode") == "one-pass"
    assert not lab.watch.errors
