"""The real pipeline at C = 4,000 and T = 64: two example prefixes remapped to
our vocabulary, followed through the trained four-head checkpoint (shapes,
weights at one receiver, loss, one optimizer step), and the first greedy
generation step for "Lily found".
"""

from __future__ import annotations

import copy

import torch
import torch.nn.functional as F

from common.config import CONFIG
from export.decoding import BANNED, CONTEXT, context_window
from models.tokenizer import BOS, EOS_ID, PAD_ID, UNK_ID

from ..kit.numbers import sci
from ..kit.registry import table
from ..kit.sources import Sources, file_absent

PREFIXES = (("<BOS>", "lily", "found"), ("<BOS>", "lily", "found", "a"))
TARGETS = ("a", "red")
GENERATION_PROMPT = "Lily found"
EXCLUDED = sorted(BANNED)  # never chosen during generation
SHAPE_MEANINGS = (
    ("E", "token row + position row, per slot"),
    ("Q", "queries, split into heads"),
    ("K", "keys, split into heads"),
    ("V", "values, split into heads"),
    ("scores", "QKᵀ/√d_k, with −∞ on future and PAD slots"),
    ("weights", "softmax of each score row"),
    ("heads", "each head's messages, weights · V"),
    ("messages", "the heads joined back to full width"),
    ("updated", "E + messages · W_O (residual)"),
    ("hidden", "ReLU layer of the prediction MLP"),
    ("logits", "scores for the next token (final slot)"),
)


def shapes(details: dict[str, torch.Tensor]) -> dict[str, list[int]]:
    return {name: list(t.shape) for name, t in details.items()}


@table("part3_batch", needs=["sources"])
def real_batch(sources: Sources) -> dict:
    vocab = sources.vocab()
    if vocab is None:
        return file_absent(sources.folder.vocab)
    loaded = sources.model("attn4")
    T = loaded[0].config.w if loaded else CONTEXT
    ids = [vocab.encode_tokens(p) for p in PREFIXES]
    target_ids = vocab.encode_tokens(TARGETS)
    X = torch.tensor([context_window(row, T) for row in ids])
    y = torch.tensor(target_ids)
    out = {
        "available": True,
        "C": len(vocab),
        "T": T,
        "prefixes": [list(p) for p in PREFIXES],
        "prefix_ids": ids,
        "targets": list(TARGETS),
        "target_ids": target_ids,
        "pad_counts": [T - len(row) for row in ids],
        "X_shape": list(X.shape),
        "y_shape": list(y.shape),
        "X_tails": [row[-6:] for row in X.tolist()],
        "rows": [[" ".join(p), row, t, tid] for p, row, t, tid in zip(PREFIXES, ids, TARGETS, target_ids)],
        "word_ids": {w: vocab.stoi.get(w, UNK_ID) for w in ("lily", "found", "a", "red")},
    }
    if loaded is None:
        out["model"] = file_absent(sources.folder.weights("attn4"))
        return out
    model, info = loaded
    cfg = model.config
    with torch.no_grad():
        details = model.forward_details(X)
        fast, fast_weights = model.attend(X)
    real = X.ne(PAD_ID)
    n_real = int(real[0].sum())
    found_weights = details["weights"][0, :, -1, -n_real:]  # [heads, 3] for "BOS lily found"
    lily_row_allowed = int(torch.isfinite(details["scores"][0, 0, -2]).sum())
    loss = F.cross_entropy(details["logits"], y)
    probs = details["logits"].softmax(-1)[torch.arange(2), y]
    # one optimizer step on this batch, with the training settings, on a copy
    trainee = copy.deepcopy(model).train()
    settings = CONFIG.training.optimizer["attn4"]
    lr, wd = settings.lr, settings.weight_decay
    opt = torch.optim.AdamW(trainee.parameters(), lr=lr, weight_decay=wd)
    step_loss = F.cross_entropy(trainee(X), y)
    opt.zero_grad()
    step_loss.backward()
    with_grad = sorted(
        name for name, p in trainee.named_parameters() if p.grad is not None and bool(p.grad.abs().sum() > 0)
    )
    opt.step()
    with torch.no_grad():
        loss_after = F.cross_entropy(trainee(X), y)
    out["model"] = {
        "available": True,
        "seed": info.get("seed"),
        "selected_step": info.get("selected_step"),
        "d": cfg.d,
        "heads": cfg.n_heads,
        "head_width": cfg.d_k,
        "hidden": cfg.h,
        "shapes": shapes(details),
        "shape_rows": [[name, list(details[name].shape), meaning] for name, meaning in SHAPE_MEANINGS],
        "parameter_shapes": {name: list(p.shape) for name, p in model.named_parameters()},
        "forward_matches_details": float((fast - details["logits"]).abs().max()),
        "forward_rel_diff": float((fast - details["logits"]).abs().max() / details["logits"].abs().max()),
        "forward_diff_text": sci(float((fast - details["logits"]).abs().max())),
        "forward_rel_text": sci(float((fast - details["logits"]).abs().max() / details["logits"].abs().max())),
        "fast_weights_shape": list(fast_weights.shape),
        "found_tokens": list(PREFIXES[0]),
        "found_weights": found_weights.tolist(),
        "found_weight_sums": found_weights.sum(-1).tolist(),
        "found_allowed_sources": n_real,
        "lily_allowed_sources": lily_row_allowed,
        "loss": float(loss),
        "target_probabilities": probs.tolist(),
        "optimizer": {"name": "AdamW", "lr": lr, "weight_decay": wd},
        "loss_after_step": float(loss_after),
        "parameters_with_gradient": with_grad,
        "n_parameter_tensors": len(list(model.parameters())),
    }
    return out


@table("part3_generation", needs=["sources"])
def generation_step(sources: Sources, top: int = 5) -> dict:
    """One greedy step for "Lily found" with the four-head checkpoint."""
    ctx, absent = sources.prompt_context("attn4", GENERATION_PROMPT)
    if absent:
        return absent
    model, vocab, tokens, history, X = ctx["model"], ctx["vocab"], ctx["tokens"], ctx["history"], ctx["X"]
    T = model.config.w
    with torch.no_grad():
        logits = model(X)[0]
    unblocked = logits.softmax(-1)  # the model's own distribution, specials included
    logits[list(EXCLUDED)] = float("-inf")
    probs = logits.softmax(-1)
    best = torch.topk(probs, top)
    choice = int(logits.argmax())
    return {
        "available": True,
        "prompt": GENERATION_PROMPT,
        "tokens": [BOS] + tokens,
        "history": history,
        "pad_count": T - len(history),
        "X_shape": list(X.shape),
        "excluded": [vocab.itos[i] for i in EXCLUDED],
        "excluded_ids": list(EXCLUDED),
        "choice_id": choice,
        "choice": vocab.itos[choice],
        "choice_is_eos": choice == EOS_ID,
        # the same token before PAD, BOS and UNK were removed and the rest renormalised
        "choice_probability_unblocked": float(unblocked[choice]),
        "excluded_probability": float(unblocked[list(EXCLUDED)].sum()),
        "top": {"labels": [vocab.itos[int(i)] for i in best.indices], "values": best.values.tolist()},
    }
