"""Colour arithmetic for the palette tests: sRGB hex -> CIELAB (D65), the
CIE76 colour difference, WCAG contrast, and a simulation of the two common
red-green colour-vision deficiencies (Viénot, Brettel and Mollon 1999), so
tests can ask whether two colours of a palette stay apart."""

from __future__ import annotations

import math

from common.palette import scale_colour


def rgb(colour: str) -> tuple[int, int, int]:
    h = colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def _linear(c: float) -> float:
    c /= 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _gamma(c: float) -> float:
    c = min(1.0, max(0.0, c))
    return 255 * (12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055)


def lab(colour) -> tuple[float, float, float]:
    """CIELAB (D65) of a hex colour or an (r, g, b) triple of 0..255."""
    r, g, b = (_linear(c) for c in (rgb(colour) if isinstance(colour, str) else colour))
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def chroma(colour) -> float:
    _, a, b = lab(colour)
    return math.hypot(a, b)


def delta_e(c1, c2) -> float:
    """CIE76: the Euclidean distance in CIELAB."""
    return math.dist(lab(c1), lab(c2))


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two hex colours."""

    def lum(colour: str) -> float:
        r, g, b = (_linear(c) for c in rgb(colour))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    x, y = sorted((lum(a), lum(b)), reverse=True)
    return (x + 0.05) / (y + 0.05)


# Viénot, Brettel and Mollon (1999): linear RGB -> LMS, the missing cone's
# response rebuilt from the other two, back to linear RGB.
_RGB_LMS = ((17.8824, 43.5161, 4.11935), (3.45565, 27.1554, 3.86714), (0.0299566, 0.184309, 1.46709))
_LMS_RGB = (
    (0.0809444479, -0.130504409, 0.116721066),
    (-0.0102485335, 0.0540193266, -0.113614708),
    (-0.000365296938, -0.00412161469, 0.693511405),
)
_MISSING = {
    "protan": lambda l, m, s: (2.02344 * m - 2.52581 * s, m, s),
    "deutan": lambda l, m, s: (l, 0.494207 * l + 1.24827 * s, s),
}


def simulate(colour: str, kind: str) -> tuple[float, float, float]:
    """The (r, g, b) a viewer with ``kind`` ("protan", "deutan") sees."""
    lin = [_linear(c) for c in rgb(colour)]
    lms = [sum(m * v for m, v in zip(row, lin)) for row in _RGB_LMS]
    lms = _MISSING[kind](*lms)
    out = [sum(m * v for m, v in zip(row, lms)) for row in _LMS_RGB]
    return tuple(_gamma(c) for c in out)


def scale_colours(stops) -> set[str]:
    """Every colour scale_colour can return: evaluated between each pair of
    points where a channel's rounding changes."""
    out = set()
    for i in range(len(stops) - 1):
        cuts = {0.0, 1.0}
        for a, b in zip(stops[i], stops[i + 1]):
            if a != b:
                lo, hi = sorted((a, b))
                cuts |= {(k - 0.5 - a) / (b - a) for k in range(lo, hi + 2)}
        cuts = sorted(c for c in cuts if 0 <= c <= 1)
        near = [c + e for c in cuts for e in (-1e-9, 1e-9) if 0 <= c + e <= 1]  # a cut computed another way
        for f in [*cuts, *near, *((x + y) / 2 for x, y in zip(cuts, cuts[1:]))]:
            out.add(scale_colour((i + f) / (len(stops) - 1), stops))
    return out
