"""Part III's replay slides (export/tables/part3/replay.py): every weight and
probability they show is the training trace's, at the step they name, and the
built slides print the table's values. The table is read from build/tables
(`make site` wrote it); the test without a trace computes it."""

from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET

import pytest

from common.layout import MODELS
from export.tables.kit.sources import Sources
from export.tables.part3.replay import HEAD_STEPS, PROBE, STEPS, replay_table
from models.checkpoints import load_vocab

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def trace() -> dict:
    return json.loads(MODELS.trace.read_text())


@pytest.fixture(scope="module")
def rp(table) -> dict:
    return table("part3_replay")


def _point(trace, kind, step):
    return next(p for p in trace["runs"][kind]["points"] if p["step"] == step)


def test_the_one_head_figure_prints_the_traced_weights_of_each_step(trace, rp):
    i = [p["name"] for p in trace["probes"]].index(PROBE)
    n = len(trace["probes"][i]["ids"])
    selected = trace["runs"]["attn1"]["selected_step"]
    assert rp["one_head"]["steps"] == sorted(set(STEPS) | {selected})
    root = ET.fromstring(rp["svg_one"])
    texts = [t.text for t in root.iter(f"{SVG}text")]
    for step, row in zip(rp["one_head"]["steps"], rp["one_head"]["rows"]):
        traced = _point(trace, "attn1", step)["attention"][i][0]
        assert row == traced[-n:] and sum(traced[:-n]) == 0  # PAD slots get nothing
    shown = [t for t in texts if re.fullmatch(r"\d\.\d\d", t or "")]
    expected = [f"{v:.2f}" for row in rp["one_head"]["rows"] for v in row]
    assert shown == expected  # the cells
    (key,) = [g for g in root.iter(f"{SVG}g") if g.get("class") == "scale-legend"]
    ends = [t.text for t in key.iter(f"{SVG}text")][:2]
    assert key.get("data-scale") == "weight" and ends == ["0", "1"]  # the legend's rounded ends
    assert rp["tokens"][0] == "BOS" and rp["tokens"][-1] == rp["query"]


def test_the_four_head_figure_and_takeaway_follow_the_trace(trace, rp):
    i = [p["name"] for p in trace["probes"]].index(PROBE)
    n = len(trace["probes"][i]["ids"])
    selected = trace["runs"]["attn4"]["selected_step"]
    assert rp["four_heads"]["steps"] == sorted(set(HEAD_STEPS) | {selected})
    weights = _point(trace, "attn4", selected)["attention"][i]
    assert len(rp["heads_selected"]) == len(weights) == 4
    for h, x in enumerate(rp["heads_selected"]):
        row = weights[h][-n:]
        assert x["weight"] == max(row) and rp["tokens"][row.index(max(row))] == x["token"]
    # the figure's description names every head's kept favourite with its traced weight
    desc = ET.fromstring(rp["svg_four"]).find(f"{SVG}desc").text
    for h in range(4):
        assert f"{max(weights[h][-n:]):.2f}" in desc
    assert f"{weights[3][-n:][-2]:.2f}" in desc and desc.count("head ") == 4
    # every recorded step up to the kept one, each head's favourite read from the trace
    recorded = [p for p in trace["runs"]["attn4"]["points"] if p["step"] <= selected]
    assert rp["four_heads"]["recorded_steps"] == [p["step"] for p in recorded]
    for h, strip in enumerate(rp["four_heads"]["strips"]):
        for cell, p in zip(strip, recorded, strict=True):
            row = p["attention"][i][h][-n:]
            assert cell["slot"] == row.index(max(row)) and cell["weight"] == max(row)


def test_the_prediction_rows_are_the_traced_top_three(trace, rp):
    i = [p["name"] for p in trace["probes"]].index(PROBE)
    vocab = load_vocab(MODELS)
    for row in rp["rows"]:
        step = row[0]
        for kind, cell in zip(("mlp", "attn1", "attn4"), row[1:]):
            top = _point(trace, kind, step)["top10"][i][:3]
            expected = ", ".join(f"“{vocab.itos[t]}” {q * 100:.1f}%" for t, q in top)
            star = " ★" if trace["runs"][kind]["selected_step"] == step else ""
            assert cell == expected + star


def test_without_a_trace_the_table_says_so(tmp_path):
    t = replay_table(Sources(models_dir=tmp_path))
    assert t["available"] is False and "training_trace.json" in t["reason"]


def test_the_built_slides_print_the_table(site_dir, rp):
    deck = (site_dir / "decks" / "part3.html").read_text()
    sections = re.split(r"<section", deck)
    one = next(s for s in sections if 'data-figure="part3_replay.svg_one"' in s)
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", one)))
    assert f"{rp['one_selected']['weight']:.2f}" in text and rp["one_selected"]["token"] in text
    four = next(s for s in sections if 'data-figure="part3_replay.svg_four"' in s)
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", four)))
    for x in rp["heads_selected"]:
        assert f"head {x['head']} → “{x['token']}” {x['weight']:.2f}" in text
    table = next(s for s in sections if 'data-source="part3_replay"' in s and "<table" in s)
    assert all(html.escape(row[2], quote=False) in table for row in rp["rows"])
