"""Closing the loop with Part II (``results_bank``): the river and cheque
"bank" sentences are probes of the training trace (models/training_trace.json).
At each attention model's selected step, what its final query (after the
whole sentence) weighs most and how much it puts on the clue word, and what
it guesses next, beside Part II's hand-built answer (``part2_bank``: the
weight the query at "bank" put on the clue). The trained models' query is
the last token of the sentence, not "bank"; the slide says so."""

from __future__ import annotations

from models.nets import LABELS

from ..kit.registry import table
from ..kit.sources import Sources, file_absent, unavailable

PROBES = {"river": "river", "cheque": "cheque"}  # probe name -> its clue word
KINDS = ("attn1", "attn4")
SHOWN = 3  # guesses shown per model


def _point(run: dict) -> dict:
    return next(p for p in run["points"] if p["step"] == run["selected_step"])


def bank(trace: dict, itos: list[str], part2: dict) -> dict:
    probes = {p["name"]: (i, p) for i, p in enumerate(trace["probes"])}
    missing = [name for name in PROBES if name not in probes]
    if missing:
        return unavailable(f"the training trace has no {', '.join(missing)} probe")
    sentences = []
    for name, clue in PROBES.items():
        i, probe = probes[name]
        ids = probe["ids"]
        tokens = [itos[t] for t in ids]
        known = clue in tokens  # a word too rare in training is <UNK> in the model's vocabulary
        seen = clue if known else "<UNK>"
        models = []
        for kind in KINDS:
            run = trace["runs"][kind]
            point = _point(run)
            heads = []
            for h, row in enumerate(point["attention"][i]):
                mine = row[-len(ids) :]  # the window is left-padded: the probe's tokens are its last slots
                top = max(range(len(ids)), key=lambda j: mine[j])
                clue_weight = sum(w for w, tok in zip(mine, tokens) if tok == seen)
                heads.append({"head": h + 1, "top": tokens[top], "top_weight": mine[top], "clue_weight": clue_weight})
            guesses = [{"token": itos[t], "p": p} for t, p in point["top10"][i][:SHOWN]]
            models.append(
                {
                    "kind": kind,
                    "label": LABELS[kind],
                    "step": run["selected_step"],
                    "heads": heads,
                    "max_clue_weight": max(x["clue_weight"] for x in heads),
                    "guesses": guesses,
                    "top_p": guesses[0]["p"],
                }
            )
        sentences.append(
            {
                "name": name,
                "clue": clue,
                "clue_known": known,
                "clue_token": seen,
                "text": probe["text"],
                "last": tokens[-1],
                "part2_clue_weight": part2.get("clues", {}).get(name),
                "models": models,
            }
        )
    rows = []
    for s in sentences:
        for mdl in s["models"]:
            heads = "; ".join(f"{x['top']} {x['top_weight']:.2f}" for x in mdl["heads"])
            guesses = ", ".join(f"{g['token']} {100 * g['p']:.1f}%" for g in mdl["guesses"])
            sentence = s["clue"] if s["clue_known"] else f"{s['clue']} (<UNK>)"
            rows.append([sentence, mdl["label"], heads, f"{mdl['max_clue_weight']:.3f}", guesses])
    return {
        "available": True,
        "sentences": sentences,
        "max_top_percent": 100 * max(m["top_p"] for x in sentences for m in x["models"]),
        "header": ["sentence", "model", "most weight (per head)", "most on the clue", "first guesses"],
        "rows": rows,
    }


@table("results_bank", needs=["sources", "part2_bank"])
def bank_table(sources: Sources, part2_bank: dict) -> dict:
    trace, vocab = sources.trace(), sources.vocab()
    if trace is None:
        return file_absent(sources.folder.trace)
    if vocab is None:
        return file_absent(sources.folder.vocab)
    return bank(trace, vocab.itos, part2_bank)
