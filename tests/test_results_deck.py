"""The results deck in Chromium: loads cleanly, reaches its last slide, the
charts render with text alternatives (or the placeholder shows while no run
has finished), the quoted numbers come from the results tables, and the lab
link leads to the lab page."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urljoin

ROOT = Path(__file__).resolve().parent.parent
# the text of every slide and its notes, without code listings (Python code says None)
PROSE = """[...document.querySelectorAll('.slides > section')].map(s => {
  const copy = s.cloneNode(true);
  copy.querySelectorAll('.listing').forEach(x => x.remove());
  return copy.textContent; }).join(' ')"""
SLUG = "results"


def table(site_dir: Path, name: str):
    return json.loads((site_dir / "tables" / f"{name}.json").read_text(encoding="utf-8"))


def open_deck(page, site_url):
    page.goto(f"{site_url}/decks/{SLUG}.html")
    page.wait_for_function("window.Reveal && Reveal.isReady()")


def go_to(page, selector: str) -> None:
    index = page.evaluate(f"""[...document.querySelectorAll('.slides > section')]
                              .findIndex(s => s.querySelector({json.dumps(selector)}))""")
    assert index >= 0, f"no slide contains {selector}"
    page.evaluate(f"Reveal.slide({index})")


def test_results_walks_to_the_last_slide_cleanly(page, site_url):
    open_deck(page, site_url)
    total = page.evaluate("Reveal.getTotalSlides()")
    assert total >= 10
    page.locator("body").click(position={"x": 5, "y": 300})
    for _ in range(total - 1):
        page.keyboard.press("ArrowRight")
    assert page.evaluate("Reveal.isLastSlide()")
    assert page.locator(".slides .katex-error").count() == 0
    text = page.evaluate(PROSE)
    for bad in ("undefined", "NaN", "None"):
        assert bad not in text
    page.watch.assert_clean()


def test_results_charts_render_with_text_alternatives(page, site_url, site_dir):
    open_deck(page, site_url)
    charts = table(site_dir, "results_charts")
    if not charts.get("available"):
        assert page.locator(".unavailable[data-source='results_charts']").count() >= 2
        page.watch.assert_clean()
        return
    for chart_id, count_selector, expected in (("chart-val-curves", "polyline.run", charts["n_curves"]),
                                               ("chart-test-ppl", "rect.bar", charts["n_bars"])):
        go_to(page, f"svg#{chart_id}")
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
    assert page.locator("table[data-source='results_charts.ppl_table'] tbody tr").count() == charts["n_bars"]
    page.watch.assert_clean()


def test_results_quotes_the_toy_and_the_attention_rows(page, site_url, site_dir):
    open_deck(page, site_url)
    toy = table(site_dir, "results_perplexity_toy")
    assert abs(toy["perplexity"] - 4) < 1e-12
    go_to(page, "table[data-source='results_perplexity_toy']")
    text = page.evaluate("Reveal.getCurrentSlide().textContent")
    assert "4.0000" in text
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
    open_deck(page, site_url)
    href = page.locator("a.lab-link").get_attribute("href")
    target = urljoin(f"{site_url}/decks/{SLUG}.html", href)
    assert target == f"{site_url}/lab/index.html"
    assert (site_dir / "lab" / "index.html").exists()
    response = page.request.get(target)
    assert response.ok and "<title>" in response.text()
    page.watch.assert_clean()
