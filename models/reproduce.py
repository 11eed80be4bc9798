"""The reproduction record: independent reruns of seed-11 course runs, each
trained from scratch into its own folder, and what they gave.

    python -m models.reproduce --kind attn1              # retrain attn1 seed 11 in a scratch folder, record it
    python -m models.reproduce --record FOLDER [FOLDER]  # record runs already trained into these folders

Each rerun is a record in models/reproduction.json:

    {"format": 1,
     "reruns": [{"kind", "seed", "numerics", "torch_version", "weights_sha256",
                 "selected_step", "test_loss", "train_seconds"}]}

The weights' SHA-256 is compared with the committed checkpoint's by the
results deck (export/tables/results/reproduction.py): equal hashes mean the
rerun gave the same weights bit for bit. ``models.ensure`` validates the file
(models/records.py ``load_reproduction``); nothing rewrites it but this command.
"""

from __future__ import annotations

import argparse
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


def record_of(folder: ModelsFolder, kind: str, seed: int = CHECKPOINT_SEED) -> dict:
    """The reproduction record of the ``kind`` run trained into ``folder``."""
    results = read_json(folder.results, RuntimeError, "training results")
    run = next((r for r in results["runs"] if r["kind"] == kind and r["seed"] == seed), None)
    if run is None:
        raise RuntimeError(f"{folder.results} has no {kind} seed {seed} run")
    return {
        "kind": kind,
        "seed": seed,
        "numerics": run.get("numerics", "not recorded (trained before the code paths were pinned)"),
        "torch_version": run["torch_version"],
        "weights_sha256": sha256_file(folder.weights(kind)),
        "selected_step": run["selected_step"],
        "test_loss": run["test_loss"],
        "train_seconds": run["train_seconds"],
    }


def add(records: list[dict], folder: ModelsFolder = MODELS) -> dict:
    """Append ``records`` to the folder's reproduction record and write it."""
    data = {"format": REPRODUCTION_FORMAT, "reruns": []}
    if folder.reproduction.exists():
        data = load_reproduction(folder, RuntimeError)
    data["reruns"] = data["reruns"] + records
    validate_reproduction(data, folder.reproduction, RuntimeError)
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
    ap.add_argument("--record", type=Path, nargs="+", help="record the --kind run of these trained folders instead")
    args = ap.parse_args(argv)
    try:
        records = [record_of(ModelsFolder(f), args.kind) for f in args.record] if args.record else [rerun(args.kind)]
        data = add(records)
    except (RuntimeError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    committed = sha256_file(MODELS.weights(args.kind))
    for r in records:
        same = "the same weights as" if r["weights_sha256"] == committed else "other weights than"
        print(
            f"reproduce: {r['kind']} seed {r['seed']} gave {same} the committed checkpoint (test loss {r['test_loss']})"
        )
    print(f"reproduce: {len(data['reruns'])} rerun(s) in {MODELS.reproduction}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
