"""Reference inputs and PyTorch reference outputs that the browser must match.

parity.json holds, per model, PyTorch's full logit vector (and the attention
models' final-query weights) for fixed contexts, and PyTorch's greedy, seeded
sampled, and seeded top-k/top-p sampled continuation of every preset prompt.
``teacher_forced`` and ``attention_matrices`` are the PyTorch references of
the lab's score mode and full attention matrices (the browser tests call them).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from models.corpus import Corpus
from models.tokenizer import BOS_ID, EOS_ID, PAD_ID, UNK_ID, Vocab

from .decoding import BANNED, CONTEXT, Mulberry32, context_window, generate, sampling_weights, start_history
from .decoding import TOKEN_LIMIT as LIMIT

SAMPLED = {"temperature": 0.9, "seed": 7}
FILTERED = {"temperature": 0.9, "seed": 7, "top_k": 20, "top_p": 0.9}
SHORT_PROMPT = "Once upon a time, there was a little"
UNK_PROMPT = "The quantum chromodynamics lecture covered gluon confinement and asymptotic freedom."
HOSTILE_PROMPT = '<script>alert("hi")</script> <img src=x onerror=alert(1)>'


def parity_contexts(corpus: Corpus, vocab: Vocab) -> list[dict]:
    """At least six fixed 64-ID contexts, each with a name and a description."""
    longest = max(enumerate(corpus.stories["test"]), key=lambda p: (len(p[1]["ids"]), -p[0]))[1]
    assert len(longest["ids"]) > CONTEXT + 1, "no test story is longer than the context"
    train_story = corpus.stories["train"][0]
    rng = torch.Generator().manual_seed(0)
    random_ids = torch.randint(4, len(vocab), (CONTEXT,), generator=rng).tolist()
    unk_ids = vocab.encode(UNK_PROMPT)
    assert UNK_ID in unk_ids, "the UNK prompt has no unknown word"
    rows = [
        ("bos_only", "BOS alone: 63 PAD slots and BOS", [BOS_ID]),
        ("full_window", "64 real tokens from the middle of the longest test story", longest["ids"][1 : CONTEXT + 1]),
        ("short_prompt", f"a short prompt, left-padded: {SHORT_PROMPT!r}", start_history(vocab.encode(SHORT_PROMPT))),
        ("unk_prompt", f"a prompt with unknown words: {UNK_PROMPT!r}", start_history(unk_ids)),
        (
            "long_cropped",
            "a whole training story (more than 64 IDs), cropped to its last 64",
            start_history(vocab.encode(train_story["text"])),
        ),
        ("random_ids", "64 random real IDs (torch seed 0)", random_ids),
        ("hostile_text", f"markup typed as a prompt: {HOSTILE_PROMPT!r}", start_history(vocab.encode(HOSTILE_PROMPT))),
    ]
    out = []
    for name, description, history in rows:
        ids = context_window(history)
        assert len(ids) == CONTEXT
        out.append({"name": name, "description": description, "history_length": len(history), "ids": ids})
    assert len(out[4]["ids"]) == CONTEXT and out[4]["history_length"] > CONTEXT
    assert PAD_ID not in out[1]["ids"] and PAD_ID not in out[5]["ids"]
    return out


def f32(values) -> list:
    """Floats rounded to float32 with 9 significant digits (exact round trip)."""
    arr = np.asarray(values, dtype=np.float32)
    return [float(f"{v:.9g}") for v in arr.ravel()] if arr.ndim == 1 else [f32(v) for v in arr]


@torch.no_grad()
def torch_outputs(model: torch.nn.Module, contexts: list[list[int]]) -> dict[str, np.ndarray]:
    ids = torch.tensor(contexts, dtype=torch.int64)
    if model.kind == "mlp":
        return {"logits": model(ids).numpy()}
    logits, weights = model.attend(ids)
    return {"logits": logits.numpy(), "attention": weights.numpy()}


@torch.no_grad()
def teacher_forced(model: torch.nn.Module, ids: list[int], eos: bool = False) -> dict:
    """Score mode's reference: for every token of ``ids`` (and EOS after them
    when ``eos``), the model's probability of that token given the ones before
    it (history = BOS + tokens so far, its last 64 IDs left-padded with PAD),
    from a softmax over all logits in float64; the mean negative log
    probability (nats/token) and its exponential, the perplexity."""
    targets = list(ids) + ([EOS_ID] if eos else [])
    if not targets:
        return {"probabilities": [], "cross_entropy": None, "perplexity": None}
    history = start_history(ids)
    contexts = torch.tensor([context_window(history[: t + 1]) for t in range(len(targets))], dtype=torch.int64)
    logp = torch.log_softmax(model(contexts).double(), -1)[torch.arange(len(targets)), torch.tensor(targets)]
    ce = float(-logp.mean())
    return {"probabilities": logp.exp().tolist(), "cross_entropy": ce, "perplexity": math.exp(ce)}


@torch.no_grad()
def attention_matrices(model: torch.nn.Module, contexts: list[list[int]]) -> np.ndarray:
    """The full causal attention weights of ``forward_details``: [B, heads, 64, 64]."""
    return model.forward_details(torch.tensor(contexts, dtype=torch.int64))["weights"].numpy()


def decision_margin(
    logits_fn,
    prompt_ids,
    run: dict,
    mode: str,
    temperature: float = 1.0,
    seed: int = 0,
    top_k: int = 0,
    top_p: float = 1.0,
) -> float:
    """How far the closest decision of a continuation was from going the other
    way: for greedy, the smallest gap between the best and second-best allowed
    logit; for sampled, the smallest distance (in probability) between the
    random draw and an edge of the chosen token's interval. A browser whose
    logits differ by less than this makes the same choices."""
    rng = Mulberry32(seed)
    history = start_history(prompt_ids)
    margins = []
    for chosen in run["ids"] + ([EOS_ID] if run["stop"] == "eos" else []):
        logits = logits_fn(context_window(history))
        if mode == "greedy":
            best, second = sorted((v for i, v in enumerate(logits) if i not in BANNED), reverse=True)[:2]
            margins.append(best - second)
        else:
            weights = sampling_weights(logits, temperature, top_k, top_p)
            total = sum(weights)
            target = rng.next() * total
            before = sum(weights[:chosen])
            margins.append(min(target - before, before + weights[chosen] - target) / total)
        history.append(chosen)
    return min(margins)


def continuations(model: torch.nn.Module, presets: list[dict]) -> dict[str, dict]:
    @torch.no_grad()
    def logits_fn(context: list[int]):
        return model(torch.tensor([context], dtype=torch.int64))[0].tolist()

    out = {}
    for p in presets:
        greedy = generate(logits_fn, p["prompt_ids"], mode="greedy", limit=LIMIT)
        sampled = generate(logits_fn, p["prompt_ids"], mode="sampled", limit=LIMIT, **SAMPLED)
        filtered = generate(logits_fn, p["prompt_ids"], mode="sampled", limit=LIMIT, **FILTERED)
        greedy["min_margin"] = decision_margin(logits_fn, p["prompt_ids"], greedy, "greedy")
        sampled["min_margin"] = decision_margin(logits_fn, p["prompt_ids"], sampled, "sampled", **SAMPLED)
        filtered["min_margin"] = decision_margin(logits_fn, p["prompt_ids"], filtered, "sampled", **FILTERED)
        out[p["id"]] = {"greedy": greedy, "sampled": sampled, "filtered": filtered}
    return out


def build_parity(models: dict, contexts: list[dict], presets: list[dict]) -> tuple[dict, dict]:
    """Returns (parity JSON, raw PyTorch outputs per kind for the ORT check)."""
    batch = [c["ids"] for c in contexts]
    raw = {kind: torch_outputs(m, batch) for kind, m in models.items()}
    parity = {
        "contexts": contexts,
        "logits": {k: f32(r["logits"]) for k, r in raw.items()},
        "attention": {k: f32(r["attention"]) for k, r in raw.items() if "attention" in r},
        "decoding": {"limit": LIMIT, "greedy": {}, "sampled": SAMPLED, "filtered": FILTERED},
        "continuations": {k: continuations(m, presets) for k, m in models.items()},
    }
    return parity, raw
