"""The tables of the Part III deck (multi-head attention and TinyStories):
the course's settings (``settings``), the hand-set toys (``toys``), real
stories and split counts (``corpus``), a real batch and generation step
(``real``), the held-out continuations (``continuations``), how the models
were trained (``training``), what the comparison holds equal and what
attention costs (``comparison``), and the deck's diagrams and charts
(``figures``, ``charts``). Importing the package declares its tables."""

from . import comparison, continuations, corpus, figures, real, settings, toys, training  # noqa: F401
