"""The tables of the "Training and inference maps" deck: the worked toy
(``toy``: tokenization, vocabulary, story, windows, batch; ``mlp``,
``attention``, ``generation``: the two toy models step by step), its diagrams
(``figures``), real stories (``stories``) and the corpus audit
(``corpus_audit``). Importing the package declares its tables."""

from . import attention, corpus_audit, figures, generation, mlp, stories, toy  # noqa: F401
