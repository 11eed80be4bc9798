"""The training launcher: ``python -m models.train ARGS`` in its own process,
from the repo root. Training must run in a fresh process because
models/numerics.py fixes the CPU code paths before torch starts; both
``models.ensure`` (train what is missing) and ``models.reproduce`` (rerun a
seed from scratch) start it through ``train_cli``."""

from __future__ import annotations

import sys

from common import children
from common.settings import ROOT


def train_cli(args: list[str]) -> int:
    """`python -m models.train ARGS` from the repo root; its exit status."""
    return children.run([sys.executable, "-m", "models.train", *args], cwd=ROOT).returncode
