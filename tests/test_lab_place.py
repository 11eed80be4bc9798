"""The lab keeps the learner's place (issue 22): results come into view and
take focus, a slide link and Back lose nothing, the keyboard path is short,
and the score view labels and explains its numbers. WASM only."""

from __future__ import annotations

import re

import pytest

from common.chromium import evaluate
from support.lab import AXE, KINDS, open_lab

VIEWPORTS = {"desktop": (1280, 800), "phone": (390, 844)}


def new_page(browser, site_url, size, query="?backend=wasm"):
    width, height = size
    phone = width < 700
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone)
    page = context.new_page()
    assert open_lab(page, site_url, query)["ok"]
    return context, page


def wait_done(page):
    page.wait_for_function(
        "!document.querySelector('#generate').disabled && [...document.querySelectorAll('[data-stat=stop]')]"
        ".every((e) => e.textContent !== '…' && e.textContent !== '–')",
        timeout=120_000,
    )


def in_view(page, selector):
    box = page.locator(selector).first.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] < height and box["y"] + box["height"] > 0


@pytest.mark.parametrize("size", VIEWPORTS.values(), ids=VIEWPORTS.keys())
def test_generate_sits_by_the_prompt_and_results_come_into_view_with_focus(browser, site_url, size):
    context, page = new_page(browser, site_url, size)
    page.evaluate("window.scrollTo(0, 0)")
    assert in_view(page, "#generate") and in_view(page, "#prompt")  # Generate is on the first screen
    # greedy: the sampling settings are disabled, and the page says why
    assert page.locator("#temperature").is_disabled() and page.locator("#top-k").is_disabled()
    assert page.locator("#sampling-why").is_visible()
    page.check('input[name="mode"][value="sampled"]')
    assert not page.locator("#temperature").is_disabled() and not page.locator("#sampling-why").is_visible()
    page.check('input[name="mode"][value="greedy"]')
    page.fill("#limit", "6")
    page.click("#generate")
    wait_done(page)
    page.wait_for_function("document.activeElement && document.activeElement.id === 'outputs-section'")
    shown = next(k for k in KINDS if page.locator(f'.model-card[data-kind="{k}"]').is_visible())
    assert in_view(page, f'.model-card[data-kind="{shown}"] .continuation')
    assert in_view(page, f'.model-card[data-kind="{shown}"] .tok.gen')
    assert "Generated" in page.locator("#run-status").text_content()
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    context.close()


def test_back_from_a_slide_link_restores_the_prompt_controls_and_outputs(browser, site_url):
    context, page = new_page(browser, site_url, VIEWPORTS["desktop"])
    prompt = "The brave little fox found a shiny key under the old tree"
    page.fill("#prompt", prompt)
    page.check('input[name="mode"][value="sampled"]')
    page.fill("#seed", "5")
    page.fill("#top-k", "20")
    page.fill("#limit", "7")
    page.click("#generate")
    wait_done(page)
    before = {k: page.locator(f'.model-card[data-kind="{k}"] .continuation').text_content() for k in KINDS}
    link = page.locator('a[data-slide="greedy"]').first
    assert link.get_attribute("target") is None  # the same tab: Back must restore the lab
    link.click()
    page.wait_for_url(re.compile(r"/decks/maps\.html#/\d+"))
    page.go_back()
    status = evaluate(page, "return await window.lab.ready;", timeout_s=240)
    assert status["ok"]
    assert page.input_value("#prompt") == prompt
    assert page.locator('input[name="mode"][value="sampled"]').is_checked()
    assert page.input_value("#seed") == "5" and page.input_value("#top-k") == "20" and page.input_value("#limit") == "7"
    wait_done(page)
    after = {k: page.locator(f'.model-card[data-kind="{k}"] .continuation').text_content() for k in KINDS}
    assert after == before
    context.close()


def test_on_a_phone_slide_links_open_the_reading_view_at_the_slide(browser, site_url, site_dir):
    context, page = new_page(browser, site_url, VIEWPORTS["phone"])
    for a in page.locator("a[data-slide]").all():
        href = a.get_attribute("href")
        m = re.fullmatch(r"\.\./read/(\w+)\.html#slide-(\d+)", href)
        assert m and int(m.group(2)) > 0, href
        html = (site_dir / "read" / f"{m.group(1)}.html").read_text(encoding="utf-8")
        assert f'id="slide-{m.group(2)}"' in html
    page.locator('a[data-slide="greedy"]').first.click()
    page.wait_for_url(re.compile(r"/read/maps\.html#slide-\d+"))
    assert page.evaluate("document.querySelector(location.hash).getBoundingClientRect().top") < 200
    context.close()


def test_keyboard_path_from_the_top_to_step_3s_inspect_panel_is_short(browser, site_url):
    context, page = new_page(browser, site_url, VIEWPORTS["desktop"])
    evaluate(page, "return await window.lab.generate({prompt: 'the cat sat on the', limit: 6, backend: 'wasm'});")
    page.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
    keys = ["Tab", "Tab", "Enter", "Tab", "ArrowRight", "ArrowRight", "Enter"]
    assert len(keys) <= 15
    for key in keys[:3]:
        page.keyboard.press(key)
    assert page.evaluate("document.activeElement.id") == "outputs-section"
    for key in keys[3:6]:
        page.keyboard.press(key)
    assert page.evaluate("document.activeElement.dataset.step") == "2"  # step 3
    # a token strip is one Tab stop: the next Tab leaves it
    tab_stops = page.evaluate(
        "[...document.querySelectorAll('.model-card .output .tok')].filter((b) => b.tabIndex === 0).length"
    )
    assert tab_stops == 3
    page.keyboard.press(keys[6])
    page.wait_for_function("document.activeElement.id === 'inspect-heading'")
    assert "step 3" in page.locator(".inspect-model").first.text_content()
    # the matrices are a few keys from there
    for key in ["Tab", "Enter", "Enter"]:
        page.keyboard.press(key)
    assert page.evaluate("document.activeElement.tagName") == "SUMMARY"
    page.locator("details.matrix-details[open] canvas.matrix").first.wait_for()
    context.close()


def test_the_phone_switcher_is_real_toggles(browser, site_url):
    context, page = new_page(browser, site_url, VIEWPORTS["phone"])
    group = page.locator("#model-tabs")
    assert group.get_attribute("role") == "group"
    label = page.locator("#model-tabs-label")  # a visible label, and the group's accessible name
    assert label.is_visible() and group.get_attribute("aria-labelledby") == "model-tabs-label"
    assert label.inner_text() == "Model shown in Inspect"
    buttons = group.locator("button")
    assert [b.get_attribute("aria-pressed") for b in buttons.all()] == ["true", "false", "false"]
    assert all(b.get_attribute("role") is None for b in buttons.all())
    buttons.nth(2).focus()
    page.keyboard.press("Enter")
    assert [b.get_attribute("aria-pressed") for b in buttons.all()] == ["false", "false", "true"]
    # the 390 px lab with an experiment on and the matrices open: no sideways scroll, axe clean
    evaluate(page, "return await window.lab.generate({prompt: 'the little bird sang a song', limit: 5});")
    page.click('.model-card[data-kind="attn4"] .tok[data-step="2"]')
    page.locator('.inspect-attention[data-kind="attn4"] .head-toggle[data-head="2"]').click()
    page.wait_for_selector(".intervention .restore")
    page.locator('.inspect-attention[data-kind="attn4"] details.matrix-details summary').click()
    page.locator('.inspect-attention[data-kind="attn4"] canvas.matrix').first.wait_for()
    assert page.locator('.inspect-attention[data-kind="attn4"] .matrices').get_attribute("data-columns") == "1"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        "async () => (await axe.run(document)).violations.map((v) => ({id: v.id, impact: v.impact,"
        " nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))"
    )
    assert not [v for v in found if v["impact"] in ("serious", "critical")], found
    context.close()


def test_score_view_labels_rows_digits_eos_and_the_most_surprising_token(browser, site_url, references):
    context, page = new_page(browser, site_url, VIEWPORTS["desktop"])
    held_out = next(p for p in references["presets"] if p["group"] == "Held-out test story")
    page.select_option("#preset", held_out["id"])
    page.check('input[name="task"][value="score"]')
    assert page.input_value("#prompt") == held_out["source"]["text"]
    assert not page.locator("#score-eos").is_checked()  # EOS unticked by default
    page.click("#score")
    page.wait_for_selector('#score-body tr[data-kind="attn4"] td[data-value="perplexity"]')
    page.wait_for_function("document.activeElement && document.activeElement.id === 'score-view'")
    labels = page.locator(".score-labels .score-label").all_text_contents()
    assert labels == ["MLP", "1 head", "4 heads"]
    digits = page.evaluate(
        "async () => { const m = await import('./score-view.js');"
        " return [0.001, 0.0041, 0.5, 0.00002].map((p) => m.shortPct(p)); }"
    )
    assert digits == ["0.10", "0.41", "50", "0.002"]
    for kind in KINDS:
        probs = [
            float(x)
            for x in page.locator(f'.score-tok .score-cell[data-kind="{kind}"]').evaluate_all(
                "cs => cs.map((c) => c.dataset.p)"
            )
        ]
        most = page.locator(f'.score-tok .score-cell.most[data-kind="{kind}"]')
        assert most.count() == 1
        assert float(most.get_attribute("data-p")) == min(probs)
        cell = page.locator(f'#score-body tr[data-kind="{kind}"] td[data-value="most_surprising"]')
        assert int(cell.get_attribute("data-index")) == probs.index(min(probs))
    note = page.locator(".rank-note")
    assert note.is_visible() and "small sample" in note.text_content()
    context.close()


def test_score_summary_fits_a_phone_as_cards(browser, site_url):
    context, page = new_page(browser, site_url, VIEWPORTS["phone"])
    evaluate(page, "return await window.lab.score({text: 'The cat sat on the mat. The dog ran home.'});")
    table = page.locator("table.score-summary")
    assert table.evaluate("t => getComputedStyle(t.querySelector('thead')).display") == "none"
    for cell in page.locator('table.score-summary tr[data-kind="attn4"] td').all():
        box = cell.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, cell.text_content()
    assert page.locator('tr[data-kind="attn4"] td[data-value="perplexity"]').is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    context.close()
