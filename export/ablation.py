"""The lab's experiments, in PyTorch: the references the browser must match.

- ``attention_steps``: for each position t of a token history, the final
  query's weights when the window is the last 64 IDs of history[0..t]: what
  the model attended to when it predicted the token after history[t].
- Heads switched off (``heads_off``, 0-based): those heads' messages are zero
  before W_O (zero ablation).
- Words hidden (``hide``, indices into the token history, BOS = 0): masked as
  keys exactly like PAD for the attention models, replaced by PAD in the
  MLP's input window. The newest token (the query's own slot) is never hidden.

The ONNX graphs do the same in their own way (export/onnx_export.py: a head
mask input; hidden slots fed as PAD), and the tests check the two agree.
"""

from __future__ import annotations

import math

import torch

from models.tokenizer import EOS_ID, PAD_ID

from .decoding import CONTEXT, context_window, start_history


def hidden_slots(history_length: int, hide, width: int = CONTEXT) -> list[bool]:
    """Which slots of the window that ends at history position
    ``history_length - 1`` hold a hidden token; the last slot (the newest
    token, the query's own) never does."""
    hidden = set(hide or ())
    first = history_length - width  # the history position of slot 0 (negative: PAD slots)
    return [(first + j) in hidden and j < width - 1 for j in range(width)]


def hide_window(history: list[int], hide, width: int = CONTEXT) -> list[int]:
    """The window the models read with the hidden tokens replaced by PAD."""
    window = context_window(history, width)
    return [PAD_ID if off else i for i, off in zip(window, hidden_slots(len(history), hide, width))]


def head_mask(n_heads: int, off) -> list[float]:
    """1 for a head that is on, 0 for one switched off."""
    off = set(off or ())
    return [0.0 if h in off else 1.0 for h in range(n_heads)]


@torch.no_grad()
def ablated_attend(model, ids: torch.Tensor, heads_off=(), hidden: torch.Tensor | None = None):
    """``model.attend`` with heads switched off and extra keys masked.

    ids [B, w]; hidden [B, w] bool, keys masked like PAD (the caller keeps the
    last slot visible). Returns (logits [B, C], weights [B, heads, w])."""
    E = model.embed(ids)
    q = model.split_heads(model.W_Q(E[:, -1:]), model.d_k)
    K = model.split_heads(model.W_K(E), model.d_k)
    V = model.split_heads(model.W_V(E), model.d_v)
    scores = q @ K.transpose(-2, -1) / math.sqrt(model.d_k)
    blocked = ids.eq(model.pad_id) if hidden is None else ids.eq(model.pad_id) | hidden
    A = scores.masked_fill(blocked[:, None, None, :], float("-inf")).softmax(-1)
    gate = torch.tensor(head_mask(model.n_heads, heads_off), dtype=A.dtype)
    heads = (A @ V) * gate[None, :, None, None]  # a switched-off head's message is zero
    message = heads.transpose(1, 2).flatten(start_dim=2)
    final = E[:, -1] + model.W_O(message)[:, 0]
    return model.vocab_head(torch.relu(model.hidden_layer(final))), A[:, :, 0]


def windows(history: list[int], hide=()) -> tuple[torch.Tensor, torch.Tensor]:
    """The window of every step of a history and its hidden-key mask."""
    ids = torch.tensor([context_window(history[: t + 1]) for t in range(len(history))], dtype=torch.int64)
    mask = torch.tensor([hidden_slots(t + 1, hide) for t in range(len(history))], dtype=torch.bool)
    return ids, mask


@torch.no_grad()
def step_logits(model, history: list[int], heads_off=(), hide=()) -> torch.Tensor:
    """Logits after every prefix of ``history`` under the ablation: [T, C]."""
    ids, mask = windows(history, hide)
    if model.kind == "mlp":
        return model(ids.masked_fill(mask, PAD_ID))
    return ablated_attend(model, ids, heads_off, mask)[0]


@torch.no_grad()
def attention_steps(model, history: list[int]) -> torch.Tensor:
    """[T, heads, 64]: row t is the final query's weights on the window of history[0..t]."""
    ids, _ = windows(history)
    return model.attend(ids)[1]


@torch.no_grad()
def ablated_teacher_forced(model, ids: list[int], eos: bool = False, heads_off=(), hide=()) -> list[float]:
    """Score mode's probabilities (export.parity.teacher_forced) under the ablation."""
    targets = list(ids) + ([EOS_ID] if eos else [])
    history = start_history(ids)
    logits = step_logits(model, history[: len(targets)], heads_off, hide)
    logp = torch.log_softmax(logits.double(), -1)[torch.arange(len(targets)), torch.tensor(targets)]
    return logp.exp().tolist()
