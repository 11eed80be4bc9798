"""The build's stages, declared once: what each runs, reads and writes.

    data/ + models/ -> models -> export -> experiments -> tables -> notebooks -> site -> build/site/

Each stage is one command (``python -m MODULE ARGS``, run by common/runner.py
as a subprocess, so no stage imports a later one) with

- ``inputs``: the files it reads: a file, a folder (every file under it), a
  glob, or ``TRACKED`` (every file git tracks: the site's code download holds
  them); paths are relative to the project root;
- ``code``: the Python files it runs; the runner adds every project module
  they import (their ``import`` statements, followed through the project), so
  a module lists only what it imports dynamically (the deck packages of the
  tables);
- ``tools``: the installed packages whose versions change its output;
- ``outputs``: what it writes. A stage is skipped when the fingerprint of its
  inputs, code, arguments and tools equals the one recorded after its last
  success and its outputs are still the files it left.
"""

from __future__ import annotations

from dataclasses import dataclass

TRACKED = "@tracked"  # every file git tracks (without git: the project tree minus build outputs and environments)

MODEL_FILES = (
    "models/checkpoints",
    "models/results.json",
    "models/corpus_audit.json",
    "models/training_trace.json",
    "models/reproduction.json",
)
DATA = ("data/tinystories",)


@dataclass(frozen=True)
class Stage:
    name: str
    module: str  # python -m MODULE
    args: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()
    code: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    force_args: tuple[str, ...] = ()  # added when the stage is forced (it then redoes work it would keep)
    about: str = ""

    @property
    def command(self) -> str:
        return " ".join(["python -m", self.module, *self.args])


STAGES: tuple[Stage, ...] = (
    Stage(
        "models",
        "models.ensure",
        inputs=DATA + MODEL_FILES,
        code=("models/ensure.py",),
        outputs=MODEL_FILES[:4],
        tools=("torch", "numpy", "safetensors"),
        about="check the data and the committed checkpoints and records; train only what is missing",
    ),
    Stage(
        "export",
        "export",
        inputs=DATA + ("models/checkpoints", "models/results.json", "models/training_trace.json"),
        code=("export/__main__.py",),
        outputs=("build/export",),
        tools=("torch", "numpy", "onnx", "onnxscript", "onnxruntime"),
        about="ONNX files, metadata, parity references, vocabulary, presets and trace for the lab",
    ),
    Stage(
        "experiments",
        "export.experiments",
        inputs=DATA + ("models/checkpoints",),
        code=("export/experiments.py",),
        outputs=("build/experiments/experiments.json",),
        tools=("torch", "numpy"),
        about="every head switched off and where attention wins, over the test windows",
    ),
    Stage(
        "tables",
        "export.tables",
        inputs=DATA + MODEL_FILES + ("build/export/*.json", "build/experiments/experiments.json", "bench/bench.json"),
        code=("export/tables/**/*.py",),
        outputs=("build/tables",),
        tools=("torch", "numpy"),
        about="every table and figure of the decks as JSON",
    ),
    Stage(
        "notebooks",
        "site_builder.notebooks",
        inputs=DATA + MODEL_FILES[:3] + ("notebooks/*.py", "build/tables/*.json", "build/export/*.json"),
        # what each notebook's own fingerprint reads (site_builder/notebooks.py CODE): a change
        # there makes its notebooks stale, so it must rerun the stage that executes them
        code=(
            "site_builder/notebooks.py",
            "notebooks/*.py",
            "site_builder/notebook_check.py",
            "models/*.py",
            "common/*.py",
            "export/decoding.py",
        ),
        outputs=("build/notebooks",),
        tools=("nbclient", "nbformat", "ipykernel", "jupytext", "torch", "numpy"),
        force_args=("--force",),
        about="execute the companion notebooks (each one only when its own inputs changed)",
    ),
    Stage(
        "site",
        "site_builder",
        inputs=(
            "content",
            "web",
            "site_builder",
            "build/tables",
            "build/export",
            "build/notebooks/*.ipynb",
            "package-lock.json",
            "node_modules/.package-lock.json",
            TRACKED,
        ),
        code=("site_builder/__main__.py",),
        outputs=("build/site",),
        tools=("jinja2", "markdown-it-py", "pygments", "fonttools", "brotli"),
        about="render content/ with the tables into build/site (the code download holds every tracked file)",
    ),
)

NAMES = tuple(s.name for s in STAGES)


def stage(name: str, stages=STAGES) -> Stage:
    for s in stages:
        if s.name == name:
            return s
    raise KeyError(f"no stage named {name!r} (stages: {', '.join(s.name for s in stages)})")
