"""Uncertainty of the measured gaps: a bootstrap over test stories.

Test windows come from whole stories (models.corpus.make_windows), and the
windows of one story are not independent, so the unit resampled is the story:
each draw picks as many stories as the test split has, with replacement, and
every statistic is recomputed on the windows of the stories drawn (a story
drawn twice counts twice). The interval is the 2.5th and 97.5th percentile of
the ``DRAWS`` recomputed values (numpy's default linear interpolation).

The draws are fixed by ``SEED``: ``numpy.random.default_rng(SEED).integers(0,
S, size=(DRAWS, S))`` for S stories; notebooks/results.py repeats them in its
own code. What is bootstrapped (export/experiments.py calls ``intervals``):

- the paired gain of the seed-11 checkpoints, one head minus four heads, in
  nats per token and in perplexity;
- each ablation's cost (the variant's mean loss minus its model's);
- each "where attention wins" bin: MLP minus each attention model;
- the share of targets where each attention model is less surprised than the
  MLP (its loss is lower), overall.
"""

from __future__ import annotations

import numpy as np

SEED = 314  # fixed and stated on the slides
DRAWS = 2000
LEVEL = 0.95


def story_of_window(story_ids: list[list[int]]) -> np.ndarray:
    """The index of the story each window comes from, in make_windows' order
    (a story of n ids gives n - 1 windows)."""
    parts = [np.full(len(ids) - 1, s, dtype=np.int64) for s, ids in enumerate(story_ids) if len(ids) > 1]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def draw_counts(n_stories: int, seed: int = SEED, draws: int = DRAWS) -> np.ndarray:
    """[draws, n_stories]: how often each story is drawn in each resample."""
    picks = np.random.default_rng(seed).integers(0, n_stories, size=(draws, n_stories))
    counts = np.zeros((draws, n_stories), dtype=np.float64)
    np.add.at(counts, (np.repeat(np.arange(draws), n_stories), picks.ravel()), 1.0)
    return counts


class Resampler:
    """Means of per-window values over the drawn stories, one per draw."""

    def __init__(self, story: np.ndarray, seed: int = SEED, draws: int = DRAWS):
        self.story = story
        self.n_stories = int(story.max()) + 1 if len(story) else 0
        self.counts = draw_counts(self.n_stories, seed, draws)

    def means(self, values: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """[draws]: the mean of ``values`` (over the windows in ``mask``) in each resample."""
        values = np.asarray(values, dtype=np.float64)
        weight = np.ones(len(values)) if mask is None else mask.astype(np.float64)
        sums = np.bincount(self.story, weights=values * weight, minlength=self.n_stories)
        sizes = np.bincount(self.story, weights=weight, minlength=self.n_stories)
        return (self.counts @ sums) / (self.counts @ sizes)


def interval(values: np.ndarray) -> list[float]:
    """The central ``LEVEL`` percentile interval of bootstrap values."""
    tail = (1 - LEVEL) / 2 * 100
    lo, hi = np.nanpercentile(values, [tail, 100 - tail])  # a draw without a bin's targets has no mean
    return [float(lo), float(hi)]


def intervals(losses: dict[str, np.ndarray], variants: list[dict], bins: dict, story: np.ndarray) -> dict:
    """Every interval the results deck shows. ``losses``: variant name -> per-window
    loss; ``variants``: export/experiments.py's specs; ``bins``: split name ->
    [(label, mask)] as export/attention_wins.py builds them."""
    r = Resampler(story)
    mean = {name: r.means(v) for name, v in losses.items()}
    out = {
        "seed": SEED,
        "draws": DRAWS,
        "level": LEVEL,
        "stories": r.n_stories,
        "paired": {
            "loss_gain": interval(mean["attn1"] - mean["attn4"]),
            "ppl_gain": interval(np.exp(mean["attn1"]) - np.exp(mean["attn4"])),
        },
        "head_cost": {v["name"]: interval(mean[v["name"]] - mean[v["kind"]]) for v in variants if v["heads_off"]},
        "share": {},
        "wins": {},
    }
    for kind in ("attn1", "attn4"):
        less = (losses[kind].astype(np.float64) < losses["mlp"]).astype(np.float64)
        out["share"][kind] = interval(r.means(less))
    for name, split in bins.items():
        rows = []
        for label, mask in split:
            row = {"label": label, "count": int(mask.sum())}
            if row["count"]:
                for kind in ("attn1", "attn4"):
                    diff = losses["mlp"].astype(np.float64) - losses[kind]
                    row[f"mlp_minus_{kind}"] = interval(r.means(diff, mask))
            rows.append(row)
        out["wins"][name] = rows
    return out
