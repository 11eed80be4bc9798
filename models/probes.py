"""The fixed probe texts of the training trace (models/trace.py).

Each probe is read as the lab reads a prompt: BOS + the text's token IDs, the
last ``CONTEXT`` of them, left-padded with PAD. The texts are copies of
strings that live downstream (the models stage must not import export/);
tests/test_trace.py checks that each copy still equals its source.
"""

from __future__ import annotations

import torch

from common.config import CONFIG

from .tokenizer import BOS_ID, PAD_ID, Vocab

CONTEXT = CONFIG.data.context

# name -> text. Sources (checked by tests/test_trace.py):
#   river, cheque: the two "bank" sentences of Part II (export/tables/_part2_toy.py)
#   held_out: the lab's held-out preset, a prefix of the shortest test story (export/presets.py)
#   fisherman: the two-head worksheet of Part III (export/tables/_part3_toys.py)
#   validation_story, test_story: prefixes (export.presets.story_prefix) of the first
#     validation and the first test story in corpus order: TinyStories text no model trained on
PROBES = {
    "river": "The children sat on the river bank and watched the",
    "cheque": "She deposited her cheque at the bank and watched the",
    "held_out": "Once there was a bald man who really wanted to believe in something. He looked",
    "fisherman": "The fisherman sat beside the river bank and watched the",
    "validation_story": "Once upon a time, in a small house, there lived a boy named Tim. Tim was",
    "test_story": "Once upon a time, in a big lake, there was a brown kayak. The brown",
}


def probe_ids(text: str, vocab: Vocab) -> list[int]:
    """BOS + the text's token IDs (no EOS), as the lab's history starts."""
    return [BOS_ID] + vocab.encode(text)


def window(ids: list[int], context: int = CONTEXT) -> list[int]:
    """The last ``context`` IDs, left-padded with PAD."""
    ids = ids[-context:]
    return [PAD_ID] * (context - len(ids)) + ids


def probe_set(vocab: Vocab) -> list[dict]:
    """The probes as the trace file lists them: name, text, ids."""
    return [{"name": name, "text": text, "ids": probe_ids(text, vocab)} for name, text in PROBES.items()]


def probe_windows(probes: list[dict], context: int = CONTEXT) -> torch.Tensor:
    """[n_probes, context] model input, one window per probe."""
    return torch.tensor([window(p["ids"], context) for p in probes], dtype=torch.long)
