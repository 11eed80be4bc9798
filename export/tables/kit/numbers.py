"""How numbers are written on the slides, for every deck."""

from __future__ import annotations

import math

SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def sci(x: float, digits: int = 1) -> str:
    """1.526e-05 -> "1.5 × 10⁻⁵" (minus as U+2212); 0 -> "0"."""
    if x == 0:
        return "0"
    exp = math.floor(math.log10(abs(x)))
    mant = x / 10**exp
    if round(abs(mant), digits) >= 10:
        mant, exp = mant / 10, exp + 1
    text = f"{mant:.{digits}f} × 10{str(exp).translate(SUPERSCRIPT)}"
    return text.replace("-", "−", 1) if text.startswith("-") else text


def shape_text(shape) -> str:
    """[64, 4000] -> "[64, 4000]": a shape's sizes are never grouped, as m.shape prints them."""
    return "[" + ", ".join(str(n) for n in shape) + "]"
