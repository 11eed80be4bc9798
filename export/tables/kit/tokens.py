"""Token IDs drawn as cards (issue 20): a token's text above, its integer ID
inside a card. An ID is a name, not a quantity, so the cards carry no colour
scale: a plain card, a muted one for PAD (filler), a highlighted one for a
target. Drawn through a ``Drawing`` (kit/draw.py writes the markup):

    d = Drawing(1000, 160, "maps-story-ids", "The toy story as IDs", "...")
    row = id_cards(d, 40, 50, tokens, ids, highlight=[4])
    bracket(d, row[0].x, row[3].x + row[3].w, row[0].y + row[0].h + 12, "context x")

``id_cards`` returns the Box of every card, so brackets and arrows can point at them.
"""

from __future__ import annotations

from common.palette import ACCENT, FILLS, HIGHLIGHT, INK, LINE, MUTED, SURFACE

from .draw import MIN_TEXT, Box, Drawing, text_width

PAD = "<PAD>"


def card_width(tokens, minimum: float = 64.0) -> float:
    """One width for a row of cards: the widest token's text plus a margin."""
    return max(minimum, max(text_width(t, MIN_TEXT) for t in tokens) + 18)


def id_cards(
    d: Drawing,
    x: float,
    y: float,
    tokens,
    ids,
    card_w: float | None = None,
    card_h: float = 62,
    gap: float = 8,
    highlight=(),
    faded=(),
    token_inside: bool = True,
) -> list[Box]:
    """One card per token, left to right from ``x``: the token on the first
    line, its ID on the second (``token_inside``; else the token stands above
    the card). Cards at the indices in ``highlight`` are outlined and filled
    as targets; those in ``faded`` (and PAD) are muted."""
    card_w = card_w or card_width(tokens)
    boxes = []
    for i, (tok, ident) in enumerate(zip(tokens, ids)):
        cx = x + i * (card_w + gap)
        muted = tok == PAD or i in faded
        fill = HIGHLIGHT if i in highlight else (SURFACE if muted else FILLS["data"])
        stroke, width = (ACCENT, 3.0) if i in highlight else (LINE, 1.5)
        d.rect(cx, y, card_w, card_h, fill=fill, stroke=stroke, width=width, radius=6)
        ink = MUTED if muted else INK
        if token_inside:
            d.text(cx + card_w / 2, y + card_h / 2 - 4, tok, size=MIN_TEXT, fill=ink, weight="600")
            d.text(cx + card_w / 2, y + card_h - 9, str(ident), size=MIN_TEXT, fill=ink, mono=True)
        else:
            d.text(cx + card_w / 2, y - 10, tok, size=MIN_TEXT, fill=ink, weight="600")
            d.text(cx + card_w / 2, y + card_h / 2 + MIN_TEXT * 0.35, str(ident), size=MIN_TEXT, fill=ink, mono=True)
        boxes.append(Box(cx, y, card_w, card_h))
    return boxes


def bracket(d: Drawing, x1: float, x2: float, y: float, label: str, colour: str = LINE, below: bool = True) -> None:
    """A square bracket from ``x1`` to ``x2`` under (or over) a row of cards,
    its label centred beyond it."""
    tick = 10 if below else -10
    d.polyline([(x1, y), (x1, y + tick), (x2, y + tick), (x2, y)], colour=colour, arrow=False, width=2.0)
    ty = y + tick + (MIN_TEXT + 6 if below else -8)
    d.text((x1 + x2) / 2, ty, label, size=MIN_TEXT, fill=colour)


def pair_rows_width(labels, n: int, card_w: float) -> float:
    """How wide ``pair_rows`` draws rows of ``n`` context cards."""
    label_w = max(text_width(lab, MIN_TEXT) for lab in labels) + 16
    return label_w + n * (card_w + 8) + 56 + card_w


def pair_rows(
    d: Drawing,
    x: float,
    y: float,
    labels,
    contexts,
    targets,
    itos,
    row_h: float = 72,
    card_w: float | None = None,
    highlight_rows=(),
    card_h: float = 58,
    labels_above: bool = False,
) -> Box:
    """(window, target) pairs, one a row: the row's label, its context cards,
    an arrow, the target card (highlighted). Rows in ``highlight_rows`` get a
    soft band behind them. Returns the Box of all rows. ``labels_above`` (a
    phone's arrangement): each row's label on a line above its cards, which
    start at ``x`` (give ``row_h`` room for it: ``LABEL_LINE`` more)."""
    card_w = card_w or card_width(itos)
    label_w = 0.0 if labels_above else max(text_width(lab, MIN_TEXT) for lab in labels) + 16
    n = len(contexts[0])
    arrow_w = 48 if labels_above else 56
    width = label_w + n * (card_w + 8) + arrow_w + card_w
    lift = LABEL_LINE if labels_above else 0.0
    for r, (lab, ctx, tgt) in enumerate(zip(labels, contexts, targets)):
        ry = y + r * row_h + lift
        if r in highlight_rows:
            d.rect(x - 6, ry - 4 - lift, width + 12, card_h + 8 + lift, fill=SURFACE, stroke="none", radius=6)
        if labels_above:
            d.text(x, ry - 8, lab, size=MIN_TEXT, anchor="start", fill=MUTED)
        else:
            d.text(x + label_w - 12, ry + card_h / 2 + 6, lab, size=MIN_TEXT, anchor="end", fill=MUTED)
        cards = id_cards(d, x + label_w, ry, [itos[i] for i in ctx], ctx, card_w=card_w, card_h=card_h)
        ax = cards[-1].x + card_w + 8
        d.arrow((ax, ry + card_h / 2), (ax + arrow_w - 12, ry + card_h / 2))
        id_cards(d, ax + arrow_w - 4, ry, [itos[tgt]], [tgt], card_w=card_w, card_h=card_h, highlight=[0])
    return Box(x, y, width, row_h * len(contexts))


LABEL_LINE = MIN_TEXT + 10  # a row label's line above its cards (``pair_rows``, labels_above)


def paper_note(d: Drawing, x: float, y: float, text: str, anchor: str = "start") -> None:
    """A muted line of explanation inside a figure."""
    d.text(x, y, text, size=MIN_TEXT, anchor=anchor, fill=MUTED)
