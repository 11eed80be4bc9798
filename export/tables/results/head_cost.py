"""What each head is worth: the test cross-entropy and perplexity of the
attention models with heads switched off (zero ablation), from the
experiments over every test window (export/experiments.py). The lab shows
the same numbers beside its head toggles (tables/results_head_cost.json)."""

from __future__ import annotations

from common.files import sha256_file
from common.palette import MODELS
from models.nets import KINDS, LABELS

from ..kit.bars import bars
from ..kit.registry import table
from ..kit.sources import Sources, file_absent, unavailable

ATTENTION = ("attn1", "attn4")


def experiments_or_reason(sources: Sources):
    """(experiments.json, None) when it was computed from the checkpoints in the
    models folder now, else (None, the unavailable dict saying why)."""
    result = sources.experiments()
    if result is None:
        return None, file_absent(sources.experiments_path)
    for kind in KINDS:
        for path in (sources.folder.info(kind), sources.folder.weights(kind)):
            if not path.exists() or result.get("inputs", {}).get(path.name) != sha256_file(path):
                return None, unavailable(f"{path.name} changed since the experiments ran: run `python -m export`.")
    return result, None


def _state(v: dict, base: dict | None, intervals: dict | None = None) -> dict:
    out = {"loss": v["loss"], "perplexity": v["perplexity"], "heads_off": v["heads_off"]}
    if base is not None:
        out["delta"] = v["loss"] - base["loss"]
        out["ratio"] = v["perplexity"] / base["perplexity"]
        if intervals and v.get("name") in intervals:
            out["delta_ci"] = intervals[v["name"]]  # the bootstrap over test stories (export/bootstrap.py)
    return out


def worse_than(state: dict, kind: str, variants: dict) -> list[dict]:
    """The other unablated models whose test perplexity this state of ``kind``
    exceeds, most perplexed first: what the head's cost makes the model worse than."""
    others = [
        v
        for v in variants.values()
        if not v["heads_off"] and v["kind"] != kind and v["perplexity"] < state["perplexity"]
    ]
    return [
        {
            "kind": v["kind"],
            "label": LABELS[v["kind"]],
            "name": LABELS[v["kind"]][0].lower() + LABELS[v["kind"]][1:],  # as a sentence names it
            "perplexity": v["perplexity"],
        }
        for v in sorted(others, key=lambda v: -v["perplexity"])
    ]


def by_kind(variants: dict, intervals: dict | None = None) -> dict:
    """Per attention model: all heads on, each single head off, every head off;
    each ablation with its bootstrap interval (``intervals``: variant name ->
    [lo, hi]) and the models it is worse than."""
    out = {}
    for kind in ATTENTION:
        mine = [v for v in variants.values() if v["kind"] == kind]
        on = next(v for v in mine if not v["heads_off"])
        n = max(len(v["heads_off"]) for v in mine)
        single = sorted((v for v in mine if len(v["heads_off"]) == 1), key=lambda v: v["heads_off"][0])
        every = next(v for v in mine if len(v["heads_off"]) == n)
        heads = [dict(_state(v, on, intervals), head=v["heads_off"][0] + 1) for v in single]
        out[kind] = {"label": LABELS[kind], "n_heads": n, "on": _state(on, None), "heads": heads}
        out[kind]["all_off"] = _state(every, on, intervals)
        for state in [*heads, out[kind]["all_off"]]:
            state["worse_than"] = worse_than(state, kind, variants)
        if n > 1:
            costs = [h["delta"] for h in heads]
            out[kind]["most_costly"] = heads[costs.index(max(costs))]
            out[kind]["least_costly"] = heads[costs.index(min(costs))]
            out[kind]["sum_single"] = sum(costs)
    return out


def rows(kinds: dict, mlp: dict) -> list[list[str]]:
    def row(label, what, s):
        delta = "—" if "delta" not in s else f"{s['delta']:+.3f}"
        ci = "—" if "delta_ci" not in s else f"{s['delta_ci'][0]:+.3f} to {s['delta_ci'][1]:+.3f}"
        return [label, what, f"{s['loss']:.3f}", f"{s['perplexity']:.2f}", delta, ci]

    out = [row(LABELS["mlp"], "(no heads)", mlp)]
    for kind in ATTENTION:
        out.append(row(kinds[kind]["label"], "none", kinds[kind]["on"]))
        out += [row("", what, state) for what, state in ablations(kinds[kind])]
    return out


def ablations(k: dict) -> list[tuple[str, dict]]:
    """(which heads are off, the state) of one model's ablations, in the table's
    order: each single head (where there are several), then every head."""
    single = [(f"head {h['head']}", h) for h in k["heads"]] if k["n_heads"] > 1 else []
    return single + [("all" if k["n_heads"] > 1 else "its head", k["all_off"])]


def cost_bars(kinds: dict) -> str | None:
    """The rise in test cross-entropy of every ablation, a bar each in its
    model's colour, in the table's order; None when a head's removal lowered
    the loss (a bar cannot show a negative change: the slide keeps the table)."""
    labels, values, colours = [], [], []
    for kind in ATTENTION:
        k = kinds[kind]
        name = "1 head" if k["n_heads"] == 1 else f"{k['n_heads']} heads"
        for what, state in ablations(k):
            labels.append(f"{name}: {what} off")
            values.append(state["delta"])
            colours.append(MODELS[kind])
    if min(values) <= 0:
        return None
    return bars(
        "fig-head-cost",
        "Rise in test cross-entropy with heads switched off (nats/token)",
        None,
        labels,
        [("", values)],
        fmt=lambda v: f"{v:+.3f}",
        colours=colours,
        width=1000,
        bar_h=36,
        gap=14,
    )


@table("results_head_cost", needs=["sources"])
def head_cost(sources: Sources) -> dict:
    result, reason = experiments_or_reason(sources)
    if result is None:
        return reason
    variants = result["variants"]
    boot = result.get("bootstrap")
    kinds = by_kind(variants, boot["head_cost"] if boot else None)
    mlp = _state(variants["mlp"], None)
    return {
        "available": True,
        "test_windows": result["test_windows"],
        "mlp": mlp,
        "by_kind": kinds,
        "header": [
            "model",
            "heads off",
            "test cross-entropy",
            "perplexity",
            "change (nats/token)",
            f"{round(boot['level'] * 100) if boot else 95}% interval",
        ],
        "bootstrap": None if boot is None else {k: boot[k] for k in ("seed", "draws", "stories", "level")},
        "rows": rows(kinds, mlp),
        "bars": cost_bars(kinds),
    }
