"""The four decks read as one course (issue 19): each opens with what the
learner knows and will be able to do and closes with a recap; Part I's
attention half is a marked preview that links forward; Part III recalls Part
I's data slides once instead of repeating them; the reasoning that carries an
argument is on the slide; the check questions, sampling, overfitting and
full-Transformer slides exist with their numbers sourced; the notebooks are
pages of the site, linked from the slides whose numbers they re-derive.

Reads build/site (make site)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from common.settings import ROOT
from support.statements import slide, slides, table, takeaway

DECKS = ["maps", "part2", "part3", "results"]


@pytest.mark.parametrize("slug", DECKS)
def test_each_deck_opens_with_before_and_after_and_closes_with_a_recap(site_dir, slug):
    all_slides = slides(site_dir, slug)[:-1]  # the last section is the build's "Where next"
    opening = all_slides[1]
    assert opening["title"] == "Where this deck starts, and where it ends"
    assert ("You already know" in opening["text"]) and "After this deck you can" in opening["text"]
    # an appendix may follow the recap; nothing else may
    body = [s for s in all_slides if not s["title"].startswith("Appendix")]
    assert all_slides[: len(body)] == body, "an appendix slide sits before the end of the deck"
    recaps = [i for i, s in enumerate(body) if s["title"].startswith("Recap")]
    assert recaps and recaps[-1] >= len(body) - 3, [s["title"] for s in body[-4:]]


def test_part1_attention_half_is_a_marked_preview_linking_forward(site_dir):
    titles = [s["title"] for s in slides(site_dir, "maps")]
    start = titles.index("Preview: the attention model, taught in Part II")
    end = titles.index("Ten logits become ten probabilities")
    preview = slides(site_dir, "maps")[start + 1 : end]
    assert len(preview) >= 10
    for s in preview:
        assert re.search(
            r'class="muted small preview-tag">Preview of Part II · <a class="see" href="part2\.html#/\d+"', s["html"]
        ), s["title"]
    assert "Why a preview" in slides(site_dir, "maps")[start]["notes"]


def test_part2_links_back_to_part1_where_it_reteaches(site_dir):
    back = [
        s["title"] for s in slides(site_dir, "part2") if re.search(r'class="see" href="maps\.html#/\d+"', s["html"])
    ]
    assert len(back) >= 4, back


def test_part3_recalls_the_data_slides_once(site_dir):
    titles = [s["title"] for s in slides(site_dir, "part3")]
    for gone in ("A typical story", "The shortest story in our subset", "Longer stories", "Split stories first"):
        assert not any(t.startswith(gone) for t in titles), gone
    recap = slide(site_dir, "part3", "Recap from Part I")
    assert len(re.findall(r'class="see" href="maps\.html#/\d+"', recap["html"])) >= 3
    # the split counts are drawn on the slide; their table stays in its notes (reading view, print)
    assert 'data-figure="part3_pictures.windows"' in recap["html"]
    assert 'data-source="part3_corpus.audit"' in recap["html"] + recap["notes_html"]


def test_the_arguments_are_on_the_slides(site_dir):
    pooling = slide(site_dir, "part2", "Pooling")
    assert "No fixed set of weights suits both sentences" in pooling["text"]
    crossed = table(site_dir, "part2_pooled")["crossed"]
    assert f"{crossed['river_weights_on_cheque'][1]:.3f}" in pooling["text"]
    bank = slide(site_dir, "part2", "Same “bank”, two contexts")
    assert 'data-source="part2_bank.both"' in bank["html"]
    # both heads' weight matrices, drawn as heatmaps (tests/test_deck_pictures.py checks their cells)
    weights = slide(site_dir, "part3", "Every query token’s weights, both heads")
    assert 'data-figure="part3_pictures.weights_all"' in weights["html"]


def test_check_questions_reveal_computed_answers(site_dir):
    ck = table(site_dir, "part3_checks")
    s = slide(site_dir, "part3", "Check yourself")
    assert s["html"].count('class="fragment"') == 4
    assert f"{ck['longest_windows']}" in s["text"] and ck["longest_windows"] == ck["longest_tokens"] + 1
    assert ck["phrase_token_count"] > ck["phrase_words"] and (ck["bos"], ck["eos"]) == (1, 1)
    assert ck["same_targets"] and ck["sentences"] == 3
    prefixes = slide(site_dir, "part3", "Two prefixes in the real vocabulary")
    assert prefixes["html"].count('class="fragment"') == 2 and "embeddings yet" in prefixes["text"]


def test_sampling_slides_use_the_lab_rule_and_the_lab_links_land_there(site_dir):
    dec = table(site_dir, "part3_decoding")
    t = slide(site_dir, "part3", "Sampling: temperature")
    # the tables are drawn as bars on the slides and kept in their notes
    assert 'data-figure="part3_pictures.temperature"' in t["html"]
    assert 'data-source="part3_decoding.temperature_table"' in t["notes_html"]
    assert "greedy" in takeaway(t)
    k = slide(site_dir, "part3", "Sampling: top-k and top-p cut the tail")
    assert 'data-figure="part3_pictures.filters"' in k["html"]
    assert 'data-source="part3_decoding.filter_table"' in k["notes_html"]
    w = slide(site_dir, "part3", "Try temperature, top-k and top-p")
    assert 'data-widget="part3-sampling"' in w["html"] and "widget-fallback" in w["html"]
    assert dec["greedy_is_top"] and dec["small_temperature_top"] > 0.99
    js = (ROOT / "web" / "lab" / "slides.js").read_text(encoding="utf-8")
    for key, title in (("temperature", t["title"]), ("topk", k["title"]), ("topp", k["title"])):
        assert re.search(rf"{key}: {{ deck: 'part3', title: '{re.escape(title)}' }}", js), key
    lab = (ROOT / "web" / "lab" / "index.html").read_text(encoding="utf-8")
    for key in ("temperature", "topk", "topp"):
        assert f'data-slide="{key}"' in lab


def test_full_transformer_and_overfitting_slides_quote_their_tables(site_dir):
    tf = table(site_dir, "part3_transformer")
    s = slide(site_dir, "part3", "What a full Transformer adds")
    assert 'data-source="part3_transformer"' in s["html"]
    assert f"{tf['gpt']['parameters']:,}" in s["text"] and f"{tf['ours']['parameters']:,}" in s["text"]
    of = table(site_dir, "part3_overfitting")
    if of.get("available"):
        o = slide(site_dir, "part3", "Overfitting")
        assert 'id="chart-overfitting"' in o["html"] and 'data-source="part3_overfitting"' in o["html"]
        mlp = of["by_kind"]["mlp"]
        assert mlp["last_train"] < mlp["best_train"] and mlp["last_val"] > mlp["best_val"]  # what "overfits" says


@pytest.mark.parametrize("slug", DECKS)
def test_notebooks_are_pages_linked_from_the_slides(site_dir, slug):
    page = site_dir / "notebooks" / f"{slug}.html"
    if not (site_dir / "notebooks").is_dir():
        pytest.skip("built with --no-notebooks")
    html = page.read_text(encoding="utf-8")
    assert "How to run this notebook" in html and f'href="{slug}.ipynb" download' in html
    assert 'class="nb-output"' in html and 'class="highlight"' in html
    linked = set(
        re.findall(
            rf'href="\.\./notebooks/{slug}\.html#([a-z0-9-]+)"', "".join(s["html"] for s in slides(site_dir, slug))
        )
    )
    assert len(linked) >= 5 and all(f'id="{x}"' in html for x in linked)
    nb = json.loads((site_dir / "notebooks" / f"{slug}.ipynb").read_text(encoding="utf-8"))
    first_code = next(c for c in nb["cells"] if c["cell_type"] == "code")
    assert "import models" in "".join(first_code["source"]) and "make site" in "".join(first_code["source"])
    assert "How to run this notebook" in "".join(nb["cells"][0]["source"])


def test_the_notebook_guard_names_the_steps_when_models_is_missing(tmp_path):
    """The first code cell, run where `models` cannot be imported, stops with
    the download, `make site` and `jupyter lab` steps."""
    import subprocess
    import sys

    source = (ROOT / "notebooks" / "maps.py").read_text(encoding="utf-8")
    cell = source.split("# %%\n", 2)[1]  # the first code cell
    script = tmp_path / "cell.py"
    script.write_text(cell, encoding="utf-8")
    # -I -S: no site-packages, so the editable install of the project is not importable
    run = subprocess.run([sys.executable, "-I", "-S", str(script)], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode != 0
    for step in ("attention-course-src.zip", "make site", "jupyter lab"):
        assert step in run.stderr


def test_a_notebook_link_to_a_missing_section_stops_the_build(tmp_path):
    from types import SimpleNamespace

    from markupsafe import Markup

    from site_builder.assemble import BuildError
    from site_builder.build import Inputs
    from site_builder.deck import Slide
    from site_builder.jinja_env import environment
    from site_builder.notebook_pages import write

    nb = {
        "cells": [{"cell_type": "markdown", "source": "## 1. Tokens\n\ntext"}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "notebooks").mkdir()
    path = tmp_path / "notebooks" / "maps.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    env = environment(Inputs().templates, web=Inputs().web)
    good = Slide(Markup('<h2>S</h2><a href="../notebooks/maps.html#tokens">x</a>'), None)
    deck = SimpleNamespace(slug="maps", slides=[good])
    nav = {"maps": {"title": "Part I", "slides": "decks/maps.html", "reading": "read/maps.html"}}
    write(env, tmp_path, [path], [deck], nav, {})
    assert 'id="tokens"' in (tmp_path / "notebooks" / "maps.html").read_text(encoding="utf-8")
    deck.slides = [Slide(Markup('<h2>S</h2><a href="../notebooks/maps.html#nowhere">x</a>'), None)]
    with pytest.raises(BuildError, match="not a section of that notebook"):
        write(env, tmp_path, [path], [deck], nav, {})
    assert Path(path).exists()
