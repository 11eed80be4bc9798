"""The hand-designed toy model behind every slide of Part II.

Two ten-token sentences share their last three words and have "bank" at
position 7. Each token's row is a named four-coordinate word feature plus a
small position offset. One attention head (W_Q, W_K: 4 -> 3, W_V: 4 -> 2,
W_O: 2 -> 4) adds a context update to each row; an 8-unit ReLU layer and a
20-candidate vocabulary head turn the final row into next-word probabilities.

Every number here is a teaching value chosen by hand so that the lesson is
visible; nothing is trained. Positions in prose and tables are 1-based.
"""

from __future__ import annotations

import math

import numpy as np

# ---------------------------------------------------------------- the sentences
RIVER = ("The", "children", "sat", "on", "the", "river", "bank", "and", "watched", "the")
CHEQUE = ("She", "deposited", "her", "cheque", "at", "the", "bank", "and", "watched", "the")
SENTENCES = {"river": RIVER, "cheque": CHEQUE}
BANK = 7  # 1-based position of "bank" in both sentences

# ---------------------------------------------------------------- token rows
COORDS = ("water", "finance", "noun", "grammar")

# word features, looked up by the lower-cased word
WORDS = {
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

N_POSITIONS = 10
POSITION_STEP = 0.05


def position_offset(i: int) -> np.ndarray:
    """Small additive offset for 1-based position i: later positions look a
    little more noun-like, which gives queries that ask for things a gentle
    preference for recent words."""
    return np.array([0.0, 0.0, POSITION_STEP * i, 0.0])


POSITIONS = np.stack([position_offset(i) for i in range(1, N_POSITIONS + 1)])

# ---------------------------------------------------------------- attention head
QK_AXES = ("setting", "thing", "link")  # query: what it asks for; key: what it offers
V_AXES = ("water", "finance")  # what a source sends

#                   setting thing link
W_Q = np.array(
    [
        [0.0, 0.0, 0.0],  # water
        [0.0, 0.0, 0.0],  # finance
        [2.0, 0.0, 0.5],  # noun: a noun asks which setting it is in (and a little for link words)
        [1.2, 1.5, 0.0],
    ]
)  # grammar: a function word asks for setting and for things
W_K = np.array(
    [
        [2.0, 0.0, 0.0],  # water  -> offers a setting clue
        [2.0, 0.0, 0.0],  # finance -> offers a setting clue
        [0.0, 1.0, 0.0],  # noun   -> is a thing
        [0.0, 0.0, 1.0],
    ]
)  # grammar -> is a link word
W_V = np.array(
    [
        [1.0, 0.0],  # water   -> sends water
        [0.0, 1.0],  # finance -> sends finance
        [0.0, 0.0],
        [0.0, 0.0],
    ]
)
W_O = np.array(
    [
        [1.0, 0.0, 0.0, 0.0],  # value water   -> representation water
        [0.0, 1.0, 0.0, 0.0],
    ]
)  # value finance -> representation finance
D_K = W_Q.shape[1]

# ---------------------------------------------------------------- prediction head
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
#          water finance noun grammar
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
WATER_NOUNS = ("boats", "ducks", "fish", "swans")
FINANCE_NOUNS = ("teller", "queue", "clerk", "receipt")
GENERIC_NOUNS = ("sky", "people", "birds", "clouds")


def _head() -> np.ndarray:
    W2 = np.zeros((len(HIDDEN), len(CANDIDATES)))
    col = {w: k for k, w in enumerate(CANDIDATES)}

    def add(unit: str, weights: dict[str, float]) -> None:
        for word, value in weights.items():
            W2[HIDDEN.index(unit), col[word]] += value

    add("water scene", {"river": 1.0, "water": 1.0, **{w: 0.5 for w in WATER_NOUNS}})
    add("finance scene", {"bank": 1.0, "money": 1.0, "cheque": 1.0, **{w: 0.5 for w in FINANCE_NOUNS}})
    add(
        "noun expected",
        {
            **{w: 2.0 for w in WATER_NOUNS + FINANCE_NOUNS + GENERIC_NOUNS},
            **{w: 1.5 for w in ("river", "water", "bank", "money", "cheque")},
            "and": -1.0,
            "the": -1.0,
            "watched": -1.0,
        },
    )
    add("after a noun", {"and": 2.0, "watched": 1.5, "the": -1.0})
    add("water noun", dict(zip(WATER_NOUNS, (4.0, 3.4, 3.0, 2.6))))
    add("finance noun", dict(zip(FINANCE_NOUNS, (4.0, 3.4, 3.0, 2.6))))
    add("no clue yet", {w: 1.0 for w in GENERIC_NOUNS})
    add("any clue", {w: -1.0 for w in GENERIC_NOUNS})
    return W2


W2 = _head()
b2 = np.zeros(len(CANDIDATES))


# ---------------------------------------------------------------- computation
def softmax(x: np.ndarray) -> np.ndarray:
    """Stable softmax over the last axis; -inf entries get weight 0."""
    x = np.asarray(x, dtype=float)
    z = np.exp(x - x.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def word_rows(tokens) -> np.ndarray:
    return np.array([WORDS[t.lower()] for t in tokens], dtype=float)


def embed(tokens, positions: bool = True) -> np.ndarray:
    """E: one row per token, word features plus (optionally) position offsets."""
    E = word_rows(tokens)
    return E + POSITIONS[: len(tokens)] if positions else E


def project(E: np.ndarray):
    return E @ W_Q, E @ W_K, E @ W_V


def causal_mask(T: int) -> np.ndarray:
    """M: 0 where j <= i, -inf where the source j lies in the future of query i."""
    M = np.zeros((T, T))
    M[np.triu_indices(T, 1)] = -np.inf
    return M


def attention_row(E: np.ndarray, i: int, causal: bool = True) -> dict:
    """Step-by-step attention for the 1-based query position i over every row of E."""
    Q, K, V = project(E)
    q = Q[i - 1]
    terms = q[None, :] * K  # [T, d_k]: q_l * k_jl
    raw = terms.sum(axis=1)
    scaled = raw / math.sqrt(D_K)
    allowed = np.arange(1, len(E) + 1) <= i if causal else np.ones(len(E), bool)
    weights = softmax(np.where(allowed, scaled, -np.inf))
    weighted = weights[:, None] * V
    message = weighted.sum(axis=0)
    delta = message @ W_O
    return dict(
        q=q,
        K=K,
        V=V,
        terms=terms,
        raw=raw,
        scaled=scaled,
        allowed=allowed,
        weights=weights,
        weighted=weighted,
        message=message,
        delta=delta,
        e=E[i - 1],
        e_new=E[i - 1] + delta,
    )


def attention_matrix(E: np.ndarray, causal: bool = True) -> dict:
    """Matrix form: E' = E + softmax(Q K^T / sqrt(d_k) + M) V W_O."""
    Q, K, V = project(E)
    S = Q @ K.T / math.sqrt(D_K)
    M = causal_mask(len(E)) if causal else np.zeros((len(E), len(E)))
    A = softmax(S + M)
    H = A @ V
    dE = H @ W_O
    return dict(Q=Q, K=K, V=V, S=S, M=M, A=A, H=H, dE=dE, E_new=E + dE)


def head(e_row: np.ndarray) -> dict:
    hidden = np.maximum(0.0, e_row @ W1 + b1)
    logits = hidden @ W2 + b2
    return dict(hidden=hidden, logits=logits, probs=softmax(logits))


def predict_next(tokens, bypass: bool = False, positions: bool = True) -> dict:
    """Probabilities for the word after the last token. bypass=True skips attention,
    so the head sees only the last token's own row."""
    E = embed(tokens, positions)
    if bypass:
        final, row = E[-1], None
    else:
        row = attention_row(E, len(tokens))
        final = row["e_new"]
    out = head(final)
    out.update(final=final, attention=row, top=CANDIDATES[int(np.argmax(out["probs"]))])
    return out


# ---------------------------------------------------------------- parameter counts
def mlp_parameters(w: int, d: int, H: int, V: int) -> int:
    """Fixed-window MLP: W1 (wd x H), b1 (H), W2 (H x V), b2 (V)."""
    return w * d * H + H + H * V + V


def linear_head_parameters(w: int, d: int, V: int) -> int:
    """Direct linear head: W (wd x V), b (V)."""
    return w * d * V + V


# ---------------------------------------------------------------- positions
def rates(d: int, base: float = 10000.0) -> np.ndarray:
    """The d/2 angular rates base^(-2k/d) shared by sinusoidal positions and RoPE."""
    return base ** (-np.arange(0, d, 2) / d)


def sinusoidal(i: float, d: int, base: float = 10000.0) -> np.ndarray:
    """Vaswani et al. (2017): interleaved (sin, cos) pairs at rates base^(-2k/d)."""
    w = rates(d, base)
    out = np.empty(d)
    out[0::2], out[1::2] = np.sin(i * w), np.cos(i * w)
    return out


def rope_matrix(i: float, d: int, base: float = 10000.0) -> np.ndarray:
    """Su et al. (2021), RoFormer: rotate each coordinate pair by i * theta_k."""
    R = np.zeros((d, d))
    for k, t in enumerate(rates(d, base)):
        c, s = math.cos(i * t), math.sin(i * t)
        R[2 * k : 2 * k + 2, 2 * k : 2 * k + 2] = [[c, -s], [s, c]]
    return R


def shift_matrix(delta: float, d: int, base: float = 10000.0) -> np.ndarray:
    """Block-diagonal matrix T with sinusoidal(i + delta) = T @ sinusoidal(i) for every i:
    on each interleaved (sin, cos) pair it is the transpose of RoPE's rotation by delta."""
    return np.ascontiguousarray(rope_matrix(delta, d, base).T)
