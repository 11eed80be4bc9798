"""The training protocol: three models x three seeds, AdamW, best-validation
checkpoint selection, one test evaluation per run. Every run records a trace
of its predictions on fixed probes (models/trace.py); the seed-11 runs' trace
is written beside their checkpoints. Training runs on fixed CPU code paths and
one thread (models/numerics.py), so that a rerun gives the same weights.

    python -m models.train --profile course            # resume
    python -m models.train --profile course --fresh    # rerun everything
"""

from __future__ import annotations

import argparse
import copy
import math
import platform
import statistics
import tempfile
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from tqdm import tqdm

from common.config import CONFIG
from common.files import read_json, sha256_file, write_json
from common.layout import ModelsFolder
from common.settings import BUILD_DIR, MODELS_DIR

from . import numerics
from .checkpoints import save_checkpoint
from .corpus import PROFILES, Profile, prepare
from .nets import KINDS, LABELS, build, count_parameters
from .probes import probe_set
from .reproduce import cpu_model
from .trace import EARLY_STEPS, TraceRecorder, save_run

# The protocol's settings (common/config.py CONFIG.training), under the names other code reads.
CHECKPOINT_SEED = CONFIG.training.checkpoint_seed
CLIP_NORM = CONFIG.training.clip_norm
EVAL_BATCH = CONFIG.training.eval_batch
OPTIMIZER = {kind: (o.lr, o.weight_decay) for kind, o in CONFIG.training.optimizer.items()}  # kind: (lr, wd)


def optimizer_settings(kind: str) -> tuple[float, float]:
    """The protocol's (learning rate, weight decay) for a model kind."""
    return OPTIMIZER[kind]


def eval_steps(profile: Profile) -> set[int]:
    """The updates after which validation loss is measured: the first, every
    eval_every-th, and the last."""
    return {1} | set(range(profile.eval_every, profile.steps + 1, profile.eval_every)) | {profile.steps}


def trace_steps(profile: Profile) -> set[int]:
    """The steps the training trace records: before the first update, a few
    early steps, and every validation step."""
    return {0} | {s for s in EARLY_STEPS if s < profile.steps} | eval_steps(profile)


@torch.no_grad()
def mean_loss(model: torch.nn.Module, X: torch.Tensor, y: torch.Tensor) -> float:
    model.eval()
    total = 0.0
    for start in range(0, len(y), EVAL_BATCH):
        xb, yb = X[start : start + EVAL_BATCH].long(), y[start : start + EVAL_BATCH].long()
        total += F.cross_entropy(model(xb), yb, reduction="sum").item()
    model.train()
    return total / len(y)


def validation_slice(X: torch.Tensor, y: torch.Tensor, n: int):
    """A fixed slice of validation windows, the same for every run: a
    permutation drawn with seed 0 (CONFIG.training.validation_seed), first n."""
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(CONFIG.training.validation_seed))[:n]
    return X[order], y[order]


def train_run(
    kind: str,
    seed: int,
    profile: Profile,
    data: dict,
    vocab_size: int,
    progress: bool = True,
    recorder: TraceRecorder | None = None,
):
    """One run. Returns (record, model restored to its best-validation state).
    A ``recorder`` collects the trace at its steps; recording draws no random
    numbers, so it leaves the run unchanged."""
    torch.manual_seed(seed)
    model = build(kind, C=vocab_size)
    lr, wd = optimizer_settings(kind)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=wd)
    Xtr, ytr = data["train"]
    Xva, yva = data["val"]
    gen = torch.Generator().manual_seed(seed)
    evals = eval_steps(profile)
    trace, best_loss, best_state, best_step = [], math.inf, None, 0
    running, n_running = 0.0, 0
    start = time.perf_counter()
    if recorder is not None and 0 in recorder.steps:
        _record(recorder, 0, model, None, data["val"])
    bar = tqdm(range(1, profile.steps + 1), desc=f"{kind} seed {seed}", disable=not progress, mininterval=2)
    for step in bar:
        idx = torch.randint(0, len(ytr), (profile.batch_size,), generator=gen)
        loss = F.cross_entropy(model(Xtr[idx].long()), ytr[idx].long())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP_NORM)
        opt.step()
        running, n_running = running + loss.item(), n_running + 1
        if step in evals:
            val = mean_loss(model, Xva, yva)
            trace.append({"step": step, "val_loss": val, "train_loss": running / n_running})
            running, n_running = 0.0, 0
            bar.set_postfix(val=f"{val:.3f}")
            if val < best_loss:
                best_loss, best_step = val, step
                best_state = copy.deepcopy(model.state_dict())
            if recorder is not None and step in recorder.steps:
                _record(recorder, step, model, val, data["val"])
        elif recorder is not None and step in recorder.steps:
            _record(recorder, step, model, None, data["val"])
    train_seconds = time.perf_counter() - start
    model.load_state_dict(best_state)
    test_loss = mean_loss(model, *data["test"])
    model.eval()
    record = {
        "kind": kind,
        "label": LABELS[kind],
        "seed": seed,
        "parameters": count_parameters(model),
        "lr": lr,
        "weight_decay": wd,
        "steps": profile.steps,
        "batch_size": profile.batch_size,
        "val_trace": trace,
        "selected_step": best_step,
        "val_loss": best_loss,
        "test_loss": test_loss,
        "test_perplexity": math.exp(test_loss),
        "train_seconds": train_seconds,
        "device": f"cpu ({platform.processor() or platform.machine()}, {torch.get_num_threads()} threads)",
        "cpu": cpu_model(),  # pinned runs give the same bits again on the same kind of CPU
        "torch_version": torch.__version__,
        "numerics": numerics.describe(),
    }
    return record, model


def _record(recorder: TraceRecorder, step: int, model, val: float | None, val_data) -> None:
    """One trace point; the validation pass counts as recording time when
    the protocol would not have made it."""
    start = time.perf_counter()
    recorder.record(step, model, mean_loss(model, *val_data) if val is None else val)
    recorder.seconds += time.perf_counter() - start


def aggregate(runs: list[dict]) -> dict:
    """Mean and sample SD over seeds, per kind (perplexity averaged per run)."""
    out = {}
    for kind in KINDS:
        rs = [r for r in runs if r["kind"] == kind]
        if not rs:
            continue
        agg = {"seeds": [r["seed"] for r in rs], "parameters": rs[0]["parameters"], "label": LABELS[kind]}
        for key in ("test_loss", "test_perplexity", "train_seconds"):
            vals = [r[key] for r in rs]
            agg[key] = {"mean": statistics.mean(vals), "sd": statistics.stdev(vals) if len(vals) > 1 else None}
        out[kind] = agg
    return out


class OtherVocabulary(RuntimeError):
    """Training would write a vocabulary into a folder whose kept runs were trained with another."""


def _needs_training(folder: ModelsFolder, results: dict, kind: str, seed: int) -> bool:
    recorded = any(r["kind"] == kind and r["seed"] == seed for r in results["runs"])
    has_checkpoint = folder.info(kind).exists() and folder.weights(kind).exists()
    return not recorded or (seed == CHECKPOINT_SEED and not has_checkpoint)


def refuse_other_vocabulary(folder: ModelsFolder, vocab, results: dict, todo, data_path) -> None:
    """Raises OtherVocabulary when ``vocab`` differs from the folder's vocab.json
    and the folder keeps runs or checkpoints this call does not retrain: they
    would then sit beside a vocabulary they were not trained with (``--data`` a
    learner's own stories into models/ would overwrite the committed one)."""
    if not folder.vocab.exists():
        return
    with tempfile.TemporaryDirectory() as tmp:
        vocab.save(Path(tmp) / "vocab.json")
        new = sha256_file(Path(tmp) / "vocab.json")
    old = sha256_file(folder.vocab)
    if new == old:
        return
    retrained = set(todo)
    kept = [f"{r['kind']} seed {r['seed']}" for r in results["runs"] if (r["seed"], r["kind"]) not in retrained]
    kept += [
        f"the {kind} checkpoint"
        for kind in KINDS
        if folder.info(kind).exists() and (CHECKPOINT_SEED, kind) not in retrained
    ]
    if kept:
        source = data_path or "the shipped stories"
        raise OtherVocabulary(
            f"{folder.vocab}: training on {source} fits another vocabulary (SHA-256 {new[:12]}..., "
            f"the folder's is {old[:12]}...), and {folder.root} keeps runs trained with the folder's: "
            f"{', '.join(kept)}; train into a folder of its own (--out NEW_FOLDER), "
            "or pass --fresh with every kind and seed to replace them all"
        )


def run_protocol(
    profile: Profile | str = "course",
    out_dir: Path = MODELS_DIR,
    data_path=None,
    kinds=KINDS,
    seeds=None,
    fresh: bool = False,
    progress: bool = True,
) -> dict:
    profile = PROFILES[profile] if isinstance(profile, str) else profile
    folder = ModelsFolder(Path(out_dir))
    corpus = prepare(profile, data_path)
    results = {"profile": profile.name, "runs": []}
    if not fresh and folder.results.exists():
        results = read_json(folder.results, RuntimeError, "training results")
    seeds = seeds or profile.seeds
    todo = [(seed, kind) for seed in seeds for kind in kinds if _needs_training(folder, results, kind, seed)]
    if not todo:  # nothing to train: the folder's vocabulary, audit and records stay as they are
        return results
    refuse_other_vocabulary(folder, corpus.vocab, results, todo, data_path)
    write_json(folder.audit, corpus.audit)
    folder.checkpoints.mkdir(parents=True, exist_ok=True)
    corpus.vocab.save(folder.vocab)
    data = {
        "train": corpus.windows("train"),
        "val": validation_slice(*corpus.windows("validation"), profile.val_windows),
        "test": corpus.windows("test"),
    }
    probes = probe_set(corpus.vocab)
    for seed, kind in todo:  # seed-major: all seed-11 checkpoints come first
        results["runs"] = [r for r in results["runs"] if not (r["kind"] == kind and r["seed"] == seed)]
        recorder = TraceRecorder(probes, trace_steps(profile))
        record, model = train_run(kind, seed, profile, data, len(corpus.vocab), progress, recorder=recorder)
        if seed == CHECKPOINT_SEED:
            weights = save_checkpoint(
                model,
                {
                    "seed": seed,
                    "selected_step": record["selected_step"],
                    "profile": profile.name,
                    "test_loss": record["test_loss"],
                },
                folder,
            )
            trace_run = {
                "seed": seed,
                "selected_step": record["selected_step"],
                "checkpoint_sha256": sha256_file(weights),
                "numerics": record["numerics"],
                "train_seconds": record["train_seconds"],
                "recording_seconds": recorder.seconds,
                "points": recorder.points,
            }
            save_run(folder, profile.name, corpus.vocab, kind, trace_run)
        results["runs"].append(record)
        results["runs"].sort(key=lambda r: (KINDS.index(r["kind"]), r["seed"]))
        results["aggregate"] = aggregate(results["runs"])
        results["validation_windows"] = len(data["val"][1])
        results["test_windows"] = len(data["test"][1])
        write_json(folder.results, results)
    return results


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", default="course", choices=sorted(PROFILES))
    ap.add_argument("--out", type=Path, default=None, help="output folder (default: models/ for course)")
    ap.add_argument("--data", default=None, help="a TinyStories .txt / .jsonl / .jsonl.gz file")
    ap.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    ap.add_argument("--seeds", nargs="+", type=int, default=None)
    ap.add_argument("--fresh", action="store_true", help="ignore recorded runs and train all again")
    ap.add_argument(
        "--threads",
        type=int,
        default=numerics.THREADS,
        help="torch intra-op threads (default %(default)s, as the committed runs; bit for bit is checked for 1)",
    )
    args = ap.parse_args(argv)
    numerics.pin(args.threads)  # before torch runs anything
    print(f"numerics: {numerics.describe()}")
    out = args.out or (MODELS_DIR if args.profile == "course" else BUILD_DIR / args.profile)
    try:
        results = run_protocol(args.profile, out, args.data, tuple(args.kinds), args.seeds, args.fresh)
    except OtherVocabulary as exc:
        raise SystemExit(f"models.train: {exc}") from exc
    for kind, agg in results.get("aggregate", {}).items():
        ppl = agg["test_perplexity"]
        sd = f" ± {ppl['sd']:.2f}" if ppl["sd"] is not None else ""
        print(f"{kind:6s} test perplexity {ppl['mean']:.2f}{sd}")


if __name__ == "__main__":
    main()
