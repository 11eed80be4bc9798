"""The lab's helpers for the browser tests: its models and backends, the
parity tolerance, opening the lab until ``lab.ready``, and the texts scored
against PyTorch."""

from __future__ import annotations

from common.chromium import evaluate
from common.settings import ROOT

BACKENDS = ["wasm", "webgpu"]
KINDS = ["mlp", "attn1", "attn4"]
TOLERANCE = 1e-4
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


def open_lab(page, url: str, query: str = ""):
    page.goto(f"{url}/lab/{query}")
    return evaluate(page, "return await window.lab.ready;", timeout_s=240)


def score_texts(references):
    """The held-out story and every other dataset preset's whole story (with
    their EOS, as in the test evaluation), and typed text with unknown words,
    markup and more than 64 tokens."""
    stories = [(p["source"]["text"], True) for p in references["presets"] if p["source"]]
    typed = ('The quantum lecture covered gluons!! <b>Then</b> the little dog said "hi" & ran home. ' * 4, False)
    return stories + [typed, ("x", False)]
