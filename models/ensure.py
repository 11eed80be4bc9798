"""`make site`, step 1: check the shipped data, the committed checkpoints,
vocabulary, results, corpus audit and training trace; train only what is missing.

- Anything corrupt (a file that exists but does not parse, does not match its
  recorded SHA-256, or breaks the results/vocabulary schema) stops with a
  message naming the file; nothing is trained.
- Missing files are listed, then the plan is printed before anything runs:
  which runs will be trained and the measured time per run (from the
  recorded runs of the same kind in results.json). A seed-11 checkpoint that
  is missing while its run is recorded retrains that run only; runs missing
  from results.json are trained; the vocabulary and corpus audit are rewritten
  from the data when missing (no training needed).
- The training trace (models/training_trace.json) is checked like the results:
  schema, the vocabulary's SHA-256, and the SHA-256 and selected step of each
  checkpoint it was recorded with. A missing or corrupt trace stops the build;
  it is rewritten only by retraining a seed-11 run (`make train`).
- Each seed-11 run in results.json must record the test loss and selected
  step its checkpoint's JSON records (a relabelled results table stops the build).
- The reproduction record (models/reproduction.json, models/reproduce.py),
  when present, is checked for its schema; a corrupt one stops the build.
- Every checkpoint's recorded settings (its model sizes and seed) and every
  recorded run's (learning rate, weight decay, steps, batch size) must be the
  course configuration's (common/config.py); a difference stops the build,
  naming the field and both values, e.g.
  `attn4 was trained with h=256, the course says 128: run make train`.
  Nothing is trained then: the committed runs stay until `make train`
  replaces them.

    python -m models.ensure [--dry-run]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

from common.config import CONFIG, CourseConfig
from common.files import Missing, read_json
from common.layout import ModelsFolder
from common.settings import MODELS_DIR

from .checkpoints import CheckpointError, load_checkpoint, load_vocab
from .corpus import DataError, load_stories
from .launch import train_cli
from .nets import KINDS, course_models
from .records import load_reproduction, load_results, load_trace, missing_runs

CHECKPOINT_SEED = CONFIG.training.checkpoint_seed


class SettingsMismatch(CheckpointError):
    """Committed checkpoints or runs were trained with settings other than the
    course configuration's; one line per differing field."""


def settings_mismatches(infos: dict, results: dict | None, config: CourseConfig = CONFIG) -> list[str]:
    """Each recorded setting that differs from ``config``, in words: the model
    sizes and seed of each checkpoint (``infos``: {kind: checkpoint info}) and
    the optimizer, steps and batch size of each run in ``results``."""
    lines = []

    def compare(who: str, recorded: dict, expected: dict) -> None:
        for key, want in expected.items():
            if recorded.get(key) != want:
                lines.append(
                    f"{who} was trained with {key}={recorded.get(key)}, the course says {want}: run make train"
                )

    models = course_models(config)
    profiles = config.training.profiles
    for kind, info in infos.items():
        profile = profiles.get(info.get("profile"), profiles["course"])
        expected = dict(models[kind].as_dict(), C=profile.vocab_size)  # the vocabulary size is the profile's
        compare(kind, info.get("config") or {}, expected)
        compare(kind, info, {"seed": config.training.checkpoint_seed})
    if results is not None:
        profile = profiles[results["profile"]]
        for run in results["runs"]:
            optimizer = config.training.optimizer[run["kind"]]
            expected = dict(lr=optimizer.lr, weight_decay=optimizer.weight_decay, steps=profile.steps)
            compare(f"{run['kind']} seed {run['seed']}", run, dict(expected, batch_size=profile.batch_size))
    return lines


@dataclass
class Plan:
    missing: list[str] = field(default_factory=list)  # messages for files that do not exist
    runs: list[tuple[str, int]] = field(default_factory=list)  # (kind, seed) to train
    seconds: dict[str, float | None] = field(default_factory=dict)  # measured seconds per run, per kind
    profile: str = "course"

    def describe(self) -> list[str]:
        lines = [f"models: {m}" for m in self.missing]
        if not self.runs:
            lines.append("models: no training needed; the vocabulary and corpus audit are rewritten from the data")
            return lines
        total = 0.0
        known = True
        for kind, seed in self.runs:
            sec = self.seconds.get(kind)
            known = known and sec is not None
            total += sec or 0.0
            when = f"about {sec / 60:.0f} min (measured)" if sec is not None else "time not measured yet"
            lines.append(f"models: will train {kind} seed {seed} ({self.profile} profile): {when}")
        lines.append(
            f"models: {len(self.runs)} run(s) to train" + (f", about {total / 60:.0f} min in all" if known else "")
        )
        return lines


def plan(models_dir: Path = MODELS_DIR, config: CourseConfig = CONFIG) -> Plan:
    """What is missing and what must be trained. Raises CheckpointError naming
    the file when anything present is corrupt, and SettingsMismatch when a
    checkpoint or run was trained with settings other than ``config``'s."""
    folder = ModelsFolder(Path(models_dir))
    p = Plan()
    results = None
    try:
        results = load_results(folder.results, CheckpointError, complete=False)
    except Missing as exc:
        p.missing.append(str(exc))
    profile = results["profile"] if results else "course"
    p.profile = profile
    vocab = None
    try:
        vocab = load_vocab(folder, config.training.profiles[profile].vocab_size)
    except Missing as exc:
        p.missing.append(str(exc))
    try:
        read_json(folder.audit, CheckpointError, "corpus audit")
    except Missing as exc:
        p.missing.append(str(exc))
    no_checkpoint, infos = [], {}
    for kind in KINDS:
        try:
            infos[kind] = load_checkpoint(kind, folder)[1]  # also checks the vocabulary hash when vocab.json exists
        except Missing as exc:
            p.missing.append(str(exc))
            no_checkpoint.append(kind)
    if mismatches := settings_mismatches(infos, results, config):
        raise SettingsMismatch("\n".join(mismatches))
    if results is not None:
        check_results_match_checkpoints(folder, infos, results)
    if infos:  # with no checkpoint at all, training writes the trace afresh
        check_trace(folder, infos, vocab)
    if folder.reproduction.exists():  # optional: a fresh training writes none
        load_reproduction(folder, CheckpointError)
    if results is None:
        p.runs = [(kind, seed) for seed in config.training.profiles[profile].seeds for kind in KINDS]
    else:
        todo = set(missing_runs(results)) | {(kind, CHECKPOINT_SEED) for kind in no_checkpoint}
        p.runs = sorted(todo, key=lambda r: (r[1] != CHECKPOINT_SEED, r[1], KINDS.index(r[0])))
        for kind in KINDS:
            times = [r["train_seconds"] for r in results["runs"] if r["kind"] == kind]
            p.seconds[kind] = statistics.median(times) if times else None
    return p


def check_results_match_checkpoints(folder: ModelsFolder, infos: dict, results: dict) -> None:
    """Each checkpoint's JSON records the test loss and selected step of the
    seed-11 run that wrote it; results.json must record the same for that run
    (a relabelled or edited results table otherwise passes every schema check).
    Raises CheckpointError naming both files and both values."""
    for kind, info in infos.items():
        run = next((r for r in results["runs"] if r["kind"] == kind and r["seed"] == CHECKPOINT_SEED), None)
        if run is None:  # not recorded: planned for training
            continue
        for key in ("test_loss", "selected_step"):
            if run.get(key) != info.get(key):
                raise CheckpointError(
                    f"{folder.results} records {key}={run.get(key)} for {kind} seed {CHECKPOINT_SEED}, "
                    f"but {folder.info(kind)} (the checkpoint that run wrote) records {info.get(key)}"
                )


def check_trace(folder: ModelsFolder, infos: dict, vocab) -> None:
    """The trace must exist and match the checkpoints present (``infos``);
    raises CheckpointError naming the file. Nothing retrains a missing trace."""
    try:
        load_trace(folder, CheckpointError, infos, vocab)
    except Missing as exc:
        raise CheckpointError(
            f"{exc}: the committed checkpoints need their training trace "
            "(restore it with `git checkout models/`, or retrain the seed-11 runs with `make train`)"
        ) from exc


def run(p: Plan, models_dir: Path = MODELS_DIR) -> int:
    """Carry out the plan: train exactly the planned runs (the protocol also
    rewrites the vocabulary and corpus audit from the data). Training runs in
    its own process, `python -m models.train`, which fixes the CPU code paths
    before torch starts (models/numerics.py). Returns its exit status."""
    kinds = tuple(k for k in KINDS if any(k == kind for kind, _ in p.runs)) or KINDS
    seeds = tuple(sorted({seed for _, seed in p.runs})) or (CHECKPOINT_SEED,)
    return train_cli(["--profile", p.profile, "--out", str(models_dir), "--kinds", *kinds, "--seeds", *map(str, seeds)])


def main(argv=None, config: CourseConfig = CONFIG) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m models.ensure", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--models", type=Path, default=MODELS_DIR, help="models folder (default %(default)s)")
    ap.add_argument("--dry-run", action="store_true", help="say what would be trained, train nothing")
    args = ap.parse_args(argv)
    try:
        load_stories()  # verifies the shipped data's SHA-256
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        print("error: restore the shipped data with `git checkout data/`", file=sys.stderr)
        return 1
    try:
        p = plan(args.models, config)
    except SettingsMismatch as exc:
        for line in str(exc).splitlines():
            print(f"error: {line}", file=sys.stderr)
        return 1
    except CheckpointError as exc:
        print(f"error: {exc}", file=sys.stderr)
        print(
            "error: restore the committed file with `git checkout models/` or retrain with `make train`",
            file=sys.stderr,
        )
        return 1
    if not p.missing and not p.runs:
        print("models: committed checkpoints, vocabulary, results, corpus audit and training trace are intact")
        return 0
    for line in p.describe():
        print(line, file=sys.stderr)
    if args.dry_run:
        return 0
    if run(p, args.models) != 0:
        print("error: training failed (see above)", file=sys.stderr)
        return 1
    left = plan(args.models, config).missing
    if left:
        print(f"error: still missing after training: {'; '.join(left)}", file=sys.stderr)
        return 1
    print(f"models: trained {len(p.runs)} run(s); checkpoints, vocabulary and results are complete")
    return 0


if __name__ == "__main__":
    sys.exit(main())
