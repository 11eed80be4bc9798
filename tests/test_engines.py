"""The lab and the decks in Firefox and in WebKit (the engine of Safari and of
every iPhone browser), not only in Chromium: a smoke suite that runs the same
checks in each engine (tests/engines.py says how each is driven).

The lab reaches lab.ready on WASM by its automatic choice (neither engine offers
WebGPU here) and says why; forcing WebGPU says it is unavailable; lab.generate,
lab.score, lab.run and lab.attentionMatrix agree with the PyTorch references of
the Chromium tests (tests/test_lab_browser.py) within the same tolerances, and
so does the engine's own tokenizer; every deck and reading view renders; and a
lab and deck visited once reload with the server gone, from the service worker
and the lab's cache. The tests fail (never skip) when an engine is missing:
.ci/run installs both."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from common.chromium import evaluate
from export.decoding import context_window, start_history
from export.parity import attention_matrices, teacher_forced
from models.tokenizer import UNK_ID, tokenize
from site_builder.serve import start_server
from support.engines import launch, watched_site
from support.lab import KINDS, TOLERANCE, open_lab, score_texts

ENGINES = ["firefox", "webkit"]
DECKS = sorted(p.stem for p in (Path(__file__).resolve().parents[1] / "content" / "decks").glob("*.md"))
FEATURES = """() => ({webgpu: 'gpu' in navigator && Boolean(navigator.gpu),
                    jspi: typeof WebAssembly.Suspending === 'function',
                    service_worker: 'serviceWorker' in navigator && Boolean(self.caches)})"""


@pytest.fixture(scope="module", params=ENGINES)
def engine(request):
    """One browser of each engine for the whole module (the tests are grouped by engine)."""
    started = time.monotonic()
    try:
        browser = launch(request.param)
    except RuntimeError as exc:
        pytest.fail(f"{request.param}: {exc}")
    print(f"{request.param}: {browser.version} started in {time.monotonic() - started:.1f} s")
    yield browser
    browser.close()


@pytest.fixture(scope="module")
def watched(site_dir, tmp_path_factory) -> Path:
    return watched_site(site_dir, tmp_path_factory.mktemp("engines"))


@pytest.fixture(scope="module")
def watched_url(watched):
    server, url = start_server(watched)
    yield url
    server.shutdown()


def start_lab(page, url: str) -> dict:
    """open_lab (tests/test_lab_browser.py), failing with the page's own errors if the lab does not start."""
    try:
        return open_lab(page, url)
    except RuntimeError as exc:
        pytest.fail(f"{page.engine}: the lab did not start ({exc}); page errors: {page.problems()['errors']}")


@pytest.fixture(scope="module")
def lab(engine, watched):
    """The lab opened as a learner opens it (automatic runtime), models loaded once
    per engine, on an origin of its own (no service worker or cache yet) after a
    first visit to a deck, whose service worker keeps the pages: the module's last
    test reloads both with this server gone (test_a_visited_lab_and_deck_reload_...)."""
    server, url = start_server(watched)
    page = engine.new_page()
    page.site, page.server = url, server
    try:
        page.goto(f"{url}/decks/maps.html")
        assert page.evaluate(FEATURES)["service_worker"], f"{page.engine} offers no service worker on localhost"
        page.wait_for_function("navigator.serviceWorker.controller !== null", timeout_s=30)
        # visited: the deck and its widgets up (its later slides' widgets come after 'load'), then kept
        page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined", timeout_s=60)
        page.wait_for_function(KEPT, timeout_s=30)
        started = time.monotonic()
        page.status = start_lab(page, url)
        print(f"{page.engine}: lab ready in {time.monotonic() - started:.1f} s on {page.status['backend']}")
        yield page
    finally:
        page.close()
        server.shutdown()


# ---------------------------------------------------------------- the runtime choice


def test_lab_is_ready_on_wasm_and_says_why(lab, references):
    status, features = lab.status, lab.evaluate(FEATURES)
    assert status["ok"] and status["choice"] == "auto", status
    for kind in KINDS:
        m = status["models"][kind]
        assert m["ok"] and m["error"] is None and m["bytes"] == references["metadata"]["models"][kind]["bytes"], m
    if not features["webgpu"]:
        expected = "navigator.gpu is missing"
    elif not features["jspi"]:
        expected = "JSPI"
    else:
        pytest.fail(f"{lab.engine} now offers WebGPU and JSPI: test its automatic choice like Chromium's")
    assert status["backend"] == "wasm" and status["planned_runtimes"] == ["wasm"], status
    assert expected in status["fallback_reason"], status["fallback_reason"]
    line = lab.evaluate("() => document.querySelector('#fallback-line').textContent")
    assert line.startswith("Automatic choice, WASM") and expected in line, line
    lab.assert_clean()


def test_forcing_webgpu_says_it_is_unavailable_and_wasm_still_works(lab):
    with pytest.raises(RuntimeError, match="WebGPU unavailable"):
        evaluate(lab, "return await window.lab.setBackend('webgpu');")
    lab.wait_for_function("document.querySelector('#fallback-line').textContent.includes('WebGPU unavailable')")
    lab.wait_for_function("document.querySelector('#generate').disabled")
    assert "Cannot generate" in lab.evaluate("() => document.querySelector('#generate-why').textContent")
    status = evaluate(lab, "return await window.lab.setBackend('wasm');")
    assert status["ok"] and status["backend"] == "wasm", status
    lab.wait_for_function("!document.querySelector('#generate').disabled")
    lab.assert_clean()


# ---------------------------------------------------------------- parity with PyTorch


def test_greedy_continuations_match_pytorch(lab, references):
    """Every preset and model, greedy, on WASM: lab.generateMany, and lab.generate
    (the Generate button's path) on the held-out story."""
    parity, presets = references["parity"], references["presets"]
    settings = {"mode": "greedy", "limit": parity["decoding"]["limit"], "backend": "wasm"}
    results = evaluate(
        lab, "return await window.lab.generateMany(arg);", {**settings, "prompts": [p["prompt"] for p in presets]}
    )
    held_out = next(i for i, p in enumerate(presets) if p["group"] == "Held-out test story")
    single = evaluate(
        lab, "return await window.lab.generate(arg);", {**settings, "prompt": presets[held_out]["prompt"]}
    )
    for preset, result in [*zip(presets, results), (presets[held_out], single)]:
        assert result["prompt_ids"] == preset["prompt_ids"], preset["id"]
        for kind in KINDS:
            got, want = result["models"][kind], parity["continuations"][kind][preset["id"]]["greedy"]
            assert (got["ids"], got["stop"], got["calls"]) == (want["ids"], want["stop"], want["calls"]), (
                lab.engine,
                preset["id"],
                kind,
                f"closest reference decision: {want['min_margin']:.2e}",
            )
            assert got["backend"] == "wasm" and got["error"] is None
    shown = lab.evaluate("() => document.querySelectorAll('.model-card[data-kind=\"attn4\"] .tok.gen').length")
    assert shown == len(single["models"]["attn4"]["ids"])
    lab.assert_clean()


def test_score_matches_pytorch_teacher_forcing(lab, references, torch_models, vocab):
    texts = score_texts(references)
    got = evaluate(
        lab,
        """const out = [];
        for (const [text, eos] of arg) out.push(await window.lab.score({text, eos, backend: 'wasm'}));
        return out;""",
        texts,
    )
    worst = 0.0
    for (text, eos), result in zip(texts, got):
        ids = vocab.encode(text)
        assert result["ids"] == ids + ([2] if eos else [])
        for kind in KINDS:
            want, mine = teacher_forced(torch_models[kind], ids, eos), result["models"][kind]
            assert mine["error"] is None and len(mine["probabilities"]) == len(want["probabilities"])
            worst = max(worst, float(np.abs(np.array(mine["probabilities"]) - np.array(want["probabilities"])).max()))
            assert abs(mine["cross_entropy"] - want["cross_entropy"]) <= 1e-5
            assert mine["perplexity"] == pytest.approx(want["perplexity"], rel=1e-5)
    print(f"{lab.engine}: score parity max |dp| {worst:.2e}")
    assert worst <= 1e-5
    lab.assert_clean()


def test_logits_and_attention_match_pytorch(lab, references, torch_models):
    """lab.run's logits and last-query attention and lab.logits' (the Chromium
    tolerance), and lab.attentionMatrix's full causal weights."""
    parity = references["parity"]
    contexts = [c["ids"] for c in parity["contexts"]]
    for kind in KINDS:
        out = evaluate(
            lab,
            "return await window.lab.run(arg.kind, arg.contexts, {backend: 'wasm'});",
            {"kind": kind, "contexts": contexts},
        )
        assert np.abs(np.array(out["logits"]) - np.array(parity["logits"][kind])).max() <= TOLERANCE, kind
        one = evaluate(
            lab,
            "return await window.lab.logits(arg.kind, arg.ids, {backend: 'wasm'});",
            {"kind": kind, "ids": contexts[0]},
        )
        assert np.abs(np.array(one) - np.array(parity["logits"][kind][0])).max() <= TOLERANCE, kind
        if kind == "mlp":
            continue
        assert np.abs(np.array(out["attention"]) - np.array(parity["attention"][kind])).max() <= TOLERANCE, kind
        got = np.array(
            evaluate(
                lab,
                """const out = [];
                for (const ids of arg.contexts) {
                  out.push(await window.lab.attentionMatrix(arg.kind, ids, {backend: 'wasm'}));
                }
                return out;""",
                {"kind": kind, "contexts": contexts},
            )
        )
        want = attention_matrices(torch_models[kind], contexts)
        assert got.shape == want.shape and float(np.abs(got - want).max()) <= 1e-5, kind
    lab.assert_clean()


def test_the_engines_tokenizer_matches_python(lab, vocab):
    """Unicode normalization and the word pattern are the engine's own (ICU and
    its regular expressions): they must read text as Python does."""
    tricky = json.loads((Path(__file__).parent / "fixtures_lab" / "tricky_strings.json").read_text(encoding="utf-8"))
    got = lab.evaluate("(strings) => strings.map((s) => window.lab.tokenize(s))", tricky["strings"])
    for text, g in zip(tricky["strings"], got):
        ids = vocab.encode(text)
        assert g["tokens"] == tokenize(text), (lab.engine, text)
        assert g["ids"] == ids and g["context"] == context_window(start_history(ids)), (lab.engine, text)
        assert g["unknown"] == ids.count(UNK_ID)


# ---------------------------------------------------------------- the decks


RENDERED = """() => ({
  widgets: document.querySelectorAll('.widget[data-widget]').length,
  mounted: document.querySelectorAll('.widget[data-mounted="true"]').length,
  widget_errors: [...document.querySelectorAll('.widget-error')].map((e) => e.textContent),
  ready: document.documentElement.dataset.widgetsReady,
  katex: document.querySelectorAll('.katex').length,
  katex_errors: document.querySelectorAll('.katex-error').length,
  katex_font: [...document.fonts].some((f) => f.family.replace(/"/g, '') === 'KaTeX_Main' && f.status === 'loaded'),
  figures: document.querySelectorAll('svg').length,
  empty_figures: [...document.querySelectorAll('svg')].filter((s) => s.checkVisibility?.() !== false
    && s.getBoundingClientRect().width === 0).length,
})"""


@pytest.mark.parametrize("slug", DECKS)
def test_deck_and_reading_view_render(engine, watched_url, slug):
    page = engine.new_page()
    try:
        for path, reveal in ((f"decks/{slug}.html", True), (f"read/{slug}.html", False)):
            page.goto(f"{watched_url}/{path}")
            if reveal:
                page.wait_for_function("window.Reveal && Reveal.isReady()")
                assert page.evaluate("() => Reveal.getTotalSlides()") > 1
            page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")
            page.wait_for_function("document.fonts.status === 'loaded'")
            r = page.evaluate(RENDERED)
            assert r["ready"] == str(r["widgets"]) and r["mounted"] == r["widgets"], (page.engine, path, r)
            assert not r["widget_errors"], (page.engine, path, r["widget_errors"])
            assert r["katex"] > 0 and r["katex_errors"] == 0, (page.engine, path, r)
            # every slide shows at once in the reading view: its maths has brought KaTeX's font in
            assert reveal or r["katex_font"], (page.engine, path, r)
            assert r["empty_figures"] == 0, (page.engine, path, r)
            page.assert_clean()
    finally:
        page.close()


# ---------------------------------------------------------------- offline


# every same-origin file the page loaded (but the models and the runtime's .wasm) is in the offline copy: in
# the cache of a build (web/sw.js), under its path and, for a file of a build (?v=<build>), that build
KEPT = """(async () => {
  const urls = [location.href, ...performance.getEntriesByType('resource').map((e) => e.name)]
    .map((u) => new URL(u)).filter((u) => u.origin === location.origin && !/\\.(onnx|wasm)$/.test(u.pathname));
  const names = (await caches.keys()).filter((n) => n.startsWith('attention-course-shell-'));
  const key = (u) => u.origin + u.pathname + (u.searchParams.get('v') ? `?v=${u.searchParams.get('v')}` : '');
  const kept = async (u) => {
    for (const n of names) if (await (await caches.open(n)).match(key(u))) return true;
    return false;
  };
  return (await Promise.all(urls.map(kept))).every(Boolean);
})()"""


def test_a_visited_lab_and_deck_reload_with_the_server_gone(lab):
    """The service worker keeps the pages and the lab's worker its files: with
    the server stopped, a reload opens the lab from the offline copy and it
    generates what it generated online; the deck opens too. The module's last
    test: the lab fixture visited the deck, then the lab, on a server of its own."""
    page, url = lab, lab.site
    online = evaluate(page, "return await window.lab.generate({prompt: 'the cat sat', limit: 4, mode: 'greedy'});")
    page.wait_for_function(KEPT, timeout_s=30)
    page.server.shutdown()
    page.server.server_close()
    page.reload()
    status = evaluate(page, "return await window.lab.ready;", timeout_s=240)
    assert status["ok"] and status["backend"] == "wasm" and status["network_bytes"] == 0, status
    assert all(status["models"][k]["from"] == "cache" for k in KINDS), status["models"]
    offline = evaluate(page, "return await window.lab.generate({prompt: 'the cat sat', limit: 4, mode: 'greedy'});")
    assert all(offline["models"][k]["ids"] == online["models"][k]["ids"] for k in KINDS)
    page.assert_clean()
    page.goto(f"{url}/decks/maps.html")
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    # every slide's body in place (static/deck.js places the later ones when idle) and its widgets up
    page.wait_for_function("document.documentElement.dataset.widgetsReady !== undefined")
    assert page.evaluate("() => document.querySelectorAll('.slides .katex').length") > 10
    page.assert_clean()
