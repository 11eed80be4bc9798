"""Build-time diagrams as inline SVG: boxes, arrows, labelled matrices.

A table module draws with these helpers from the values it has just computed
and stores the SVG string in its JSON (e.g. ``maps_figures.pipeline``); a deck
inserts it with ``{{ m.figure('maps_figures.pipeline') }}``. Every drawing has a
<title> and a <desc> (screen readers, and the reading view's figure list), a
viewBox so it scales to the slide or the phone, and text of at least 14 units
in a 1000-unit-wide box. No module of its own: it has no compute().

    d = Drawing(1000, 220, "maps-pipeline", "The data pipeline", "Stories become ...")
    a = d.box(20, 60, 160, 80, "stories", sub="[N docs]")
    b = d.box(260, 60, 160, 80, "tokens")
    d.arrow(a.right, b.left, label="tokenize")
    svg = d.render()
"""

from __future__ import annotations

from dataclasses import dataclass
from xml.sax.saxutils import escape

FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif"
MONO = "'DejaVu Sans Mono', Menlo, Consolas, monospace"
INK = "#1c2b40"  # text: 14:1 on white
MUTED = "#4b5563"  # secondary text: 7.6:1 on white
ACCENT = "#1f5fbf"
LINE = "#64748b"  # arrows and box strokes: 4.8:1 on white
FILLS = {
    "data": "#e3edfb",
    "op": "#fdf3d8",
    "param": "#e6f4ea",
    "out": "#fde8e8",
    "plain": "#ffffff",
    "muted": "#f1f5f9",
}


def _n(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


@dataclass
class Box:
    x: float
    y: float
    w: float
    h: float

    @property
    def left(self):
        return (self.x, self.y + self.h / 2)

    @property
    def right(self):
        return (self.x + self.w, self.y + self.h / 2)

    @property
    def top(self):
        return (self.x + self.w / 2, self.y)

    @property
    def bottom(self):
        return (self.x + self.w / 2, self.y + self.h)

    @property
    def centre(self):
        return (self.x + self.w / 2, self.y + self.h / 2)


class Drawing:
    def __init__(self, width: float, height: float, ident: str, title: str, desc: str):
        if not title or not desc:
            raise ValueError(f"drawing {ident}: a figure needs a title and a description")
        self.width, self.height, self.ident = width, height, ident
        self.title, self.desc = title, desc
        self.parts: list[str] = []
        self._arrowheads: set[str] = set()

    # ---- primitives ------------------------------------------------------------
    def text(self, x, y, s, size=16, anchor="middle", weight="normal", fill=INK, mono=False, italic=False):
        style = ' font-style="italic"' if italic else ""
        self.parts.append(
            f'<text x="{_n(x)}" y="{_n(y)}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}" font-family="{MONO if mono else FONT}"{style}>'
            f"{escape(str(s))}</text>"
        )

    def rect(self, x, y, w, h, fill="#fff", stroke=LINE, width=1.5, radius=6, dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(
            f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" rx="{radius}" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="{width}"{d}/>'
        )

    def box(self, x, y, w, h, label, sub=None, kind="data", size=17, sub_size=14) -> Box:
        """A labelled box; ``sub`` is a second line (a tensor shape, in monospace).
        Long text is set smaller to fit the box, never below 13 units."""
        size = max(13.0, min(size, (w - 12) / (0.56 * max(1, len(str(label))))))
        if sub is not None:
            sub_size = max(12.0, min(sub_size, (w - 12) / (0.61 * max(1, len(str(sub))))))
        self.rect(x, y, w, h, fill=FILLS[kind])
        if sub is None:
            self.text(x + w / 2, y + h / 2 + size * 0.35, label, size=size, weight="600")
        else:
            self.text(x + w / 2, y + h / 2 - 4, label, size=size, weight="600")
            self.text(x + w / 2, y + h / 2 + sub_size + 2, sub, size=sub_size, fill=MUTED, mono=True)
        return Box(x, y, w, h)

    def _head(self, colour: str) -> str:
        key = colour.lstrip("#")
        if key not in self._arrowheads:
            self._arrowheads.add(key)
            self.parts.insert(
                0,
                f'<defs><marker id="{self.ident}-h{key}" viewBox="0 0 10 10" refX="9" refY="5" '
                f'markerUnits="userSpaceOnUse" markerWidth="13" markerHeight="13" '
                f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/>'
                f"</marker></defs>",
            )
        return f"url(#{self.ident}-h{key})"

    def arrow(
        self,
        start,
        end,
        label=None,
        width=2.0,
        colour=LINE,
        opacity=1.0,
        label_size=14,
        label_offset=-8,
        bend=0.0,
        dash=None,
    ):
        """A straight (or, with ``bend``, curved) arrow from ``start`` to ``end``."""
        (x1, y1), (x2, y2) = start, end
        head = self._head(colour)
        d = f' stroke-dasharray="{dash}"' if dash else ""
        if bend:
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2 - bend
            path = f"M{_n(x1)},{_n(y1)} Q{_n(mx)},{_n(my)} {_n(x2)},{_n(y2)}"
            lx, ly = mx, (y1 + y2) / 2 - bend / 2 + label_offset
        else:
            path = f"M{_n(x1)},{_n(y1)} L{_n(x2)},{_n(y2)}"
            lx, ly = (x1 + x2) / 2, (y1 + y2) / 2 + label_offset
        self.parts.append(
            f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="{_n(width)}" '
            f'stroke-opacity="{opacity:.3f}" marker-end="{head}"{d}/>'
        )
        if label:
            self.text(lx, ly, label, size=label_size, fill=MUTED)

    def polyline(self, points, width=2.0, colour=LINE, dash=None, arrow=True):
        """A path through ``points`` (an arrowhead at the last one)."""
        head = f' marker-end="{self._head(colour)}"' if arrow else ""
        d = f' stroke-dasharray="{dash}"' if dash else ""
        path = " ".join(("M" if i == 0 else "L") + f"{_n(x)},{_n(y)}" for i, (x, y) in enumerate(points))
        self.parts.append(f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="{_n(width)}"{d}{head}/>')

    def grid(
        self, x, y, values, cell=44, row_labels=None, col_labels=None, fmt=None, shade=None, size=14, label_size=14
    ):
        """A matrix of cells; ``shade(r, c, v)`` returns a fill colour, ``fmt(v)`` the text
        (None: no text). Returns the Box of the cells."""
        rows, cols = len(values), len(values[0]) if values else 0
        for r, row in enumerate(values):
            for c, v in enumerate(row):
                fill = shade(r, c, v) if shade else "#fff"
                self.rect(x + c * cell, y + r * cell, cell, cell, fill=fill, stroke="#94a3b8", width=1, radius=0)
                text = fmt(v) if fmt else None
                if text is not None:
                    dark = _is_dark(fill)
                    self.text(
                        x + c * cell + cell / 2,
                        y + r * cell + cell / 2 + size * 0.35,
                        text,
                        size=size,
                        fill="#fff" if dark else INK,
                    )
        for r, lab in enumerate(row_labels or []):
            self.text(x - 8, y + r * cell + cell / 2 + label_size * 0.35, lab, size=label_size, anchor="end")
        for c, lab in enumerate(col_labels or []):
            self.text(x + c * cell + cell / 2, y - 8, lab, size=label_size)
        return Box(x, y, cols * cell, rows * cell)

    def render(self) -> str:
        i = self.ident
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="diagram" id="{i}" role="img" '
            f'viewBox="0 0 {_n(self.width)} {_n(self.height)}" aria-labelledby="{i}-title {i}-desc">'
            f'<title id="{i}-title">{escape(self.title)}</title><desc id="{i}-desc">{escape(self.desc)}</desc>'
            + "".join(self.parts)
            + "</svg>"
        )


def blend(weight: float, low=(255, 255, 255), high=(31, 95, 191)) -> str:
    """A colour between white (0) and the accent blue (1)."""
    w = min(1.0, max(0.0, float(weight)))
    r, g, b = (round(lo + (hi - lo) * w) for lo, hi in zip(low, high))
    return f"#{r:02x}{g:02x}{b:02x}"


def _is_dark(fill: str) -> bool:
    if not fill.startswith("#") or len(fill) != 7:
        return False
    r, g, b = (int(fill[k : k + 2], 16) / 255 for k in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5


def flow(
    ident: str,
    title: str,
    desc: str,
    stages: list[tuple[str, str | None, str]],
    edges: list[str | None],
    width=1000,
    box_h=78,
    kind_of=None,
) -> str:
    """A left-to-right chain of boxes: ``stages`` = [(label, sub, kind)], ``edges`` =
    the label on each arrow between consecutive boxes (len(stages) - 1)."""
    n = len(stages)
    if len(edges) != n - 1:
        raise ValueError(f"{ident}: {n} stages need {n - 1} edge labels")
    gap = 46
    w = (width - 20 - gap * (n - 1)) / n
    d = Drawing(width, box_h + 70, ident, title, desc)
    boxes = []
    for k, (label, sub, kind) in enumerate(stages):
        boxes.append(
            d.box(
                10 + k * (w + gap),
                40,
                w,
                box_h,
                label,
                sub=sub,
                kind=kind,
                size=16 if w > 120 else 15,
                sub_size=14 if w > 120 else 13,
            )
        )
    for k, label in enumerate(edges):
        d.arrow(boxes[k].right, boxes[k + 1].left)
        if label:
            d.text((boxes[k].right[0] + boxes[k + 1].left[0]) / 2, 30, label, size=14, fill=MUTED)
    return d.render()
