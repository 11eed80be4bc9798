"""The lab's views say what the numbers are: the inspect panel's columns are
the distributions they claim, user text is shown as text everywhere, the
preview shows what the models read, stop labels match stop reasons, the
controls redraw live, the page works by keyboard, passes axe-core, reads on a
390 px phone, and its slide links land on the slides that teach each idea.
(WASM only: these test the page, tests/test_lab_browser.py tests the runtimes.)"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch

from common.chromium import evaluate
from export.decoding import BANNED, context_window, kept_ids, sampling_weights, start_history
from models.tokenizer import detokenize, tokenize
from support.lab import AXE, KINDS, open_lab, reset_lab

ROOT = Path(__file__).resolve().parent.parent
# What each stop reason must be called on the page (web/lab/view.js STOP_LABELS).
STOP_LABELS = {
    "eos": "EOS: the model ended the story",
    "limit": "token limit reached",
    "stopped": "stopped by you",
    "error": "error",
}


@pytest.fixture(scope="module")
def lab(shared_lab):
    return reset_lab(shared_lab, {"width": 1280, "height": 900})


def set_value(page, selector: str, value: str):
    page.evaluate(
        "([s, v]) => { const e = document.querySelector(s); e.value = v;"
        " e.dispatchEvent(new Event('input', {bubbles: true})); }",
        [selector, value],
    )


def stop_labels_match(page, result):
    for kind in KINDS:
        dd = page.locator(f'.model-card[data-kind="{kind}"] [data-stat=stop]')
        assert dd.text_content() == STOP_LABELS[result["models"][kind]["stop"]], kind
        assert dd.get_attribute("data-reason") == result["models"][kind]["stop"]


# ---------------------------------------------------------------- inspect panel maths


def test_sampled_with_column_is_the_tempered_softmax_and_redraws_live(lab, torch_models, vocab):
    prompt = "Once upon a time, there was a little"
    result = evaluate(
        lab,
        "return await window.lab.generate(arg);",
        {
            "prompt": prompt,
            "mode": "sampled",
            "temperature": 0.7,
            "seed": 11,
            "limit": 6,
            "backend": "wasm",
            "top_k": 0,
            "top_p": 1,
        },
    )
    step = 2
    lab.click(f'.model-card[data-kind="attn1"] .tok[data-step="{step}"]')
    lab.wait_for_selector('.inspect-model[data-kind="attn4"] table.top10')

    def check(kind, temperature, top_k, top_p):
        history = start_history(vocab.encode(prompt)) + result["models"][kind]["ids"][:step]
        with torch.no_grad():
            logits = torch_models[kind](torch.tensor([context_window(history)]))[0].double()
        allowed = torch.tensor([i not in BANNED for i in range(len(logits))])
        keep = kept_ids(logits.tolist(), sampling_weights(logits.tolist(), temperature), top_k, top_p)
        mask = torch.zeros_like(allowed)
        mask[keep] = True
        want = torch.softmax((logits / temperature).masked_fill(~(allowed & mask), float("-inf")), -1).numpy()
        model = torch.softmax(logits, -1).numpy()
        rows = lab.locator(f'.inspect-model[data-kind="{kind}"] table.top10 tbody tr')
        ids = [int(x) for x in rows.evaluate_all("rs => rs.map((r) => r.dataset.id)")]
        assert ids == list(np.argsort(-model, kind="stable")[:10])
        q = rows.locator(".sampled-cell").evaluate_all("cs => cs.map((c) => Number(c.dataset.q))")
        np.testing.assert_allclose(q, want[ids], rtol=2e-4, atol=1e-6)  # browser vs PyTorch logits differ by ~3e-5
        texts = rows.locator(".sampled-cell").all_text_contents()
        for i, t, w in zip(ids, texts, want[ids]):
            if i in BANNED:
                assert t == "–"
            elif i not in keep:
                assert t == "cut"
            else:
                assert t == (f"{100 * w:.1f}%" if w >= 0.0995 else f"{100 * w:.2f}%")
        cut = rows.evaluate_all("rs => rs.map((r) => r.classList.contains('cut'))")
        assert cut == [i not in keep for i in ids]

    for kind in KINDS:
        check(kind, 0.7, 0, 1.0)
    # moving the controls redraws the panel at once, without generating again
    set_value(lab, "#temperature", "1.4")
    lab.wait_for_function("document.querySelector('.inspect-intro').textContent.includes('T = 1.40')")
    check("attn4", 1.4, 0, 1.0)
    set_value(lab, "#top-k", "3")
    set_value(lab, "#top-p", "0.5")
    lab.wait_for_function("document.querySelector('.inspect-intro').textContent.includes('top-k 3')")
    for kind in KINDS:
        check(kind, 1.4, 3, 0.5)
    # an invalid value is reported next to its control, and the last drawing stays
    set_value(lab, "#top-k", "-2")
    assert lab.locator("#top-k-error").is_visible()
    assert "top-k" in lab.locator("#top-k-error").text_content()
    assert lab.get_attribute("#top-k", "aria-invalid") == "true"
    set_value(lab, "#top-k", "0")
    set_value(lab, "#top-p", "1")
    assert not lab.locator("#top-k-error").is_visible()
    with pytest.raises(Exception, match="top-p"):
        evaluate(lab, "return await window.lab.generate({prompt: 'the', mode: 'sampled', top_p: 0});")
    assert lab.locator("#top-p-error").is_visible()
    set_value(lab, "#top-p", "1")
    assert not lab.watch.errors


def test_same_context_comparison_and_score_this(lab, torch_models, vocab):
    prompt = "The dog ran to the park and"
    result = evaluate(
        lab,
        "return await window.lab.generate(arg);",
        {"prompt": prompt, "mode": "greedy", "limit": 5, "backend": "wasm"},
    )
    lab.click('.model-card[data-kind="mlp"] .tok[data-step="3"]')
    lab.wait_for_selector('.inspect-model[data-kind="attn4"] .context-strip')
    lab.check("#same-context")
    lab.wait_for_function("document.querySelector('.inspect-intro').textContent.includes('read the same context here')")
    history = start_history(vocab.encode(prompt)) + result["models"]["mlp"]["ids"][:3]
    ctx = context_window(history)
    for kind in KINDS:
        with torch.no_grad():
            probs = torch.softmax(torch_models[kind](torch.tensor([ctx]))[0].double(), -1).numpy()
        rows = lab.locator(f'.inspect-model[data-kind="{kind}"] table.top10 tbody tr')
        ids = [int(x) for x in rows.evaluate_all("rs => rs.map((r) => r.dataset.id)")]
        assert ids == list(np.argsort(-probs, kind="stable")[:10]), kind
        strip = lab.locator(f'.inspect-model[data-kind="{kind}"] .ctx-tok').all_text_contents()
        assert detokenize([t.strip() for t in strip]) == detokenize([vocab.itos[i] for i in history[-12:]])
    lab.uncheck("#same-context")
    # one click from a continuation to Score mode on that text
    lab.click('.model-card[data-kind="attn4"] .score-this')
    lab.wait_for_selector('#score-body tr[data-kind="attn4"] td[data-value="perplexity"]')
    text = detokenize(tokenize(prompt) + result["models"]["attn4"]["tokens"])
    assert lab.input_value("#prompt") == text
    assert lab.locator(".score-tok").count() == len(tokenize(text))
    lab.check('input[name="task"][value="generate"]')


# ---------------------------------------------------------------- text is text

MARKUP = "Tom said <b>hi</b> <? & <!-- not a comment --> &amp; 3 < 4 <script>x</script>"


def test_markup_prompt_is_echoed_verbatim_everywhere(lab, vocab):
    result = evaluate(
        lab, "return await window.lab.generate({prompt: arg, mode: 'greedy', limit: 3, backend: 'wasm'});", MARKUP
    )
    assert lab.input_value("#prompt") == MARKUP
    tokens = tokenize(MARKUP)
    assert "<" in tokens and "&" in tokens and "amp" in tokens
    shown = detokenize(tokens)
    for kind in KINDS:
        card = lab.locator(f'.model-card[data-kind="{kind}"]')
        assert card.locator(".prompt-echo").text_content() == shown
        generated = detokenize(tokens + result["models"][kind]["tokens"])[len(shown) :]
        assert card.locator(".continuation").text_content() == shown + generated
    chips = lab.locator("#preview .tok").all_text_contents()
    assert chips == ["<BOS>"] + [t + ("UNK" if vocab.encode(t) == [3] else "") for t in tokens]
    # score mode shows the same tokens
    evaluate(lab, "return await window.lab.score({text: arg});", MARKUP)
    words = lab.locator(".score-tok .score-word").all_text_contents()
    assert [w.strip() for w in words] == tokens
    assert lab.locator("#workbench b, #outputs b, #score-body b, #outputs script, #score-body script").count() == 0
    lab.check('input[name="task"][value="generate"]')


def test_long_prompt_preview_shows_the_last_64_tokens(lab, vocab):
    text = " ".join(w for w in vocab.itos[4:] if w.isalpha())[:20_000]  # thousands of distinct words
    lab.fill("#prompt", text)
    tokens = tokenize(text)
    assert len(tokens) > 1000 and len(set(tokens[-64:]) & set(tokens[:64])) == 0
    lab.wait_for_function(
        "n => document.querySelector('#preview .tok.cropped')?.textContent.includes(n)", arg=f"{len(tokens) + 1 - 64:,}"
    )
    chips = lab.locator("#preview .tok:not(.cropped)").all_text_contents()
    assert chips == tokens[-64:]
    assert "cropped away" in lab.locator("#preview-summary").text_content()


# ---------------------------------------------------------------- stop labels


def test_stop_labels_match_stop_reasons(lab, references, vocab):
    ood = next(p for p in references["presets"] if p["id"] == "ood-technical")
    eos_kind = next(
        k for k in KINDS if references["parity"]["continuations"][k]["ood-technical"]["greedy"]["stop"] == "eos"
    )
    # the preset followed by that model's own greedy continuation: its next greedy token is <EOS>
    before_eos = references["parity"]["continuations"][eos_kind]["ood-technical"]["greedy"]["ids"]
    prompt = ood["prompt"] + " " + detokenize(vocab.itos[i] for i in before_eos)
    assert vocab.encode(prompt) == vocab.encode(ood["prompt"]) + before_eos
    result = evaluate(
        lab,
        "return await window.lab.generate({prompt: arg, mode: 'greedy', limit: 4, backend: 'wasm'});",
        prompt,
    )
    assert result["models"][eos_kind]["stop"] == "eos" and result["models"][eos_kind]["new_tokens"] == 0
    assert {m["stop"] for m in result["models"].values()} == {"eos", "limit"}
    stop_labels_match(lab, result)
    # an immediate EOS is explained beside that model's output
    explain = lab.locator(f'.model-card[data-kind="{eos_kind}"] .stop-explain')
    assert explain.is_visible() and "very first token" in explain.text_content()
    assert lab.locator(f'.model-card[data-kind="{eos_kind}"] .tok.eos').count() == 1
    assert all(
        not lab.locator(f'.model-card[data-kind="{k}"] .stop-explain').is_visible()
        for k in KINDS
        if result["models"][k]["stop"] != "eos"
    )
    # stopped by the user, with the Stop button, as soon as the first token shows
    result = evaluate(
        lab,
        """const run = window.lab.generate({prompt: arg, mode: 'greedy', limit: 1024, backend: 'wasm'});
        while (!document.querySelector('.model-card[data-kind="attn4"] .tok.gen')) {
          await new Promise((r) => setTimeout(r, 0));
        }
        document.querySelector('#stop').click();
        return await run;""",
        "Once upon a time, there was a little girl who loved to",
    )
    assert "stopped" in [m["stop"] for m in result["models"].values()]
    lab.wait_for_function("!document.querySelector('#generate').disabled")
    stop_labels_match(lab, result)
    lab.fill("#limit", "24")


# ---------------------------------------------------------------- keyboard, axe, phone, links


def test_keyboard_flow_keeps_focus_and_announces_the_panel(lab):
    evaluate(
        lab,
        "return await window.lab.generate({prompt: 'the cat sat on the', mode: 'greedy', limit: 6, backend: 'wasm'});",
    )
    chip = lab.locator('.model-card[data-kind="attn1"] .tok[data-step="2"]')
    chip.focus()
    lab.keyboard.press("Enter")
    lab.wait_for_selector('.inspect-attention[data-kind="attn1"] table.attention')
    # focus moves to the inspect panel's heading (it did not fall to the body)
    lab.wait_for_function("document.activeElement.id === 'inspect-heading'")
    assert chip.get_attribute("aria-pressed") == "true"
    assert lab.get_attribute("#inspect-body", "aria-live") == "polite"
    # the token strip is one Tab stop; the arrow keys move inside it
    chip.focus()
    lab.keyboard.press("ArrowRight")
    assert lab.evaluate("document.activeElement.dataset.step") == "3"
    assert lab.evaluate("document.activeElement.tabIndex") == 0 and chip.evaluate("c => c.tabIndex") == -1
    # heatmap cells: one tab stop, arrow keys move, each cell names its weight
    cell = lab.locator('.inspect-attention[data-kind="attn1"] td.cell[tabindex="0"]')
    cell.focus()
    lab.keyboard.press("ArrowLeft")
    label = lab.evaluate("document.activeElement.querySelector('.visually-hidden').textContent")
    assert re.match(r"head 1, .+: \d\.\d{3}$", label)
    assert lab.locator("td.cell.linked").count() >= 1  # the focused token lights up elsewhere too
    # the full matrix reads out a weight from the keyboard
    lab.locator('.inspect-attention[data-kind="attn4"] details.matrix-details summary').click()
    canvas = lab.locator('.inspect-attention[data-kind="attn4"] canvas.matrix').first
    canvas.wait_for()
    canvas.focus()
    lab.keyboard.press("ArrowLeft")
    readout = lab.locator('.inspect-attention[data-kind="attn4"] .readout').first.text_content()
    assert re.search(r"weight \d\.\d{3}", readout), readout


def test_axe_finds_no_serious_violation_after_generate_and_inspect(lab):
    evaluate(
        lab,
        "return await window.lab.generate({prompt: 'the dog', mode: 'sampled', seed: 2, limit: 5, backend: 'wasm'});",
    )
    lab.click('.model-card[data-kind="attn4"] .tok[data-step="1"]')
    lab.wait_for_selector('.inspect-attention[data-kind="attn4"] table.attention')
    lab.locator('.inspect-attention[data-kind="attn1"] details.matrix-details summary').click()
    lab.locator('.inspect-attention[data-kind="attn1"] canvas.matrix').first.wait_for()
    lab.locator('.inspect-attention[data-kind="attn4"] .head-toggle[data-head="0"]').click()  # an experiment on
    lab.wait_for_selector(".intervention .restore")
    lab.add_script_tag(path=str(AXE))
    found = lab.evaluate(
        "async () => (await axe.run(document)).violations.map((v) => ({id: v.id, impact: v.impact,"
        " nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))"
    )
    bad = [v for v in found if v["impact"] in ("serious", "critical")]
    assert not bad, bad
    evaluate(lab, "return await window.lab.score({text: 'the dog ran'});")
    lab.click('.score-tok[data-index="1"]')
    lab.wait_for_selector("#score-detail table.top10")
    found = lab.evaluate("async () => (await axe.run(document)).violations.map((v) => ({id: v.id, impact: v.impact}))")
    assert not [v for v in found if v["impact"] in ("serious", "critical")], found
    lab.check('input[name="task"][value="generate"]')


def test_axe_is_for_tests_only(site_dir):
    assert AXE.is_file()
    assert not list(site_dir.rglob("axe*.js"))


def test_phone_inspects_one_model_at_a_time_and_never_scrolls_sideways(browser, site_url):
    # the three cards stack (issue 33: compared without switching, tests/test_lab_phone_compare.py);
    # the Inspect panel shows one model at a time
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    assert open_lab(page, site_url, "?backend=wasm")["ok"]
    evaluate(page, "return await window.lab.generate({prompt: 'the little bird sang a song', limit: 8});")
    visible = [k for k in KINDS if page.locator(f'.model-card[data-kind="{k}"]').is_visible()]
    assert visible == KINDS
    page.click('#model-tabs button[data-kind="attn4"]')
    assert page.get_attribute('#model-tabs button[data-kind="attn4"]', "aria-pressed") == "true"
    page.click('.model-card[data-kind="attn4"] .tok[data-step="2"]')
    page.wait_for_selector('.inspect-attention[data-kind="attn4"] table.attention')
    assert [k for k in KINDS if page.locator(f'.model-card[data-kind="{k}"]').is_visible()] == KINDS
    assert page.locator('.inspect-model[data-kind="attn4"]').is_visible()
    assert not page.locator('.inspect-model[data-kind="mlp"]').is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # the outputs start within two screens, and the three stacked continuations span at most one
    page.evaluate("window.scrollTo(0, 0)")
    texts = [page.locator(f'.model-card[data-kind="{k}"] > .continuation').bounding_box() for k in KINDS]
    assert texts[0]["y"] < 2 * 844
    assert texts[-1]["y"] + texts[-1]["height"] - texts[0]["y"] <= 844, texts
    context.close()


def test_slide_links_land_on_the_slides_that_teach_them(lab, site_dir):
    """Every lab link to a slide opens the first slide of its deck whose heading
    is the one web/lab/slides.js names (read here from the built deck)."""
    hrefs = lab.locator("a[data-slide]").evaluate_all("as => as.map((a) => [a.dataset.slide, a.getAttribute('href')])")
    slides = lab.evaluate("async () => (await import('./slides.js')).SLIDES")
    assert {k for k, _ in hrefs} >= {"greedy", "temperature", "topk", "topp", "eos", "unk", "perplexity", "results"}
    assert slides["temperature"]["deck"] == slides["topk"]["deck"] == slides["topp"]["deck"] == "part3"
    expected = {}
    heading = re.compile(
        r'<section data-slide="(\d+)"[^>]*>\s*(?:<div class="slide-head">\s*)?<h2[^>]*>(.*?)</h2>', re.S
    )
    for key, spec in slides.items():
        html = (site_dir / "decks" / f"{spec['deck']}.html").read_text(encoding="utf-8")
        headings = {int(m.group(1)): re.sub(r"<[^>]+>", "", m.group(2)).strip() for m in heading.finditer(html)}
        found = sorted(i for i, h in headings.items() if h == spec["title"])
        assert found, f"web/lab/slides.js {key}: no slide of {spec['deck']} is headed {spec['title']!r}"
        expected[key] = f"../decks/{spec['deck']}.html#/{found[0]}"
        href = lab.evaluate("async (k) => (await import('./slides.js')).slideHref(k)", key)
        assert href == expected[key] and found[0] > 0, (key, href, expected[key])
    for key, href in hrefs:
        assert href == expected[key]
