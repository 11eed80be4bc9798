"""The results slide that closes the loop with Part II (``results_bank``):
what the trained attention models weigh and guess after the river and cheque
"bank" sentences, read from the training trace, beside Part II's hand-built
weights (issue 32 item 4)."""

from __future__ import annotations

import json

from common.layout import MODELS
from models.checkpoints import load_vocab


def test_the_bank_table_reads_the_trace_at_the_selected_step(table):
    bank, part2 = table("results_bank"), table("part2_bank")
    trace = json.loads(MODELS.trace.read_text())
    itos = load_vocab().itos
    names = [p["name"] for p in trace["probes"]]
    assert bank["available"] and [s["name"] for s in bank["sentences"]] == ["river", "cheque"]
    for s in bank["sentences"]:
        i = names.index(s["name"])
        ids = trace["probes"][i]["ids"]
        tokens = [itos[t] for t in ids]
        assert s["clue_known"] == (s["clue"] in tokens) and s["part2_clue_weight"] == part2["clues"][s["name"]]
        for mdl in s["models"]:
            run = trace["runs"][mdl["kind"]]
            point = next(p for p in run["points"] if p["step"] == run["selected_step"])
            for h, head in enumerate(mdl["heads"]):
                row = point["attention"][i][h][-len(ids) :]
                assert head["clue_weight"] == sum(w for w, t in zip(row, tokens) if t == s["clue_token"])
                assert head["top_weight"] == max(row)
            assert [g["token"] for g in mdl["guesses"]] == [itos[t] for t, _ in point["top10"][i][:3]]
    top = max(m["top_p"] for s in bank["sentences"] for m in s["models"])
    assert bank["max_top_percent"] == 100 * top
