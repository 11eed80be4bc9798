"""Part III "Replay: four heads, four habits" drawn as the idea (issue 35
item 2): per head, a strip over the training steps recorded up to the kept
one, each stretch of steps with one favourite source (the sentence's word
the final query weighs most) drawn as one segment named by that word, so a
head that keeps its habit shows a long segment and a restless one many short
ones; right of it, the weight of the kept step's favourite on a 0 to 1 track
with even weights (1/n) marked. A phone gets the same strips turned
downwards: steps as rows, one column per head, the kept weights under them.

Every value comes from ``part3_replay`` (replay.py): ``strips`` (the
favourite at each recorded step), ``heads_selected`` and ``uniform``."""

from __future__ import annotations

from common.palette import ACCENT, ACCENT_SOFT, GRID, INK, MUTED, SURFACE

from ..kit.draw import FONT, MIN_TEXT, PHONE, Drawing, arranged, element, text_width, title
from ..kit.heads import head_colour

CELL_W, CELL_H = 52, 36  # one recorded step of one head (wide); a column grows to hold a word alone in it
ROW_GAP = 14
LABEL_W = 84  # "head 1"
TRACK_W = 190  # the kept weight's 0..1 track
PH_STEP_W, PH_CELL_W, PH_CELL_H = 62, 80, 28  # a phone's: step labels, one head's column, one step's row


SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def word_names(words: list[str]) -> list[str]:
    """The sentence's words as the figure names them: a word that occurs more
    than once (“the”) carries its slot as a subscript (the₁, the₅, the₁₀)."""
    return [w + str(j).translate(SUB) if words.count(w) > 1 else w for j, w in enumerate(words)]


def runs_of(strip: list[dict], names: list[str]) -> list[tuple[int, int, str]]:
    """(first index, last index, name) of each stretch of steps with one favourite slot."""
    out: list[tuple[int, int, str]] = []
    for k, cell in enumerate(strip):
        if out and out[-1][2] == names[cell["slot"]]:
            out[-1] = (out[-1][0], k, out[-1][2])
        else:
            out.append((k, k, names[cell["slot"]]))
    return out


def _description(steps, strips, kept, uniform, names) -> str:
    heads = "; ".join(
        f"head {h + 1}: "
        + ", ".join(
            f"“{tok}” at step{'s' if a != b else ''} {steps[a]:,}{'–' + format(steps[b], ',') if a != b else ''}"
            for a, b, tok in runs_of(strip, names)
        )
        + f"; at the kept step “{names[strip[-1]['slot']]}” {kept[h]['weight']:.2f}"
        for h, strip in enumerate(strips)
    )
    return (
        f"The sentence: {' '.join(names)}. Each head's favourite source word for the final query "
        f"at each of the {len(steps)} training steps recorded up to the kept "
        f"step {steps[-1]:,} (the steps are evenly spaced columns, not to scale): {heads}. "
        f"Even weights would be {uniform:.2f}."
    )


def column_widths(strips, n: int, names) -> list[float]:
    """The wide strip's column widths: CELL_W, wider where a stretch of
    steps is too narrow for its word (its last column takes the difference)."""
    widths = [float(CELL_W)] * n
    for strip in strips:
        for a, b, tok in runs_of(strip, names):
            need = text_width(tok, MIN_TEXT) + 16 - sum(widths[a : b + 1])
            if need > 0:
                widths[b] += need
    return [round(w, 1) for w in widths]


def _segment_down(d: Drawing, x, y, w, h, token: str, colour: str, h_index: int, steps: list[int]) -> None:
    """A phone's segment: a stretch of steps down a head's column."""
    _segment(d, x, y, w, h, token, colour, h_index, steps, down=True)


def _segment(d: Drawing, x, y, w, h, token, colour, h_index: int, steps: list[int], down: bool = False) -> None:
    tip = title(
        f"head {h_index + 1}: “{token}” at step{'s' if len(steps) > 1 else ''} " + ", ".join(f"{s:,}" for s in steps)
    )
    d.parts.append(
        element(
            "rect",
            children=tip,
            cls="favourite",
            data_head=h_index + 1,
            data_token=token,
            data_steps=" ".join(str(s) for s in steps),
            x=round(x + (3 if down else 1.5), 1),
            y=round(y + (1.5 if down else 0), 1),
            width=round(w - (6 if down else 3), 1),
            height=round(h - (3 if down else 0), 1),
            rx=5,
            fill=SURFACE,
            stroke=colour,
            stroke_width=2,
        )
    )
    d.text(x + w / 2, y + h / 2 + 6, token, size=MIN_TEXT, fill=INK)


def _kept_bar(d: Drawing, x, y, h_index: int, kept: dict, name: str, uniform: float, colour: str, track_w) -> None:
    d.rect(x, y, track_w, 16, fill=SURFACE, stroke=GRID, width=1, radius=3)
    d.parts.append(
        element(
            "rect",
            children=title(f"head {h_index + 1} at the kept step: “{kept['token']}” {kept['weight']:.2f}"),
            cls="kept-weight",
            data_head=h_index + 1,
            data_weight=f"{kept['weight']:.6f}",
            x=x,
            y=y,
            width=round(kept["weight"] * track_w, 1),
            height=16,
            rx=3,
            fill=colour,
        )
    )
    ux = round(x + uniform * track_w, 1)
    d.parts.append(element("line", cls="even", x1=ux, x2=ux, y1=y - 5, y2=y + 21, stroke=MUTED, stroke_width=2))
    d.parts.append(
        element(
            "text",
            f"{name} {kept['weight']:.2f}",
            cls="kept-label",
            x=round(x + track_w + 10, 1),
            y=round(y + 14, 1),
            font_size=MIN_TEXT,
            font_family=FONT,
            fill=INK,
        )
    )


def habits_figure(ident: str, heading: str, words: list[str], steps: list[int], strips, kept, uniform: float) -> str:
    """The four heads' habits (module docstring) over the sentence ``words``
    (its last word the query); ``strips[h][k]`` is head h's favourite
    ({slot, token, ...}) at ``steps[k]``; ``kept[h]`` its favourite at the
    kept step ({token, weight}); ``uniform`` the even weight 1/n."""
    names = word_names(words)
    desc = _description(steps, strips, kept, uniform, names)
    wide = _wide(ident, heading, desc, names, steps, strips, kept, uniform)
    return arranged(wide.render(), _phone(f"{ident}-phone", heading, desc, names, steps, strips, kept, uniform))


def _sentence(d: Drawing, x, y, names: list[str]) -> None:
    d.text(x, y, "the sentence: " + " ".join(names), size=MIN_TEXT, anchor="start", fill=MUTED)


def _wide(ident, heading, desc, names, steps, strips, kept, uniform) -> Drawing:
    n = len(steps)
    x0, top = LABEL_W, 76
    widths = column_widths(strips, n, names)
    xs = [x0 + sum(widths[:k]) for k in range(n + 1)]
    bars_x = xs[-1] + 30
    kept_names = [names[strip[-1]["slot"]] for strip in strips]
    width = bars_x + TRACK_W + 20 + max(text_width(f"{w} 0.00", MIN_TEXT) for w in kept_names)
    rows_h = len(strips) * (CELL_H + ROW_GAP)
    height = top + rows_h + 30
    d = Drawing(round(width), height, ident, heading, desc)
    # the kept step's column, as the course marks a current step
    d.rect(xs[-2] - 1, top - 34, widths[-1] + 2, rows_h + 26, fill=ACCENT_SOFT, stroke="none", radius=4)
    _sentence(d, 0, 22, names)
    d.text(x0 - 10, top - 12, "step", size=MIN_TEXT, anchor="end", fill=MUTED)
    start = len(d.parts)
    for k, s in enumerate(steps):
        d.text((xs[k] + xs[k + 1]) / 2, top - 12, f"{s:,}", size=MIN_TEXT, fill=ACCENT if k == n - 1 else MUTED)
    d.wrap(start, cls="steps")
    d.text(bars_x, top - 12, f"at the kept step {steps[-1]:,}", size=MIN_TEXT, anchor="start", fill=ACCENT)
    for h, strip in enumerate(strips):
        colour = head_colour(h)
        y = top + h * (CELL_H + ROW_GAP)
        d.text(x0 - 10, y + CELL_H / 2 + 6, f"head {h + 1}", size=MIN_TEXT, anchor="end", weight="600", fill=colour)
        for a, b, name in runs_of(strip, names):
            _segment(d, xs[a], y, xs[b + 1] - xs[a], CELL_H, name, colour, h, steps[a : b + 1])
        _kept_bar(d, bars_x, y + CELL_H / 2 - 8, h, kept[h], kept_names[h], uniform, colour, TRACK_W)
    ux = bars_x + uniform * TRACK_W
    d.text(ux - 4, height - 6, f"even weights: {uniform:.2f}", size=MIN_TEXT, anchor="start", fill=MUTED)
    return d


def _phone(ident, heading, desc, names, steps, strips, kept, uniform) -> Drawing:
    n, heads = len(steps), len(strips)
    x0, top = PH_STEP_W, 110
    bar_x = 76
    track = PHONE - bar_x - 130
    bars_top = top + n * PH_CELL_H + 56
    width = PHONE
    height = bars_top + heads * 34 + 28
    kept_names = [names[strip[-1]["slot"]] for strip in strips]
    d = Drawing(width, height, ident, heading, desc)
    # the sentence in lines a phone holds
    lines, line = [], "the sentence:"
    for w in names:
        if text_width(f"{line} {w}", MIN_TEXT) > PHONE - 10:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}"
    lines.append(line)
    for k, line in enumerate(lines):
        d.text(0, 22 + 22 * k, line, size=MIN_TEXT, anchor="start", fill=MUTED)
    ky = top + (n - 1) * PH_CELL_H
    d.rect(0, ky - 1, x0 + heads * PH_CELL_W + 4, PH_CELL_H + 2, fill=ACCENT_SOFT, stroke="none", radius=4)
    d.text(x0 - 8, top - 12, "step", size=MIN_TEXT, anchor="end", fill=MUTED)
    start = len(d.parts)
    for k, s in enumerate(steps):
        fill = ACCENT if k == n - 1 else MUTED
        d.text(x0 - 8, top + (k + 0.5) * PH_CELL_H + 6, f"{s:,}", size=MIN_TEXT, anchor="end", fill=fill)
    d.wrap(start, cls="steps")
    for h, strip in enumerate(strips):
        colour = head_colour(h)
        x = x0 + h * PH_CELL_W
        d.text(x + PH_CELL_W / 2, top - 12, f"head {h + 1}", size=MIN_TEXT, weight="600", fill=colour)
        for a, b, name in runs_of(strip, names):
            _segment_down(
                d, x, top + a * PH_CELL_H, PH_CELL_W, (b - a + 1) * PH_CELL_H, name, colour, h, steps[a : b + 1]
            )
    d.text(0, bars_top - 22, f"at the kept step {steps[-1]:,}", size=MIN_TEXT, anchor="start", fill=ACCENT)
    for h in range(heads):
        y = bars_top + h * 34
        d.text(0, y + 14, f"head {h + 1}", size=MIN_TEXT, anchor="start", weight="600", fill=head_colour(h))
        _kept_bar(d, bar_x, y, h, kept[h], kept_names[h], uniform, head_colour(h), track)
    d.text(
        x0 + uniform * track - 4, height - 4, f"even weights: {uniform:.2f}", size=MIN_TEXT, anchor="start", fill=MUTED
    )
    return d
