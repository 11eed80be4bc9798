"""One prompt through the four-head checkpoint: its tokens, IDs, tensor shapes,
and the final query's four attention rows over the real (non-PAD) tokens.
Also checks that the final-query forward and forward_details agree."""

from __future__ import annotations

import torch

from models.tokenizer import BOS, PAD_ID

from ..kit.heads import attention_arrows, head_split
from ..kit.numbers import sci
from ..kit.registry import table
from ..kit.sources import Sources

PROMPT = "a little dog found a red hat"


@table("results_attention", needs=["sources"])
def attention_rows(sources: Sources, prompt: str = PROMPT) -> dict:
    ctx, absent = sources.prompt_context("attn4", prompt)
    if absent:
        return absent
    model, info, vocab, tokens, history, X = (ctx[k] for k in ("model", "info", "vocab", "tokens", "history", "X"))
    T = model.config.w
    visible = history[-T:]
    with torch.no_grad():
        details = model.forward_details(X)
        fast_logits, fast_weights = model.attend(X)
    real = X[0].ne(PAD_ID)
    A = details["weights"][0, :, -1, real]  # [heads, n_real]
    words = [vocab.itos[int(i)] for i in X[0, real]]
    n_heads = A.shape[0]
    rows = [[f"head {h + 1}"] + [float(w) for w in A[h]] for h in range(n_heads)]
    top = [
        {
            "head": h + 1,
            "token": words[int(A[h].argmax())],
            "slot": int(A[h].argmax()),
            "position": int(A[h].argmax()) + 1,  # counted from 1, BOS first (the course's convention)
            "repeated": words.count(words[int(A[h].argmax())]) > 1,
            "weight": float(A[h].max()),
        }
        for h in range(n_heads)
    ]
    shown = ("E", "Q", "K", "V", "weights", "messages", "updated", "logits")
    logit_diff = float((fast_logits - details["logits"]).abs().max())
    logit_scale = float(details["logits"].abs().max())
    weight_diff = float((fast_weights[0, :, real] - A).abs().max())
    cfg = model.config
    return {
        "available": True,
        "prompt": prompt,
        "tokens": tokens,
        "history": history,
        "pad_count": T - len(visible),
        "X_shape": list(X.shape),
        "words": [BOS] + tokens,
        "real_words": words,
        "header": ["head"] + words,
        "rows": rows,
        "row_sums": A.sum(-1).tolist(),
        "top": top,
        "shape_rows": [[name, list(details[name].shape)] for name in shown],
        "shapes": {name: list(details[name].shape) for name in shown},
        "logits_max_abs_diff": logit_diff,
        "logits_max_abs": logit_scale,
        "logits_max_rel_diff": logit_diff / logit_scale,
        "weights_max_abs_diff": weight_diff,
        "diff_text": {
            "logits": sci(logit_diff),
            "logits_rel": sci(logit_diff / logit_scale),
            "weights": sci(weight_diff),
        },
        "final_weights_shape": list(fast_weights.shape),
        "all_weights_shape": list(details["weights"].shape),
        "arrows_svg": attention_arrows(
            "fig-prompt-arrows",
            words,
            [list(map(float, a)) for a in A],
            words[-1],
            f"Where the final query “{words[-1]}” looks, head by head",
        ),
        "split_svg": head_split(
            "fig-split-real",
            T,
            cfg.d,
            cfg.n_heads,
            cfg.d_k,
            "The trained model's layer split into heads and joined again",
        ),
        "seed": info.get("seed"),
        "selected_step": info.get("selected_step"),
        "heads": model.config.n_heads,
        "head_width": model.config.d_k,
        "d": model.config.d,
    }
