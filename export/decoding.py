"""The decoding rule shared by the exporter (reference continuations) and the
browser lab. web/core/decoding.js implements exactly the same rule; the tests
in tests/test_decoding_parity.py run both on the same inputs.

- history = [BOS] + prompt IDs (no EOS);
- context = the last 64 IDs of the history, left-padded with PAD;
- PAD, BOS and UNK are never chosen; choosing EOS stops without adding text;
- greedy: the highest logit, the lowest ID on ties;
- sampled: softmax(logits / temperature) over the allowed IDs, in float64,
  one draw u from mulberry32 per step, the first ID whose running sum of
  weights exceeds u * total;
- top-k, then top-p (sampled only): rank the allowed IDs by logit, highest
  first, lower ID first on ties; keep the first top_k of them (0: all); then
  keep the shortest prefix of that ranking whose share of the kept weight
  reaches top_p (1: all); every other ID gets weight 0. top_k=1, or a tiny
  top_p, keeps only the greedy choice.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from common.config import CONFIG
from models.tokenizer import BOS_ID, EOS_ID, PAD_ID, UNK_ID

CONTEXT = CONFIG.data.context
TOKEN_LIMIT = CONFIG.decoding.token_limit

BANNED = frozenset((PAD_ID, BOS_ID, UNK_ID))
MASK32 = 0xFFFFFFFF


class Mulberry32:
    """Tommy Ettinger's mulberry32: 32-bit state, floats in [0, 1) with 32
    random bits. Written with explicit 32-bit wrap-around so that it equals the
    JavaScript version (Math.imul, >>>) bit for bit."""

    def __init__(self, seed: int):
        self.state = seed & MASK32

    def next(self) -> float:
        self.state = (self.state + 0x6D2B79F5) & MASK32
        a = self.state
        t = ((a ^ (a >> 15)) * (a | 1)) & MASK32
        t = (((t + (((t ^ (t >> 7)) * (t | 61)) & MASK32)) & MASK32) ^ t) & MASK32
        return ((t ^ (t >> 14)) & MASK32) / 4294967296.0


def context_window(history: Sequence[int], size: int = CONTEXT) -> list[int]:
    """The last ``size`` IDs of the history, left-padded with PAD."""
    tail = list(history[-size:]) if size else []
    return [PAD_ID] * (size - len(tail)) + tail


def start_history(prompt_ids: Sequence[int]) -> list[int]:
    return [BOS_ID] + list(prompt_ids)


def greedy_choice(logits: Sequence[float]) -> int:
    best, best_value = -1, -math.inf
    for i, value in enumerate(logits):
        if i in BANNED:
            continue
        if best < 0 or value > best_value:  # strict: the lowest ID wins ties
            best, best_value = i, value
    return best


def check_filters(top_k: int, top_p: float) -> None:
    if not (isinstance(top_k, int) and not isinstance(top_k, bool) and top_k >= 0):
        raise ValueError(f"top_k must be an integer >= 0 (0 keeps every token), got {top_k!r}")
    if not (isinstance(top_p, (int, float)) and 0.0 < top_p <= 1.0):
        raise ValueError(f"top_p must be in (0, 1] (1 keeps every token), got {top_p!r}")


def ranking(logits: Sequence[float]) -> list[int]:
    """The allowed IDs, highest logit first, lower ID first on ties."""
    return sorted((i for i in range(len(logits)) if i not in BANNED), key=lambda i: (-float(logits[i]), i))


def kept_ids(logits: Sequence[float], weights: Sequence[float], top_k: int = 0, top_p: float = 1.0) -> list[int]:
    """The IDs that survive top-k then top-p, in ranking order."""
    order = ranking(logits)
    if top_k:
        order = order[:top_k]
    if top_p >= 1.0:
        return order
    total = 0.0
    for i in order:
        total += weights[i]
    running, kept = 0.0, []
    for i in order:
        kept.append(i)
        running += weights[i]
        if running / total >= top_p:
            break
    return kept


def sampling_weights(logits: Sequence[float], temperature: float, top_k: int = 0, top_p: float = 1.0) -> list[float]:
    """Unnormalized softmax(logits / temperature) over the allowed IDs (float64);
    banned IDs, and IDs cut by top-k/top-p, get weight 0."""
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    check_filters(top_k, top_p)
    scaled = [float(v) / temperature for v in logits]
    top = max(v for i, v in enumerate(scaled) if i not in BANNED)
    weights = [0.0 if i in BANNED else math.exp(v - top) for i, v in enumerate(scaled)]
    if top_k or top_p < 1.0:
        keep = set(kept_ids(logits, weights, top_k, top_p))
        weights = [w if i in keep else 0.0 for i, w in enumerate(weights)]
    return weights


def sampled_choice(
    logits: Sequence[float], temperature: float, rng: Mulberry32, top_k: int = 0, top_p: float = 1.0
) -> int:
    weights = sampling_weights(logits, temperature, top_k, top_p)
    total = 0.0
    for w in weights:
        total += w
    target = rng.next() * total
    running, last = 0.0, -1
    for i, w in enumerate(weights):
        if w <= 0.0:
            continue
        running += w
        last = i
        if running > target:
            return i
    return last  # rounding left target at the very end: the last allowed ID


def generate(
    logits_fn: Callable[[list[int]], Sequence[float]],
    prompt_ids: Sequence[int],
    *,
    mode: str = "greedy",
    temperature: float = 1.0,
    seed: int = 0,
    limit: int = TOKEN_LIMIT,
    top_k: int = 0,
    top_p: float = 1.0,
) -> dict:
    """Run the decoding loop with ``logits_fn(context_ids) -> logits``.

    Returns ids (new tokens, EOS excluded), stop ('eos' or 'limit') and calls
    (model calls made, the EOS decision included)."""
    if mode not in ("greedy", "sampled"):
        raise ValueError(f"mode must be 'greedy' or 'sampled', got {mode!r}")
    check_filters(top_k, top_p)
    rng = Mulberry32(seed)
    history = start_history(prompt_ids)
    new: list[int] = []
    stop, calls = "limit", 0
    while len(new) < limit:
        logits = logits_fn(context_window(history))
        calls += 1
        choice = greedy_choice(logits) if mode == "greedy" else sampled_choice(logits, temperature, rng, top_k, top_p)
        if choice == EOS_ID:
            stop = "eos"
            break
        history.append(choice)
        new.append(choice)
    return {"ids": new, "stop": stop, "calls": calls}
