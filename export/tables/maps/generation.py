"""Generation with the toy MLP of the maps deck after its training step:
blocked specials, softmax, greedy and sampled choice, and a short greedy
trace (table ``maps_generation``)."""

from __future__ import annotations

import torch

from models.tokenizer import tokenize

from ..kit.registry import table
from .mlp import MlpStep
from .toy import Toy, W, check, fl, lst

PROMPT = "Lily found"
DRAW = 0.8
BLOCKED = ["<PAD>", "<BOS>", "<UNK>"]
GENERATION_STEPS = 4


@table("maps_generation", needs=["maps_toy", "maps_mlp_step"])
def generation(maps_toy: Toy, maps_mlp_step: MlpStep) -> dict:
    vocab, mlp = maps_toy.vocab, maps_mlp_step.model
    C = len(vocab)
    prompt_ids = vocab.encode(PROMPT)
    history = [vocab.bos_id] + prompt_ids
    kept = history[-W:]
    context = [vocab.pad_id] * (W - len(kept)) + kept
    frozen = {n: p.detach().clone() for n, p in mlp.named_parameters()}
    mlp.eval()
    blocked = [vocab.stoi[t] for t in BLOCKED]
    with torch.inference_mode():
        next_logits = mlp(torch.tensor([context]))[0].clone()
        raw_logits = next_logits.clone()
        next_logits[blocked] = float("-inf")
        next_p = next_logits.softmax(-1)
        check(next_p[blocked].eq(0).all(), "blocked tokens get probability 0")
        greedy = int(next_p.argmax())
        cdf = next_p.cumsum(0)
        sample = int(torch.searchsorted(cdf, torch.tensor(DRAW)))
        trace_rows, h = [], list(history)
        for step in range(GENERATION_STEPS):
            kept_ = h[-W:]
            x = [vocab.pad_id] * (W - len(kept_)) + kept_
            z = mlp(torch.tensor([x]))[0].clone()
            z[blocked] = float("-inf")
            chosen = int(z.argmax())
            trace_rows.append([step, x, [vocab.itos[i] for i in x], chosen, vocab.itos[chosen]])
            if chosen == vocab.eos_id:
                break
            h.append(chosen)
    check(all(torch.equal(p, frozen[n]) for n, p in mlp.named_parameters()), "generation leaves parameters unchanged")
    tokens = vocab.itos
    p_list = lst(next_p)
    return {
        "prompt": PROMPT,
        "prompt_tokens": tokenize(PROMPT),
        "prompt_ids": prompt_ids,
        "history": history,
        "context": context,
        "context_tokens": [tokens[i] for i in context],
        "C": C,
        "logits_shape": list(next_logits.shape),
        "raw_logits": lst(raw_logits),
        "blocked_ids": blocked,
        "blocked_tokens": BLOCKED,
        "p": p_list,
        "p_sum": fl(next_p.sum()),
        "bars": {"labels": list(tokens), "values": p_list},
        "cdf": lst(cdf),
        "cdf_table": {
            "header": ["ID", "Token", "p", "CDF"],
            "rows": [[i, tokens[i], p_list[i], fl(cdf[i])] for i in range(C)],
        },
        "greedy_id": greedy,
        "greedy": tokens[greedy],
        "draw": DRAW,
        "sample_id": sample,
        "sample": tokens[sample],
        "eos_id": vocab.eos_id,
        "greedy_is_eos": greedy == vocab.eos_id,
        "history_after_greedy": history + ([] if greedy == vocab.eos_id else [greedy]),
        "trace": {"header": ["Step", "Window IDs", "Window tokens", "Chosen ID", "Chosen"], "rows": trace_rows},
        "trace_text": [r[4] for r in trace_rows],
        "parameters_unchanged": True,
        "model_state": "the toy MLP after its one SGD step",
    }
