"""What a full Transformer adds (``part3_transformer``): a small GPT (GPT-2
small's published sizes) built as a plain PyTorch module and counted, beside
our four-head model counted the same way. The GPT is built on PyTorch's
"meta" device, so nothing is allocated: only the shapes, hence the counts."""

from __future__ import annotations

import torch
import torch.nn as nn

from models.nets import build, count_parameters

from ..kit.registry import table
from ..kit.sources import Sources

# GPT-2 small as released by Radford et al. (2019): 12 blocks of width 768 with
# 12 heads, a 1,024-token context and a 50,257-token byte-pair vocabulary.
GPT2_SMALL = {"layers": 12, "d": 768, "heads": 12, "context": 1024, "vocab": 50257, "mlp": 4}


class Block(nn.Module):
    """One pre-LayerNorm Transformer block: attention and a feed-forward
    network, each added to the residual stream."""

    def __init__(self, d: int, mlp: int):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)  # W_Q, W_K, W_V packed; W_O
        self.up, self.down = nn.Linear(d, mlp * d), nn.Linear(mlp * d, d)  # the feed-forward network


class SmallGPT(nn.Module):
    """Token and position embeddings, a stack of blocks, a final LayerNorm;
    the vocabulary head shares the token embedding's weights (tied)."""

    def __init__(self, layers: int, d: int, heads: int, context: int, vocab: int, mlp: int):
        super().__init__()
        self.token_embedding, self.position_embedding = nn.Embedding(vocab, d), nn.Embedding(context, d)
        self.blocks = nn.ModuleList(Block(d, mlp) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)


def parts(model: nn.Module) -> dict[str, int]:
    return {name: sum(p.numel() for p in child.parameters()) for name, child in model.named_children()}


@table("part3_transformer", needs=["sources"])
def transformer_table(sources: Sources) -> dict:
    with torch.device("meta"):
        gpt = SmallGPT(**GPT2_SMALL)
    g = GPT2_SMALL
    vocab = sources.vocab()
    ours = build("attn4", C=len(vocab) if vocab is not None else build("attn4").config.C)
    cfg = ours.config
    gpt_parts = parts(gpt)
    block = sum(p.numel() for p in gpt.blocks[0].parameters())
    total, mine = count_parameters(gpt), count_parameters(ours)
    return {
        "available": True,
        "gpt": dict(
            g,
            parameters=total,
            block_parameters=block,
            embedding_parameters=gpt_parts["token_embedding"] + gpt_parts["position_embedding"],
        ),
        "ours": {
            "parameters": mine,
            "d": cfg.d,
            "heads": cfg.n_heads,
            "context": cfg.w,
            "vocab": cfg.C,
            "hidden": cfg.h,
            "layers": 1,
        },
        "ratio": total / mine,
        "header": ["", "small GPT (GPT-2 small sizes)", "our four-head model"],
        "rows": [
            ["tokens", f"subword pieces (byte-pair), {g['vocab']:,}", f"words and punctuation, {cfg.C:,}"],
            ["context", g["context"], cfg.w],
            ["width d", g["d"], cfg.d],
            ["blocks (layers)", g["layers"], 1],
            ["heads per block", g["heads"], cfg.n_heads],
            [
                "feed-forward",
                f"{g['mlp'] * g['d']:,} units in every block, added to the residual stream",
                f"one ReLU layer of {cfg.h} units after attention, feeding the vocabulary head",
            ],
            ["LayerNorm", "before attention and before the feed-forward, in every block", "none"],
            ["parameters", total, mine],
        ],
    }
