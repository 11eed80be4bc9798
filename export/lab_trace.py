"""The training trace as the lab's Training replay panel reads it
(build/export/training_trace.json -> site/onnx/): models/training_trace.json
trimmed to what the panel shows, with token strings instead of IDs, so that it
needs no other file:

    {"format": 1, "context": 64, "order": [kind...],
     "probes": [{"name", "text", "tokens": [BOS + the text's tokens]}],
     "runs": {kind: {"label", "heads": 0 | n, "selected_step",
                     "points": [{"step", "validation_loss",
                                 "top": [[[token, p] x TOP] per probe],
                                 "attention": [[[w per probe token] per head] per probe]}]}}}

Each probe's attention keeps only the window slots that hold its tokens (the
last len(tokens) of 64; the PAD slots before them get weight 0). Every kept
number is the trace's, unchanged; tests/test_lab_replay.py reads the panel
against models/training_trace.json.
"""

from __future__ import annotations

from models.nets import COURSE, KINDS, LABELS

FORMAT = 1
TOP = 5  # predictions the panel lists per model


def lab_trace(trace: dict, itos: list[str]) -> dict:
    def token(i: int) -> str:
        return itos[i]

    probes = [{"name": p["name"], "text": p["text"], "tokens": [token(i) for i in p["ids"]]} for p in trace["probes"]]
    sizes = [min(len(p["ids"]), trace["context"]) for p in trace["probes"]]
    runs = {}
    for kind in KINDS:
        run = trace["runs"][kind]
        points = []
        for p in run["points"]:
            point = {
                "step": p["step"],
                "validation_loss": p["validation_loss"],
                "top": [[[token(i), q] for i, q in row[:TOP]] for row in p["top10"]],
            }
            if "attention" in p:
                point["attention"] = [[head[-n:] for head in probe] for probe, n in zip(p["attention"], sizes)]
            points.append(point)
        runs[kind] = {
            "label": LABELS[kind],
            "heads": getattr(COURSE[kind], "n_heads", 0),
            "selected_step": run["selected_step"],
            "points": points,
        }
    return {"format": FORMAT, "context": trace["context"], "order": list(KINDS), "probes": probes, "runs": runs}
