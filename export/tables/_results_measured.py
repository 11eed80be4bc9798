"""The measured experiment from models/results.json: the per-model summary
(mean ± sample SD over seeds), the table of every run, and the two charts.
A run that has not finished yet is listed as "not measured yet"."""

from __future__ import annotations

import re
import statistics

from models.nets import KINDS, LABELS

from . import _results_svg as results_svg

NOT_YET = "not measured yet"


def device_phrase(device: str) -> str:
    """models/train.py records e.g. "cpu (x86_64, 1 threads)"; say it with the
    plural that fits the number: "CPU (x86_64), 1 thread"."""
    m = re.fullmatch(r"(\w+) \((.*), (\d+) threads?\)", device)
    if not m:
        return device
    n = int(m.group(3))
    return f"{m.group(1).upper()} ({m.group(2)}), {n} thread{'' if n == 1 else 's'}"


def expected_seeds(results: dict, audit: dict | None) -> list[int]:
    if audit is not None:
        return list(audit["profile"]["seeds"])
    return sorted({r["seed"] for r in results["runs"]})


def summary(results: dict, audit: dict | None) -> dict:
    runs = results["runs"]
    seeds = expected_seeds(results, audit)
    per_kind = []
    for kind in KINDS:
        mine = [r for r in runs if r["kind"] == kind]
        if not mine:
            per_kind.append({"kind": kind, "label": LABELS[kind], "n_runs": 0, "available": False})
            continue
        agg = results.get("aggregate", {}).get(kind)
        ppl = [r["test_perplexity"] for r in mine]
        loss = [r["test_loss"] for r in mine]
        secs = [r["train_seconds"] for r in mine]

        def sd(v):
            return statistics.stdev(v) if len(v) > 1 else None

        entry = {
            "kind": kind,
            "label": LABELS[kind],
            "available": True,
            "n_runs": len(mine),
            "seeds": [r["seed"] for r in mine],
            "parameters": mine[0]["parameters"],
            "ppl_mean": statistics.mean(ppl),
            "ppl_sd": sd(ppl),
            "loss_mean": statistics.mean(loss),
            "loss_sd": sd(loss),
            "seconds_mean": statistics.mean(secs),
            "seconds_sd": sd(secs),
            "selected_steps": [r["selected_step"] for r in mine],
        }
        if agg is not None:  # the recorded aggregate must agree with the runs it summarises
            entry["recorded_ppl_mean"] = agg["test_perplexity"]["mean"]
        per_kind.append(entry)
    done = [e for e in per_kind if e["available"]]
    n_expected = len(seeds) * len(KINDS)

    def pm(mean, sd, digits):
        if sd is None:
            return f"{mean:.{digits}f} (1 run)"
        return f"{mean:.{digits}f} ± {sd:.{digits}f}"

    rows = []
    for e in per_kind:
        if not e["available"]:
            rows.append([e["label"], NOT_YET, NOT_YET, NOT_YET, NOT_YET, f"0 of {len(seeds)}"])
            continue
        rows.append(
            [
                e["label"],
                f"{e['parameters']:,}",
                pm(e["ppl_mean"], e["ppl_sd"], 2),
                pm(e["loss_mean"], e["loss_sd"], 4),
                pm(e["seconds_mean"], e["seconds_sd"], 0),
                f"{e['n_runs']} of {len(seeds)}",
            ]
        )
    by_kind = {e["kind"]: e for e in per_kind}
    gain = None
    if by_kind["attn1"]["available"] and by_kind["attn4"]["available"]:
        one, four = by_kind["attn1"]["ppl_mean"], by_kind["attn4"]["ppl_mean"]
        gain = (one - four) / one * 100
    devices = sorted({device_phrase(r["device"]) for r in runs})
    threads = sorted({int(m.group(1)) for r in runs if (m := re.search(r"(\d+) threads?\)", r["device"]))})
    return {
        "available": bool(done),
        "complete": len(runs) == n_expected,
        "n_runs": len(runs),
        "n_expected": n_expected,
        "seeds": seeds,
        "kinds": per_kind,
        "by_kind": by_kind,
        "header": [
            "model",
            "parameters",
            "test perplexity (mean ± SD)",
            "test loss (nats)",
            "training seconds",
            "runs",
        ],
        "rows": rows,
        "attn4_vs_attn1_ppl_reduction_percent": gain,
        "devices": devices,
        "device": "; ".join(devices),
        "threads": threads,
        "seconds_min": min(r["train_seconds"] for r in runs),
        "seconds_max": max(r["train_seconds"] for r in runs),
        "total_train_seconds": sum(r["train_seconds"] for r in runs),
        "total_train_hours": sum(r["train_seconds"] for r in runs) / 3600,
        "torch_versions": sorted({r["torch_version"] for r in runs}),
        "test_windows": results.get("test_windows"),
        "validation_windows": results.get("validation_windows"),
        "steps": runs[0]["steps"] if runs else None,
        "batch_size": runs[0]["batch_size"] if runs else None,
        "optimizers": {r["kind"]: {"lr": r["lr"], "weight_decay": r["weight_decay"]} for r in runs},
    }


def run_table(results: dict, audit: dict | None) -> dict:
    runs = {(r["kind"], r["seed"]): r for r in results["runs"]}
    seeds = expected_seeds(results, audit)
    rows, missing_runs = [], []
    for kind in KINDS:
        for seed in seeds:
            r = runs.get((kind, seed))
            if r is None:
                rows.append([LABELS[kind], seed, NOT_YET, NOT_YET, NOT_YET, NOT_YET, NOT_YET])
                missing_runs.append([kind, seed])
                continue
            rows.append(
                [
                    LABELS[kind],
                    seed,
                    r["selected_step"],
                    f"{r['val_loss']:.4f}",
                    f"{r['test_loss']:.4f}",
                    f"{r['test_perplexity']:.2f}",
                    f"{r['train_seconds']:.0f}",
                ]
            )
    return {
        "available": bool(runs),
        "header": [
            "model",
            "seed",
            "selected step",
            "validation loss",
            "test loss",
            "test perplexity",
            "training seconds",
        ],
        "rows": rows,
        "missing": missing_runs,
        "eval_steps": sorted({p["step"] for r in results["runs"] for p in r["val_trace"]}),
    }


def charts(results: dict, summary_table: dict) -> dict:
    runs = sorted(results["runs"], key=lambda r: (KINDS.index(r["kind"]), r["seed"]))
    if not runs:
        return {"available": False, "reason": "models/results.json has no finished run yet."}
    steps = sorted({p["step"] for r in runs for p in r["val_trace"]})
    first_shown = steps[1] if len(steps) > 1 else steps[0]
    hidden_start = [
        [LABELS[r["kind"]], r["seed"], p["step"], f"{p['val_loss']:.3f}"]
        for r in runs
        for p in r["val_trace"]
        if p["step"] < first_shown
    ]
    curve_header = ["model", "seed"] + [str(s) for s in steps]
    curve_rows = []
    for r in runs:
        by_step = {p["step"]: p["val_loss"] for p in r["val_trace"]}
        curve_rows.append(
            [LABELS[r["kind"]], r["seed"]] + [f"{by_step[s]:.3f}" if s in by_step else "—" for s in steps]
        )
    kinds = [e for e in summary_table["kinds"] if e["available"]]
    return {
        "available": True,
        "n_curves": len(runs),
        "first_shown_step": first_shown,
        "hidden_start": hidden_start,
        "start_step": steps[0] if first_shown != steps[0] else None,
        "start_values": ", ".join(row[3] for row in hidden_start),
        "val_curves_svg": results_svg.validation_curves(runs, LABELS, first_shown),
        "val_curves_table": {"header": curve_header, "rows": curve_rows},
        "ppl_svg": results_svg.perplexity_dots(kinds, runs),
        "ppl_table": {
            "header": ["model", "runs"] + ["seed " + str(s) for s in summary_table["seeds"]] + ["mean", "SD"],
            "rows": [
                [e["label"], e["n_runs"]]
                + [
                    next(
                        (f"{r['test_perplexity']:.2f}" for r in runs if r["kind"] == e["kind"] and r["seed"] == s),
                        NOT_YET,
                    )
                    for s in summary_table["seeds"]
                ]
                + [f"{e['ppl_mean']:.2f}", "—" if e["ppl_sd"] is None else f"{e['ppl_sd']:.2f}"]
                for e in kinds
            ],
        },
        "n_bars": len(kinds),
    }
