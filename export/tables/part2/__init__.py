"""The tables of the Part II deck, all computed from the hand-built toy model
in ``toy``: the model and its predictions (``model``), mixing rules
(``mixing``), one attention step in every form (``attention``), score scaling
(``scaling``), positions (``positions``) and the deck's diagrams
(``figures``). Importing the package declares its tables."""

from . import attention, figures, mixing, model, positions, scaling  # noqa: F401
