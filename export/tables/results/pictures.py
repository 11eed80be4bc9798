"""The results deck's matrices drawn as heatmaps of coloured cells and its
training seconds per model drawn as bars (issue 20), each from the numbers
of its own table (table ``results_pictures``): one prompt's path from text
to IDs, the final query's four weight rows, the one-pass rows beside the
per-step rows, every run's selected step (a dot plot on the step axis,
issue 35) and the training seconds per model. The tables
stay on the slides' notes, so the reading view and print keep every number."""

from __future__ import annotations

from common.palette import MODELS

from ..kit.bars import bars
from ..kit.cell_panels import natural_size
from ..kit.dots import dot_rows
from ..kit.draw import PHONE, arranged, flow
from ..kit.numbers import shape_text
from ..kit.panels import heatmaps
from ..kit.registry import table
from .charts import SHORT


def masked(weights: list[list[float]]) -> list[list[float | None]]:
    """A causal weight matrix with the cells above the diagonal blocked."""
    return [[v if j <= i else None for j, v in enumerate(row)] for i, row in enumerate(weights)]


def prompt_path(att: dict) -> str:
    """Tokens, IDs with BOS, the left-padded window and its embedding."""
    stages = [
        ("tokens", " · ".join(att["tokens"]), "data"),
        ("IDs, BOS first", " ".join(str(i) for i in att["history"]), "data"),
        (f"+ {att['pad_count']} PADs: X", shape_text(att["X_shape"]), "op"),
        ("embedding E", shape_text(att["shapes"]["E"]), "param"),
    ]
    return flow(
        "fig-res-prompt",
        f"“{att['prompt']}” from tokens to the embedded window",
        "; then ".join(f"{a}: {b}" for a, b, _ in stages) + ".",
        stages,
        ["vocabulary", "left-pad", "lookup"],
        width=900,
    )


def selected_steps(rows: list, labels: list[str], kind_of: dict, res: dict) -> str:
    """Every run's selected step as a dot on one 0 to ``res['steps']`` step
    axis: a row per model in its colour, a dot per seed (seeds that chose
    the same or a near step stand one above the other), the ceiling marked."""
    title = f"The step each run's checkpoint was taken from, out of {res['steps']:,}"
    desc = (
        "Selected step (lowest validation loss) of every run: "
        + "; ".join(f"{lab}: step {r[2]:,}" for lab, r in zip(labels, rows))
        + f". The step ceiling is {res['steps']:,}."
    )
    kinds = [k["kind"] for k in res["kinds"] if any(kind_of.get(r[0]) == k["kind"] for r in rows)]
    dots = [(SHORT[k], MODELS[k], [(f"seed {r[1]}", r[2]) for r in rows if kind_of.get(r[0]) == k]) for k in kinds]
    same = dict(vmax=res["steps"], axis_label="optimizer step", ceiling_label=f"ceiling: {res['steps']:,} steps")
    wide = dot_rows("fig-res-selected", title, desc, dots, **same)
    phone = dot_rows("fig-res-selected-phone", title, desc, dots, phone=True, **same)
    # at one px per unit at most: the slide shows it at its drawn size, its text at 18 px
    return arranged(natural_size(wide), natural_size(phone) if phone.width <= PHONE else None)


@table("results_pictures", needs=["results_attention", "results_per_step", "results_runs", "results_summary"])
def pictures(results_attention, results_per_step, results_runs, results_summary) -> dict:
    """The deck's cell figures and bar figures, each from its own table."""
    att, ps, runs, res = results_attention, results_per_step, results_runs, results_summary
    out: dict = {}
    if att.get("available"):
        words = att["header"][1:]
        weights = [row[1:] for row in att["rows"]]
        heads = [row[0] for row in att["rows"]]
        out["final_rows"] = heatmaps(
            "fig-res-final-rows",
            f"The final query's weights in each head, on “{att['prompt']}”",
            "One row per head, one column per real token: "
            + "; ".join(f"{h}: " + ", ".join(f"{w} {v:.3f}" for w, v in zip(words, r)) for h, r in zip(heads, weights))
            + ".",
            [("", weights)],
            heads,
            words,
            scale_name="weight",
            digits=3,
            cell_h=44,
        )
        out["prompt_path"] = prompt_path(att)
    if ps.get("available"):
        k4 = ps["kinds"]["attn4"]
        hd = k4["heads"][0]
        out["per_step"] = heatmaps(
            "fig-res-per-step",
            f"Head {hd['head']} of the four-head model: one pass beside step by step",
            "Row = query position, column = source; cells above the diagonal are blocked. One pass: "
            + "; ".join(f"{lab}: {[round(v, 2) for v in r]}" for lab, r in zip(k4["labels"], hd["one_pass"]))
            + ". Per step: "
            + "; ".join(f"{lab}: {[round(v, 2) for v in r]}" for lab, r in zip(k4["labels"], hd["per_step"]))
            + ".",
            [("one pass", masked(hd["one_pass"])), ("per step (trained)", masked(hd["per_step"]))],
            k4["labels"],
            k4["words"],
            scale_name="weight",
            digits=2,
            rotate_cols=True,
            cell_h=34,
            gap=40,
        )
    if runs.get("available") and res.get("available"):
        kind_of = {k["label"]: k["kind"] for k in res["kinds"]}
        rows = [r for r in runs["rows"] if isinstance(r[2], int)]
        labels = [f"{SHORT.get(kind_of.get(r[0]), r[0])}, seed {r[1]}" for r in rows]
        out["selected_steps"] = selected_steps(rows, labels, kind_of, res)
        kinds = [k for k in res["kinds"] if k.get("available")]
        out["seconds"] = bars(
            "fig-res-seconds",
            "Mean training seconds per model (shared machine)",
            "Mean training seconds over the seeds, validation passes included: "
            + "; ".join(f"{k['label']}: {k['seconds_mean']:,.0f} s" for k in kinds)
            + ".",
            [k["label"] for k in kinds],
            [("", [k["seconds_mean"] for k in kinds])],
            fmt=lambda v: f"{v:,.0f} s",
            colours=[MODELS[k["kind"]] for k in kinds],
            width=1000,
        )
    return dict(out, available=bool(out))
