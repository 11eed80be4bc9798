"""What each head is worth, and where attention wins: per-window test losses.

Over every test window (the same windows and the same loss as models.train's
test evaluation), the cross-entropy of each target under

- the three seed-11 checkpoints as trained (``mlp``, ``attn1``, ``attn4``);
- the four-head model with each single head off and with all four off, the
  one-head model with its head off (zero ablation: a switched-off head's
  message is zero before W_O, as in export/ablation.py and the lab);

and, from the same per-window losses, a bootstrap over test stories of every
gap the results deck states (export/bootstrap.py: its seed and draw count are
written beside the intervals).

``python -m export.experiments [--models DIR] [--out DIR]`` writes
build/experiments/experiments.json (aggregates and the split tables of
export/attention_wins.py, small) and window_losses.npz beside it (every
variant's per-window loss, "-" written "_", and each window's story index:
what tests/test_results_uncertainty.py recomputes the intervals from), with the SHA-256 of every checkpoint file
and of the data it read (the tables refuse a result made from other
checkpoints). Run by hand it always computes (about a minute on two cores);
the build runner (common/runner.py) runs it only when the checkpoints, the
vocabulary, the data or this code changed.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from common.config import CONFIG
from common.files import sha256_file, write_json
from common.layout import MODELS, ModelsFolder
from common.publish import OutputRefused, build_lock, check_out, claim, record_written
from common.settings import BUILD_DIR, MODELS_DIR
from models.checkpoints import CheckpointError, load_checkpoint, load_vocab
from models.corpus import DATA_FILE, DataError, prepare
from models.nets import KINDS

from . import attention_wins, bootstrap
from .ablation import head_mask

EXPERIMENTS_DIR = BUILD_DIR / "experiments"  # export/tables/kit/sources.py reads experiments.json here
RESULT = "experiments.json"
LOSSES = "window_losses.npz"  # each variant's per-window test loss and each window's story, as resampled
OWNER = "python -m export.experiments"  # the command named in the output's marker
BATCH = CONFIG.training.eval_batch  # the same batches as the test evaluation (models/train.py)


def variants(n_heads: dict[str, int]) -> list[dict]:
    """Every model state measured: name, kind, heads off (0-based)."""
    out = [{"name": "mlp", "kind": "mlp", "heads_off": []}]
    for kind in ("attn1", "attn4"):
        n = n_heads[kind]
        out.append({"name": kind, "kind": kind, "heads_off": []})
        if n > 1:
            out += [{"name": f"{kind}-off{h}", "kind": kind, "heads_off": [h]} for h in range(n)]
        out.append({"name": f"{kind}-off-all" if n > 1 else f"{kind}-off0", "kind": kind, "heads_off": list(range(n))})
    return out


@torch.no_grad()
def head_messages(model, ids: torch.Tensor):
    """The final query's embedding and per-head messages: (E_last [B, d], heads [B, n, 1, d_v])."""
    E = model.embed(ids)
    q = model.split_heads(model.W_Q(E[:, -1:]), model.d_k)
    K = model.split_heads(model.W_K(E), model.d_k)
    V = model.split_heads(model.W_V(E), model.d_v)
    scores = q @ K.transpose(-2, -1) / math.sqrt(model.d_k)
    A = scores.masked_fill(ids.eq(model.pad_id)[:, None, None, :], float("-inf")).softmax(-1)
    return E[:, -1], A @ V


@torch.no_grad()
def logits_with_heads(model, last: torch.Tensor, heads: torch.Tensor, off) -> torch.Tensor:
    """Logits with the heads in ``off`` zeroed before W_O (every head on: model.attend's logits, bit for bit)."""
    gate = torch.tensor(head_mask(model.n_heads, off), dtype=heads.dtype)
    message = (heads * gate[None, :, None, None]).transpose(1, 2).flatten(start_dim=2)
    final = last + model.W_O(message)[:, 0]
    return model.vocab_head(torch.relu(model.hidden_layer(final)))


@torch.no_grad()
def window_losses(models: dict, X: torch.Tensor, y: torch.Tensor, specs: list[dict]) -> dict[str, np.ndarray]:
    """name -> per-window cross-entropy (nats, float32 as models.train computes it) for every variant."""
    out = {s["name"]: np.empty(len(y), dtype=np.float32) for s in specs}
    for model in models.values():
        model.eval()
    for start in range(0, len(y), BATCH):
        xb, yb = X[start : start + BATCH].long(), y[start : start + BATCH].long()
        shared = {}
        for s in specs:
            model = models[s["kind"]]
            if s["kind"] == "mlp":
                logits = model(xb)
            else:
                if s["kind"] not in shared:
                    shared[s["kind"]] = head_messages(model, xb)
                logits = logits_with_heads(model, *shared[s["kind"]], s["heads_off"])
            out[s["name"]][start : start + BATCH] = F.cross_entropy(logits, yb, reduction="none").numpy()
    return out


def summary(losses: dict[str, np.ndarray], specs: list[dict]) -> dict:
    """Mean loss and perplexity of every variant (sums in float64)."""
    out = {}
    for s in specs:
        mean = float(losses[s["name"]].astype(np.float64).mean())
        out[s["name"]] = dict(s, loss=mean, perplexity=math.exp(mean))
    return out


def input_files(folder: ModelsFolder) -> dict[str, str]:
    """SHA-256 of every file the experiments read: checkpoints, vocabulary, data."""
    files = {}
    for kind in KINDS:
        for path in (folder.info(kind), folder.weights(kind)):
            files[path.name] = sha256_file(path)
    files["vocab.json"] = sha256_file(folder.vocab)
    files[DATA_FILE.name] = sha256_file(DATA_FILE)
    return files


def compute(folder: ModelsFolder = MODELS, log=print) -> dict:
    """The whole experiment: every variant's per-window losses over the test split, then the aggregates."""
    started = time.perf_counter()
    vocab = load_vocab(folder)
    models = {kind: load_checkpoint(kind, folder)[0] for kind in KINDS}
    corpus = prepare("course")
    X, y = corpus.windows("test")
    specs = variants({k: models[k].n_heads for k in ("attn1", "attn4")})
    log(f"experiments: {len(specs)} model states over {len(y):,} test windows")
    losses = window_losses(models, X, y, specs)
    stories = bootstrap.story_of_window(corpus.ids("test"))
    result = {
        "test_windows": len(y),
        "variants": summary(losses, specs),
        "wins": attention_wins.analyse(losses, X.numpy(), y.numpy(), corpus.ids("test"), vocab.itos),
        "bootstrap": bootstrap.intervals(
            losses, specs, attention_wins.bin_masks(X.numpy(), y.numpy(), corpus.ids("test")), stories
        ),
        "threads": torch.get_num_threads(),
    }
    result["seconds"] = time.perf_counter() - started
    result["_losses"] = dict(losses, story=stories)  # written beside the result by run(), not into it
    return result


def run(folder: ModelsFolder = MODELS, out: Path = EXPERIMENTS_DIR, log=print) -> str:
    """Compute and write out/experiments.json (atomically). Returns 'computed'.
    ``out`` follows common.publish's rule for every output folder (checked
    before anything is computed: OutputRefused names it)."""
    out = check_out(out, inputs=(folder.root,), owner=OWNER, adopt=EXPERIMENTS_DIR, whole=False)
    with build_lock():
        result = compute(folder, log)  # CheckpointError names a missing or corrupt checkpoint
        result["inputs"] = input_files(folder)  # the tables refuse a result made from other checkpoints
        out = claim(out, OWNER, inputs=(folder.root,), adopt=EXPERIMENTS_DIR)
        losses = result.pop("_losses", None)
        written = [RESULT]
        if losses is not None:
            tmp = out / (LOSSES + ".tmp.npz")
            np.savez_compressed(tmp, **{name.replace("-", "_"): v for name, v in losses.items()})
            tmp.replace(out / LOSSES)
            written.append(LOSSES)
        write_json(out / RESULT, result)  # atomic
        record_written(out, OWNER, written)
    log(f"experiments: wrote {out / RESULT} in {result['seconds']:.0f} s")
    return "computed"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m export.experiments", description=__doc__.split("\n\n")[0])
    p.add_argument("--models", type=Path, default=MODELS_DIR, help="models folder (default %(default)s)")
    p.add_argument("--out", type=Path, default=EXPERIMENTS_DIR, help="output folder (default %(default)s)")
    a = p.parse_args(argv)
    try:
        run(ModelsFolder(a.models), a.out)
    except (CheckpointError, DataError, OutputRefused) as exc:
        print(f"experiments: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a read-only or full disk: name the path, no traceback
        print(f"experiments: error: cannot write {exc.filename or a.out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
