"""The results deck in Chromium: loads cleanly, reaches its last slide, the
charts render with text alternatives (or the placeholder shows while no run
has finished), the quoted numbers come from the results tables, and the lab
link leads to the lab page."""

from __future__ import annotations

from urllib.parse import urljoin

from support.decks import assert_deck_text_clean, open_deck, slide_with, table

SLUG = "results"


def test_results_walks_to_the_last_slide_cleanly(page, site_url):
    # the keyboard walk to the last slide: test_site_pages (every deck); every
    # slide shown, with its console errors: the deck walks (support/walks.py)
    open_deck(page, site_url, SLUG)
    assert page.evaluate("Reveal.getTotalSlides()") >= 10
    assert_deck_text_clean(page)


def test_results_charts_render_with_text_alternatives(page, site_url, site_dir):
    open_deck(page, site_url, SLUG)
    charts = table(site_dir, "results_charts")
    if not charts.get("available"):
        assert page.locator(".unavailable[data-source='results_charts']").count() >= 2
        page.watch.assert_clean()
        return
    for chart_id, count_selector, expected in (
        ("chart-val-curves", "polyline.run", charts["n_curves"]),
    ):  # the ±1 SD perplexity chart is Part III's; this deck no longer repeats it (issue 32)
        page.evaluate(f"Reveal.slide({slide_with(page, 'svg#' + chart_id)})")
        svg = page.locator(f"svg#{chart_id}")
        assert svg.is_visible()
        box = svg.bounding_box()
        assert box["width"] > 400 and box["height"] > 200
        assert svg.locator(count_selector).count() == expected
        assert svg.get_attribute("role") == "img"
        labelled = svg.get_attribute("aria-labelledby").split()
        assert page.locator(f"#{labelled[0]}").text_content().strip()
        assert page.locator(f"#{labelled[1]}").text_content().strip()
    # each chart comes with its numbers as a table
    assert page.locator("table[data-source='results_charts.val_curves_table'] tbody tr").count() == charts["n_curves"]
    assert page.locator("svg#chart-test-ppl").count() == 0
    page.watch.assert_clean()


def test_results_opens_with_the_paired_result_and_quotes_the_attention_rows(page, site_url, site_dir):
    open_deck(page, site_url, SLUG)
    paired = table(site_dir, "results_paired")
    first = page.evaluate("""[...document.querySelectorAll('.slides > section')]
        .findIndex(s => s.querySelector('table'))""")
    assert first == slide_with(page, "table[data-source=results_paired]")  # the first table is the paired result
    page.evaluate(f"Reveal.slide({first})")
    text = page.evaluate("Reveal.getCurrentSlide().textContent")
    for p in paired["pairs"]:
        assert f"{p['gain']:+.2f}" in text and str(p["seed"]) in text
    assert page.locator("table[data-source=results_perplexity_toy]").count() == 0  # Part III's lesson, not repeated
    att = table(site_dir, "results_attention")
    if att.get("available"):
        rows = page.locator("table[data-source='results_attention'] tbody tr")
        assert rows.count() == 4
        assert page.locator("table[data-source='results_attention'] thead th").count() == len(att["header"])
        assert all(abs(s - 1) < 1e-5 for s in att["row_sums"])
    else:
        assert page.locator(".unavailable[data-source='results_attention']").count() >= 1
    page.watch.assert_clean()


def test_results_lab_link_leads_to_the_lab(page, site_url, site_dir):
    open_deck(page, site_url, SLUG)
    href = page.locator("a.lab-link").first.get_attribute("href")
    target = urljoin(f"{site_url}/decks/{SLUG}.html", href)
    assert target == f"{site_url}/lab/index.html"
    assert (site_dir / "lab" / "index.html").exists()
    response = page.request.get(target)
    assert response.ok and "<title>" in response.text()
    page.watch.assert_clean()


SLIDE_TEXTS = """[...document.querySelectorAll('.slides > section')].map(s => {
  const copy = s.cloneNode(true);
  copy.querySelectorAll('.listing, aside.notes, svg, .exercise-box').forEach(x => x.remove());
  return copy.textContent; })"""


def test_results_sentences_are_not_glued_and_numbers_read_well(page, site_url):
    """Bullets and sentences stay apart ("one head.Training", "threads).- A"),
    "thread" agrees with its number, and tiny differences are not 0.00001526."""
    import re

    open_deck(page, site_url, SLUG)
    for text in page.evaluate(SLIDE_TEXTS):
        flat = " ".join(text.split())
        assert not re.search(r"[a-z)\]][.;:][A-Z]", flat), flat
        assert not re.search(r"[.)]- [A-Z]", flat), flat
        assert not re.search(r"\b1 threads\b", flat), flat
        assert not re.search(r"0\.0000\d", flat), flat
    page.watch.assert_clean()


def test_results_forward_check_follows_the_prompt_it_uses(page, site_url, site_dir):
    open_deck(page, site_url, SLUG)
    att = table(site_dir, "results_attention")
    prompt = slide_with(page, "table[data-source='results_attention.shape_rows']")
    check = page.evaluate("""[...document.querySelectorAll('.slides > section')]
        .findIndex(s => s.querySelector('.listing') && s.textContent.includes('forward_details') &&
                        (s.querySelector('h2')?.textContent || '').includes('every query row'))""")
    assert 0 <= prompt < check
    text = page.locator(".slides > section").nth(check).text_content()
    assert "below" not in text.split("def forward_details")[-1]
    if att.get("available"):
        assert att["diff_text"]["logits"] in text and "× 10" in text
        assert att["logits_max_rel_diff"] < 2e-6
    page.watch.assert_clean()


def test_results_protocol_training_commands_and_takeaways(page, site_url, site_dir):
    open_deck(page, site_url, SLUG)
    proto = table(site_dir, "results_protocol")
    index = slide_with(page, "table[data-source='results_protocol']")
    text = page.locator(".slides > section").nth(index).text_content()
    for value in (
        f"{proto['batch_size']:,}",
        f"{proto['steps']:,}",
        f"{proto['validation_windows']:,}",
        "training stories only",
        "not an exhaustive tuning study",
    ):
        assert value in text, value
    build = page.evaluate("""[...document.querySelectorAll('.slides > section')]
        .findIndex(s => (s.querySelector('h2')?.textContent || '').includes('head width is set'))""")
    listings = " ".join(page.locator(".slides > section").nth(build).locator(".listing").all_text_contents())
    assert "d // n_heads" in listings and '"attn4": 4' in listings  # the split, and the heads the course sets
    all_text = " ".join(page.evaluate(SLIDE_TEXTS))
    assert "make train-resume" in all_text and "overwrites" in all_text and "--profile smoke" in all_text
    summary = table(site_dir, "results_summary")
    if summary.get("available"):
        assert "shared machine" in all_text and summary["device"] in all_text
    missing = page.evaluate("""[...document.querySelectorAll('.slides > section:not(.end-slide)')].map((s, i) => [i, s])
        .filter(([i, s]) => i > 0 && !s.querySelector('.takeaway')).map(([i, s]) => i)""")
    assert missing == []
    assert page.locator(".slides svg[role=img]").count() >= 4
    page.watch.assert_clean()
