"""The tables of the results deck (one head and four heads): the perplexity
toy (``toy``), the measured runs (``measured``) and their charts (``charts``),
one prompt's four attention rows (``model``), the per-step rows the
model was trained on beside the one-pass matrix (``steps``), model sizes and browser timings
(``machine``), the training protocol with a worked mean ± SD
(``protocol``), the paired one-vs-four-heads comparison (``paired``), the
reruns that test reproducibility (``reproduction``), what
each head is worth (``head_cost``) and where attention wins (``wins``), both
from export/experiments.py. Importing the package declares its tables."""

from . import (  # noqa: F401
    bank,
    charts,
    head_cost,
    machine,
    measured,
    model,
    paired,
    pictures,
    protocol,
    reproduction,
    steps,
    toy,
    wins,
)
