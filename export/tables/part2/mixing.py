"""Ways to mix earlier rows into one summary: pooled summaries at "bank"
(``part2_pooled``), soft video search with queries, keys and values
(``part2_video``) and four mixing rules side by side (``part2_compare``)."""

from __future__ import annotations

import numpy as np

from ..kit.registry import table
from . import toy
from .grids import B7, L, grid, labelled

CHOSEN_WEIGHTS = {  # hand-picked by position for each sentence: the reader's "unequal contributions"
    "river": (0.05, 0.05, 0.05, 0.05, 0.05, 0.6, 0.15),
    "cheque": (0.05, 0.25, 0.05, 0.4, 0.05, 0.05, 0.15),
}


@table("part2_pooled")
def pooled_table() -> dict:
    out = {}
    for name, s in toy.SENTENCES.items():
        E = toy.embed(s)[: toy.BANK]
        chosen = np.array(CHOSEN_WEIGHTS[name])
        mean, summary = E.mean(axis=0), chosen @ E
        out[name] = {
            "tokens": list(s[: toy.BANK]),
            "rows": L(E),
            "mean": L(mean),
            "chosen": L(chosen),
            "chosen_sum": float(chosen.sum()),
            "summary": L(summary),
            "table": grid(
                ["pos", "token", "mean weight", "chosen weight", *toy.COORDS],
                [[j + 1, t, 1 / toy.BANK, float(chosen[j]), *L(E[j])] for j, t in enumerate(s[: toy.BANK])]
                + [["", f"mean ē{B7}", "", "", *L(mean)], ["", f"chosen ē{B7}", "", "", *L(summary)]],
            ),
        }
    # each sentence's hand-picked weights applied to the other sentence: a fixed rule cannot suit both
    E = {name: toy.embed(s)[: toy.BANK] for name, s in toy.SENTENCES.items()}
    out["crossed"] = {
        "river_weights_on_cheque": L(np.array(CHOSEN_WEIGHTS["river"]) @ E["cheque"]),
        "cheque_weights_on_river": L(np.array(CHOSEN_WEIGHTS["cheque"]) @ E["river"]),
    }
    return out


TOPICS = ("rivers", "wildlife", "boats", "weather", "money", "banking", "cooking", "music")
QUERIES = (
    ("Which birds nest on river banks?", {"rivers": 1.0, "wildlife": 1.0}),
    ("How do I pay in a cheque?", {"money": 0.5, "banking": 1.0}),
    ("Is it safe to row in the rain?", {"rivers": 0.5, "boats": 1.0, "weather": 1.0}),
)
VIDEOS = (  # (title, key: what the listing says it is about, value: what watching it gives you)
    ("Kingfishers at the water's edge", {"rivers": 1.0, "wildlife": 1.0}, {"rivers": 0.6, "wildlife": 1.0}),
    ("Canoeing for beginners", {"rivers": 0.5, "boats": 1.0}, {"rivers": 0.5, "boats": 1.0, "weather": 0.2}),
    ("Storm safety on the water", {"boats": 0.5, "weather": 1.0}, {"boats": 0.4, "weather": 1.0}),
    ("Opening a savings account", {"money": 1.0, "banking": 1.0}, {"money": 0.8, "banking": 1.0}),
    ("Paying in a cheque, step by step", {"money": 0.5, "banking": 1.0}, {"money": 0.6, "banking": 1.0}),
    ("Campfire cooking by the lake", {"rivers": 0.3, "cooking": 1.0}, {"cooking": 1.0}),
    ("Songs about rivers", {"rivers": 0.8, "music": 1.0}, {"rivers": 0.3, "music": 1.0}),
    ("Otters and beavers", {"rivers": 0.6, "wildlife": 1.0}, {"rivers": 0.5, "wildlife": 1.0}),
)
TEMPERATURES = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0)


def topic_vector(weights: dict) -> np.ndarray:
    return np.array([weights.get(t, 0.0) for t in TOPICS])


@table("part2_video")
def video_table() -> dict:
    Qm = np.stack([topic_vector(q) for _, q in QUERIES])
    K = np.stack([topic_vector(k) for _, k, _ in VIDEOS])
    V = np.stack([topic_vector(v) for _, _, v in VIDEOS])
    S = Qm @ K.T
    chosen = 0
    s = S[chosen]
    best = int(np.argmax(s))
    settings = [{"label": "hard", "temperature": None, "weights": L(np.eye(len(VIDEOS))[best]), "returned": L(V[best])}]
    for T in TEMPERATURES:
        w = toy.softmax(s / T)
        settings.append({"label": f"T = {T:g}", "temperature": T, "weights": L(w), "returned": L(w @ V)})
    titles = [t for t, _, _ in VIDEOS]
    return {
        "longer_key": longer_key(Qm, K, titles),
        "topics": list(TOPICS),
        "queries": [q for q, _ in QUERIES],
        "query_vectors": L(Qm),
        "titles": titles,
        "keys": L(K),
        "values": L(V),
        "scores": L(S),
        "query_index": chosen,
        "query": QUERIES[chosen][0],
        "best": best,
        "best_title": titles[best],
        "temperatures": list(TEMPERATURES),
        "settings": settings,
        "queries_table": labelled(Qm, [q for q, _ in QUERIES], TOPICS, "query"),
        "keys_table": labelled(K, titles, TOPICS, "key"),
        "values_table": labelled(V, titles, TOPICS, "value"),
        "scores_table": grid(
            ["video", *(f"q{i + 1}·k" for i in range(len(QUERIES)))], [[t, *L(S[:, j])] for j, t in enumerate(titles)]
        ),
    }


def longer_key(Qm: np.ndarray, K: np.ndarray, titles: list[str]) -> dict:
    """The first query whose best dot product is not its best direction match
    (cosine): a dot product also grows with the key's length."""
    norms = np.linalg.norm(K, axis=1)
    for i, q in enumerate(Qm):
        dots, cos = K @ q, (K @ q) / (norms * np.linalg.norm(q))
        by_dot, by_cos = int(np.argmax(dots)), int(np.argmax(cos))
        if by_dot != by_cos:
            return {
                "found": True,
                "query_index": i,
                "query": QUERIES[i][0],
                "dot_winner": titles[by_dot],
                "cosine_winner": titles[by_cos],
                "dot": [float(dots[by_dot]), float(dots[by_cos])],
                "cosine": [float(cos[by_dot]), float(cos[by_cos])],
                "key_length": [float(norms[by_dot]), float(norms[by_cos])],
            }
    return {"found": False}


DISTANCE_BASE = 0.5  # distance weights: DISTANCE_BASE ** (i - j), then normalised


@table("part2_compare")
def compare_table() -> dict:
    T = toy.N_POSITIONS
    j = np.arange(1, T + 1)
    window = (j > T - 3).astype(float)
    mean = np.full(T, 1 / T)
    distance = DISTANCE_BASE ** (T - j)
    distance = distance / distance.sum()
    out = {
        "schemes": [
            "fixed window w = 3: rows read",
            "plain mean: weights",
            "distance 0.5^(i−j), normalised: weights",
            "attention: weights",
        ],
        "window_width": 3,
        "distance_base": DISTANCE_BASE,
    }
    for name, s in toy.SENTENCES.items():
        E = toy.embed(s)
        att = toy.attention_row(E, T)["weights"]
        rows = [window, mean, distance, att]
        # the window row says which rows enter (each slot with its own weights), not how much: no numbers
        shown = [["✓" if x else "·" for x in window], *(L(r) for r in rows[1:])]
        out[name] = {
            "tokens": list(s),
            "weights": [L(r) for r in rows],
            "weight_sums": [float(r.sum()) for r in rows[1:]],
            "table": grid(["rule", *s], [[label, *r] for label, r in zip(out["schemes"], shown)]),
            "mean_summary": L(mean @ E),
            "attention_summary": L(att @ E),
        }
    out["same_across_sentences"] = [out["river"]["weights"][k] == out["cheque"]["weights"][k] for k in range(4)]
    out["attention_max_difference"] = float(
        np.abs(np.array(out["river"]["weights"][3]) - np.array(out["cheque"]["weights"][3])).max()
    )
    return out
