"""The course's fixed settings, read from the code that uses them (model
sizes, training profile, decoding rule), so slides never type them."""

from __future__ import annotations

from common.settings import CHECKPOINT_SEED, CONTEXT, TOKEN_LIMIT
from export.decoding import BANNED
from models.corpus import PROFILES
from models.nets import LABELS, build
from models.tokenizer import PAD_ID, SPECIALS

from ..kit.registry import table


@table("part3_settings", needs=["sources"])
def settings(sources) -> dict:
    profile = PROFILES["course"]
    vocab = sources.vocab()
    C = (len(vocab) if vocab is not None else None) or profile.vocab_size
    cfg = build("attn4", C=C).config
    one = build("attn1", C=C).config
    return {
        "available": True,
        "C": C,
        "T": cfg.w,  # kept for older readers; the slides write the context width as w
        "w": cfg.w,
        "d": cfg.d,
        "heads": cfg.n_heads,
        "head_width": cfg.d_k,
        "hidden": cfg.h,
        "one_head_width": one.d_k,
        "stories": profile.n_stories,
        "steps": profile.steps,
        "batch_size": profile.batch_size,
        "eval_every": profile.eval_every,
        "seeds": list(profile.seeds),
        "seeds_text": ", ".join(str(s) for s in profile.seeds),
        "limit": TOKEN_LIMIT,
        "context": CONTEXT,
        "banned": [SPECIALS[i] for i in sorted(BANNED)],
        "pad_id": PAD_ID,
        "checkpoint_seed": CHECKPOINT_SEED,
        "labels": LABELS,
    }
