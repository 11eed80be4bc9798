"""The reproduction record: independent reruns of seed-11 course runs, each
trained from scratch in a fresh process into its own folder, and what they gave.

    python -m models.reproduce --kind attn1         # retrain attn1 seed 11 in a scratch folder, record it
    python -m models.reproduce --record FOLDER ...  # record the seed-11 runs already trained into FOLDER

A folder to record is one trained with
``python -m models.train --out FOLDER --kinds K [K ...] --seeds 11 --fresh``:
every seed-11 run in its results.json is recorded. Each rerun is a record in
models/reproduction.json:

    {"format": 1,
     "reruns": [{"kind", "seed", "numerics", "torch_version", "cpu", "weights_sha256",
                 "selected_step", "test_loss", "train_seconds"}]}

``cpu`` is the run's own record of its processor when results.json has one,
else the "model name" of /proc/cpuinfo on the machine that records it (the
machine that trained it, when recorded where it was trained).

Only independent reruns belong here: the committed run's own record (the same
kind, seed and train_seconds as a run of models/results.json) and a record
already present are refused (models/records.py ``validate_reproduction``).
The weights' SHA-256 is compared with the committed checkpoint's by the
results deck (export/tables/results/reproduction.py): equal hashes mean the
rerun gave the same weights bit for bit. ``models.ensure`` validates the file;
nothing rewrites it but this command.
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
from pathlib import Path

from common.config import CONFIG
from common.files import read_json, sha256_file, write_json
from common.layout import MODELS, ModelsFolder

from .launch import train_cli
from .nets import KINDS
from .records import REPRODUCTION_FORMAT, load_reproduction, validate_reproduction

CHECKPOINT_SEED = CONFIG.training.checkpoint_seed


CPUINFO = Path("/proc/cpuinfo")


def cpu_model(cpuinfo: Path = CPUINFO) -> str:
    """This machine's processor as /proc/cpuinfo names it ("model name"), or
    what the platform module says where there is no /proc/cpuinfo."""
    try:
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and value.strip():
                return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def record_of(folder: ModelsFolder, kind: str, seed: int = CHECKPOINT_SEED) -> dict:
    """The reproduction record of the ``kind`` run trained into ``folder``."""
    results = read_json(folder.results, RuntimeError, "training results")
    run = next((r for r in results["runs"] if r["kind"] == kind and r["seed"] == seed), None)
    if run is None:
        raise RuntimeError(f"{folder.results} has no {kind} seed {seed} run")
    if not folder.weights(kind).exists():
        raise RuntimeError(f"{folder.weights(kind)} is missing: the {kind} run's weights were not saved there")
    return {
        "kind": kind,
        "seed": seed,
        "numerics": run.get("numerics", "not recorded (trained before the code paths were pinned)"),
        "torch_version": run["torch_version"],
        "cpu": run.get("cpu") or cpu_model(),
        "weights_sha256": sha256_file(folder.weights(kind)),
        "selected_step": run["selected_step"],
        "test_loss": run["test_loss"],
        "train_seconds": run["train_seconds"],
    }


def records_of(folder: ModelsFolder, seed: int = CHECKPOINT_SEED) -> list[dict]:
    """The records of every seed-``seed`` run trained into ``folder``."""
    results = read_json(folder.results, RuntimeError, "training results")
    kinds = [k for k in KINDS if any(r["kind"] == k and r["seed"] == seed for r in results.get("runs", []))]
    if not kinds:
        raise RuntimeError(f"{folder.results} has no seed-{seed} run to record")
    return [record_of(folder, kind, seed) for kind in kinds]


def add(records: list[dict], folder: ModelsFolder = MODELS) -> dict:
    """Append ``records`` to the folder's reproduction record and write it;
    refused (RuntimeError, nothing written) when one is not an independent
    rerun: the committed run's own record, or one already recorded."""
    data = {"format": REPRODUCTION_FORMAT, "reruns": []}
    if folder.reproduction.exists():
        data = load_reproduction(folder, RuntimeError)
    data["reruns"] = data["reruns"] + records
    committed = read_json(folder.results, RuntimeError, "training results")["runs"] if folder.results.exists() else None
    validate_reproduction(data, folder.reproduction, RuntimeError, committed)
    write_json(folder.reproduction, data)
    return data


def rerun(kind: str, profile: str = "course") -> dict:
    """Train ``kind`` seed 11 from scratch on the pinned code paths, in its
    own process (models/numerics.py must act before torch starts), into a
    scratch folder; its record."""
    with tempfile.TemporaryDirectory(prefix="reproduce-") as tmp:
        args = ["--profile", profile, "--out", tmp, "--kinds", kind, "--seeds", str(CHECKPOINT_SEED), "--fresh"]
        if train_cli(args) != 0:
            raise RuntimeError(f"training {kind} seed {CHECKPOINT_SEED} failed")
        return record_of(ModelsFolder(Path(tmp)), kind)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m models.reproduce", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--kind", choices=KINDS, default="attn1", help="the run to retrain (default %(default)s)")
    ap.add_argument(
        "--record", type=Path, nargs="+", metavar="FOLDER", help="record every seed-11 run trained into these folders"
    )
    ap.add_argument("--models", type=Path, default=MODELS.root, help="models folder to record in (default %(default)s)")
    args = ap.parse_args(argv)
    models = ModelsFolder(args.models)
    try:
        if args.record:
            records = [r for f in args.record for r in records_of(ModelsFolder(f))]
        else:
            records = [rerun(args.kind)]
        data = add(records, models)
    except (RuntimeError, OSError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for r in records:
        committed = sha256_file(models.weights(r["kind"]))
        same = "the same weights as" if r["weights_sha256"] == committed else "other weights than"
        print(
            f"reproduce: {r['kind']} seed {r['seed']} gave {same} the committed checkpoint (test loss {r['test_loss']})"
        )
    print(f"reproduce: {len(data['reruns'])} rerun(s) in {models.reproduction}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
