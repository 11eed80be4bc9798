"""Every model kind replays its first updates bit for bit (issue 32), on a CPU
where a bit-identical rerun is recorded; on another kind of CPU within
models.trace_check.CLOSE, and the check says it is not bit for bit.

tests/test_trace.py retrains the first 100 updates of attn1 (`make
trace-check`: its first ten are compared there too); this replays the first
REPLAY_STEPS updates of the other kinds, in one process of their own
(models/numerics.py pins the code paths before torch starts; the corpus is
prepared once for both), and compares every trace point on the way (steps 0, 1, 10 of
models/training_trace.json: validation loss, top-10 predictions, attention
weights) with the committed trace. Few updates keep it cheap; a kind whose
training code path drifted fails here with the first step and field that
differ."""

from __future__ import annotations

import json
import subprocess
import sys

from common.layout import MODELS
from common.settings import ROOT
from models.nets import KINDS
from models.reproduce import cpu_model
from models.trace_check import CLOSE, identical_cpus

REPLAY_STEPS = 10


# attn1's first REPLAY_STEPS updates are compared by tests/test_trace.py's 100-update run
REPLAYED = [kind for kind in KINDS if kind != "attn1"]


def test_the_first_updates_of_every_kind_replay_the_trace_exactly():
    trace = json.loads(MODELS.trace.read_text())
    compared = {}
    for kind in REPLAYED:
        compared[kind] = [p["step"] for p in trace["runs"][kind]["points"] if p["step"] <= REPLAY_STEPS]
        assert len(compared[kind]) >= 3  # steps 0, 1 and 10: the start, one update, ten
        assert ("attention" in trace["runs"][kind]["points"][0]) == (kind != "mlp")
    assert set(REPLAYED) | {"attn1"} == set(KINDS)
    done = subprocess.run(
        [sys.executable, "-m", "models.trace_check", "--kind", *REPLAYED, "--steps", str(REPLAY_STEPS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    for kind in REPLAYED:
        where = f"{kind} seed 11, steps 0-{REPLAY_STEPS}: {len(compared[kind])} points"
        # bit for bit on a CPU where a bit-identical rerun is recorded; elsewhere within CLOSE, and it says so
        assert f"{where} identical" in done.stdout or (
            f"{where} agree with the committed trace within {CLOSE:.0e}, not bit for bit" in done.stdout
            and cpu_model() not in identical_cpus(MODELS, kind)
        ), done.stdout
    assert "warning" not in done.stderr
