"""`make site`, step 1: check that the committed checkpoints, vocabulary and
results are present and intact; train the course protocol only if they are
missing. Stops with a message naming the bad file otherwise."""

from __future__ import annotations

import sys

from .checkpoints import CheckpointError, load_checkpoint, load_vocab
from .corpus import DataError, load_stories
from .files import Missing, read_json
from .nets import KINDS
from .settings import CHECKPOINT_DIR, MODELS_DIR
from .train import out_paths, run_protocol


def check() -> list[CheckpointError]:
    problems = []
    try:
        load_vocab(CHECKPOINT_DIR)
    except CheckpointError as exc:
        problems.append(exc)
    for kind in KINDS:
        try:
            load_checkpoint(kind, CHECKPOINT_DIR)
        except CheckpointError as exc:
            problems.append(exc)
    for path in out_paths(MODELS_DIR)["results"], out_paths(MODELS_DIR)["audit"]:
        try:
            read_json(path, CheckpointError)
        except CheckpointError as exc:
            problems.append(exc)
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
    missing_only = all(isinstance(p, Missing) for p in problems)
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
