"""Part III facts about how the real models were trained, each computed from
the corpus and the committed checkpoints:

* which embedding rows learn (PAD, BOS, EOS, UNK) and the learned position
  table (``part3_embeddings``),
* how batches are drawn, replaying the seed's random draws (``part3_sampling``).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from models.corpus import PROFILES
from models.nets import build
from models.tokenizer import BOS_ID, EOS_ID, PAD_ID, SPECIALS, UNK_ID
from models.train import CHECKPOINT_SEED, OPTIMIZER

from ..kit.numbers import sci
from ..kit.registry import table
from ..kit.sources import Sources, file_absent
from .charts import similarity_by_gap

SPECIAL_IDS = (PAD_ID, BOS_ID, EOS_ID, UNK_ID)


def draws(n_windows: int, batch_size: int, steps: int, seed: int) -> torch.Tensor:
    """The window indices a run of models/train.py draws, step by step: the same
    generator, seed and call as train_run. Returns [steps, batch_size]."""
    gen = torch.Generator().manual_seed(seed)
    return torch.stack([torch.randint(0, n_windows, (batch_size,), generator=gen) for _ in range(steps)])


def sampling(n_windows: int, seed: int = CHECKPOINT_SEED, profile: str = "course") -> dict:
    p = PROFILES[profile]
    idx = draws(n_windows, p.batch_size, p.steps, seed)
    counts = torch.bincount(idx.flatten(), minlength=n_windows)
    first = idx[0]
    total = p.batch_size * p.steps
    return {
        "seed": seed,
        "batch_size": p.batch_size,
        "steps": p.steps,
        "train_windows": n_windows,
        "draws": total,
        "draws_per_window": total / n_windows,
        "distinct_drawn": int((counts > 0).sum()),
        "never_drawn": int((counts == 0).sum()),
        "never_drawn_percent": float((counts == 0).float().mean() * 100),
        "expected_never_percent": math.exp(total * math.log1p(-1 / n_windows)) * 100,
        "most_draws": int(counts.max()),
        "first_batch_distinct": int(first.unique().numel()),
        "first_batch_indices": first[:6].tolist(),
    }


def embedding_rules(sources: Sources, train_X: torch.Tensor, train_y: torch.Tensor) -> dict:
    """How often each special token is an input of a training window, its row in
    the seed-11 four-head checkpoint compared with that run's starting row, and
    the gradient one real training batch (the run's first) sends to it."""
    loaded = sources.model("attn4")
    if loaded is None:
        return file_absent(sources.folder.weights("attn4"))
    model, info = loaded
    as_input = torch.bincount(train_X.flatten().long(), minlength=len(SPECIALS))
    as_target = torch.bincount(train_y.long(), minlength=len(SPECIALS))
    torch.manual_seed(info["seed"])  # the run's starting weights, as in train_run
    start = build("attn4", C=model.config.C)
    lr, wd = OPTIMIZER["attn4"]
    shrink = (1 - lr * wd) ** info["selected_step"]  # AdamW's decay alone, step after step
    trainee = _copy(model)
    batch = draws(len(train_y), PROFILES["course"].batch_size, 1, info["seed"])[0]
    loss = F.cross_entropy(trainee(train_X[batch].long()), train_y[batch].long())
    loss.backward()
    grad = trainee.token_embedding.weight.grad
    head_grad = trainee.vocab_head.weight.grad
    rows = []
    for i in SPECIAL_IDS:
        now, then = model.token_embedding.weight[i].detach(), start.token_embedding.weight[i].detach()
        cos = float(F.cosine_similarity(now, then, dim=0)) if float(then.norm()) > 0 else None
        rows.append(
            {
                "token": SPECIALS[i],
                "id": i,
                "input_count": int(as_input[i]),
                "target_count": int(as_target[i]),
                "row_norm": float(now.norm()),
                "start_norm": float(then.norm()),
                "cosine_to_start": cos,
                "gap_to_decayed_start": float((now - then * shrink).abs().max()),
                "batch_grad_norm": float(grad[i].norm()),
                "output_grad_norm": float(head_grad[i].norm()),
            }
        )
    by = {r["token"]: r for r in rows}
    return {
        "available": True,
        "seed": info["seed"],
        "selected_step": info["selected_step"],
        "lr": lr,
        "weight_decay": wd,
        "decay_factor": shrink,
        "rows": rows,
        "by_token": by,
        "table": {
            "header": [
                "token",
                "ID",
                "times an input",
                "times a target",
                "gradient from one batch",
                "cosine to its starting row",
            ],
            "rows": [
                [
                    r["token"],
                    r["id"],
                    r["input_count"],
                    r["target_count"],
                    sci(r["batch_grad_norm"], 2),
                    "—" if r["cosine_to_start"] is None else f"{r['cosine_to_start']:.3f}",
                ]
                for r in rows
            ],
        },
        "pad_row_max_abs": float(model.token_embedding.weight[PAD_ID].detach().abs().max()),
        "position_shape": list(model.position_embedding.weight.shape),
        "position_parameters": model.position_embedding.weight.numel(),
        **_position_similarity(model.position_embedding.weight.detach()),
        **{f"start_{k}": v for k, v in _position_means(start.position_embedding.weight.detach()).items()},
    }


def _copy(model):
    import copy

    m = copy.deepcopy(model).train()
    m.zero_grad(set_to_none=True)
    return m


MIN_PAIRS = 8  # the chart leaves out distances with fewer slot pairs than this (too noisy)


def _position_means(P: torch.Tensor, far: int = 16) -> dict:
    """Mean cosine of neighbouring rows and of rows ``far`` or more slots apart."""
    Pn = F.normalize(P, dim=1)
    S = Pn @ Pn.T
    i, j = torch.triu_indices(P.shape[0], P.shape[0], 1)
    gap = j - i
    return {
        "position_cos_neighbours": float(S[i[gap == 1], j[gap == 1]].mean()),
        "position_cos_far": float(S[i[gap >= far], j[gap >= far]].mean()),
    }


def _position_similarity(P: torch.Tensor, far: int = 16) -> dict:
    """Mean cosine similarity of neighbouring position rows vs rows at least
    ``far`` slots apart: a learned table that has picked up order shows a gap."""
    Pn = F.normalize(P, dim=1)
    S = Pn @ Pn.T
    T = P.shape[0]
    i, j = torch.triu_indices(T, T, 1)
    gap = j - i
    by_gap = [float(S[i[gap == g], j[gap == g]].mean()) for g in range(1, T)]
    return {
        **_position_means(P, far),
        "position_far_gap": far,
        "position_cos_by_gap": by_gap,
        "position_min_pairs": MIN_PAIRS,
        "position_svg": similarity_by_gap(by_gap[: T - MIN_PAIRS], far, MIN_PAIRS),
    }


@table("part3_embeddings", needs=["sources"])
def embeddings_table(sources: Sources) -> dict:
    return embedding_rules(sources, *sources.train_windows())


@table("part3_sampling", needs=["sources"])
def sampling_table(sources: Sources) -> dict:
    _, train_y = sources.train_windows()
    return dict(sampling(len(train_y)), available=True)
