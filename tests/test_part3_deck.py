"""The Part III deck in Chromium: loads with no console error and no request
outside the origin, the keyboard reaches the last slide, the worked numbers
come from the tables, the two-head explorer works from the keyboard, and the
link into the live lab leads to the lab page."""

from __future__ import annotations

from urllib.parse import urljoin

from common.settings import ROOT
from support.decks import assert_deck_text_clean, open_deck, slide_with, table

SLUG = "part3"


def test_part3_walks_to_the_last_slide_cleanly(page, site_url, site_dir):
    # the keyboard walk to the last slide: test_site_pages (every deck); every
    # slide shown, with its console errors: the deck walks (support/walks.py)
    open_deck(page, site_url, SLUG)
    total = page.evaluate("Reveal.getTotalSlides()")
    assert total >= 20
    # the last slide is the way into the live comparison
    assert page.locator(".slides > section").nth(total - 1).locator("a.lab-link").count() == 1
    assert_deck_text_clean(page)


def test_part3_quotes_the_computed_toys(page, site_url, site_dir):
    open_deck(page, site_url, SLUG)
    two = table(site_dir, "part3_two_source")
    text = page.evaluate("document.querySelector('.slides').textContent")
    assert f"{two['setting_head_output']:.1f}" == "8.4" and f"{two['person_head_output']:.1f}" == "6.6"
    assert "returns [8.4, 2.4]" in text
    assert "coordinate 1 → 8.4" in text and "coordinate 2 → 6.6" in text
    f = table(site_dir, "part3_fisherman")
    first = f["heads"][0]
    assert f"Head 1 puts {first['top_weight']:.3f} on {first['top_token']}" in text
    batch = table(site_dir, "part3_batch")
    if batch.get("available") and batch["model"].get("available"):
        assert "[2, 4, 64, 16]" in text
        assert f"{batch['model']['loss']:.4f}" in text
    else:
        assert page.locator(".unavailable[data-source^='part3_batch']").count() >= 4


def test_part3_head_explorer_works_from_the_keyboard(page, site_url, site_dir):
    open_deck(page, site_url, SLUG)
    f = table(site_dir, "part3_fisherman")
    widget = page.locator(".widget[data-widget='part3-heads']")
    assert widget.get_attribute("data-mounted") == "true"
    page.evaluate(f"Reveal.slide({slide_with(page, '.widget[data-widget=part3-heads]')})")
    slide = page.evaluate("Reveal.getIndices().h")
    slider = widget.get_by_label("Query slot")
    slider.focus()
    slider.press("Home")
    assert widget.get_attribute("data-row") == "1"
    assert "1 allowed source(s)" in widget.locator(".p3-readout").text_content()
    slider.press("End")
    assert widget.get_attribute("data-row") == str(f["n_tokens"])
    slider.press("ArrowLeft")
    assert widget.get_attribute("data-row") == str(f["n_tokens"] - 1)
    assert page.evaluate("Reveal.getIndices().h") == slide  # the arrow moved the slider, not the deck
    radio = widget.get_by_label("head 2")
    radio.focus()
    page.keyboard.press("Space")
    assert widget.get_attribute("data-head") == "2"
    row = f["n_tokens"] - 2  # 0-based query row shown now
    message = ", ".join(f"{x:.3f}".replace("-", "−") for x in f["heads"][1]["H"][row])
    assert f"message AV = [{message}]" in widget.locator(".p3-readout").text_content()
    page.watch.assert_clean()


def test_part3_lab_link_leads_to_the_lab(page, site_url, site_dir):
    open_deck(page, site_url, SLUG)
    link = page.locator("a.lab-link")
    assert link.count() >= 1
    href = link.first.get_attribute("href")
    target = urljoin(f"{site_url}/decks/{SLUG}.html", href)
    assert target == f"{site_url}/lab/index.html"
    assert (ROOT / "web" / "lab" / "index.html").exists(), "the lab page web/lab/index.html is missing"
    assert (site_dir / "lab" / "index.html").exists()
    response = page.request.get(target)
    assert response.ok
    assert "<title>" in response.text() and "lab" in response.text().lower()
    page.watch.assert_clean()


SLIDE_TEXTS = """[...document.querySelectorAll('.slides > section')].map(s => {
  const copy = s.cloneNode(true);
  copy.querySelectorAll('.listing, aside.notes').forEach(x => x.remove());
  return copy.textContent.replace(/\\s+/g, ' ').trim(); })"""


def test_part3_teaches_w_v_before_the_explorer_shows_v(page, site_url):
    """The explorer shows V and the messages AV, so it comes after the slide that
    introduces W_V; the keys slide's note does not promise W_V "on the next slide"."""
    open_deck(page, site_url, SLUG)
    w_v = slide_with(page, "[data-source='part3_fisherman.W_V']")
    explorer = slide_with(page, ".widget[data-widget=part3-heads]")
    keys = slide_with(page, "[data-source='part3_fisherman.W_K']")
    assert keys < w_v < explorer
    note = page.evaluate(
        f"document.querySelectorAll('.slides > section')[{keys}].querySelector('aside.notes').textContent"
    )
    assert "next slide" not in note
    # the explorer slide has its own text and a static fallback of both heads' weights
    section = page.locator(".slides > section").nth(explorer)
    assert "AV" in section.text_content()
    assert section.locator("aside.notes table[data-source^='part3_fisherman.heads']").count() == 2
    page.watch.assert_clean()


def test_part3_ends_by_pointing_to_part_iv_without_repeating_its_table(page, site_url, site_dir):
    open_deck(page, site_url, SLUG)
    texts = page.evaluate(SLIDE_TEXTS)
    assert not any("closes the text-attention series" in t for t in texts)
    assert page.locator(".slides table[data-source='results_summary']").count() == 0
    # the deck's last content slide links onward: Part IV, the maps, the code download
    last = page.locator(".slides > section:not(.end-slide)").last
    nxt = last.locator("a.next-deck")
    assert nxt.count() == 1
    assert urljoin(f"{site_url}/decks/{SLUG}.html", nxt.get_attribute("href")) == f"{site_url}/decks/results.html"
    hrefs = [a.get_attribute("href") for a in last.locator("a").all()]
    for href in hrefs:
        target = urljoin(f"{site_url}/decks/{SLUG}.html", href)
        assert page.request.get(target).ok, href
    assert any(h.endswith("maps.html") for h in hrefs) and any(h.endswith(".zip") for h in hrefs)
    page.watch.assert_clean()


def test_part3_every_slide_has_a_takeaway_and_figures_have_text(page, site_url):
    open_deck(page, site_url, SLUG)
    missing = page.evaluate("""[...document.querySelectorAll('.slides > section:not(.end-slide)')].map((s, i) => [i, s])
        .filter(([i, s]) => i > 0 && !s.querySelector('.takeaway')).map(([i, s]) => i)""")
    assert missing == []
    svgs = page.locator(".slides svg[role=img]")
    assert svgs.count() >= 6
    for i in range(svgs.count()):
        svg = svgs.nth(i)
        ids = svg.get_attribute("aria-labelledby").split()
        assert all(page.locator(f"[id='{x}']").text_content().strip() for x in ids)
    page.watch.assert_clean()


def test_part3_worked_sd_uncovers_one_step_at_a_time(page, site_url, site_dir):
    open_deck(page, site_url, SLUG)
    sd = table(site_dir, "results_worked")
    index = slide_with(page, "table[data-source='results_worked']")
    page.evaluate(f"Reveal.slide({index}, 0, -1)")
    section = page.locator(".slides > section").nth(index)
    steps = section.locator(".fragment")
    assert steps.count() >= 3
    assert section.locator(".fragment.visible").count() == 0
    page.evaluate("Reveal.nextFragment()")
    assert section.locator(".fragment.visible").count() == 1
    text = section.text_content()
    assert f"{sd['mean']:.2f} ± {sd['sd']:.2f}" in text
    assert f"{sd['reduction_percent']:.1f}% lower" in text  # the direction word follows the numbers
    assert sd["mean"] < sd["baseline_mean"]
    page.watch.assert_clean()


def test_part3_sampling_widget_reshapes_the_bars_with_the_lab_rule(page, site_url, site_dir):
    """The sliders set temperature, top-k and top-p; the bars show the
    probabilities export/decoding.py gives for those settings (the table's
    checks), and the keyboard moves a slider without leaving the slide."""
    dec = table(site_dir, "part3_decoding")
    open_deck(page, site_url, SLUG)
    widget = page.locator(".widget[data-widget='part3-sampling']")
    assert widget.get_attribute("data-mounted") == "true"
    index = slide_with(page, ".widget[data-widget=part3-sampling]")
    page.evaluate(f"Reveal.slide({index})")
    sliders = widget.locator("input[type=range]")
    assert sliders.count() == 3
    t, k, p = (sliders.nth(i) for i in range(3))
    set_to = "(el, v) => { el.value = String(v); el.dispatchEvent(new Event('input')); }"
    for check in dec["checks"]:
        t.evaluate(set_to, round(check["temperature"] * 20) - 1)
        k.evaluate(set_to, check["top_k"])
        p.evaluate(set_to, round(check["top_p"] * 20) - 1)
        values = widget.locator(".bar-value").all_text_contents()
        want = [f"{q:.3f}" for _, q in check["top"]]
        assert values[: len(want)] == want, (check, values)
        assert widget.get_attribute("data-kept") == str(check["kept"])
    t.focus()
    t.press("Home")
    assert page.evaluate("Reveal.getIndices().h") == index
    assert float(widget.get_attribute("data-top")) > 0.99  # T = 0.05: greedy in all but name
    page.watch.assert_clean()
