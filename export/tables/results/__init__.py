"""The tables of the results deck (one head and four heads): the perplexity
toy (``toy``), the measured runs (``measured``) and their charts (``charts``),
one prompt's four attention rows (``model``), the per-step rows the
model was trained on beside the one-pass matrix (``steps``), model sizes and browser timings
(``machine``), and the training protocol with a worked mean ± SD
(``protocol``), and the reruns that test reproducibility
(``reproduction``). Importing the package declares its tables."""

from . import charts, machine, measured, model, protocol, reproduction, steps, toy  # noqa: F401
