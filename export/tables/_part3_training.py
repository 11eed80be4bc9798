"""Part III facts about how the real models were trained, each computed from
the corpus, the committed checkpoints or models/results.json:

* which embedding rows learn (PAD, BOS, EOS, UNK) and the learned position table,
* how batches are drawn (replaying the seed's random draws),
* what the comparison of the three models is not (sizes, optimizer settings),
* the seed-11 validation curves (best step, not the last one),
* what full-sequence attention costs at our T, D and head count.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from models.corpus import PROFILES
from models.nets import KINDS, LABELS, build, count_parameters
from models.tokenizer import BOS_ID, EOS_ID, PAD_ID, SPECIALS, UNK_ID
from models.train import CHECKPOINT_SEED, OPTIMIZER

from . import _results_svg as results_svg
from ._results_inputs import Inputs, missing, unavailable
from ._results_protocol import sci

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


def embedding_rules(inputs: Inputs, train_X: torch.Tensor, train_y: torch.Tensor) -> dict:
    """How often each special token is an input of a training window, its row in
    the seed-11 four-head checkpoint compared with that run's starting row, and
    the gradient one real training batch (the run's first) sends to it."""
    loaded = inputs.model("attn4")
    if loaded is None:
        return missing(inputs.folder.weights("attn4"))
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
    }


def _copy(model):
    import copy

    m = copy.deepcopy(model).train()
    m.zero_grad(set_to_none=True)
    return m


MIN_PAIRS = 8  # the chart leaves out distances with fewer slot pairs than this (too noisy)


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
        "position_cos_neighbours": float(S[i[gap == 1], j[gap == 1]].mean()),
        "position_cos_far": float(S[i[gap >= far], j[gap >= far]].mean()),
        "position_far_gap": far,
        "position_cos_by_gap": by_gap,
        "position_min_pairs": MIN_PAIRS,
        "position_svg": results_svg.similarity_by_gap(by_gap[: T - MIN_PAIRS], far, MIN_PAIRS),
    }


def comparison(inputs: Inputs, results: dict | None) -> dict:
    """Sizes and optimizer settings of the three models: what the comparison
    holds equal and what it does not."""
    params = {}
    for kind in KINDS:
        loaded = inputs.model(kind)
        if loaded is None:
            return missing(inputs.folder.weights(kind))
        params[kind] = count_parameters(loaded[0])
    runs = (results or {}).get("runs", [])
    settings = {k: {"lr": OPTIMIZER[k][0], "weight_decay": OPTIMIZER[k][1]} for k in KINDS}
    recorded = {r["kind"]: {"lr": r["lr"], "weight_decay": r["weight_decay"]} for r in runs}
    return {
        "available": True,
        "parameters": params,
        "labels": LABELS,
        "attention_equal": params["attn1"] == params["attn4"],
        "mlp_ratio": params["mlp"] / params["attn4"],
        "optimizer": settings,
        "optimizer_recorded": recorded,
        "optimizer_reused": settings["attn1"] == settings["attn4"],
        "rows": [[LABELS[k], params[k], settings[k]["lr"], settings[k]["weight_decay"]] for k in KINDS],
        "header": ["model", "parameters", "learning rate", "weight decay"],
    }


def seed_curves(results: dict | None, seed: int = CHECKPOINT_SEED) -> dict:
    if results is None or not results.get("runs"):
        return unavailable("models/results.json has no finished run yet.")
    runs = sorted((r for r in results["runs"] if r["seed"] == seed), key=lambda r: KINDS.index(r["kind"]))
    if not runs:
        return unavailable(f"models/results.json has no seed-{seed} run yet.")
    rows = []
    for r in runs:
        last = r["val_trace"][-1]
        rows.append(
            {
                "kind": r["kind"],
                "label": LABELS[r["kind"]],
                "selected_step": r["selected_step"],
                "best_val": r["val_loss"],
                "last_step": last["step"],
                "last_val": last["val_loss"],
                "best_is_last": r["selected_step"] == last["step"],
                "rise": last["val_loss"] - r["val_loss"],
            }
        )
    steps = sorted({p["step"] for r in runs for p in r["val_trace"]})
    first_shown = steps[1] if len(steps) > 1 else steps[0]
    return {
        "available": True,
        "seed": seed,
        "runs": rows,
        "not_last": [x for x in rows if not x["best_is_last"]],
        "first_shown_step": first_shown,
        "svg": results_svg.seed_curves(runs, LABELS, first_shown, seed),
        "table": {
            "header": ["model", "best step", "best validation loss", "last step", "last validation loss"],
            "rows": [
                [x["label"], x["selected_step"], f"{x['best_val']:.3f}", x["last_step"], f"{x['last_val']:.3f}"]
                for x in rows
            ],
        },
    }


def cost(T: int, D: int, heads: int) -> dict:
    """Multiply-adds of full-sequence attention at width D (scores QKᵀ and
    mixing AV), and the attention weights it stores, for one and for several
    heads; plus the final-query path our training and browser use."""
    d_k = D // heads
    scores = heads * T * T * d_k  # = T² D for any head count
    mixing = heads * T * T * d_k
    return {
        "T": T,
        "D": D,
        "heads": heads,
        "d_k": d_k,
        "scores_madds": scores,
        "mixing_madds": mixing,
        "total_madds": scores + mixing,
        "T2D": T * T * D,
        "weights_stored": {"1": T * T, str(heads): heads * T * T},
        "final_query_madds": 2 * T * D,
        "final_query_weights": heads * T,
        "rows": [
            ["one head", T * T * D, T * T * D, T * T],
            [f"{heads} heads", scores, mixing, heads * T * T],
            [f"{heads} heads, final query only", T * D, T * D, heads * T],
        ],
        "header": ["attention", "scores QKᵀ", "mixing AV", "weights stored"],
    }
