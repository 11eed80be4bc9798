"""Content checks for the maps and Part II decks that need no browser: quoted
course code exists in the course code, the two forward paths of the committed
checkpoints agree (relative tolerance), every slide has a one-line takeaway,
and the built decks carry their diagrams, fragments and widget fallbacks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
MINE = ["maps", "part2"]
CODE_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")


def normal(code: str) -> str:
    return re.sub(r"\s+", "", code.replace("'", '"'))


@pytest.mark.parametrize("slug", MINE)
def test_quoted_course_code_is_in_the_course_code(slug):
    """A code span that quotes a line (an assignment, a masking or softmax call) must
    appear in models/*.py: the deck once quoted `scores.masked_fill(future, ...)`,
    a line nets.py never had."""
    sources = normal("".join(p.read_text(encoding="utf-8") for p in (ROOT / "models").glob("*.py")))
    text = (ROOT / "content" / "decks" / f"{slug}.md").read_text(encoding="utf-8")
    quoted = [
        c for c in CODE_SPAN.findall(text) if "masked_fill" in c or "softmax(" in c or re.search(r"\w = \w+\.\w+\(", c)
    ]
    missing = [c for c in quoted if normal(c) not in sources]
    assert not missing, missing


def test_forward_paths_agree_on_the_committed_checkpoints():
    """forward (final query only) and forward_details (every row) give the same
    logits for the trained checkpoints, to a relative tolerance: their float32
    differences (about 1e-5 on logits of size 10) fail a fixed 1e-5 absolute one."""
    from models.checkpoints import load_checkpoint, load_vocab

    vocab = load_vocab()
    for kind in ("attn1", "attn4"):
        model, info = load_checkpoint(kind)
        T = model.position_embedding.num_embeddings
        g = torch.Generator().manual_seed(0)
        ids = torch.randint(4, len(vocab), (8, T), generator=g)
        ids[0, :10] = vocab.pad_id  # a padded window, starting at BOS
        ids[0, 10] = vocab.bos_id
        with torch.inference_mode():
            fast, weights = model.attend(ids)
            details = model.forward_details(ids)
        scale = fast.abs().max().item()
        # relative to the size of the logits: float32 sums in two orders
        assert (fast - details["logits"]).abs().max().item() <= 5e-6 * scale, kind
        assert torch.allclose(details["weights"][:, :, -1], weights, rtol=1e-4, atol=1e-6), kind


# ---- the built decks ------------------------------------------------------------------


def sections(site_dir: Path, slug: str) -> list[str]:
    html = (site_dir / "decks" / f"{slug}.html").read_text(encoding="utf-8")
    return re.findall(r'<section data-slide="\d+"( class="end-slide")?>(.*?)</section>', html, flags=re.S)


@pytest.mark.parametrize("slug", MINE)
def test_every_slide_ends_with_one_takeaway(site_dir, slug):
    missing = []
    for i, (end, body) in enumerate(sections(site_dir, slug)):
        main = body.split('<aside class="notes">')[0]
        if end or 'class="title-slide"' in main:
            continue
        if main.count('<p class="takeaway">') != 1:
            missing.append(i)
    assert not missing, f"{slug}: slides without exactly one takeaway: {missing}"


def test_at_least_twelve_titled_figures_across_the_decks(site_dir):
    counts = {}
    for page in sorted((site_dir / "decks").glob("*.html")):
        html = page.read_text(encoding="utf-8")
        svgs = re.findall(r'<svg[^>]*class="(?:diagram|chart)"[^>]*>(.*?)</svg>', html, flags=re.S)
        for svg in svgs:
            title = re.search(r"<title[^>]*>([^<]{8,})</title>", svg)
            desc = re.search(r"<desc[^>]*>([^<]{40,})</desc>", svg)
            assert title and desc, f"{page.name}: a figure without a real <title>/<desc>"
        counts[page.stem] = len(svgs)
    assert counts.get("maps", 0) >= 5 and counts.get("part2", 0) >= 5, counts
    assert sum(counts.values()) >= 12, counts


@pytest.mark.parametrize("slug", MINE)
def test_worked_arithmetic_is_revealed_step_by_step(site_dir, slug):
    stepped = [body for _, body in sections(site_dir, slug) if body.count('class="fragment step"') >= 2]
    assert len(stepped) >= (3 if slug == "maps" else 1)


@pytest.mark.parametrize("slug", MINE)
def test_widget_slides_have_text_and_part2_widgets_a_static_table(site_dir, slug):
    for _, body in sections(site_dir, slug):
        main = body.split('<aside class="notes">')[0]
        if 'class="widget"' not in main:
            continue
        prose = re.sub(r'<div class="widget".*?</div>', " ", main, flags=re.S)
        prose = re.sub(r"<[^>]+>", " ", prose)
        assert len(prose.split()) >= 25, f"{slug}: a widget slide with almost no text: {prose[:120]}"
        if slug == "part2" and "part2-phases" in main or "part2-mask" in main or "part2-walkthrough" in main:
            assert 'class="data compact widget-fallback"' in main


def test_figures_draw_the_real_attention_weights(table):
    """The arrows are labelled (and sized) by the weights the tables hold (build/tables)."""
    from export.tables.maps import figures as maps_figures
    from export.tables.part2 import figures as part2_figures

    t = {name: table(name) for name in ("maps_attention", "part2_bank")}
    att = t["maps_attention"]
    svg = maps_figures.attention_arrows(att)
    for row in att["weights"]:
        for w in row[0]:
            assert f"α = {w:.3f}" in svg
    # each solid arrow is as thick as its own weight: width = a + b·weight with b > 0
    # (drawn from a maximum, or from another slot's weight, the widths would not fit)
    solid = [p for p in re.findall(r"<path [^>]*marker-end[^>]*>", svg) if "stroke-dasharray" not in p]
    widths = [float(re.search(r'stroke-width="([\d.]+)"', p).group(1)) for p in solid]
    drawn = [w for row in att["weights"] for w in row[0] if w > 0]
    assert len(widths) == len(drawn) >= 4
    n = len(drawn)
    mean_w, mean_d = sum(widths) / n, sum(drawn) / n
    slope = sum((d - mean_d) * (w - mean_w) for d, w in zip(drawn, widths)) / sum((d - mean_d) ** 2 for d in drawn)
    assert slope > 1  # at least 1 px more per unit of weight
    for width, w in zip(widths, drawn):  # the SVG prints widths to 0.1 px
        assert width == pytest.approx(mean_w + slope * (w - mean_d), abs=0.08), (widths, drawn)
    bank = t["part2_bank"]
    svg = part2_figures.bank_arrows(bank)
    row = bank["cheque"]["weights"]
    top = max(range(bank["position"] - 1), key=lambda j: row[j])
    assert f'stroke-width="{16 * row[top]:.1f}'.rstrip("0").rstrip(".") in svg  # kit/ribbons.py: 16 units a weight of 1
    flipped = dict(bank, cheque=dict(bank["cheque"], weights=row[::-1]))
    assert part2_figures.bank_arrows(flipped) != svg


def test_map_strip_text_has_enough_contrast(page, site_url):

    page.goto(f"{site_url}/decks/maps.html")
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    # the first slide with a map strip (the deck opens with its title and what it teaches)
    first = page.evaluate(
        "[...document.querySelectorAll('.slides > section')].findIndex(s => s.querySelector('nav.map'))"
    )
    page.evaluate(f"Reveal.slide({first})")
    page.add_script_tag(path=str(ROOT / "node_modules" / "axe-core" / "axe.min.js"))
    result = page.evaluate("""axe.run(Reveal.getCurrentSlide().querySelector('nav.map'),
                              {runOnly: ['color-contrast']})""")
    assert result["passes"] and not result["violations"], result["violations"]
