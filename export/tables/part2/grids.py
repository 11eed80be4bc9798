"""Helpers of the Part II tables: grids the deck shows as tables, labels with
subscripts, and plain-Python conversion for JSON. JSON cannot hold -inf, so
masked scores appear as the string "−∞"."""

from __future__ import annotations

import numpy as np

from . import toy

MASKED = "−∞"
SENTENCE_LABELS = {"river": "river sentence", "cheque": "cheque sentence"}


def L(x):
    """numpy -> plain Python lists/floats for JSON."""
    return np.asarray(x).tolist()


def grid(header, rows):
    return {"header": list(header), "rows": [list(r) for r in rows]}


def labelled(matrix, row_labels, col_labels, corner=""):
    return grid([corner, *col_labels], [[label, *L(row)] for label, row in zip(row_labels, matrix)])


def subs(n: int) -> str:
    """7 -> '₇', 10 -> '₁₀' (for row labels)."""
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


B7, T10, SQ = subs(toy.BANK), subs(toy.N_POSITIONS), f"√{toy.D_K}"


def tok_label(i, token):
    return f"{i} {token}"
