"""The measured experiment from models/results.json: the per-model summary
(mean ± sample SD over seeds, ``results_summary``) and the table of every run
(``results_runs``). A run that has not finished yet is listed as "not measured
yet"; without any finished run both tables say the file does not exist yet."""

from __future__ import annotations

import re
import statistics

from common.numbers import written
from models.nets import KINDS, LABELS

from ..kit.registry import table
from ..kit.sources import Sources, file_absent

NOT_YET = "not measured yet"


def finished(sources: Sources) -> dict | None:
    """models/results.json when it holds at least one finished run, else None."""
    results = sources.results()
    return results if results is not None and results.get("runs") else None


@table("results_summary", needs=["sources"])
def summary_table(sources: Sources) -> dict:
    results = finished(sources)
    return file_absent(sources.folder.results) if results is None else summary(results, sources.audit())


@table("results_runs", needs=["sources"])
def runs_table(sources: Sources) -> dict:
    results = finished(sources)
    return file_absent(sources.folder.results) if results is None else run_table(results, sources.audit())


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
            return f"{written(mean, digits)} (1 run)"
        return f"{written(mean, digits)} ± {written(sd, digits)}"

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
                    written(r["train_seconds"], 0),
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
