# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# **How to run this notebook.** It imports the course's own code (`models/`), which
# comes with the project, not with this file: download `attention-course-src.zip`
# from the course index, unpack it, run `make site` in that folder (it sets up
# `.venv` and the data), then `.venv/bin/pip install -e ".[notebooks]"` and
# `.venv/bin/jupyter lab notebooks/`. The next cell stops with these steps when
# `models` cannot be imported.

# %%
try:
    import models  # noqa: F401  (the course's code: models/ of the project download)
except ImportError as exc:
    raise ImportError(
        "This notebook needs the course's code. Download attention-course-src.zip from the course index, "
        'unpack it, run `make site` in that folder, then `.venv/bin/pip install -e ".[notebooks]"` and '
        "`.venv/bin/jupyter lab notebooks/`."
    ) from exc
print("The course's code (models/) is importable.")

# %% [markdown]
# # Part II: attention, in code
#
# Companion notebook to the deck **Part II: Attention**. It builds the deck's
# hand-designed toy model from scratch with numpy and recomputes what the slides
# show: the last-token baseline, the fixed window's parameter count, pooled
# averages, queries, keys and values, the attention weights at "bank" in the
# river and cheque sentences, score scaling (its simulation and the divisor
# dial), the causal mask, the matrix form, the prediction, and positions (the
# swap experiments and RoPE).
#
# Nothing here is trained: every weight is a teaching value chosen by hand so
# that the lesson is visible. The last cell compares the results with the tables
# the slides were built from and stops with an error if one differs.

# %%
import math

import numpy as np

np.set_printoptions(precision=4, suppress=True, linewidth=110)
got = {}  # what this notebook computes; checked against the deck at the end

# %% [markdown]
# ## 1. The toy: two sentences, four coordinates per token
#
# Both sentences have "bank" at position 7 and share their last three words.
# A token's row is a word feature over (water, finance, noun, grammar) plus a
# small position offset that makes later positions a little more noun-like.

# %%
RIVER = ("The", "children", "sat", "on", "the", "river", "bank", "and", "watched", "the")
CHEQUE = ("She", "deposited", "her", "cheque", "at", "the", "bank", "and", "watched", "the")
SENTENCES = {"river": RIVER, "cheque": CHEQUE}
BANK = 7  # 1-based position of "bank"

WORDS = {  # water finance noun grammar
    "the": (0.0, 0.0, 0.0, 1.0),
    "children": (0.0, 0.0, 1.0, 0.0),
    "sat": (0.0, 0.0, 0.0, 0.3),
    "on": (0.0, 0.0, 0.0, 0.7),
    "river": (1.0, 0.0, 1.0, 0.0),
    "bank": (0.0, 0.0, 1.0, 0.0),
    "and": (0.0, 0.0, 0.0, 0.8),
    "watched": (0.0, 0.0, 0.0, 0.3),
    "she": (0.0, 0.0, 0.6, 0.4),
    "deposited": (0.0, 0.8, 0.0, 0.3),
    "her": (0.0, 0.0, 0.0, 0.8),
    "cheque": (0.0, 1.0, 1.0, 0.0),
    "at": (0.0, 0.0, 0.0, 0.7),
}
POSITIONS = np.array([[0.0, 0.0, 0.05 * i, 0.0] for i in range(1, 11)])


def embed(tokens, positions=True):
    E = np.array([WORDS[t.lower()] for t in tokens], dtype=float)
    return E + POSITIONS[: len(tokens)] if positions else E


print("river sentence E:\n", embed(RIVER))

# %% [markdown]
# One attention head: W_Q and W_K map a row to three axes (setting, thing,
# link), W_V to two (water, finance), and W_O maps the two-value message back to
# the four coordinates. The prediction head is an 8-unit ReLU layer and a
# 20-word vocabulary.

# %%
W_Q = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [2.0, 0.0, 0.5], [1.2, 1.5, 0.0]])
W_K = np.array([[2.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
W_V = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [0.0, 0.0]])
W_O = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
D_K = W_Q.shape[1]

HIDDEN = (
    "water scene",
    "finance scene",
    "noun expected",
    "after a noun",
    "water noun",
    "finance noun",
    "no clue yet",
    "any clue",
)
W1 = np.array(
    [
        [2.0, 0.0, 0.0, 0.0, 1.0, 0.0, -2.0, 1.0],
        [0.0, 2.0, 0.0, 0.0, 0.0, 1.0, -2.0, 1.0],
        [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0],
    ]
)
b1 = np.array([-0.2, -0.2, -0.5, -0.5, -1.2, -1.2, -0.5, -0.3])
CANDIDATES = (
    "boats",
    "ducks",
    "fish",
    "swans",
    "teller",
    "clerk",
    "queue",
    "receipt",
    "sky",
    "people",
    "birds",
    "clouds",
    "river",
    "water",
    "bank",
    "money",
    "cheque",
    "and",
    "the",
    "watched",
)
WATER, FINANCE = ("boats", "ducks", "fish", "swans"), ("teller", "queue", "clerk", "receipt")
GENERIC = ("sky", "people", "birds", "clouds")
W2 = np.zeros((len(HIDDEN), len(CANDIDATES)))
for unit, weights in [
    ("water scene", {"river": 1.0, "water": 1.0, **{w: 0.5 for w in WATER}}),
    ("finance scene", {"bank": 1.0, "money": 1.0, "cheque": 1.0, **{w: 0.5 for w in FINANCE}}),
    (
        "noun expected",
        {
            **{w: 2.0 for w in WATER + FINANCE + GENERIC},
            **{w: 1.5 for w in ("river", "water", "bank", "money", "cheque")},
            "and": -1.0,
            "the": -1.0,
            "watched": -1.0,
        },
    ),
    ("after a noun", {"and": 2.0, "watched": 1.5, "the": -1.0}),
    ("water noun", dict(zip(WATER, (4.0, 3.4, 3.0, 2.6)))),
    ("finance noun", dict(zip(FINANCE, (4.0, 3.4, 3.0, 2.6)))),
    ("no clue yet", {w: 1.0 for w in GENERIC}),
    ("any clue", {w: -1.0 for w in GENERIC}),
]:
    for word, value in weights.items():
        W2[HIDDEN.index(unit), CANDIDATES.index(word)] += value
got["part2_model.W_Q"], got["part2_model.W_K"], got["part2_model.W_V"] = W_Q.tolist(), W_K.tolist(), W_V.tolist()
got["part2_model.W_O"], got["part2_model.W1"], got["part2_model.W2"] = W_O.tolist(), W1.tolist(), W2.tolist()
got["part2_model.positions"] = POSITIONS.tolist()


def softmax(x):
    x = np.asarray(x, dtype=float)
    z = np.exp(x - x.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def head(row):
    hidden = np.maximum(0.0, row @ W1 + b1)
    return softmax(hidden @ W2)


# %% [markdown]
# ## 2. The last-token baseline
#
# With attention bypassed, the head sees only the last token's own row. Both
# sentences end in "the" at position 10, so both get the same probabilities.

# %%
for name, s in SENTENCES.items():
    p = head(embed(s)[-1])
    print(f"{name:6s} top {CANDIDATES[int(p.argmax())]:7s} p = {p.max():.4f}")
    got[f"part2_predict.contexts.{name}.probs_bypass"] = p.tolist()

# %% [markdown]
# ## 3. A fixed window and its parameter count
#
# An MLP over the last w rows has W₁ (wd × H) + b₁ (H) + W₂ (H × C) + b₂ (C)
# parameters, where C is the number of candidate words (V is the value matrix);
# a window of 3 misses both "river" (position 6) and "cheque" (position 4).

# %%
d, H_UNITS, C_WORDS = 4, len(HIDDEN), len(CANDIDATES)
for w in (3, 10):
    n = w * d * H_UNITS + H_UNITS + H_UNITS * C_WORDS + C_WORDS
    print(f"w = {w:2d}: {w}*{d}*{H_UNITS} + {H_UNITS} + {H_UNITS}*{C_WORDS} + {C_WORDS} = {n}")
    got[f"part2_window.by_w.{w}.mlp_parameters"] = n
    got[f"part2_window.by_w.{w}.linear_parameters"] = w * d * C_WORDS + C_WORDS

# %% [markdown]
# ## 4. Pooled averages at "bank"
#
# The plain mean of rows 1..7 gives every earlier word the same weight.

# %%
for name, s in SENTENCES.items():
    mean = embed(s)[:BANK].mean(axis=0)
    print(name, "mean of rows 1..7:", mean)
    got[f"part2_pooled.{name}.mean"] = mean.tolist()

# %% [markdown]
# ## 5. Attention at "bank"
#
# Phase A (match): the query of "bank" meets every key; the scores are divided
# by sqrt(d_k) and a softmax turns them into weights. Phase B (mix): the weights
# average the value rows into a message; W_O turns it into an update that is
# added to the row of "bank" (the residual).


# %%
def attention_row(E, i, causal=True):
    """Attention for 1-based query position i over the rows of E."""
    Q, K, V = E @ W_Q, E @ W_K, E @ W_V
    raw = K @ Q[i - 1]
    scaled = raw / math.sqrt(D_K)
    allowed = np.arange(1, len(E) + 1) <= i if causal else np.ones(len(E), bool)
    weights = softmax(np.where(allowed, scaled, -np.inf))
    message = weights @ V
    delta = message @ W_O
    return dict(raw=raw, scaled=scaled, weights=weights, message=message, delta=delta, e_new=E[i - 1] + delta)


for name, s in SENTENCES.items():
    E = embed(s)[:BANK]
    r = attention_row(E, BANK)
    print(f"--- {name} sentence, query 'bank' = {E[BANK - 1] @ W_Q}")
    for j, t in enumerate(s[:BANK]):
        print(f"  {j + 1} {t:10s} q.k {r['raw'][j]:7.4f}  /sqrt(3) {r['scaled'][j]:7.4f}  weight {r['weights'][j]:.4f}")
    print("  message", r["message"], " update", r["delta"], " new row", r["e_new"])
    for key in ("raw", "scaled", "weights", "message", "delta", "e_new"):
        got[f"part2_bank.{name}.{key}"] = r[key].tolist()

# %% [markdown]
# ## 6. Why divide by sqrt(d_k): a simulation
#
# For q and k with independent standard-normal entries, q.k has variance d_k;
# dividing by sqrt(d_k) brings it back to 1. 20,000 pairs per width, seed 2017.

# %%
rng = np.random.default_rng(2017)
ex_q, ex_k = rng.standard_normal(8), rng.standard_normal(8)
print(f"example, d_k = 8: q.k = {ex_q @ ex_k:.4f}, scaled {ex_q @ ex_k / math.sqrt(8):.4f}")
got["part2_scaling.example.score"] = float(ex_q @ ex_k)
for n, dk in enumerate((1, 4, 16, 64, 256)):
    q, k = rng.standard_normal((20000, dk)), rng.standard_normal((20000, dk))
    raw = (q * k).sum(axis=1)
    print(f"d_k = {dk:3d}: var(q.k) = {raw.var():8.3f}   var(q.k / sqrt(d_k)) = {(raw / math.sqrt(dk)).var():.3f}")
    got[f"part2_scaling.simulation.{n}.var_raw"] = float(raw.var())
    got[f"part2_scaling.simulation.{n}.var_scaled"] = float((raw / math.sqrt(dk)).var())

r = attention_row(embed(RIVER)[:BANK], BANK)
print("weights at 'bank' without the division:", softmax(r["raw"]))
got["part2_scaling.bank.weights_unscaled"] = softmax(r["raw"]).tolist()

# %% [markdown]
# The divisor is a dial: dividing the cheque sentence's raw scores at "bank" by
# more flattens the weights, by less sharpens them. sqrt(d_k) = sqrt(3) is one
# setting among them.

# %%
raw = attention_row(embed(CHEQUE)[:BANK], BANK)["raw"]
for n, divisor in enumerate((0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)):
    w = softmax(raw / divisor)
    print(f"divide by {divisor:3.1f}: top weight {w.max():.3f}  ", " ".join(f"{x:.3f}" for x in w))
    got[f"part2_divisor.settings.{n}.weights"] = w.tolist()

# %% [markdown]
# ## 7. The causal mask
#
# Row 5 ("the") may look at positions 1..5 only. Without the mask most of its
# weight would go to words it cannot have seen yet.

# %%
E = embed(RIVER)
on, off = attention_row(E, 5), attention_row(E, 5, causal=False)
print("mask on: ", on["weights"])
print("mask off:", off["weights"])
print(f"weight on future positions without the mask: {off['weights'][5:].sum():.4f}")
got["part2_mask.weights_on"] = on["weights"].tolist()
got["part2_mask.weights_off"] = off["weights"].tolist()
got["part2_mask.future_mass_off"] = float(off["weights"][5:].sum())

# %% [markdown]
# ## 8. The matrix form
#
# All rows at once: E' = E + softmax(Q K^T / sqrt(d_k) + M) V W_O, where M is 0
# on and below the diagonal and -inf above it. It equals the row-by-row result.

# %%
E = embed(RIVER)[:BANK]
Q, K, V = E @ W_Q, E @ W_K, E @ W_V
M = np.triu(np.full((BANK, BANK), -np.inf), 1)
A = softmax(Q @ K.T / math.sqrt(D_K) + M)
E_new = E + A @ V @ W_O
stepwise = np.stack([attention_row(E, i)["e_new"] for i in range(1, BANK + 1)])
print("A =\n", A)
print("E' =\n", E_new)
print("largest difference from the row-by-row computation:", np.abs(E_new - stepwise).max())
got["part2_matrix.A"] = A.tolist()
got["part2_matrix.E_new"] = E_new.tolist()

# %% [markdown]
# ## 9. Predicting the next word
#
# The final row (position 10, "the") after its attention update goes through the
# head. The river sentence now expects water words, the cheque sentence
# finance words.

# %%
for name, s in SENTENCES.items():
    E = embed(s)
    r = attention_row(E, len(s))
    p = head(r["e_new"])
    order = np.argsort(-p)[:4]
    print(f"{name:6s}", ", ".join(f"{CANDIDATES[k]} {p[k]:.4f}" for k in order))
    got[f"part2_predict.contexts.{name}.probs"] = p.tolist()
    got[f"part2_predict.contexts.{name}.top"] = CANDIDATES[int(p.argmax())]
    got[f"part2_compare.{name}.weights.3"] = r["weights"].tolist()

# %% [markdown]
# ## 10. Positions
#
# Without position offsets, swapping "The" and "river" leaves the prediction
# unchanged: attention alone does not see order. With RoPE, the positional part
# of the score between a query at i and a key at j depends only on j - i; the
# content of the query and key still counts.

# %%
swapped = list(RIVER)
swapped[0], swapped[5] = swapped[5], swapped[0]
for label, pos in (("with", True), ("without", False)):
    pa = head(attention_row(embed(RIVER, pos), 10)["e_new"])
    pb = head(attention_row(embed(swapped, pos), 10)["e_new"])
    print(f"{label:7s} positions: largest change in probability after the swap {np.abs(pa - pb).max():.2e}")
    got[f"part2_positions.runs.{label}.max_difference"] = float(np.abs(pa - pb).max())


# %% [markdown]
# The same in two coordinates you can check by eye: the words "cat" = (1, 0)
# and "dog" = (0, 1) and a final query word "ran" = (0.6, 0.8), identity
# projections (q, k and v are the rows themselves). Swapping "cat" and "dog"
# changes the final query's message only when the position rows
# P_i = (sin i, cos i) are added.

# %%
TWO_D = {"cat": np.array([1.0, 0.0]), "dog": np.array([0.0, 1.0]), "ran": np.array([0.6, 0.8])}
for order in (("cat", "dog", "ran"), ("dog", "cat", "ran")):
    for with_positions in (True, False):
        rows = np.array([TWO_D[t] for t in order])
        if with_positions:
            rows = rows + np.array([[math.sin(i), math.cos(i)] for i in range(1, 4)])
        weights = softmax(rows @ rows[-1])
        message = weights @ rows
        key = f"{order[0]}_{order[1]}_{'pos' if with_positions else 'nopos'}"
        print(
            f"{' '.join(order)}, positions {'yes' if with_positions else 'no ':3s}: "
            f"weights {weights}, message {message}"
        )
        got[f"part2_swap2d.runs.{key}.message"] = message.tolist()


def rope(i, d=4, base=10000.0):
    R = np.zeros((d, d))
    for k, theta in enumerate(base ** (-np.arange(0, d, 2) / d)):
        c, s = math.cos(i * theta), math.sin(i * theta)
        R[2 * k : 2 * k + 2, 2 * k : 2 * k + 2] = [[c, -s], [s, c]]
    return R


q, k = np.array([1.0, 0.5, -0.3, 0.8]), np.array([0.6, -0.2, 0.9, 0.4])
scores = [float((rope(i) @ q) @ (rope(j) @ k)) for i, j in ((1, 3), (4, 6), (7, 9))]
print("RoPE scores for (i, j) = (1, 3), (4, 6), (7, 9):", scores)
got["part2_positions.rope.scores"] = scores

# %% [markdown]
# ## Check against the deck
#
# The slides were built from `build/tables/*.json`. This cell compares every
# value above with the value the deck shows (floats to 1e-6 relative) and raises
# an error naming each one that differs.

# %%
from site_builder.notebook_check import check

check(got)
