"""The live lab in a real browser (Chromium through Playwright, WebGPU on
SwiftShader): the browser computes what PyTorch computes, on WASM and on
WebGPU, and the page survives hostile input, broken model files and Stop.

References come from build/export/parity.json (PyTorch logits and
continuations written by `python -m export`), served as site/onnx/."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from common.chromium import evaluate, launch
from common.settings import SITE_ONNX
from export.decoding import context_window, start_history
from export.parity import attention_matrices, teacher_forced
from models.checkpoints import load_checkpoint
from models.tokenizer import UNK_ID, tokenize
from site_builder.serve import start_server
from support.lab import BACKENDS, KINDS, TOLERANCE, open_lab, reset_lab, score_texts
from support.pages import PageWatch, linked_site


@pytest.fixture(scope="module")
def lab(shared_lab):
    """The session's lab page, shared by the parity tests (the models loaded once)."""
    return reset_lab(shared_lab, {"width": 1280, "height": 720})


@pytest.fixture
def fresh(lab):
    """The shared lab, reset before this test: for the tests that drive the page's controls."""
    return reset_lab(lab)


# ---------------------------------------------------------------- loading


def test_page_loads_clean_with_webgpu_and_shows_results(gpu_page, site_url, references):
    # forced: automatic never picks SwiftShader (tests/test_lab_runtime.py)
    page = gpu_page
    status = open_lab(page, site_url, "?backend=webgpu")
    meta = references["metadata"]
    assert status["ok"] and status["backend"] == "webgpu" and status["fallback_reason"] is None
    assert status["adapter"]["architecture"] == "swiftshader" and status["software_adapter"] is True
    assert "software renderer" in page.locator("#fallback-line").text_content()
    for kind in KINDS:
        m = status["models"][kind]
        assert m["ok"] and m["error"] is None and m["bytes"] == meta["models"][kind]["bytes"]
        assert m["download_ms"] is not None and m["warmup_ms"] is not None
    assert page.locator(".model-card").count() == 3
    assert "WebGPU" in page.locator("#backend-line").text_content()
    assert page.locator("#load-table tbody tr:not([data-kind^=runtime]) td", has_text="verified").count() == 3
    # the WebGPU runtime's own build, checked against vendor/onnxruntime-web/runtimes.json
    assert page.locator('#load-table tr[data-kind="runtime-webgpu"] td', has_text="verified").count() == 1
    # the results panel shows the numbers of the build's metadata.json
    for kind in KINDS:
        m = meta["models"][kind]
        row = page.locator(f'#results-table tr[data-kind="{kind}"]')
        cells = row.locator("td").all_text_contents()
        assert cells[0] == f"{m['parameters']:,}"
        assert cells[1] == f"{m['bytes'] / 1e6:.2f} MB"
        ppl = m["aggregate"]["test_perplexity"]
        expected = f"{ppl['mean']:.2f} ± {ppl['sd']:.2f}" if ppl["sd"] is not None else f"{ppl['mean']:.2f} (one seed)"
        assert cells[3] == expected
        loss = m["aggregate"]["test_loss"]
        assert cells[2].startswith(f"{loss['mean']:.3f}")
        assert cells[4].startswith(f"{m['aggregate']['train_seconds']['mean']:.1f}")
    page.watch.assert_clean()


def test_dataset_presets_show_their_source_story(fresh, references):
    page = fresh
    presets = references["presets"]
    train = next(p for p in presets if p["group"] == "Training story")
    page.select_option("#preset", train["id"])
    assert page.input_value("#prompt") == train["prompt"]
    details = page.locator("#source")
    assert details.is_visible()
    details.locator("summary").click()
    assert page.locator("#source-text").text_content() == train["source"]["text"]
    assert "CDLA-Sharing-1.0" in page.locator("#source-attribution").text_content()
    assert train["source"]["origin_file"] in page.locator("#source-origin").text_content()
    authored = next(p for p in presets if p["source"] is None)
    page.select_option("#preset", authored["id"])
    assert not details.is_visible()
    page.watch.assert_clean()


# ---------------------------------------------------------------- parity with PyTorch


@pytest.mark.parametrize("backend", BACKENDS)
def test_browser_logits_match_pytorch(lab, references, backend):
    parity = references["parity"]
    contexts = [c["ids"] for c in parity["contexts"]]
    for kind in KINDS:
        out = evaluate(
            lab,
            """const r = await window.lab.run(arg.kind, arg.contexts, {backend: arg.backend});
                           return {logits: r.logits.map((row) => Array.from(row)), attention: r.attention,
                                   backend: r.backend};""",
            {"kind": kind, "contexts": contexts, "backend": backend},
        )
        assert out["backend"] == backend
        got = np.array(out["logits"])
        want = np.array(parity["logits"][kind])
        assert got.shape == want.shape == (len(contexts), references["metadata"]["vocab_size"])
        worst = np.abs(got - want).max(axis=1)
        assert worst.max() <= TOLERANCE, dict(zip([c["name"] for c in parity["contexts"]], worst))
        if kind != "mlp":
            assert np.abs(np.array(out["attention"]) - np.array(parity["attention"][kind])).max() <= TOLERANCE
    assert not lab.watch.errors and not lab.watch.outside


# On WASM every preset in every mode. On WebGPU (SwiftShader takes ~0.15 s a call,
# whatever the batch) the whole 24-token continuation is checked on the held-out
# preset by test_single_prompt_generation_matches_python, and the batched path's
# first two steps of every preset by test_generate_many_runs_on_the_backend_asked_for;
# WebGPU's numbers themselves by the logits, score and attention tests (the
# decoding rules do not depend on the backend: web/core, on WASM here)
@pytest.mark.parametrize("backend,mode", [("wasm", "greedy"), ("wasm", "sampled"), ("wasm", "filtered")])
def test_browser_continuations_match_python(lab, references, backend, mode):
    """Every preset, every model: the lab's decoding loop on browser logits gives
    PyTorch's continuation. The presets go through one lab.generateMany call
    (each model's presets share its batched calls; each still decodes alone)."""
    parity = references["parity"]
    presets = references["presets"]
    settings = {
        "mode": "greedy" if mode == "greedy" else "sampled",
        "limit": parity["decoding"]["limit"],
        "backend": backend,
        "prompts": [p["prompt"] for p in presets],
    }
    if mode != "greedy":
        settings.update(parity["decoding"][mode])  # "filtered": top-k then top-p
    results = evaluate(lab, "return await window.lab.generateMany(arg);", settings)
    assert len(results) == len(presets)
    for preset, result in zip(presets, results):
        assert result["prompt_ids"] == preset["prompt_ids"]
        for kind in KINDS:
            got = result["models"][kind]
            want = parity["continuations"][kind][preset["id"]][mode]
            assert (got["ids"], got["stop"], got["calls"]) == (want["ids"], want["stop"], want["calls"]), (
                preset["id"],
                kind,
                f"closest reference decision: {want['min_margin']:.2e}",
            )
            assert got["backend"] == backend
    # the page shows the first preset's continuations
    shown = lab.locator('.model-card[data-kind="attn4"] .tok.gen').count()
    assert shown == len(results[0]["models"]["attn4"]["ids"])
    assert not lab.watch.errors and not lab.watch.outside


def test_generate_many_runs_on_the_backend_asked_for(lab, references):
    """lab.generateMany on WebGPU (the lab's own backend is WASM here): every
    preset's first two greedy tokens are PyTorch's, and each result says WebGPU ran it."""
    parity, presets = references["parity"], references["presets"]
    settings = {"mode": "greedy", "limit": 2, "backend": "webgpu", "prompts": [p["prompt"] for p in presets]}
    results = evaluate(lab, "return await window.lab.generateMany(arg);", settings)
    assert len(results) == len(presets)
    for preset, result in zip(presets, results):
        for kind in KINDS:
            got, want = result["models"][kind], parity["continuations"][kind][preset["id"]]["greedy"]
            assert got["backend"] == "webgpu", (preset["id"], kind)
            assert got["ids"] == want["ids"][:2], (preset["id"], kind)
    assert not lab.watch.errors and not lab.watch.outside


@pytest.mark.parametrize("filters", [{"top_k": 1}, {"top_p": 1e-9}])
def test_top_k_one_and_tiny_top_p_sample_the_greedy_continuation(lab, references, filters):
    parity = references["parity"]
    presets = references["presets"]
    results = evaluate(
        lab,
        "return await window.lab.generateMany(arg);",
        {
            "mode": "sampled",
            "temperature": 1.7,
            "seed": 3,
            "limit": parity["decoding"]["limit"],
            "backend": "wasm",
            "prompts": [p["prompt"] for p in presets],
            **filters,
        },
    )
    for preset, result in zip(presets, results):
        for kind in KINDS:
            want = parity["continuations"][kind][preset["id"]]["greedy"]
            assert (result["models"][kind]["ids"], result["models"][kind]["stop"]) == (want["ids"], want["stop"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_score_matches_pytorch_teacher_forcing(lab, references, torch_models, vocab, backend):
    """lab.score's per-token probabilities, cross-entropy and perplexity equal
    PyTorch's teacher-forced values (export/parity.py teacher_forced)."""
    texts = score_texts(references)
    if backend == "webgpu":  # SwiftShader is slow: the held-out story and the typed texts
        held_out = next(p for p in references["presets"] if p["group"] == "Held-out test story")
        texts = [(held_out["source"]["text"], True)] + texts[-2:]
    got = evaluate(
        lab,
        """const out = [];
        for (const [text, eos] of arg.texts) out.push(await window.lab.score({text, eos, backend: arg.backend}));
        return out;""",
        {"texts": texts, "backend": backend},
        timeout_s=600,
    )
    worst_p = worst_ce = 0.0
    for (text, eos), result in zip(texts, got):
        ids = vocab.encode(text)
        assert result["ids"] == ids + ([2] if eos else [])
        assert result["tokens"] == tokenize(text) + (["<EOS>"] if eos else [])
        for kind in KINDS:
            want = teacher_forced(torch_models[kind], ids, eos)
            mine = result["models"][kind]
            assert mine["error"] is None
            assert len(mine["probabilities"]) == len(want["probabilities"])
            worst_p = max(
                worst_p, float(np.abs(np.array(mine["probabilities"]) - np.array(want["probabilities"])).max())
            )
            worst_ce = max(worst_ce, abs(mine["cross_entropy"] - want["cross_entropy"]))
            assert mine["perplexity"] == pytest.approx(want["perplexity"], rel=1e-5)
    print(f"score parity on {backend}: max |dp| {worst_p:.2e}, max |dCE| {worst_ce:.2e}")
    assert worst_p <= 1e-5 and worst_ce <= 1e-5
    # the page shows the last text's numbers
    shown = lab.locator('#score-body tr[data-kind="attn4"] td[data-value="perplexity"]').text_content()
    assert shown == f"{got[-1]['models']['attn4']['perplexity']:.2f}"
    assert not lab.watch.errors and not lab.watch.outside


@pytest.mark.parametrize("backend", BACKENDS)
def test_attention_matrix_matches_forward_details(lab, references, torch_models, backend):
    contexts = [c["ids"] for c in references["parity"]["contexts"]]
    for kind in ("attn1", "attn4"):
        got = np.array(
            evaluate(
                lab,
                """const out = [];
            for (const ids of arg.contexts) {
              out.push(await window.lab.attentionMatrix(arg.kind, ids, {backend: arg.backend}));
            }
            return out;""",
                {"kind": kind, "contexts": contexts, "backend": backend},
            )
        )
        want = attention_matrices(torch_models[kind], contexts)
        heads = references["metadata"]["models"][kind]["heads"]
        assert got.shape == want.shape == (len(contexts), heads, 64, 64)
        worst = float(np.abs(got - want).max())
        print(f"attention matrix parity, {kind} on {backend}: max |dw| {worst:.2e}")
        assert worst <= 1e-5
        pad_rows = np.array(contexts)[:, None, :] == 0
        assert np.all(got.sum(-1)[np.broadcast_to(pad_rows, got.shape[:3])] == 0.0)
    with pytest.raises(Exception, match="no attention"):
        evaluate(lab, "return await window.lab.attentionMatrix('mlp', arg);", contexts[0])


def test_single_prompt_generation_matches_python(lab, references):
    """The ordinary one-prompt path (what the Generate button runs), on WebGPU."""
    parity = references["parity"]
    preset = next(p for p in references["presets"] if p["group"] == "Held-out test story")
    result = evaluate(
        lab,
        "return await window.lab.generate(arg);",
        {
            "prompt": preset["prompt"],
            "mode": "sampled",
            "limit": 24,
            "backend": "webgpu",
            "top_k": 0,
            "top_p": 1,
            **parity["decoding"]["sampled"],
        },
    )
    for kind in KINDS:
        want = parity["continuations"][kind][preset["id"]]["sampled"]
        assert result["models"][kind]["ids"] == want["ids"] and result["models"][kind]["stop"] == want["stop"]
        assert result["models"][kind]["backend"] == "webgpu", kind


def test_browser_tokenizer_matches_python(lab, vocab):
    """Node runs web/core in tests/test_decoding_parity.py; the browser's own ICU must agree too."""
    tricky = json.loads((Path(__file__).parent / "fixtures_lab" / "tricky_strings.json").read_text(encoding="utf-8"))
    got = evaluate(lab, "return arg.map((s) => window.lab.tokenize(s));", tricky["strings"])
    for text, g in zip(tricky["strings"], got):
        ids = vocab.encode(text)
        assert g["tokens"] == tokenize(text), repr(text)
        assert g["ids"] == ids and g["context"] == context_window(start_history(ids)), repr(text)
        assert g["unknown"] == ids.count(UNK_ID)


# ---------------------------------------------------------------- the page itself


def test_token_preview_marks_unknown_words(fresh, vocab):
    page = fresh
    prompt = "The zyxqv dragon walked to the quasar, slowly."
    page.fill("#prompt", prompt)
    page.wait_for_function("document.querySelector('#preset').value === 'custom'")
    expected = ["<BOS>"] + tokenize(prompt)
    page.wait_for_function("n => document.querySelectorAll('#preview .tok').length === n", arg=len(expected))
    chips = [
        c[: -len("UNK")] if "unk" in cls.split() else c
        for c, cls in zip(
            page.locator("#preview .tok").all_text_contents(),
            page.locator("#preview .tok").evaluate_all("els => els.map((e) => e.className)"),
        )
    ]
    assert chips == expected
    unknown = [t for t in tokenize(prompt) if vocab.encode(t) == [UNK_ID]]
    assert unknown, "the prompt should contain unknown words"
    assert page.locator("#preview .tok.unk").count() == len(unknown)
    assert f"{len(unknown)} not in the vocabulary" in page.locator("#preview-summary").text_content()
    page.watch.assert_clean()


HOSTILE = {
    "empty": "",
    "whitespace": "   \n\t  \u3000 ",
    "script": "<script>window.__pwned = 1</script> once upon a time",
    "img": '<img src=x onerror="window.__pwned = 2"> the dog',
    "emoji": "\U0001f436\U0001f431 \u2764\ufe0f \U0001f469\u200d\U0001f469\u200d\U0001f467 fun",
    "nul": "nul\u0000char and more\u0000",
    "rtl": "\u202eevil\u202c \u05e9\u05dc\u05d5\u05dd and \u200fthe cat",
    "10k words": " ".join(("the", "little", "dog", "ran", "far", "zorbly", "away.")[i % 7] for i in range(10_000)),
}


def test_hostile_prompts_are_text_and_are_cropped(fresh, vocab):
    page = fresh
    scripts_before = page.locator("script").count()
    for name, prompt in HOSTILE.items():
        page.evaluate(
            "(v) => { const t = document.querySelector('#prompt'); t.value = v; t.dispatchEvent(new Event('input')); }",
            prompt,
        )
        result = evaluate(
            page, "return await window.lab.generate({prompt: arg, mode: 'greedy', limit: 3, backend: 'wasm'});", prompt
        )
        ids = vocab.encode(prompt)
        assert result["prompt_ids"] == ids, name
        assert result["history_length"] == len(ids) + 1
        for kind in KINDS:
            got = result["models"][kind]
            assert got["error"] is None and got["calls"] >= 1, (name, kind)
            assert got["first_context"] == context_window(start_history(ids)), (name, kind)
        assert page.evaluate("window.__pwned") is None, name
        assert page.locator("img").count() == 0 and page.locator("script").count() == scripts_before
        assert page.locator("#preview .tok").count() <= 65  # only the last 64 IDs (+ a cropped marker)
    # the markup was shown as text, token by token
    page.evaluate(
        "(v) => { const t = document.querySelector('#prompt'); t.value = v; t.dispatchEvent(new Event('input')); }",
        HOSTILE["img"],
    )
    page.wait_for_function(
        "[...document.querySelectorAll('#preview .tok')].some((e) => e.textContent.startsWith('onerror'))"
    )
    assert "<" in page.locator("#preview").text_content()
    # the 10,000-word prompt reports the cropping
    page.fill("#prompt", HOSTILE["10k words"])
    page.wait_for_function("document.querySelector('#preview-summary').textContent.includes('cropped away')")
    # the NUL and RTL characters are spelled out, not hidden
    page.fill("#prompt", HOSTILE["rtl"])
    page.wait_for_function("document.querySelector('#preview').textContent.includes('U+202E')")
    # and the Generate button works on markup too
    page.evaluate(
        "(v) => { const t = document.querySelector('#prompt'); t.value = v; t.dispatchEvent(new Event('input')); }",
        HOSTILE["script"],
    )
    page.fill("#limit", "2")
    page.click("#generate")
    page.wait_for_function(
        "[...document.querySelectorAll('[data-stat=stop]')]"
        ".every((e) => e.textContent !== '…' && e.textContent !== '–')"
    )
    assert page.evaluate("window.__pwned") is None
    assert "<script>" not in page.locator("#outputs").inner_html().replace("&lt;script&gt;", "")
    page.watch.assert_clean()


def test_stop_ends_a_long_generation(fresh):
    page = fresh
    page.select_option("#backend", "webgpu")  # WebGPU on SwiftShader: slow enough to stop half way
    page.fill("#prompt", "Once upon a time, there was a little girl who loved to")
    page.fill("#limit", "256")
    page.click("#generate")
    page.wait_for_selector(".model-card .tok.gen")
    page.click("#stop")
    page.wait_for_function("!document.querySelector('#generate').disabled", timeout=120_000)
    stops = page.locator("[data-stat=stop]").all_text_contents()
    counts = [int(t) for t in page.locator("[data-stat=new]").all_text_contents()]
    assert "stopped by you" in stops
    assert all(s in ("stopped by you", "EOS: the model ended the story") for s in stops), stops
    assert max(counts) < 256
    assert page.locator(".stopped-tag").count() >= 1
    page.watch.assert_clean()


def test_inspect_a_step_shows_top10_and_attention(fresh, references, vocab):
    page = fresh
    preset = next(p for p in references["presets"] if p["group"] == "Held-out test story")
    result = evaluate(
        page, "return await window.lab.generate({prompt: arg, mode: 'greedy', limit: 24});", preset["prompt"]
    )
    step = 3
    assert all(len(result["models"][k]["ids"]) > step for k in KINDS)
    page.click(f'.model-card[data-kind="attn4"] .tok[data-step="{step}"]')
    page.wait_for_selector(".inspect-model table.top10")
    assert page.locator(".inspect-model").count() == 3
    for kind in KINDS:
        model = load_checkpoint(kind)[0]
        history = start_history(preset["prompt_ids"]) + result["models"][kind]["ids"][:step]
        ctx = context_window(history)
        with torch.no_grad():
            probs = torch.softmax(model(torch.tensor([ctx]))[0].double(), -1).numpy()
        top = np.argsort(-probs, kind="stable")[:10]
        section = page.locator(f'.inspect-model[data-kind="{kind}"]')
        labels = section.locator("table.top10 tbody tr td:nth-child(2) .tok-inline").all_text_contents()
        assert labels == [vocab.itos[i] for i in top], kind
        shown = section.locator("table.top10 .bar-label").all_text_contents()
        assert shown[0] == (f"{100 * probs[top[0]]:.1f}%" if probs[top[0]] >= 0.0995 else f"{100 * probs[top[0]]:.2f}%")
        if kind == "mlp":
            assert page.locator('.inspect-attention[data-kind="mlp"]').count() == 0
            continue
        heads = references["metadata"]["models"][kind]["heads"]
        table = page.locator(f'.inspect-attention[data-kind="{kind}"] table.attention')
        assert table.get_attribute("data-heads") == str(heads)
        real = [i for i in ctx if i != 0]
        labels = table.locator("th.ctx-label").all_text_contents()
        assert labels[-1].startswith("▼ ")  # the query (the newest token) is marked
        assert [t.removeprefix("▼ ") for t in labels] == [vocab.itos[i] for i in real]
        weights = np.array(table.locator("td.cell").evaluate_all("els => els.map((e) => Number(e.dataset.weight))"))
        weights = weights.reshape(heads, len(real))
        with torch.no_grad():
            _, want = model.attend(torch.tensor([ctx]))
        want = want[0].numpy()[:, [j for j, i in enumerate(ctx) if i != 0]]
        assert np.abs(weights - want).max() < 1e-4
        np.testing.assert_allclose(weights.sum(1), 1.0, atol=1e-4)
    page.watch.assert_clean()


def _site_with_broken_models(site_dir: Path, root: Path) -> Path:
    """A copy of the site (by symlinks) where attn1.onnx is corrupted and attn4.onnx is missing."""
    site = linked_site(site_dir, root, skip={"attn1.onnx", "attn4.onnx"})
    data = bytearray((site_dir / SITE_ONNX / "attn1.onnx").read_bytes())
    data[len(data) // 3] ^= 0x55
    (site / SITE_ONNX / "attn1.onnx").write_bytes(bytes(data))
    return site


def test_corrupt_and_missing_model_files_are_reported(browser, site_dir, tmp_path):
    server, url = start_server(_site_with_broken_models(site_dir, tmp_path))
    try:
        context = browser.new_context()
        page = context.new_page()
        watch = PageWatch(page, url)
        status = open_lab(page, url, "?backend=wasm")
        assert status["models"]["mlp"]["ok"]
        assert not status["models"]["attn1"]["ok"] and "SHA-256" in status["models"]["attn1"]["error"]
        assert not status["models"]["attn4"]["ok"] and "missing" in status["models"]["attn4"]["error"]
        assert "404" in status["models"]["attn4"]["error"]
        assert "SHA-256" in page.locator('.model-card[data-kind="attn1"] .model-error').text_content()
        assert "missing" in page.locator('.model-card[data-kind="attn4"] .model-error').text_content()
        # the working model still generates; the broken ones report an error instead of hanging
        result = evaluate(page, "return await window.lab.generate({prompt: 'the cat', limit: 2});", timeout_s=60)
        assert result["models"]["mlp"]["error"] is None and result["models"]["mlp"]["calls"] >= 1
        assert result["models"]["attn1"]["stop"] == "error" and result["models"]["attn4"]["stop"] == "error"
        for kind in KINDS:  # each card's stop label names its own reason
            dd = page.locator(f'.model-card[data-kind="{kind}"] [data-stat=stop]')
            want = {"error": "error", "limit": "token limit reached", "eos": "EOS: the model ended the story"}
            assert dd.get_attribute("data-reason") == result["models"][kind]["stop"]
            assert dd.text_content() == want[result["models"][kind]["stop"]]
        assert not watch.outside
        # the only console error is the browser's own note about the 404
        assert all("404" in e for e in watch.errors), watch.errors
        context.close()
    finally:
        server.shutdown()


def test_automatic_runtime_falls_back_to_wasm_without_webgpu(playwright_instance, site_url):
    browser = launch(playwright_instance, "no-webgpu")
    try:
        page = browser.new_page()
        watch = PageWatch(page, site_url)
        status = open_lab(page, site_url)
        assert status["ok"] and status["backend"] == "wasm"
        assert "WebGPU" in status["fallback_reason"] or "navigator.gpu" in status["fallback_reason"]
        assert "Automatic choice, WASM" in page.locator("#fallback-line").text_content()
        result = evaluate(page, "return await window.lab.generate({prompt: 'the dog', limit: 2});")
        assert all(result["models"][k]["backend"] == "wasm" for k in KINDS)
        # forcing WebGPU says why it cannot
        page.select_option("#backend", "webgpu")
        page.wait_for_function("document.querySelector('#fallback-line').textContent.includes('WebGPU unavailable')")
        watch.assert_clean()
    finally:
        browser.close()
