"""The course's fixed settings (model sizes, training profile, decoding rule),
read from the course configuration the export recorded in metadata.json
(``Sources.config``; common/config.py before there is an export), so slides
never type them and quote what the lab reads."""

from __future__ import annotations

from export.decoding import BANNED
from models.nets import LABELS
from models.tokenizer import PAD_ID, SPECIALS

from ..kit.registry import table


@table("part3_settings", needs=["sources"])
def settings(sources) -> dict:
    config = sources.config()
    profile = config["training"]["profiles"]["course"]
    attention = config["attention"]
    heads = attention["heads"]
    vocab = sources.vocab()
    C = (len(vocab) if vocab is not None else None) or profile["vocab_size"]
    w = config["data"]["context"]
    return {
        "available": True,
        "C": C,
        "T": w,  # kept for older readers; the slides write the context width as w
        "w": w,
        "d": attention["d"],
        "heads": heads["attn4"],
        "head_width": attention["d"] // heads["attn4"],
        "hidden": attention["h"],
        "one_head_width": attention["d"] // heads["attn1"],
        "stories": profile["n_stories"],
        "steps": profile["steps"],
        "batch_size": profile["batch_size"],
        "eval_every": profile["eval_every"],
        "seeds": list(profile["seeds"]),
        "seeds_text": ", ".join(str(s) for s in profile["seeds"]),
        "limit": config["decoding"]["token_limit"],
        "context": w,
        "banned": [SPECIALS[i] for i in sorted(BANNED)],
        "pad_id": PAD_ID,
        "checkpoint_seed": config["training"]["checkpoint_seed"],
        "labels": LABELS,
    }
