"""What the comparison of the three models holds equal and what it does not
(``part3_comparison``: sizes, optimizer settings), the seed-11 validation
curves, best step versus last (``part3_seed_curves``), and what full-sequence
attention costs at our w, d and head count (``part3_cost``)."""

from __future__ import annotations

from models.nets import KINDS, LABELS, count_parameters
from models.train import CHECKPOINT_SEED, OPTIMIZER

from ..kit.registry import table
from ..kit.sources import Sources, file_absent, unavailable
from .charts import seed_curves_chart

# a best validation loss less than this far below the last one is a plateau: on
# a fixed validation slice, the "best" step among the last ones is a near tie
PLATEAU_NATS = 0.01


def comparison(sources: Sources, results: dict | None) -> dict:
    """Sizes and optimizer settings of the three models: what the comparison
    holds equal and what it does not."""
    params = {}
    for kind in KINDS:
        loaded = sources.model(kind)
        if loaded is None:
            return file_absent(sources.folder.weights(kind))
        params[kind] = count_parameters(loaded[0])
    runs = (results or {}).get("runs", [])
    settings = {k: {"lr": OPTIMIZER[k][0], "weight_decay": OPTIMIZER[k][1]} for k in KINDS}
    recorded = {r["kind"]: {"lr": r["lr"], "weight_decay": r["weight_decay"]} for r in runs}
    return {
        "available": True,
        "parameters": params,
        "labels": LABELS,
        "attention_equal": params["attn1"] == params["attn4"],
        "mlp_ratio": params["mlp"] / params["attn4"],
        "optimizer": settings,
        "optimizer_recorded": recorded,
        "optimizer_reused": settings["attn1"] == settings["attn4"],
        "rows": [[LABELS[k], params[k], settings[k]["lr"], settings[k]["weight_decay"]] for k in KINDS],
        "header": ["model", "parameters", "learning rate", "weight decay"],
    }


def seed_curves(results: dict | None, seed: int = CHECKPOINT_SEED) -> dict:
    if results is None or not results.get("runs"):
        return unavailable("models/results.json has no finished run yet.")
    runs = sorted((r for r in results["runs"] if r["seed"] == seed), key=lambda r: KINDS.index(r["kind"]))
    if not runs:
        return unavailable(f"models/results.json has no seed-{seed} run yet.")
    rows = []
    for r in runs:
        last = r["val_trace"][-1]
        rows.append(
            {
                "kind": r["kind"],
                "label": LABELS[r["kind"]],
                "selected_step": r["selected_step"],
                "best_val": r["val_loss"],
                "last_step": last["step"],
                "last_val": last["val_loss"],
                "best_is_last": r["selected_step"] == last["step"],
                "rise": last["val_loss"] - r["val_loss"],
                "plateau": last["val_loss"] - r["val_loss"] < PLATEAU_NATS,
            }
        )
    steps = sorted({p["step"] for r in runs for p in r["val_trace"]})
    first_shown = steps[1] if len(steps) > 1 else steps[0]
    return {
        "available": True,
        "seed": seed,
        "runs": rows,
        "not_last": [x for x in rows if not x["best_is_last"]],
        "plateau": [x for x in rows if x["plateau"]],
        "far": [x for x in rows if not x["plateau"]],
        "plateau_nats": PLATEAU_NATS,
        "first_shown_step": first_shown,
        "svg": seed_curves_chart(runs, LABELS, first_shown, seed, PLATEAU_NATS),
        "table": {
            "header": ["model", "best step", "best validation loss", "last step", "last validation loss"],
            "rows": [
                [x["label"], x["selected_step"], f"{x['best_val']:.3f}", x["last_step"], f"{x['last_val']:.3f}"]
                for x in rows
            ],
        },
    }


def cost(T: int, D: int, heads: int) -> dict:
    """Multiply-adds of full-sequence attention at width D (scores QKᵀ and
    mixing AV), and the attention weights it stores, for one and for several
    heads; plus the final-query path our training and browser use."""
    d_k = D // heads
    scores = heads * T * T * d_k  # = T² D for any head count
    mixing = heads * T * T * d_k
    return {
        "T": T,
        "D": D,
        "w": T,  # the slides' names: context width w, model width d
        "d": D,
        "heads": heads,
        "d_k": d_k,
        "scores_madds": scores,
        "mixing_madds": mixing,
        "total_madds": scores + mixing,
        "T2D": T * T * D,
        "weights_stored": {"1": T * T, str(heads): heads * T * T},
        "final_query_madds": 2 * T * D,
        "final_query_weights": heads * T,
        "rows": [
            ["one head", T * T * D, T * T * D, T * T],
            [f"{heads} heads", scores, mixing, heads * T * T],
            [f"{heads} heads, final query only", T * D, T * D, heads * T],
        ],
        "header": ["attention", "scores QKᵀ", "mixing AV", "weights stored"],
    }


@table("part3_comparison", needs=["sources"])
def comparison_table(sources: Sources) -> dict:
    return comparison(sources, sources.results())


@table("part3_seed_curves", needs=["sources"])
def seed_curves_table(sources: Sources) -> dict:
    return seed_curves(sources.results())


@table("part3_cost", needs=["part3_settings"])
def cost_table(part3_settings: dict) -> dict:
    return dict(cost(part3_settings["T"], part3_settings["d"], part3_settings["heads"]), available=True)
