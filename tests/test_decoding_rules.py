"""export/decoding.py's rules on small hand-checked cases, edge cases the
Python-vs-Node parity tests (tests/test_decoding_parity.py) do not reach.
Written to kill the mutants `make mutate` found surviving."""

import math

import pytest

from export.decoding import (
    BANNED,
    CONTEXT,
    Mulberry32,
    check_filters,
    context_window,
    generate,
    greedy_choice,
    kept_ids,
    ranking,
    sampled_choice,
    sampling_weights,
    start_history,
)
from models.tokenizer import BOS_ID, EOS_ID, PAD_ID, UNK_ID


class FixedDraw:
    """A generator stand-in whose draws are given."""

    def __init__(self, *values):
        self.values = list(values)

    def next(self):
        return self.values.pop(0)


def test_constants():
    assert CONTEXT == 64 and BANNED == {PAD_ID, BOS_ID, UNK_ID}


def test_context_window_sizes():
    assert context_window([]) == [PAD_ID] * 64
    assert context_window([7], 3) == [PAD_ID, PAD_ID, 7]
    assert context_window([5, 6, 7, 8], 3) == [6, 7, 8]
    assert context_window([5, 6, 7], 0) == []
    assert context_window(list(range(1, 65))) == list(range(1, 65))
    assert start_history([5, 6]) == [BOS_ID, 5, 6] and start_history([]) == [BOS_ID]


def test_mulberry32_masks_the_seed_to_32_bits():
    a, b = Mulberry32(2**32 + 5), Mulberry32(5)
    assert [a.next() for _ in range(5)] == [b.next() for _ in range(5)]
    c, d = Mulberry32(-1), Mulberry32(2**32 - 1)
    assert [c.next() for _ in range(5)] == [d.next() for _ in range(5)]
    draws = [Mulberry32(9).next() for _ in range(1)] + [
        x for x in (lambda r: [r.next() for _ in range(999)])(Mulberry32(9))
    ]
    assert all(0.0 <= x < 1.0 for x in draws)


def test_greedy_choice_edges():
    assert greedy_choice([0.0, 0.0, -5.0, 0.0, -7.0]) == EOS_ID
    assert greedy_choice([9.0, 9.0, -math.inf, 9.0, -math.inf]) == EOS_ID  # first allowed ID, even at -inf
    assert greedy_choice([0.0, 0.0, 1.0, 0.0, 1.0, 3.0, 3.0]) == 5


def test_check_filters_messages_and_types():
    check_filters(0, 1.0)
    check_filters(3, 1)
    check_filters(1, 1e-9)
    for k in (-1, 1.5, True, "3", None):
        with pytest.raises(ValueError, match=r"top_k must be an integer >= 0 \(0 keeps every token\), got"):
            check_filters(k, 1.0)
    for p in (0, 0.0, -0.5, 1.0001, "0.5", None):
        with pytest.raises(ValueError, match=r"top_p must be in \(0, 1\] \(1 keeps every token\), got"):
            check_filters(0, p)


LOGITS = [0.0, 0.0, 1.0, 0.0, 3.0, 2.0, 0.5, 2.0]  # allowed: 2, 4, 5, 6, 7


def test_kept_ids_stop_exactly_at_top_p():
    w = sampling_weights(LOGITS, 1.0)
    assert ranking(LOGITS) == [4, 5, 7, 2, 6]
    total = sum(w)
    share4, share45 = w[4] / total, (w[4] + w[5]) / total
    assert kept_ids(LOGITS, w, 0, share4) == [4]
    assert kept_ids(LOGITS, w, 0, share4 + 1e-9) == [4, 5]
    assert kept_ids(LOGITS, w, 0, share45 + 1e-9) == [4, 5, 7]
    assert kept_ids(LOGITS, w, 0, 0.999999) == [4, 5, 7, 2, 6]
    assert kept_ids(LOGITS, w, 2, w[4] / (w[4] + w[5])) == [4]  # share of what top-k kept
    assert kept_ids(LOGITS, w, 2, 1.0) == [4, 5] and kept_ids(LOGITS, w, 0, 1.0) == [4, 5, 7, 2, 6]


def test_sampling_weights_values():
    with pytest.raises(ValueError, match="temperature must be > 0, got 0"):
        sampling_weights(LOGITS, 0)
    with pytest.raises(ValueError, match="temperature must be > 0"):
        sampling_weights(LOGITS, -1.0)
    for t in (0.5, 1.0, 2.5):
        w = sampling_weights(LOGITS, t)
        assert w[4] == 1.0 and [w[i] for i in (0, 1, 3)] == [0.0, 0.0, 0.0]
        for i in (2, 5, 6, 7):
            assert math.isclose(w[i], math.exp((LOGITS[i] - 3.0) / t), rel_tol=1e-12)
    big = sampling_weights([50.0, 50.0, 1.0, 50.0, 2.0], 1.0)  # max over allowed IDs only
    assert big == [0.0, 0.0, math.exp(-1.0), 0.0, 1.0]
    cut = sampling_weights(LOGITS, 1.0, top_k=2)
    assert [i for i, x in enumerate(cut) if x > 0] == [4, 5] and cut[5] == math.exp(-1.0)
    cut_p = sampling_weights(LOGITS, 1.0, top_p=1e-6)
    assert [i for i, x in enumerate(cut_p) if x > 0] == [4]


def test_sampled_choice_thresholds():
    logits = [0.0, 0.0, math.log(1.0), 0.0, math.log(2.0), math.log(1.0)]  # weights 0.5, 1, 0.5

    def pick(u, **kw):
        return sampled_choice(logits, 1.0, FixedDraw(u), **kw)

    assert [pick(u) for u in (0.0, 0.2499, 0.25, 0.7499, 0.75, 0.9999)] == [2, 2, 4, 4, 5, 5]
    assert pick(1.0) == 5  # rounding at the end: last allowed ID
    assert pick(0.9, top_k=1) == 4 and pick(0.1, top_p=0.5) == 4
    # the last allowed ID is the last one with weight: IDs cut by top-k never come back
    assert sampled_choice([0.0, 0.0, 5.0, 0.0, 1.0], 1.0, FixedDraw(1.0), top_k=1) == EOS_ID


def test_generate_edges():
    with pytest.raises(ValueError, match="mode must be 'greedy' or 'sampled', got 'beam'"):
        generate(lambda ctx: [0.0] * 5, [4], mode="beam")
    assert generate(lambda ctx: [0.0, 0.0, 1.0, 0.0, 0.0], [4]) == {"ids": [], "stop": "eos", "calls": 1}
    assert generate(lambda ctx: [0.0, 0.0, 0.0, 0.0, 1.0], [4], limit=0) == {"ids": [], "stop": "limit", "calls": 0}
    out = generate(lambda ctx: [0.0, 0.0, 0.0, 0.0, 1.0], [])
    assert out == {"ids": [4] * 24, "stop": "limit", "calls": 24}
    seen = []
    generate(lambda ctx: seen.append(list(ctx)) or [0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [4], limit=2)
    assert seen == [context_window([BOS_ID, 4]), context_window([BOS_ID, 4, 5])]
    row = [0.0, 0.0, -50.0, 0.0, 1.0, 1.0, 0.3]  # EOS all but impossible
    a = generate(lambda ctx: row, [4], mode="sampled", seed=3, limit=12)
    rng = Mulberry32(3)
    assert a == {"ids": [sampled_choice(row, 1.0, rng) for _ in range(12)], "stop": "limit", "calls": 12}
    assert len(set(a["ids"])) >= 2  # one draw per step, not one in all
    hot = generate(lambda ctx: row, [4], mode="sampled", seed=3, limit=12, temperature=0.2, top_k=2)
    rng = Mulberry32(3)
    assert hot["ids"] == [sampled_choice(row, 0.2, rng, 2) for _ in range(12)] and set(hot["ids"]) == {4, 5}


def test_generate_defaults_to_seed_0_and_greedy():
    row = [0.0, 0.0, -50.0, 0.0, 1.0, 1.0, 0.3]
    assert generate(lambda ctx: row, [4], mode="sampled", limit=12) == generate(
        lambda ctx: row, [4], mode="sampled", seed=0, limit=12
    )
    assert generate(lambda ctx: row, [4], limit=3) == generate(lambda ctx: row, [4], mode="greedy", limit=3)
