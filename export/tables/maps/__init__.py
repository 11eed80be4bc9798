"""The tables of the "Training and inference maps" deck: the worked toy
(``toy``: tokenization, vocabulary, story, windows, batch; ``mlp``,
``attention``, ``generation``: the two toy models step by step), its diagrams
(``figures``; ``token_figures``, ``cell_figures``, ``corpus_figures``: the
pictures of issue 20), real stories (``stories``) and the corpus audit
(``corpus_audit``). Importing the package declares its tables."""

from . import (  # noqa: F401
    attention,
    cell_figures,
    corpus_audit,
    corpus_figures,
    figures,
    generation,
    mlp,
    stories,
    token_figures,
    toy,
)
