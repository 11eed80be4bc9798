"""The tables of the Part III deck (multi-head attention and TinyStories):
the course's settings (``settings``), the hand-set toys (``toys``), real
stories and split counts (``corpus``), a real batch and generation step
(``real``), the held-out continuations (``continuations``), how the models
were trained (``training``), what the comparison holds equal and what
attention costs (``comparison``), overfitting from the recorded losses
(``overfitting``), training replayed from the trace (``replay``), temperature, top-k and top-p on a real distribution
(``decoding``), a small GPT counted beside our model (``transformer``), the
answers to the check questions (``checks``), and the deck's diagrams and
charts (``figures``, ``charts``), and its cells and bars (``pictures``). Importing the package declares its tables."""

from . import (  # noqa: F401
    checks,
    comparison,
    continuations,
    corpus,
    decoding,
    figures,
    overfitting,
    pictures,
    real,
    replay,
    settings,
    toys,
    training,
    transformer,
)
