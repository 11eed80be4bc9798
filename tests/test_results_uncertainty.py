"""Uncertainty on every gap the results deck states (issue 32): the bootstrap
over test stories (export/bootstrap.py) and the intervals the tables show.

- the resampler: a draw's mean is the mean over the windows of the stories
  drawn, a story drawn twice counting twice (checked against building each
  resample's windows explicitly);
- every interval in results_paired, results_head_cost and
  results_attention_wins is recomputed here from the per-window losses the
  experiments stage saved (build/experiments/window_losses.npz), with this
  file's own resampling code, and must agree; the saved losses must give
  experiments.json's means, and each interval must hold its point estimate;
- the paired table: every seed's gain is the one-head minus the four-head
  perplexity of models/results.json, and the same seed gives both models the
  same initial weights.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from common.layout import MODELS
from common.settings import BUILD_DIR
from export import bootstrap
from export.tables.results.paired import pairs, same_start
from models.corpus import make_windows
from models.nets import build
from models.records import load_results

EXPERIMENTS = BUILD_DIR / "experiments"


def explicit_means(values: np.ndarray, story: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """Per draw: concatenate the windows of the drawn stories and average them."""
    windows = {s: np.flatnonzero(story == s) for s in np.unique(story)}
    return np.array([values[np.concatenate([windows[s] for s in row])].mean() for row in picks])


def test_story_of_window_follows_make_windows():
    stories = [[1, 5, 6], [1], [1, 7, 8, 9]]  # the second has no target
    X, y = make_windows(stories)
    assert bootstrap.story_of_window(stories).tolist() == [0, 0, 2, 2, 2] and len(y) == 5


def test_a_resample_mean_is_the_mean_over_the_drawn_stories_windows():
    rng = np.random.default_rng(0)
    story = np.repeat(np.arange(7), [3, 1, 4, 2, 5, 1, 2])
    values = rng.normal(size=len(story))
    r = bootstrap.Resampler(story, seed=5, draws=40)
    picks = np.random.default_rng(5).integers(0, 7, size=(40, 7))
    assert r.counts.sum(axis=1).tolist() == [7] * 40
    assert np.allclose(r.means(values), explicit_means(values, story, picks))
    mask = values > 0
    masked = [values[np.concatenate([np.flatnonzero((story == s) & mask) for s in row])] for row in picks]
    want = [m.mean() if len(m) else np.nan for m in masked]
    assert np.allclose(r.means(values, mask), want, equal_nan=True)


def test_the_interval_is_the_central_percentiles():
    values = np.arange(1001, dtype=float)
    assert bootstrap.interval(values) == pytest.approx([25.0, 975.0])


# ------------------------------------------------------------ the built intervals
@pytest.fixture(scope="module")
def built(tables_dir):
    losses = np.load(EXPERIMENTS / "window_losses.npz")
    result = json.loads((EXPERIMENTS / "experiments.json").read_text())
    data = {n: losses[n].astype(np.float64) for n in losses.files}
    tables = {
        n: json.loads((tables_dir / f"{n}.json").read_text())
        for n in ("results_paired", "results_head_cost", "results_attention_wins")
    }
    return data, result, tables


def own_intervals(story: np.ndarray, seed: int, draws: int):
    """This test's resampler: per-story sums by sorting, draw counts by bincount."""
    n = int(story.max()) + 1
    picks = np.random.default_rng(seed).integers(0, n, size=(draws, n))
    counts = np.stack([np.bincount(row, minlength=n) for row in picks]).astype(np.float64)
    starts = np.r_[0, np.flatnonzero(np.diff(story)) + 1]
    assert (np.diff(story) >= 0).all()  # windows come story by story

    def means(values, mask=None):
        w = np.ones(len(values)) if mask is None else mask.astype(np.float64)
        sums = np.zeros(n)
        sizes = np.zeros(n)
        sums[story[starts]] = np.add.reduceat(values * w, starts)
        sizes[story[starts]] = np.add.reduceat(w, starts)
        return counts @ sums / (counts @ sizes)

    def ci(v):
        return np.nanpercentile(v, [2.5, 97.5]).tolist()

    return means, ci


def test_every_interval_the_deck_shows_agrees_with_a_recomputation(built):
    data, result, tables = built
    boot = result["bootstrap"]
    story = data["story"].astype(np.int64)
    assert boot["stories"] == int(story.max()) + 1 and boot["level"] == 0.95
    for name, v in result["variants"].items():  # the saved losses are the ones the means came from
        assert data[name.replace("-", "_")].mean() == pytest.approx(v["loss"], rel=1e-9)
    means, ci = own_intervals(story, boot["seed"], boot["draws"])
    m = {k: means(data[k]) for k in ("mlp", "attn1", "attn4")}

    paired = tables["results_paired"]["bootstrap"]
    assert paired["seed"] == boot["seed"] and paired["draws"] == boot["draws"]
    assert paired["ppl_gain_ci"] == pytest.approx(ci(np.exp(m["attn1"]) - np.exp(m["attn4"])), rel=1e-6)
    assert paired["loss_gain_ci"] == pytest.approx(ci(m["attn1"] - m["attn4"]), rel=1e-6)
    lo, hi = paired["ppl_gain_ci"]
    assert lo < paired["ppl_gain"] < hi

    hc = tables["results_head_cost"]["by_kind"]
    states = [(f"attn4-off{h['head'] - 1}", "attn4", h) for h in hc["attn4"]["heads"]]
    states += [("attn4-off-all", "attn4", hc["attn4"]["all_off"]), ("attn1-off0", "attn1", hc["attn1"]["all_off"])]
    for name, kind, state in states:
        want = ci(means(data[name.replace("-", "_")]) - m[kind])
        assert state["delta_ci"] == pytest.approx(want, rel=1e-6), name
        assert state["delta_ci"][0] < state["delta"] < state["delta_ci"][1], name

    aw = tables["results_attention_wins"]
    for kind in ("attn1", "attn4"):
        less = (data[kind] < data["mlp"]).astype(np.float64)
        share = aw["share_percent"][kind]
        assert share["ci"] == pytest.approx([100 * c for c in ci(means(less))], rel=1e-6)
        assert share["ci"][0] < share["value"] < share["ci"][1]
    X_bins = rebuild_bins(result, data)
    for split, bins in aw["splits"].items():
        for b in bins:
            if not b["count"]:
                continue
            mask = X_bins[split][b["label"]]
            assert int(mask.sum()) == b["count"]
            for kind in ("attn1", "attn4"):
                want = ci(means(data["mlp"] - data[kind], mask))
                assert b[f"mlp_minus_{kind}_ci"] == pytest.approx(want, rel=1e-6), (split, b["label"], kind)


def rebuild_bins(result, data):
    """Each split's masks, from the test windows (the same splits export/attention_wins.py draws)."""
    from export import attention_wins  # noqa: PLC0415
    from models.corpus import prepare  # noqa: PLC0415

    corpus = prepare("course")
    X, y = corpus.windows("test")
    assert len(y) == result["test_windows"] == len(data["story"])
    bins = attention_wins.bin_masks(X.numpy(), y.numpy(), corpus.ids("test"))
    return {split: dict(b) for split, b in bins.items()}


# ------------------------------------------------------------ the paired table
def test_the_paired_gains_are_one_head_minus_four_heads_per_seed(tables_dir):
    results = load_results(MODELS.results)
    table = json.loads((tables_dir / "results_paired.json").read_text())
    by = {(r["kind"], r["seed"]): r for r in results["runs"]}
    assert [p["seed"] for p in table["pairs"]] == sorted(s for k, s in by if k == "attn1" and ("attn4", s) in by)
    for p in table["pairs"]:
        one, four = by[("attn1", p["seed"])]["test_perplexity"], by[("attn4", p["seed"])]["test_perplexity"]
        assert p["gain"] == pytest.approx(one - four) and p["gain_percent"] == pytest.approx((one - four) / one * 100)
    assert table["all_positive"] == all(p["gain"] > 0 for p in table["pairs"])
    assert table["min_gain"] == min(p["gain"] for p in table["pairs"])
    for kind, t in table["times"].items():
        seconds = sorted(r["train_seconds"] for r in results["runs"] if r["kind"] == kind)
        mid = len(seconds) // 2
        assert t["median"] == pytest.approx(seconds[mid] if len(seconds) % 2 else (seconds[mid - 1] + seconds[mid]) / 2)
    worse = [dict(by[("attn1", 11)], test_perplexity=30.0), dict(by[("attn4", 11)], test_perplexity=31.0)]
    assert pairs(worse)[0]["gain"] == -1.0  # a four-head run that lost shows a negative gain


def test_the_same_seed_gives_both_attention_models_the_same_start():
    assert same_start(11)
    torch.manual_seed(11)
    one = build("attn1").state_dict()
    torch.manual_seed(12)
    other = build("attn4").state_dict()
    assert not all(torch.equal(one[k], other[k]) for k in one)  # another seed: another start
    assert math.isfinite(float(one["W_Q.weight"].sum()))
