"""The course's colours, in one place: every build-time figure
(export/tables/kit/draw.py), the site's CSS and the widgets and lab (through
build/site/assets/palette.css, custom properties written from this module by
site_builder/palette_css.py) take their colours from here.

A colour means one thing everywhere: the query, key, value and message (the
update it makes) of attention, each of the three models, each head, the
attention-weight scale, the surprisal scale and the scale of signed numbers,
the two sentences of Part II, the interface accent. ``MEANING_NAMES`` says which
meaning each colour serves and ``NEUTRALS`` which are the greys that serve
none; tests/test_palette_meanings.py keeps meanings at least ΔE 10 apart
(CIE76; pale fills 5), the groups drawn together apart for protan and deutan
viewers, and every built figure and stylesheet on these colours. Text colours (``ink``,
``ink_soft``, ``muted``, the role, model and head colours) keep a contrast of
at least 4.5:1 on white and on every box fill (tests/test_palette.py checks it).

Names are CSS-ready: ``query`` becomes ``--query``, ``fill_data`` ``--fill-data``,
``head_1`` ``--head-1``, ``weight_0`` ``--weight-0``.
"""

from __future__ import annotations

# ---------------------------------------------------------------- text, lines, surfaces
INK = "#0f172a"  # text: 17.9:1 on white
INK_SOFT = "#334155"  # axis labels, legends, rules of matrices: 10.3:1
MUTED = "#475569"  # secondary text: 7.6:1 on white, >= 6.4:1 on every fill
LINE = "#64748b"  # arrows and box strokes: 4.8:1 on white
GRID = "#94a3b8"  # cell borders of drawn matrices, chart axes
RULE = "#cbd5e1"  # table borders and other light rules
GRIDLINE = "#e2e8f0"  # chart gridlines
PAPER = "#ffffff"
SURFACE = "#f1f5f9"  # table heads, code, tracks, fixed operations
SURFACE_SOFT = "#f8fafc"  # page and widget backgrounds
BLOCKED = "#d1d5db"  # a masked (future) cell

# ---------------------------------------------------------------- interface
ACCENT = "#3730a3"  # links, the current step, highlights: an indigo no meaning uses
ACCENT_SOFT = "#efeafb"
ACCENT_MID = "#a7a3dc"  # probability bars (a plain bar: a value, no other meaning), the map strip's done stages
FOCUS = "#4f46e5"  # keyboard focus outline
HIGHLIGHT = "#fff1b8"  # a highlighted table cell, an unknown token
WARN_LINE = "#c99a00"
WARN_INK = "#7a5d00"
LINKED = "#d97706"  # the lab's linked token (outline)
LINKED_SOFT = "#fde7c7"
ERROR = "#9f1239"  # a rose red, off the surprisal scale's reds
ALERT = ERROR  # a drawn marker, an unscaled (saturating) curve: the error colour
ERROR_SOFT = "#fff6f6"
ERROR_LINE = "#cc7777"
TAKEAWAY = ACCENT  # the takeaway band is interface, not a meaning: the accent
TAKEAWAY_SOFT = ACCENT_SOFT

# ---------------------------------------------------------------- box fills of the diagrams
FILLS = {
    "data": "#def0f8",  # tensors and data
    "op": "#fdf3d8",  # operations
    "param": "#e6f4ea",  # learned parameters
    "out": "#fde8e8",  # outputs
    "plain": PAPER,
    "muted": SURFACE,  # fixed rules, reshapes, unused slots
}

# ---------------------------------------------------------------- meanings
ROLES = {  # attention's four vectors, in every figure, widget and the lab
    "query": "#7c3aed",
    "key": "#0e7490",
    "value": "#c2410c",
    "message": "#a21caf",  # the message and the update W_O makes of it
}
MODELS = {"mlp": "#827800", "attn1": "#d2004b", "attn4": "#0064f0"}  # olive, crimson, azure
HEADS = ("#2d8205", "#c300e6", "#af5550", "#962873")  # green, purple, rose, plum: the four heads of attn4
SENTENCES = {"river": "#00783c", "cheque": "#2d5005"}  # Part II's two sentences: green, dark olive

# Attention weight, 0 to 1 (ColorBrewer "Blues"), and surprisal (ColorBrewer
# "OrRd"): the stops web/core/inspect.js interpolates linearly (BLUES, ORANGES).
WEIGHT_SCALE = ((247, 251, 255), (198, 219, 239), (107, 174, 214), (33, 113, 181), (8, 48, 107))
SURPRISAL_SCALE = ((255, 247, 236), (253, 212, 158), (252, 141, 89), (215, 48, 31), (127, 0, 0))
# A signed number (a coordinate of an embedding, q, k, v, a message or an
# update; a score; a logit), symmetric about 0 (ColorBrewer "BrBG"): the cells
# of export/tables/kit/cells.py. Brown below 0, near-white at 0, teal above.
SIGNED_SCALE = ((166, 97, 26), (223, 194, 125), (245, 245, 245), (128, 205, 193), (1, 133, 113))


def hex_colour(rgb) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def scale_colour(weight: float, stops=WEIGHT_SCALE) -> str:
    """The colour of ``weight`` (clipped to 0..1) on a stop scale, as
    web/core/inspect.js heatRgb computes it (round half up)."""
    w = min(1.0, max(0.0, float(weight))) * (len(stops) - 1)
    i = min(len(stops) - 2, int(w))
    f = w - i
    return hex_colour(int(a + f * (b - a) + 0.5) for a, b in zip(stops[i], stops[i + 1]))


def entries() -> dict[str, str]:
    """Every palette colour by its CSS-ready name (lower case, ``_`` for ``-``)."""
    out = {
        name.lower(): value
        for name, value in globals().items()
        if name.isupper() and isinstance(value, str) and value.startswith("#")
    }
    out |= {f"fill_{kind}": colour for kind, colour in FILLS.items()}
    out |= ROLES | MODELS | SENTENCES
    out |= {f"head_{i}": colour for i, colour in enumerate(HEADS, 1)}
    out |= {f"weight_{i}": hex_colour(rgb) for i, rgb in enumerate(WEIGHT_SCALE)}
    out |= {f"surprisal_{i}": hex_colour(rgb) for i, rgb in enumerate(SURPRISAL_SCALE)}
    out |= {f"signed_{i}": hex_colour(rgb) for i, rgb in enumerate(SIGNED_SCALE)}
    return out


# ---------------------------------------------------------------- what each colour means
# The colours that mean nothing: text, lines, rules, surfaces and a masked
# cell are greys (CIELAB chroma under 16, the slight blue of the slate greys),
# so a colour on a slide always says which meaning it is.
NEUTRALS = (
    "ink",
    "ink_soft",
    "muted",
    "line",
    "grid",
    "rule",
    "gridline",
    "paper",
    "surface",
    "surface_soft",
    "blocked",
    "fill_plain",
    "fill_muted",
)
# Each colour of the palette that is not neutral serves exactly one of these
# meanings (tests/test_palette_meanings.py holds them apart).
MEANING_NAMES = {
    "interface accent": ("accent", "accent_soft", "accent_mid", "focus", "takeaway", "takeaway_soft"),
    "a note to heed": ("highlight", "warn_line", "warn_ink"),
    "the lab's linked token": ("linked", "linked_soft"),
    "an error, an alert": ("error", "error_soft", "error_line", "alert"),
    **{f"{kind} box": (f"fill_{kind}",) for kind in ("data", "op", "param", "out")},
    **{f"model {name}": (name,) for name in MODELS},
    **{f"head {i}": (f"head_{i}",) for i in range(1, len(HEADS) + 1)},
    **{f"the {name}": (name,) for name in ROLES},
    **{f"the {name} sentence": (name,) for name in SENTENCES},
}
RAMPS = {"attention weight": WEIGHT_SCALE, "surprisal": SURPRISAL_SCALE, "a signed number": SIGNED_SCALE}
RAMP_NAMES = {"attention weight": "weight_", "surprisal": "surprisal_", "a signed number": "signed_"}
