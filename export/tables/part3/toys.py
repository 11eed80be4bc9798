"""The two hand-set toys of Part III: the two-source value toy and the
fisherman two-head worksheet.

Every number here is a teaching value chosen by hand so that the arithmetic
stays readable; nothing is trained. In a trained model nobody writes roles
into the weights: training finds its own numbers.
"""

from __future__ import annotations

import math

import numpy as np

from ..kit.registry import table

# ---------------------------------------------------------------- two-source toy
SOURCES = ("river", "fisherman")
VALUES = np.array(
    [
        [10.0, 1.0],  # river:     [setting coordinate, person coordinate]
        [2.0, 8.0],
    ]
)  # fisherman
SETTING_WEIGHTS = np.array([0.8, 0.2])  # favours river
PERSON_WEIGHTS = np.array([0.2, 0.8])  # favours fisherman


@table("part3_two_source")
def two_source() -> dict:
    """One head mixes both value coordinates with one weight row; two heads can
    each read one coordinate with their own weights."""
    one_head = SETTING_WEIGHTS @ VALUES  # [8.4, 2.4]
    one_head_person = PERSON_WEIGHTS @ VALUES  # [3.6, 6.6]
    setting_head = float((SETTING_WEIGHTS @ VALUES)[0])  # 8.4: reads coordinate 0
    person_head = float((PERSON_WEIGHTS @ VALUES)[1])  # 6.6: reads coordinate 1
    return {
        "sources": list(SOURCES),
        "values": VALUES.tolist(),
        "value_rows": [[name, *row] for name, row in zip(SOURCES, VALUES.tolist())],
        "one_head_weights": SETTING_WEIGHTS.tolist(),
        "one_head_message": one_head.tolist(),
        "one_head_person_weights": PERSON_WEIGHTS.tolist(),
        "one_head_person_message": one_head_person.tolist(),
        "setting_head_weights": SETTING_WEIGHTS.tolist(),
        "setting_head_output": setting_head,
        "person_head_weights": PERSON_WEIGHTS.tolist(),
        "person_head_output": person_head,
        "two_head_message": [setting_head, person_head],
    }


# ---------------------------------------------------------------- fisherman worksheet
TOKENS = ("the", "fisherman", "sat", "beside", "the", "river", "bank", "and", "watched", "the")
FEATURES = ("setting", "person", "action", "grammar")
WORD_ROWS = {  # setting person action grammar
    "the": (0.0, 0.0, 0.0, 1.0),
    "fisherman": (0.0, 1.0, 0.2, 0.1),
    "sat": (0.0, 0.1, 1.0, 0.0),
    "beside": (0.4, 0.0, 0.1, 0.6),
    "river": (1.0, 0.0, 0.0, 0.1),
    "bank": (0.8, 0.0, 0.0, 0.2),
    "and": (0.0, 0.0, 0.1, 0.9),
    "watched": (0.0, 0.2, 1.0, 0.0),
}
N_HEADS, HEAD_WIDTH = 2, 2
# Packed projections: columns 0-1 belong to head 1, columns 2-3 to head 2.
#                 h1    h1    h2    h2
W_Q = np.array(
    [
        [0.0, 0.0, 0.0, 0.0],  # setting
        [0.0, 0.0, 0.0, 0.0],  # person
        [0.0, 0.0, 0.0, 0.0],  # action
        [2.0, -1.0, 1.5, -0.5],
    ]
)  # grammar: a function word asks (head 1 and head 2)
W_K = np.array(
    [
        [2.0, 0.0, 0.0, 0.0],  # setting -> matches head 1's query
        [0.0, 0.0, 2.0, 0.0],  # person  -> matches head 2's query
        [0.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 1.0],
    ]
)  # grammar -> pushed down in both heads
W_V = np.array(
    [
        [1.0, 0.0, 0.0, 0.0],  # setting -> head 1, value coordinate 1
        [0.0, 0.0, 1.0, 0.0],  # person  -> head 2, value coordinate 1
        [0.0, 0.0, 0.0, 1.0],  # action  -> head 2, value coordinate 2
        [0.0, 1.0, 0.0, 0.0],
    ]
)  # grammar -> head 1, value coordinate 2
W_O = np.array(
    [
        [0.5, 0.0, 0.0, 0.0],  # head 1 coordinate 1 -> setting
        [0.0, 0.0, 0.0, -0.5],  # head 1 coordinate 2 -> less grammar
        [0.0, 0.5, 0.0, 0.0],  # head 2 coordinate 1 -> person
        [0.0, 0.0, 0.5, 0.0],
    ]
)  # head 2 coordinate 2 -> action


def softmax_rows(scores: np.ndarray) -> np.ndarray:
    shifted = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def split_heads(M: np.ndarray) -> np.ndarray:
    """[T, n*width] -> [n, T, width]"""
    T = M.shape[0]
    return M.reshape(T, N_HEADS, HEAD_WIDTH).transpose(1, 0, 2)


@table("part3_fisherman")
def fisherman() -> dict:
    """The whole two-head operation for all ten rows, causal mask included;
    the slides follow the final receiver (the 10th token, "the")."""
    E = np.array([WORD_ROWS[t] for t in TOKENS])  # [10, 4]
    T, D = E.shape
    Q, K, V = (split_heads(E @ W) for W in (W_Q, W_K, W_V))  # [2, 10, 2] each
    scores = Q @ K.transpose(0, 2, 1) / math.sqrt(HEAD_WIDTH)  # [2, 10, 10]
    future = np.triu(np.ones((T, T), dtype=bool), 1)
    A = softmax_rows(np.where(future[None], -np.inf, scores))
    H = A @ V  # [2, 10, 2]
    concat = H.transpose(1, 0, 2).reshape(T, N_HEADS * HEAD_WIDTH)  # [10, 4]
    update = concat @ W_O  # [10, 4]
    out = E + update
    last = T - 1
    heads = []
    for h in range(N_HEADS):
        cols = slice(h * HEAD_WIDTH, (h + 1) * HEAD_WIDTH)
        order = np.argsort(-A[h, last], kind="stable")
        heads.append(
            {
                "head": h + 1,
                "W_Q": W_Q[:, cols].tolist(),
                "W_K": W_K[:, cols].tolist(),
                "W_V": W_V[:, cols].tolist(),
                "Q": Q[h].tolist(),
                "K": K[h].tolist(),
                "V": V[h].tolist(),
                "query": Q[h, last].tolist(),
                "scores": scores[h, last].tolist(),
                "weights": A[h, last].tolist(),
                "weights_all": A[h].tolist(),
                "weight_sum": float(A[h, last].sum()),
                "top_source": int(order[0]) + 1,
                "top_token": TOKENS[order[0]],
                "top_weight": float(A[h, last, order[0]]),
                "H": H[h].tolist(),
                "message": H[h, last].tolist(),
            }
        )
    return {
        "tokens": list(TOKENS),
        "slots": list(range(1, T + 1)),
        "token_labels": [f"{i} {t}" for i, t in enumerate(TOKENS, 1)],
        "features": list(FEATURES),
        "n_tokens": T,
        "width": D,
        "n_heads": N_HEADS,
        "head_width": HEAD_WIDTH,
        "scale": math.sqrt(HEAD_WIDTH),
        "E": E.tolist(),
        "W_Q": W_Q.tolist(),
        "W_K": W_K.tolist(),
        "W_V": W_V.tolist(),
        "W_O": W_O.tolist(),
        "heads": heads,
        "concat": concat.tolist(),
        "concat_last": concat[last].tolist(),
        "update_last": update[last].tolist(),
        "E_last": E[last].tolist(),
        "out_last": out[last].tolist(),
        "shapes": {
            "E": list(E.shape),
            "W_Q": list(W_Q.shape),
            "Q_per_head": list(Q.shape),
            "scores": list(scores.shape),
            "A": list(A.shape),
            "H": list(H.shape),
            "concat": list(concat.shape),
            "W_O": list(W_O.shape),
            "out": list(out.shape),
        },
        "shape_rows": [
            ["E", list(E.shape)],
            ["Q, K, V (split into heads)", list(Q.shape)],
            ["scores = QKᵀ/√2", list(scores.shape)],
            ["A = softmax(masked scores)", list(A.shape)],
            ["messages AV (row i: query i's message m_i)", list(H.shape)],
            ["concat(AV⁽¹⁾, AV⁽²⁾)", list(concat.shape)],
            ["W_O", list(W_O.shape)],
            ["E + concat·W_O", list(out.shape)],
        ],
    }
