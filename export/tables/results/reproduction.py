"""How much of the seed-to-seed spread could be rounding noise
(``results_reproduction``): the independent reruns of seed-11 runs recorded in
models/reproduction.json (models/reproduce.py), each compared with the
committed checkpoint by the SHA-256 of its weights, beside the spread of test
loss between seeds from models/results.json; and which recorded runs were
trained before the CPU code paths were pinned, with what retraining them
would cost at the recorded pinned run times."""

from __future__ import annotations

import statistics

from common.files import sha256_file
from models.nets import KINDS, LABELS

from ..kit.registry import table
from ..kit.sources import Sources, file_absent

PINNED = "pinned"  # how models/numerics.py describes runs on the fixed code paths


def pinned(run: dict) -> bool:
    return str(run.get("numerics", "")).startswith(PINNED + ":")


def reproduction(record: dict, results: dict, committed_sha: dict) -> dict:
    """The table from the reproduction record, the results and {kind: SHA-256
    of the committed weights}: what was rerun, exactly, and nothing more."""
    runs, reruns = results["runs"], record["reruns"]
    per_kind = []
    for kind in KINDS:
        mine = [r for r in reruns if r["kind"] == kind]
        if not mine:
            continue
        losses = [r["test_loss"] for r in mine]
        seed_losses = [r["test_loss"] for r in runs if r["kind"] == kind]
        seed_sd = statistics.stdev(seed_losses) if len(seed_losses) > 1 else None
        spread = max(losses) - min(losses)
        committed = next((r for r in runs if r["kind"] == kind and r["seed"] == mine[0]["seed"]), None)
        per_kind.append(
            {
                "kind": kind,
                "label": LABELS[kind],
                "n_reruns": len(mine),
                "identical": all(r["weights_sha256"] == committed_sha.get(kind) for r in mine),
                "same_loss": committed is not None and all(r["test_loss"] == committed["test_loss"] for r in mine),
                "rerun_spread": spread,
                "seed_sd": seed_sd,
                "noise_share_percent": spread / seed_sd * 100 if seed_sd else None,
            }
        )
    rerun_kinds = [k["kind"] for k in per_kind]
    not_rerun = [k for k in KINDS if k not in rerun_kinds]
    unpinned = [r for r in runs if not pinned(r)]
    pinned_seconds = {}
    for r in [*runs, *reruns]:
        if pinned(r):
            pinned_seconds[r["kind"]] = min(pinned_seconds.get(r["kind"], float("inf")), r["train_seconds"])
    cost = sum(pinned_seconds.get(r["kind"], r["train_seconds"]) for r in unpinned)
    rows = [
        [
            LABELS[r["kind"]],
            r["seed"],
            "pinned" if pinned(r) else "not pinned",
            "yes" if r["weights_sha256"] == committed_sha.get(r["kind"]) else "no",
            r["test_loss"],
            round(r["train_seconds"] / 60),
        ]
        for r in sorted(reruns, key=lambda r: KINDS.index(r["kind"]))  # the course's model order
    ]
    identical = all(k["identical"] for k in per_kind)
    by_cpu = _runs_by_cpu(runs, reruns, committed_sha)
    cpus = sorted({r.get("cpu", "not recorded") for r in reruns})
    torches = sorted({r["torch_version"] for r in reruns})
    return {
        "available": True,
        "n_reruns": len(reruns),
        "all_identical": identical,
        "all_pinned": all(pinned(r) for r in reruns),
        "per_kind": per_kind,
        "rerun_kinds": rerun_kinds,
        "every_kind_rerun": not not_rerun,
        "not_rerun_text": _words(not_rerun),
        "identical_text": _words([k["kind"] for k in per_kind if k["identical"]]),
        "different_text": _words([k["kind"] for k in per_kind if not k["identical"]]),
        "rerun_seeds_text": " and ".join(str(s) for s in sorted({r["seed"] for r in reruns})),
        "cpus_text": "; ".join(cpus),
        "torch_text": ", ".join(torches),
        "max_noise_share_percent": max(k["noise_share_percent"] or 0 for k in per_kind),
        "max_rerun_spread": max(k["rerun_spread"] for k in per_kind),
        "rerun_labels": _words(rerun_kinds),
        "n_runs": len(runs),
        "unpinned_runs": len(unpinned),
        "unpinned_seeds": sorted({r["seed"] for r in unpinned}),
        "unpinned_seeds_text": " and ".join(str(s) for s in sorted({r["seed"] for r in unpinned})),
        "unpinned_text": _run_words(unpinned, "; "),
        "run_cpus": sorted(c for c in by_cpu if c is not None),
        "one_cpu": len(by_cpu) == 1 and None not in by_cpu,
        "run_cpu_text": "; ".join(
            f"{'CPU not recorded' if cpu is None else 'on ' + _article(cpu) + ' ' + cpu}: {_run_words(rs)}"
            for cpu, rs in sorted(by_cpu.items(), key=lambda kv: (kv[0] is None, kv[0] or ""))
        ),
        "retrain_hours": cost / 3600,
        "retrain_minutes_per_kind": {k: s / 60 for k, s in pinned_seconds.items()},
        "header": ["model", "seed", "code paths", "same weights as committed", "test loss", "minutes"],
        "rows": rows,
    }


def _runs_by_cpu(runs: list[dict], reruns: list[dict], committed_sha: dict) -> dict:
    """{CPU model (None where unknown): the runs trained on it}. A run's CPU is
    its own record's; a run that did not record one (trained before models.train
    recorded it) takes the CPU of a rerun that gave its weights bit for bit,
    since only the same kind of CPU gives the same bits."""
    by_cpu: dict = {}
    for r in runs:
        cpu = r.get("cpu") or next(
            (
                x["cpu"]
                for x in reruns
                if (x["kind"], x["seed"]) == (r["kind"], r["seed"])
                and x["weights_sha256"] == committed_sha.get(r["kind"])
            ),
            None,
        )
        by_cpu.setdefault(cpu, []).append(r)
    return by_cpu


def _run_words(runs: list[dict], sep: str = ", ") -> str:
    """Runs named by model and seed ("one-head attention seeds 11 and 29, four-head attention seed 11")."""
    parts = []
    for k in KINDS:
        seeds = sorted(r["seed"] for r in runs if r["kind"] == k)
        if seeds:
            label = LABELS[k][0].lower() + LABELS[k][1:]
            parts.append(f"{label} seed{'s' if len(seeds) > 1 else ''} " + " and ".join(str(s) for s in seeds))
    return sep.join(parts)


def _article(word: str) -> str:
    return "an" if word[:1].upper() in "AEIOU" else "a"


def _words(kinds: list[str]) -> str:
    """The models' labels as a list in words ("fixed-window MLP and one-head attention")."""
    labels = [LABELS[k][0].lower() + LABELS[k][1:] for k in kinds]
    return ", ".join(labels[:-1]) + (" and " if len(labels) > 1 else "") + (labels[-1] if labels else "")


@table("results_reproduction", needs=["sources"])
def reproduction_table(sources: Sources) -> dict:
    record, results = sources.reproduction(), sources.results()
    if record is None:
        return file_absent(sources.folder.reproduction)
    if results is None:
        return file_absent(sources.folder.results)
    folder = sources.folder
    committed = {k: sha256_file(folder.weights(k)) for k in KINDS if folder.weights(k).exists()}
    return reproduction(record, results, committed)
