"""The Python reference of every exercise's answer (the decks' m.exercise; the
browser's twin is web/core/exercises*.js). Each answer is computed the way the
course computes that number: with the course's tokenizer, window maker, model
classes, torch in float64, or the same formula the tables
use. ANSWERS maps an exercise ID to a function of the numbers the exercise
shows (its data-inputs JSON); tests/test_exercises_parity.py runs both sides on
many random inputs. Nothing here is written into the site."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable

import torch
import torch.nn.functional as F

from export.decoding import kept_ids
from models.corpus import make_windows
from models.nets import AttentionConfig, CausalAttentionLM, FixedWindowMLP, MLPConfig
from models.tokenizer import BOS_ID, EOS_ID, PAD_ID, SPECIALS, Vocab

F64 = torch.float64


def t(values) -> torch.Tensor:
    return torch.tensor(values, dtype=F64)


# ---- Part I -------------------------------------------------------------------


def story_ids(x: dict) -> int:
    """encode_story of a story whose sentences have these token counts (full stop included)."""
    vocab = Vocab([*SPECIALS, "word"])
    text = " ".join(" ".join(["word"] * (n - 1)) + "." for n in x["tokens"])
    return len(vocab.encode_story(text))


def windows_count(x: dict) -> int:
    """make_windows over stories with these ordinary token counts."""
    stories = [[BOS_ID] + [4] * n + [EOS_ID] for n in x["tokens"]]
    return int(make_windows(stories, context=4)[1].numel())


def mlp_hidden_params(x: dict) -> int:
    mlp = FixedWindowMLP(MLPConfig(C=8, w=x["w"], d=x["d"], h=x["h"]))
    return sum(p.numel() for p in mlp.hidden_layer.parameters())


def score_scaling(x: dict) -> float:
    q, k = t(x["q"]), t(x["k"])
    return float(q @ k / math.sqrt(len(x["q"])))


def softmax_weight(x: dict) -> float:
    """Softmax over the slots; a null score is a masked slot (−∞), as nets.attend masks PAD."""
    masked = torch.tensor([s is None for s in x["scores"]])
    scores = t([0.0 if s is None else s for s in x["scores"]]).masked_fill(masked, float("-inf"))
    return float(scores.softmax(-1)[x["slot"]])


def message_coordinate(x: dict) -> float:
    return float(t(x["weights"]) @ t(x["values"]))


def cross_entropy(x: dict) -> float:
    """F.cross_entropy on two-class logits whose softmax gives the target probability p."""
    p = t(x["p"])
    logits = torch.stack([p.log(), (1 - p).log()], dim=1)
    return float(F.cross_entropy(logits, torch.zeros(len(p), dtype=torch.long)))


def _attention_weights(q, keys, masked=None) -> torch.Tensor:
    """softmax(q·k_j / √d_k) over the sources, masked ones at −∞ (as nets.attend)."""
    q, K = t(q), t(keys)
    scores = K @ q / math.sqrt(q.numel())
    if masked is not None:
        scores = scores.masked_fill(masked, float("-inf"))
    return scores.softmax(-1)


def attention_step(x: dict) -> float:
    """One attention step by hand: the message coordinate Σ α_j v_j."""
    return float(_attention_weights(x["q"], x["keys"]) @ t(x["values"]))


def pad_masked_weight(x: dict) -> float:
    """Scores of a left-padded window: slots 1 to pad are PAD, masked to −∞ before the softmax."""
    masked = torch.arange(len(x["keys"])) < x["pad"]
    return float(_attention_weights(x["q"], x["keys"], masked)[x["slot"] - 1])


def sgd_step(x: dict) -> float:
    w = torch.nn.Parameter(t([x["w"]]))
    w.grad = t([x["grad"]])
    torch.optim.SGD([w], lr=x["lr"]).step()
    return float(w.detach()[0])


# ---- Part II ------------------------------------------------------------------


def video_score(x: dict) -> float:
    return float(t(x["q"]) @ t(x["k"]))


def retrieval_temperature(x: dict) -> float:
    s = t(x["scores"])
    return float((s / x["T"]).softmax(-1)[int(s.argmax())])


def scaled_softmax(x: dict) -> float:
    return float((t(x["raw"]) / math.sqrt(x["d_k"])).softmax(-1)[x["source"] - 1])


def residual_update(x: dict) -> float:
    e_new = t(x["e"]) + t(x["m"]) @ t(x["W_O"])
    return float(e_new[x["coordinate"] - 1])


def causal_mask(x: dict) -> int:
    """The allowed pairs of forward_details' causal mask (future = triu(1) is blocked)."""
    T = x["T"]
    future = torch.ones(T, T, dtype=torch.bool).triu(1)
    return int((~future).sum())


def masked_row(x: dict) -> float:
    """The causal mask of forward_details (future = triu(1) blocked) on a grid whose
    every row holds these scores; the query's row after the softmax."""
    n = len(x["scores"])
    future = torch.ones(n, n, dtype=torch.bool).triu(1)
    grid = t(x["scores"]).expand(n, n).masked_fill(future, float("-inf"))
    return float(grid.softmax(-1)[x["query"] - 1, x["source"] - 1])


def query_projection(x: dict) -> float:
    q = t(x["e"]) @ t(x["W_Q"])
    return float(q @ t(x["k"]) / math.sqrt(q.numel()))


def relu_unit(x: dict) -> float:
    return float(torch.relu(t(x["x"]) @ t(x["w"]) + x["b"]))


# ---- Part III -----------------------------------------------------------------


def _attention(T: int, d: int, heads: int) -> CausalAttentionLM:
    return CausalAttentionLM(AttentionConfig(C=8, w=T, d=d, d_k=d // heads, d_v=d // heads, h=4, n_heads=heads))


def head_split(x: dict) -> int:
    model = _attention(x["T"], x["D"], x["heads"])
    Q = model.split_heads(torch.zeros(x["B"], x["T"], x["D"]), x["D"] // x["heads"])
    return int(Q[0, 0].numel())


def never_drawn(x: dict) -> float:
    """The chance prediction of the part3 sampling table, (1 − 1/N)^n, in percent."""
    return math.exp(x["n"] * math.log1p(-1 / x["N"])) * 100


def allowed_sources(x: dict) -> int:
    """The finite scores of the query's row in forward_details (its mask: future and PAD)."""
    T, real = x["T"], x["real"]
    ids = torch.tensor([[PAD_ID] * (T - real) + [BOS_ID] + [5] * (real - 1)])
    with torch.inference_mode():
        scores = _attention(T, 4, 1).forward_details(ids)["scores"]
    return int(scores[0, 0, T - real + x["query"] - 1].isfinite().sum())


def perplexity(x: dict) -> float:
    return math.exp(cross_entropy(x))


def mean_sd(x: dict) -> float:
    return statistics.stdev(x["x"])


def attention_cost(x: dict) -> int:
    """Multiply-adds of QKᵀ: every score of the [heads, T, T] grid sums d_k products."""
    T, D, heads = x["T"], x["D"], x["heads"]
    Q = torch.zeros(heads, T, D // heads)
    return int((Q @ Q.transpose(-2, -1)).numel() * Q.shape[-1])


def two_heads(x: dict) -> float:
    """Each head's softmax over its own scores, its message from its own values
    (one coordinate each), the messages joined, then one column of W_O."""
    weights = t(x["scores"]).softmax(-1)  # [heads, sources]
    messages = (weights * t(x["values"])).sum(-1)  # [heads]: joined side by side
    return float(messages @ t(x["W_O"]))


def _renormalised(p: list[float], token: int, top_k: int = 0, top_p: float = 1.0) -> float:
    """export/decoding's top-k/top-p filter on these probabilities (after the four
    special IDs, which it never keeps), renormalised."""
    weights = [0.0] * len(SPECIALS) + list(p)
    logits = [-math.inf] * len(SPECIALS) + [math.log(v) for v in p]
    kept = kept_ids(logits, weights, top_k, top_p)
    return weights[len(SPECIALS) + token] / math.fsum(weights[i] for i in kept)


def top_k_renormalised(x: dict) -> float:
    return _renormalised(x["p"], x["token"] - 1, top_k=2)


def top_p_renormalised(x: dict) -> float:
    return _renormalised(x["p"], max(range(len(x["p"])), key=lambda i: x["p"][i]), top_p=x["top_p"])


# ---- Part IV ------------------------------------------------------------------


def head_width(x: dict) -> int:
    model = _attention(4, x["d"], x["heads"])
    return int(model.split_heads(torch.zeros(1, 4, x["d"]), model.d_k).shape[-1])


def projection_params(x: dict) -> int:
    model = _attention(4, x["d"], x["heads"])
    return sum(p.numel() for layer in (model.W_Q, model.W_K, model.W_V, model.W_O) for p in layer.parameters())


def weights_count(x: dict) -> int:
    model = _attention(x["T"], 4 * x["heads"], x["heads"])
    ids = torch.full((x["B"], x["T"]), 5)
    with torch.inference_mode():
        return int(model.forward_details(ids)["weights"].numel())


def perplexity_from_loss(x: dict) -> float:
    return math.exp(x["loss"])


def reduction_percent(x: dict) -> float:
    """As the results tables compute it: (baseline mean − mean) / baseline mean · 100."""
    base, mean = x["one_head"], x["four_heads"]
    return (base - mean) / base * 100


def ablation_interaction(x: dict) -> float:
    """All-off cost minus the sum of the single costs (the deck's sum_single comparison)."""
    on, off = x["on"], t(x["off"])
    return float((x["all_off"] - on) - (off - on).sum())


def costliest_head(x: dict) -> float:
    """Perplexity rise of the costliest head: e^(its loss) − e^(every head on)."""
    return float(t(x["off"]).max().exp() - math.exp(x["on"]))


def paired_gain(x: dict) -> float:
    """results_paired's gain_percent of one seed: (one − four) / one · 100, in perplexity (e^loss)."""
    one, four = t([x["one_head"], x["four_heads"]]).exp()
    return float((one - four) / one * 100)


ANSWERS: dict[str, Callable[[dict], float]] = {
    "story-ids": story_ids,
    "windows-count": windows_count,
    "mlp-hidden-params": mlp_hidden_params,
    "score-scaling": score_scaling,
    "softmax-weight": softmax_weight,
    "message-coordinate": message_coordinate,
    "cross-entropy": cross_entropy,
    "sgd-step": sgd_step,
    "video-score": video_score,
    "retrieval-temperature": retrieval_temperature,
    "scaled-softmax": scaled_softmax,
    "residual-update": residual_update,
    "causal-mask": causal_mask,
    "relu-unit": relu_unit,
    "head-split": head_split,
    "allowed-sources": allowed_sources,
    "never-drawn": never_drawn,
    "perplexity": perplexity,
    "mean-sd": mean_sd,
    "attention-cost": attention_cost,
    "head-width": head_width,
    "projection-params": projection_params,
    "weights-count": weights_count,
    "perplexity-from-loss": perplexity_from_loss,
    "reduction-percent": reduction_percent,
    "attention-step": attention_step,
    "pad-masked-weight": pad_masked_weight,
    "masked-row": masked_row,
    "query-projection": query_projection,
    "two-heads": two_heads,
    "top-k-renormalised": top_k_renormalised,
    "top-p-renormalised": top_p_renormalised,
    "ablation-interaction": ablation_interaction,
    "costliest-head": costliest_head,
    "paired-gain": paired_gain,
}


def answer(exercise_id: str, inputs: dict) -> float:
    if exercise_id not in ANSWERS:
        raise ValueError(f"unknown exercise {exercise_id!r}")
    return ANSWERS[exercise_id](inputs)
