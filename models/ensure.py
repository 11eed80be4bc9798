"""`make site`, step 1: check that the committed checkpoints, vocabulary and
results are present and intact; train the course protocol only if they are
missing. Stops with a message naming the bad file otherwise."""

from __future__ import annotations

import json
import sys

from .checkpoints import CHECKPOINT_DIR, CheckpointError, load_checkpoint, load_vocab
from .corpus import DataError, load_stories
from .nets import KINDS
from .train import MODELS_DIR, out_paths, run_protocol


def check() -> list[str]:
    problems = []
    try:
        load_vocab(CHECKPOINT_DIR)
    except CheckpointError as exc:
        problems.append(str(exc))
    for kind in KINDS:
        try:
            load_checkpoint(kind, CHECKPOINT_DIR)
        except CheckpointError as exc:
            problems.append(str(exc))
    for path in out_paths(MODELS_DIR)["results"], out_paths(MODELS_DIR)["audit"]:
        if not path.exists():
            problems.append(f"missing: {path}")
        else:
            try:
                json.loads(path.read_text(encoding="utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                problems.append(f"corrupt JSON: {path} ({exc})")
    return problems


def main() -> int:
    try:
        load_stories()  # verifies the shipped data's SHA-256
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    problems = check()
    if not problems:
        print("models: committed checkpoints, vocabulary and results are intact")
        return 0
    missing_only = all(p.startswith(("checkpoint metadata missing", "checkpoint weights missing", "missing:",
                                     "vocabulary file missing")) for p in problems)
    for p in problems:
        print(f"models: {p}", file=sys.stderr)
    if not missing_only:
        print("error: a committed model file is corrupt; restore it with `git checkout models/` "
              "or retrain with `make train`", file=sys.stderr)
        return 1
    print("models: training the course protocol (about an hour on 2 cores)", file=sys.stderr)
    run_protocol("course", MODELS_DIR)
    return 0


if __name__ == "__main__":
    sys.exit(main())
