"""Where attention wins: the per-token loss difference MLP minus attention,
split three ways, and the windows where it is largest and smallest.

Input: per-window losses (name -> array, export/experiments.py), the test
windows X [N, w] and targets y [N], the test stories' ID lists (the windows
are made from them in order, models.corpus.make_windows) and the vocabulary.
A positive difference means the attention model was less surprised than the
MLP by that target. Every split's bins cover every window once.
"""

from __future__ import annotations

import math

import numpy as np

from models.tokenizer import EOS_ID, PAD_ID, UNK_ID, detokenize

COMPARED = ("attn4", "attn1")  # each is compared with the MLP
# How far back the target last appeared in the window (1 = the token just before it).
DISTANCE_BINS = ((1, 1), (2, 4), (5, 16), (17, 64))
# Target frequency rank: the vocabulary lists tokens most frequent first (IDs 4 on).
FREQUENCY_BANDS = (100, 1000)
# The target's position in its story (1 = the first token after BOS).
POSITION_BINS = ((1, 8), (9, 32), (33, 63), (64, None))
SHOWN = 10  # windows listed each way
TAIL = 12  # context tokens shown before the target


def positions(story_ids: list[list[int]]) -> np.ndarray:
    """The target position t (1..n) of every window, in make_windows' order."""
    return np.concatenate([np.arange(1, len(ids)) for ids in story_ids if len(ids) > 1] or [np.zeros(0, int)])


def distances(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """How many slots back the target last appears in its window (1 = the last slot); 0 when it does not."""
    hit = (X == y[:, None]) & (X != PAD_ID)
    w = X.shape[1]
    last = w - 1 - np.argmax(hit[:, ::-1], axis=1)  # index of the rightmost hit
    return np.where(hit.any(axis=1), w - last, 0)


def _span(lo: int, hi: int | None, unit: str) -> str:
    if hi is None:
        return f"{lo}+ {unit}"
    return f"{lo} {unit}" if lo == hi else f"{lo}–{hi} {unit}"


def distance_bins(d: np.ndarray) -> list[tuple[str, np.ndarray]]:
    bins = [("not in the window", d == 0)]
    return bins + [(_span(lo, hi, "back"), (d >= lo) & (d <= hi)) for lo, hi in DISTANCE_BINS]


def frequency_bins(y: np.ndarray) -> list[tuple[str, np.ndarray]]:
    rank = y - UNK_ID  # rank 1 = the most frequent ordinary token
    edges = (0,) + FREQUENCY_BANDS
    bins = [
        (f"ranks {lo + 1:,}–{hi:,}" if lo else f"top {hi:,}", (rank > lo) & (rank <= hi))
        for lo, hi in zip(edges, edges[1:])
    ]
    bins.append((f"rank {edges[-1] + 1:,} and rarer", rank > edges[-1]))
    return bins + [("<EOS>", y == EOS_ID), ("<UNK>", y == UNK_ID)]


def position_bins(t: np.ndarray) -> list[tuple[str, np.ndarray]]:
    return [(_span(lo, hi, "").strip(), (t >= lo) & ((t <= hi) if hi else True)) for lo, hi in POSITION_BINS]


def split(losses: dict[str, np.ndarray], bins: list[tuple[str, np.ndarray]]) -> list[dict]:
    """Per bin: count, each model's mean loss and the mean differences MLP minus each attention model."""
    rows = []
    for label, mask in bins:
        n = int(mask.sum())
        mean = {k: float(losses[k][mask].astype(np.float64).mean()) if n else None for k in ("mlp",) + COMPARED}
        row = {"label": label, "count": n, "loss": mean}
        for k in COMPARED:
            diff = losses["mlp"][mask].astype(np.float64) - losses[k][mask]
            row[f"mlp_minus_{k}"] = float(diff.mean()) if n else None
            row[f"{k}_less_surprised_share"] = float((diff > 0).mean()) if n else None
        rows.append(row)
    return rows


def shown_window(i: int, X: np.ndarray, y: np.ndarray, t: np.ndarray, d: np.ndarray, losses, itos) -> dict:
    """One window as text: its last TAIL tokens, the target, each model's loss."""
    context = [int(v) for v in X[i] if v != PAD_ID][-TAIL:]
    tokens = [itos[v] for v in context]
    words = [tok for tok in tokens if not tok.startswith("<")]
    return {
        "window": int(i),
        "position": int(t[i]),
        "distance": int(d[i]),
        "context": tokens,
        "context_text": ("… " if t[i] > TAIL else "") + detokenize(words),
        "target": itos[int(y[i])],
        "loss": {k: float(losses[k][i]) for k in ("mlp",) + COMPARED},
        "mlp_minus_attn4": float(losses["mlp"][i]) - float(losses["attn4"][i]),
    }


def extremes(losses, X, y, t, d, itos, n: int = SHOWN) -> dict:
    """The n windows where four heads beat the MLP by most, and the n where they lose by most."""
    diff = losses["mlp"].astype(np.float64) - losses["attn4"]
    order = np.argsort(-diff, kind="stable")
    worst = np.argsort(diff, kind="stable")
    return {
        "helps": [shown_window(int(i), X, y, t, d, losses, itos) for i in order[:n]],
        "hurts": [shown_window(int(i), X, y, t, d, losses, itos) for i in worst[:n]],
    }


def bin_masks(X: np.ndarray, y: np.ndarray, story_ids) -> dict[str, list[tuple[str, np.ndarray]]]:
    """Every split's (label, mask) bins, as ``analyse`` uses them."""
    t, d = positions(story_ids), distances(X, y)
    return {"distance": distance_bins(d), "frequency": frequency_bins(y), "position": position_bins(t)}


def analyse(losses: dict[str, np.ndarray], X: np.ndarray, y: np.ndarray, story_ids, itos) -> dict:
    t = positions(story_ids)
    if len(t) != len(y):
        raise ValueError(f"{len(y)} windows but the stories give {len(t)} target positions")
    d = distances(X, y)
    return {
        "total": int(len(y)),
        "splits": {
            "distance": split(losses, distance_bins(d)),
            "frequency": split(losses, frequency_bins(y)),
            "position": split(losses, position_bins(t)),
        },
        "overall": split(losses, [("all", np.ones(len(y), dtype=bool))])[0],
        "windows": extremes(losses, X, y, t, d, itos),
        "bins": {"distance": DISTANCE_BINS, "frequency": FREQUENCY_BANDS, "position": POSITION_BINS},
    }


def least_surprised(ps: list[float | None]) -> tuple[int, float] | None:
    """Which model gave one token the highest probability (the first in order on
    a tie) and ln(p_best / p_runner_up) in nats; None when fewer than two
    models scored it. The lab's Score mode row (web/core/scoring.js leastSurprised)."""
    scored = [(p, i) for i, p in enumerate(ps) if p is not None]
    if len(scored) < 2:
        return None
    ranked = sorted(scored, key=lambda pi: (-pi[0], pi[1]))
    (best, at), (second, _) = ranked[0], ranked[1]
    return at, math.log(best) - math.log(second)
