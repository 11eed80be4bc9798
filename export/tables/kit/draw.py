"""Build-time figures as inline SVG: the one module that writes SVG markup.

A deck's figures module draws with these helpers from the values its tables
hold and stores the SVG string in a table (e.g. ``maps_figures.pipeline``); a
deck inserts it with ``{{ m.figure('maps_figures.pipeline') }}``. Every figure
has a <title> and a <desc> (screen readers, and the reading view's figure
list) and a viewBox so it scales to the slide or the phone. Every colour comes
from common/palette.py.

Two canvases share one element writer (``element``):

- ``Drawing``: box-and-arrow diagrams (maps, Part II): labelled boxes whose fill
  says what they hold (data, operation, parameter, output) and whose border
  says which attention vector they are (query, key, value, message), arrows
  with heads in their own colour, ``flow`` for a chain; vectors and small
  matrices as coloured cells with their values are kit/cells.py's, drawn
  through a Drawing;
- ``Figure``: line figures (Part III, results): multi-line boxes, lines and
  paths with one arrowhead, font set once on the figure.

``chart`` wraps a chart's body (kit/charts.py draws axes and legends with
``element``).

    d = Drawing(1000, 220, "maps-pipeline", "The data pipeline", "Stories become ...")
    a = d.box(20, 60, 160, 80, "stories", sub="[N docs]")
    b = d.box(260, 60, 160, 80, "tokens")
    d.arrow(a.right, b.left, label="tokenize")
    svg = d.render()
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from xml.sax.saxutils import escape

from common.palette import FILLS, INK, LINE, MUTED, PAPER, ROLES
from common.typeface import MONO, SANS, SLIDE_MIN_PX

SVG_NS = "http://www.w3.org/2000/svg"
FONT = FIGURE_FONT = SANS  # the pages' family (common/typeface.py)
ARROWHEAD = "M0,0 L10,5 L0,10 z"
# A figure is drawn at the size a slide shows it: one unit is one px of the
# 1280x720 slide (at most SLIDE units wide, COLUMN in one of two columns), so
# text of MIN_TEXT units reads at 18 px on the projector. Every font size
# written here is at least MIN_TEXT.
SLIDE, COLUMN = 1180, 570
MIN_TEXT = SLIDE_MIN_PX
# A phone shows a slide 362 px wide (390 less its padding) and a figure at no
# less than 0.9 px per unit (site_builder/static/deck.js, FIGURE_MIN_SCALE), so
# a figure of at most PHONE units fits the width there with its labels at 16 px.
PHONE = 400


class Arranged(str):
    """A figure's SVG (its wide arrangement, for the projector and for print)
    that carries a second, narrow arrangement for a phone in ``phone``: the
    same figure builder draws both from the same numbers (panels stacked one
    per row, a chain turned downwards). The registry (kit/registry.py) writes
    the phone one beside it, under the figure's key + ``PHONE_KEY``; a deck's
    ``m.figure`` inserts both and the page shows one (site.css, html.deck-phone)."""

    phone: str


PHONE_KEY = "_phone"


def arranged(wide: str, phone: Drawing | str | None) -> str:
    """``wide`` with ``phone`` as its phone arrangement, or ``wide`` alone
    when there is none or it would not fit a phone either (wider than PHONE)."""
    if isinstance(phone, Drawing):
        phone = None if phone.width > PHONE + 0.5 else phone.render()
    if not phone:
        return wide
    out = Arranged(wide)
    out.phone = with_class(phone, PHONE_CLASS)
    return out


PHONE_CLASS = "figure-phone"  # site.css: shown on a phone in place of the figure beside it


def with_class(svg: str, cls: str) -> str:
    """``svg`` with ``cls`` added to its root's classes."""
    head, rest = svg.split(">", 1)
    if ' class="' in head:
        head = head.replace(' class="', f' class="{cls} ', 1)
    else:
        head = head.replace("<svg", f'<svg class="{cls}"', 1)
    return head + ">" + rest


def _name(key: str) -> str:
    """Python keyword -> SVG attribute: ``cls`` -> class, ``stroke_width`` -> stroke-width."""
    return "class" if key == "cls" else key.replace("_", "-")


# Math in a figure's text is set as math (issue 35 item 6): a one-letter symbol
# followed by _ and its index (W_O, d_k, α_j, q_l) is drawn with the index as a
# subscript; a word with an underscore (forward_details, padding_idx) is left as
# written. An index Unicode has subscript letters for is written with them (dₖ,
# αⱼ, like the figures' e₇); another (the capitals of W_Q, W_O) is a lowered
# <tspan> after its symbol set larger, since no text is set under MIN_TEXT.
SUBSCRIPT = re.compile(r"(?<![\w.])([A-Za-zα-ωΑ-ΩΔ])_(\{[^{}]+\}|[A-Za-z0-9]+)(?!\w)")
LOWERED = str.maketrans("0123456789aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")
SYMBOL_SCALE = 1.2  # a symbol with a <tspan> index, against the text around it
LOWER = 0.22  # how far such an index sits below the baseline, in ems: clear of the next line of a box


def math_markup(text: str, size: float = MIN_TEXT) -> str | None:
    """``text`` with each W_O-style index as a subscript, escaped; None when it holds none."""
    if "_" not in text or not SUBSCRIPT.search(text):
        return None
    out, at = [], 0
    for m in SUBSCRIPT.finditer(text):
        symbol, index = m.group(1), m.group(2).strip("{}")
        out.append(escape(text[at : m.start()]))
        lowered = index.translate(LOWERED)
        if all(ord(c) > 127 for c in lowered):
            out.append(escape(symbol + lowered))
        else:
            out.append(f'<tspan font-size="{_n(size * SYMBOL_SCALE)}">{escape(symbol)}</tspan>')
            out.append(f'<tspan baseline-shift="{_n(-LOWER * size)}">{escape(index)}</tspan>')
        at = m.end()
    return "".join(out) + escape(text[at:])


def element(tag: str, text=None, children: str | None = None, **attributes) -> str:
    """One SVG element. Attributes keep their order; None leaves one out.
    ``text`` is escaped (a <text>'s math indices set as subscripts,
    ``math_markup``); ``children`` is markup already written by this module.
    With neither, the element closes itself."""
    if attributes.get("font_size") is not None:
        attributes["font_size"] = _n(max(MIN_TEXT, float(attributes["font_size"])))
    attrs = "".join(f' {_name(k)}="{escape(str(v))}"' for k, v in attributes.items() if v is not None)
    if text is None and children is None:
        return f"<{tag}{attrs}/>"
    size = float(attributes.get("font_size") or MIN_TEXT)
    written = math_markup(str(text), size) if tag == "text" and text is not None else None
    inner = (written or (escape(str(text)) if text is not None else "")) + (children or "")
    return f"<{tag}{attrs}>{inner}</{tag}>"


def title(text: str) -> str:
    return element("title", text)


def group(parts: list[str], **attributes) -> str:
    return element("g", children="".join(parts), **attributes)


def document(ident: str, view_width, view_height, heading: str, desc: str, body: str, cls="diagram", **extra) -> str:
    """The <svg> root with its title and description (``extra``: attributes
    between the viewBox and aria-labelledby)."""
    labels = element("title", heading, id=f"{ident}-title") + element("desc", desc, id=f"{ident}-desc")
    return element(
        "svg",
        children=labels + body,
        xmlns=SVG_NS,
        cls=cls,
        id=ident,
        role="img",
        viewBox=f"0 0 {view_width} {view_height}",
        **extra,
        aria_labelledby=f"{ident}-title {ident}-desc",
    )


def marker(ident: str, colour: str, size: int, user_space: bool = False) -> str:
    head = element("path", d=ARROWHEAD, fill=colour)
    return element(
        "defs",
        children=element(
            "marker",
            children=head,
            id=ident,
            viewBox="0 0 10 10",
            refX=9,
            refY=5,
            markerUnits="userSpaceOnUse" if user_space else None,
            markerWidth=size,
            markerHeight=size,
            orient="auto-start-reverse",
        ),
    )


def chart(ident: str, width, height, heading: str, desc: str, body: list[str]) -> str:
    """A chart (kit/charts.py): scales to its width, never above its own size."""
    style = f"max-width:{width}px;max-height:{height}px;height:auto;display:block"
    return document(ident, width, height, heading, desc, "".join(body), cls="chart", width="100%", style=style)


def _n(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def text_width(text, size: float, bold: bool = False) -> float:
    """About how wide ``text`` is set in the figures' family at ``size`` units."""
    return len(str(text)) * size * (0.5 if bold else 0.46)


def _luminance(colour: str) -> float:
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5))
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def text_on(fill: str) -> str:
    """INK or PAPER, whichever reads better on ``fill`` (a #rrggbb colour)."""
    lum = _luminance(fill)
    return INK if (lum + 0.05) / (_luminance(INK) + 0.05) >= (1.05) / (lum + 0.05) else PAPER


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
    """A box-and-arrow diagram; text of at least MIN_TEXT units."""

    def __init__(self, width: float, height: float, ident: str, title: str, desc: str):
        if not title or not desc:
            raise ValueError(f"drawing {ident}: a figure needs a title and a description")
        self.width, self.height, self.ident = width, height, ident
        self.title, self.desc = title, desc
        self.parts: list[str] = []
        self._arrowheads: set[str] = set()

    # ---- primitives ------------------------------------------------------------
    def text(
        self,
        x,
        y,
        s,
        size=16,
        anchor="middle",
        weight="normal",
        fill=INK,
        mono=False,
        italic=False,
        transform=None,
        cls=None,
    ):
        self.parts.append(
            element(
                "text",
                s,
                cls=cls,
                transform=transform,
                x=_n(x),
                y=_n(y),
                font_size=size,
                text_anchor=anchor,
                font_weight=weight,
                fill=fill,
                font_family=MONO if mono else FONT,
                font_style="italic" if italic else None,
            )
        )

    def rect(self, x, y, w, h, fill=PAPER, stroke=LINE, width=1.5, radius=6, dash=None):
        self.parts.append(
            element(
                "rect",
                x=_n(x),
                y=_n(y),
                width=_n(w),
                height=_n(h),
                rx=radius,
                fill=fill,
                stroke=stroke,
                stroke_width=width,
                stroke_dasharray=dash,
            )
        )

    def dot(self, x, y, r, fill):
        self.parts.append(element("circle", cx=f"{x:.1f}", cy=f"{y:.1f}", r=r, fill=fill))

    def box(self, x, y, w, h, label, sub=None, kind="data", size=18, sub_size=18, role=None) -> Box:
        """A labelled box; ``sub`` is a second line (a tensor shape, a vector);
        ``role`` (query, key, value, message) colours its border. Text is never
        set below MIN_TEXT: a box too narrow for it grows about its centre (the
        Box returned has the size drawn)."""
        size, sub_size = max(MIN_TEXT, size), max(MIN_TEXT, sub_size)
        need = max(text_width(label, size, bold=True), text_width(sub, sub_size) if sub is not None else 0) + 16
        if need > w:
            x, w = min(max(2.0, x - (need - w) / 2), self.width - need - 2), need
        self.rect(x, y, w, h, fill=FILLS[kind], stroke=ROLES[role] if role else LINE)
        if sub is None:
            self.text(x + w / 2, y + h / 2 + size * 0.35, label, size=size, weight="600")
        else:
            self.text(x + w / 2, y + h / 2 - 4, label, size=size, weight="600")
            self.text(x + w / 2, y + h / 2 + sub_size + 2, sub, size=sub_size, fill=MUTED)
        return Box(x, y, w, h)

    def _head(self, colour: str) -> str:
        key = colour.lstrip("#")
        if key not in self._arrowheads:
            self._arrowheads.add(key)
            self.parts.insert(0, marker(f"{self.ident}-h{key}", colour, 13, user_space=True))
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
        if bend:
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2 - bend
            path = f"M{_n(x1)},{_n(y1)} Q{_n(mx)},{_n(my)} {_n(x2)},{_n(y2)}"
            lx, ly = mx, (y1 + y2) / 2 - bend / 2 + label_offset
        else:
            path = f"M{_n(x1)},{_n(y1)} L{_n(x2)},{_n(y2)}"
            lx, ly = (x1 + x2) / 2, (y1 + y2) / 2 + label_offset
        self.parts.append(
            element(
                "path",
                d=path,
                fill="none",
                stroke=colour,
                stroke_width=_n(width),
                stroke_opacity=f"{opacity:.3f}",
                marker_end=head,
                stroke_dasharray=dash,
            )
        )
        if label:
            self.text(lx, ly, label, size=label_size, fill=MUTED)

    def polyline(self, points, width=2.0, colour=LINE, dash=None, arrow=True):
        """A path through ``points`` (an arrowhead at the last one)."""
        path = " ".join(("M" if i == 0 else "L") + f"{_n(x)},{_n(y)}" for i, (x, y) in enumerate(points))
        self.parts.append(
            element(
                "path",
                d=path,
                fill="none",
                stroke=colour,
                stroke_width=_n(width),
                stroke_dasharray=dash,
                marker_end=self._head(colour) if arrow else None,
            )
        )

    def wrap(self, start: int, **attributes) -> None:
        """Gather the parts drawn since ``start`` (``len(self.parts)`` then) into
        one <g> with ``attributes`` (a heatmap's cells, a legend: ``data_scale``)."""
        self.parts[start:] = [group(self.parts[start:], **attributes)]

    def render(self) -> str:
        return document(self.ident, _n(self.width), _n(self.height), self.title, self.desc, "".join(self.parts))


def stack(ident: str, title: str, desc: str, drawings: list[Drawing], gap: float = 18) -> Drawing:
    """One Drawing of ``drawings`` one under the other, each centred (a
    figure's panels one per row for a phone); each drawing's ids (its
    arrowheads) are its own ident's, so give each part an ident of its own."""
    width = max(d.width for d in drawings)
    height = sum(d.height for d in drawings) + gap * (len(drawings) - 1)
    out = Drawing(width, height, ident, title, desc)
    y = 0.0
    for d in drawings:
        out.parts.append(group(d.parts, transform=f"translate({_n((width - d.width) / 2)},{_n(y)})"))
        y += d.height + gap
    return out


def flow(
    ident: str,
    title: str,
    desc: str,
    stages: list[tuple[str, str | None, str]],
    edges: list[str | None],
    width=1000,
    box_h=78,
) -> str:
    """A left-to-right chain of boxes: ``stages`` = [(label, sub, kind)], ``edges`` =
    the label on each arrow between consecutive boxes (len(stages) - 1)."""
    n = len(stages)
    if len(edges) != n - 1:
        raise ValueError(f"{ident}: {n} stages need {n - 1} edge labels")
    # each box as wide as its text needs (at least an even share of the width),
    # the arrows between them share what is left, never shorter than 34 units
    even = (width - 20 - 46 * (n - 1)) / n
    widths = [
        max(even, text_width(label, MIN_TEXT, bold=True) + 16, text_width(sub or "", MIN_TEXT) + 16)
        for label, sub, _ in stages
    ]
    gap = max(34.0, (width - 20 - sum(widths)) / max(1, n - 1))
    width = max(width, sum(widths) + gap * (n - 1) + 20)
    d = Drawing(width, box_h + 70, ident, title, desc)
    boxes, x = [], 10.0
    for (label, sub, kind), w in zip(stages, widths):
        boxes.append(d.box(x, 40, w, box_h, label, sub=sub, kind=kind))
        x += w + gap
    for k, label in enumerate(edges):
        d.arrow(boxes[k].right, boxes[k + 1].left)
        if label:
            d.text((boxes[k].right[0] + boxes[k + 1].left[0]) / 2, 28, label, fill=MUTED)
    return arranged(d.render(), flow_down(ident, title, desc, stages, edges, box_h=box_h))


def flow_down(
    ident: str, title: str, desc: str, stages: list[tuple[str, str | None, str]], edges: list[str | None], box_h=78
) -> Drawing:
    """``flow``'s chain for a phone: the same boxes top to bottom, each arrow's
    label beside it."""
    box_w, step = 230.0, box_h + 52
    d = Drawing(PHONE, 10 + len(stages) * step - 52 + 10, f"{ident}-phone", title, desc)
    boxes = [
        d.box(20, 10 + k * step, box_w, box_h, label, sub=sub, kind=kind) for k, (label, sub, kind) in enumerate(stages)
    ]
    for k, label in enumerate(edges):
        top, bottom = boxes[k].bottom, boxes[k + 1].top
        d.arrow((20 + box_w / 2, top[1]), (20 + box_w / 2, bottom[1]))
        if label:
            d.text(20 + box_w / 2 + 14, (top[1] + bottom[1]) / 2 + MIN_TEXT * 0.35, label, anchor="start", fill=MUTED)
    return d


def at(**coordinates) -> dict:
    """Coordinates rounded to 0.1 unit, in the order given (a Figure's numbers)."""
    return {name: round(v, 1) for name, v in coordinates.items()}


class Figure:
    """A line figure: boxes of several lines, text, lines and paths with one
    arrowhead. ``ident`` prefixes every id inside, so several figures can sit
    on one page."""

    def __init__(self, ident: str, width: int, height: int, title: str, desc: str):
        self.ident, self.width, self.height = ident, width, height
        self.title, self.desc = title, desc
        self.parts: list[str] = []

    def add(self, tag: str, text=None, children=None, **attributes):
        """Any other element (a slice, a weighted line with its <title>)."""
        self.parts.append(element(tag, text, children, **attributes))

    def text(self, x, y, s, size=15, anchor="middle", weight="normal", fill=INK, cls=None):
        self.add(
            "text",
            s,
            cls=cls,
            **at(x=x, y=y),
            font_size=size,
            text_anchor=anchor,
            font_weight=weight,
            fill=fill,
        )

    def box(self, x, y, w, h, lines, fill=FILLS["muted"], stroke=LINE, size=18, cls="box", bold_first=True, rx=8):
        """A box of one or more centred lines (the first bold); a box too narrow
        for its text at MIN_TEXT grows about its centre."""
        lines = [lines] if isinstance(lines, str) else list(lines)
        size = max(MIN_TEXT, size)
        need = max(text_width(line, size, bold=i == 0 and bold_first) for i, line in enumerate(lines)) + 14
        if need > w:
            x, w = min(max(2.0, x - (need - w) / 2), self.width - need - 2), need
        self.add("rect", cls=cls, **at(x=x, y=y, width=w, height=h), rx=rx, fill=fill, stroke=stroke, stroke_width=1.5)
        gap = size * 1.25
        top = y + h / 2 - gap * (len(lines) - 1) / 2 + size * 0.35
        for i, line in enumerate(lines):
            first = i == 0
            self.text(
                x + w / 2,
                top + i * gap,
                line,
                size=size,
                weight="600" if (first and bold_first) else "normal",
                fill=INK if first else MUTED,
            )

    def arrow(self, x1, y1, x2, y2, colour=LINE, width=2, opacity=1.0, cls="arrow"):
        self.add(
            "line",
            cls=cls,
            **at(x1=x1, y1=y1, x2=x2, y2=y2),
            stroke=colour,
            stroke_width=width,
            stroke_opacity=opacity,
            marker_end=f"url(#{self.ident}-head)",
        )

    def path(self, d, colour=LINE, width=2, opacity=1.0, cls=None, marker=True, tip=None):
        """A path; ``tip`` is its <title> (a hover text)."""
        self.add(
            "path",
            children=title(tip) if tip else "",
            cls=cls,
            d=d,
            fill="none",
            stroke=colour,
            stroke_width=width,
            stroke_opacity=opacity,
            marker_end=f"url(#{self.ident}-head)" if marker else None,
        )

    def render(self) -> str:
        style = "height:auto;display:block;margin:0 auto"
        body = marker(f"{self.ident}-head", LINE, 7) + "".join(self.parts)
        return document(
            self.ident,
            self.width,
            self.height,
            self.title,
            self.desc,
            body,
            width="100%",
            style=style,
            font_family=FIGURE_FONT,
        )


def wrap_words(text: str, width: float = PHONE - 20, size: float = MIN_TEXT) -> list[str]:
    """``text`` broken into lines no wider than ``width`` units at ``size``."""
    lines, line = [], ""
    for word in text.split():
        if line and text_width(f"{line} {word}", size) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return lines + ([line] if line else [])


def chain_down(
    ident: str,
    title: str,
    desc: str,
    steps: list[list[tuple[list[str], str] | tuple[list[str], str, str]]],
    notes: list[tuple[str, str]] = (),
    key: list[tuple[str, str]] = (),
) -> str:
    """A pipeline for a phone, top to bottom: ``steps`` = each step's boxes
    side by side, a box = (lines, fill) or (lines, fill, stroke), an arrow
    from each step to the next; then ``notes`` = [(text, colour)], each
    wrapped to the width, and ``key`` = [(fill, label)] swatches. PHONE
    units wide, at most three boxes a step; each line at MIN_TEXT."""
    line_h, gap = MIN_TEXT * 1.25, 34
    heights = [max(len(b[0]) for b in step) * line_h + 18 for step in steps]
    wrapped = [(line, colour) for text, colour in notes for line in wrap_words(text)]
    height = 10 + sum(heights) + gap * (len(steps) - 1) + 16 + len(wrapped) * line_h + (28 if key else 0) + 6
    f = Figure(f"{ident}-phone", PHONE, round(height), title, desc)
    y, mid = 10.0, PHONE / 2
    for k, (step, h) in enumerate(zip(steps, heights)):
        n = len(step)
        if n > 3:
            raise ValueError(f"{ident}: a phone's chain holds at most three boxes a step")
        w = (PHONE - 20 - 12 * (n - 1)) / n if n > 1 else 300.0
        for j, box in enumerate(step):
            lines, fill = box[0], box[1]
            x = 10 + j * (w + 12) if n > 1 else mid - w / 2
            f.box(x, y, w, h, lines, fill=fill, stroke=box[2] if len(box) > 2 else LINE, size=MIN_TEXT)
        if k < len(steps) - 1:
            f.arrow(mid, y + h + 2, mid, y + h + gap - 3)
        y += h + gap
    y += 16 - gap + MIN_TEXT
    for line, colour in wrapped:
        f.text(mid, y, line, size=MIN_TEXT, fill=colour)
        y += line_h
    x = 10.0
    for fill, label in key:
        f.add("rect", x=x, y=round(y - 8, 1), width=18, height=14, fill=fill, stroke=LINE)
        f.text(x + 24, y + 4, label, size=MIN_TEXT, anchor="start", fill=MUTED)
        x += 24 + text_width(label, MIN_TEXT) + 24
    return f.render()
