"""The three one-block language models, kept as plain as nanoGPT's.

All map a window of token IDs [B, w] to next-token logits [B, C].
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

import torch
import torch.nn as nn

from common.config import CONFIG, CourseConfig


@dataclass(frozen=True)
class MLPConfig:
    """Sizes of the fixed-window MLP (a checkpoint's "config" holds these fields).
    The course's values come from common/config.py (``course_models``)."""

    C: int = CONFIG.vocab_size  # vocabulary size
    w: int = CONFIG.data.context  # context width: token slots in a window
    d: int = CONFIG.mlp.d  # embedding width
    h: int = CONFIG.mlp.h  # units of the ReLU hidden layer
    pad_id: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class AttentionConfig:
    """Sizes of a causal attention model: n_heads heads, each with query/key
    width d_k and value width d_v (the course keeps n_heads * d_k = d)."""

    C: int = CONFIG.vocab_size
    w: int = CONFIG.data.context
    d: int = CONFIG.attention.d
    d_k: int = CONFIG.attention.d
    d_v: int = CONFIG.attention.d
    h: int = CONFIG.attention.h
    pad_id: int = 0
    n_heads: int = 1

    def as_dict(self) -> dict:
        return asdict(self)


def attention(n_heads: int, d: int = CONFIG.attention.d) -> AttentionConfig:
    """n_heads heads that share the model width d: each head's query, key and
    value width is d // n_heads, so W_Q, W_K, W_V and W_O stay d x d."""
    return AttentionConfig(d=d, d_k=d // n_heads, d_v=d // n_heads, n_heads=n_heads)


def course_models(config: CourseConfig = CONFIG) -> dict[str, MLPConfig | AttentionConfig]:
    """The course's models at the sizes ``config`` gives, by kind."""
    shape = dict(C=config.vocab_size, w=config.data.context)
    mlp = MLPConfig(d=config.mlp.d, h=config.mlp.h, **shape)
    attn = config.attention
    return {"mlp": mlp, **{kind: replace(attention(n, attn.d), h=attn.h, **shape) for kind, n in attn.heads.items()}}


COURSE = course_models()  # sizes: common/config.py
KINDS = tuple(COURSE)
LABELS = {"mlp": "Fixed-window MLP", "attn1": "One-head attention", "attn4": "Four-head attention"}


class FixedWindowMLP(nn.Module):
    """w token embeddings, concatenated -> ReLU hidden layer -> vocabulary head."""

    kind = "mlp"

    def __init__(self, config: MLPConfig):
        super().__init__()
        self.config = config
        C, w, d, h = config.C, config.w, config.d, config.h
        self.token_embedding = nn.Embedding(C, d, padding_idx=config.pad_id)
        self.hidden_layer = nn.Linear(w * d, h)
        self.vocab_head = nn.Linear(h, C)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        flat = self.token_embedding(ids).flatten(start_dim=1)  # [B, w*d]
        return self.vocab_head(torch.relu(self.hidden_layer(flat)))  # [B, C]


class CausalAttentionLM(nn.Module):
    """Token + position embeddings -> one causal attention layer (n_heads heads,
    query/key width d_k and value width d_v per head) -> residual -> ReLU hidden
    layer -> vocabulary head. Only the final position is scored."""

    def __init__(self, config: AttentionConfig):
        super().__init__()
        self.config = config
        C, w, d, h, n_heads = config.C, config.w, config.d, config.h, config.n_heads
        d_k, d_v = config.d_k, config.d_v
        self.pad_id, self.n_heads, self.d_k, self.d_v = config.pad_id, n_heads, d_k, d_v
        self.token_embedding = nn.Embedding(C, d, padding_idx=config.pad_id)
        self.position_embedding = nn.Embedding(w, d)
        self.W_Q = nn.Linear(d, n_heads * d_k, bias=False)
        self.W_K = nn.Linear(d, n_heads * d_k, bias=False)
        self.W_V = nn.Linear(d, n_heads * d_v, bias=False)
        self.W_O = nn.Linear(n_heads * d_v, d, bias=False)
        self.hidden_layer = nn.Linear(d, h)
        self.vocab_head = nn.Linear(h, C)

    @property
    def kind(self) -> str:
        return f"attn{self.n_heads}"

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(ids.shape[1], device=ids.device)
        return self.token_embedding(ids) + self.position_embedding(positions)[None]

    def split_heads(self, x: torch.Tensor, width: int) -> torch.Tensor:
        B, T, _ = x.shape  # [B, T, n*width] -> [B, n, T, width]
        return x.view(B, T, self.n_heads, width).transpose(1, 2)

    def attend(self, ids: torch.Tensor):
        """Final query only: returns (logits [B, C], weights [B, heads, w])."""
        E = self.embed(ids)  # [B, w, d]
        q = self.split_heads(self.W_Q(E[:, -1:]), self.d_k)  # [B, n, 1, d_k]
        K = self.split_heads(self.W_K(E), self.d_k)  # [B, n, w, d_k]
        V = self.split_heads(self.W_V(E), self.d_v)  # [B, n, w, d_v]
        scores = q @ K.transpose(-2, -1) / math.sqrt(self.d_k)  # [B, n, 1, w]
        pad = ids.eq(self.pad_id)[:, None, None, :]
        A = scores.masked_fill(pad, float("-inf")).softmax(-1)
        message = (A @ V).transpose(1, 2).flatten(start_dim=2)  # [B, 1, n*d_v]
        final = E[:, -1] + self.W_O(message)[:, 0]  # residual, [B, d]
        logits = self.vocab_head(torch.relu(self.hidden_layer(final)))
        return logits, A[:, :, 0]

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.attend(ids)[0]

    def forward_details(self, ids: torch.Tensor) -> dict[str, torch.Tensor]:
        """Every causal row, for teaching. Rows whose own token is PAD get all-zero
        weights. logits are the final row's, equal to forward(ids)."""
        B, T = ids.shape
        E = self.embed(ids)
        Q = self.split_heads(self.W_Q(E), self.d_k)  # [B, n, T, d_k]
        K = self.split_heads(self.W_K(E), self.d_k)
        V = self.split_heads(self.W_V(E), self.d_v)
        scores = Q @ K.transpose(-2, -1) / math.sqrt(self.d_k)  # [B, n, T, T]
        future = torch.ones(T, T, dtype=torch.bool, device=ids.device).triu(1)
        blocked = future[None, None] | ids.eq(self.pad_id)[:, None, None, :]
        masked = scores.masked_fill(blocked, float("-inf"))
        pad_row = ids.eq(self.pad_id)[:, None, :, None]
        A = masked.masked_fill(pad_row, 0.0).softmax(-1).masked_fill(pad_row, 0.0)
        heads = A @ V  # [B, n, T, d_v]
        messages = heads.transpose(1, 2).flatten(start_dim=2)  # [B, T, n*d_v]
        updated = E + self.W_O(messages)
        hidden = torch.relu(self.hidden_layer(updated))
        all_logits = self.vocab_head(hidden)  # [B, T, C]
        return dict(
            E=E,
            Q=Q,
            K=K,
            V=V,
            scores=masked,
            weights=A,
            heads=heads,
            messages=messages,
            updated=updated,
            hidden=hidden,
            all_logits=all_logits,
            logits=all_logits[:, -1],
        )


def make(config: MLPConfig | AttentionConfig) -> nn.Module:
    """The model a config describes."""
    return FixedWindowMLP(config) if isinstance(config, MLPConfig) else CausalAttentionLM(config)


def build(kind: str, **changes) -> nn.Module:
    """One of the course's three models at its course sizes; ``changes``
    overrides fields of its config (e.g. ``C=len(vocab)``)."""
    if kind not in COURSE:
        raise ValueError(f"unknown model kind {kind!r}; expected one of {KINDS}")
    return make(replace(COURSE[kind], **changes))


def from_config(kind: str, config: dict) -> nn.Module:
    """The model a checkpoint's "config" dict describes."""
    return make(MLPConfig(**config) if kind == "mlp" else AttentionConfig(**config))


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
