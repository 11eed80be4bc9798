"""The video search of Part II as one picture (issue 20), from
``part2_video``: a query card and one key card per video, each a row of cells
on the named topics, and the score q·k of each key as a bar. A slide's
arrangement has the titles left of the key rows and the bars at their right;
a phone's (PHONE units, issue 35 item 5) each title over its key row, the
score over its bar, and the topics slanted over narrower cells."""

from __future__ import annotations

from common.palette import ACCENT, MUTED, ROLES, SURFACE

from ..kit.cells import cells, legend, number
from ..kit.draw import MIN_TEXT, PHONE, SLIDE, Drawing, arranged, text_width


def video_search(video: dict) -> str:
    lk = video["longer_key"]
    qi = video["queries"].index(lk["query"]) if lk.get("found") else video["query_index"]
    query, q = video["queries"][qi], video["query_vectors"][qi]
    titles, keys, scores = video["titles"], video["keys"], video["scores"][qi]
    topics = video["topics"]
    title_w = max(text_width(t, MIN_TEXT) for t in titles) * 1.2 + 24
    cell_w = max(text_width(t, MIN_TEXT) for t in topics) + 8
    track_x = title_w + cell_w * len(topics) + 30
    track = SLIDE - 40 - track_x - 70
    top = max(scores) or 1.0
    y_q, y_k, h = 84, 160, 32
    desc = (
        f"Query “{query}”: {q}. Keys and scores: "
        + "; ".join(f"{t}: key {k}, score {number(s, 2)}" for t, k, s in zip(titles, keys, scores))
        + "."
    )
    heading = f"Searching for “{query}”: one score per key"
    d = Drawing(SLIDE - 40, y_k + h * len(titles) + 70, "part2-search", heading, desc)
    d.text(title_w - 10, y_q + 25, "query", size=MIN_TEXT, anchor="end", weight="600", fill=ROLES["query"])
    d.text(title_w, 24, f"“{query}”", size=MIN_TEXT, anchor="start", weight="600")
    cells(d, title_w, y_q, [q], "part2-topics", digits=1, cell_w=cell_w, cell_h=h, col_labels=topics)
    d.text(title_w - 10, y_k - 14, "keys", size=MIN_TEXT, anchor="end", weight="600", fill=ROLES["key"])
    d.text(track_x, y_k - 14, "score q·k", size=MIN_TEXT, anchor="start", weight="600")
    cells(d, title_w, y_k, keys, "part2-topics", digits=1, cell_w=cell_w, cell_h=h, row_labels=titles)
    for n, s in enumerate(scores):
        y = y_k + n * h
        d.rect(track_x, y + 6, track, h - 12, fill=SURFACE, stroke="none", radius=2)
        w = s / top * track
        d.rect(track_x, y + 6, max(w, 1.5), h - 12, fill=ACCENT, stroke="none", radius=2)
        d.text(track_x + w + 6, y + h / 2 + MIN_TEXT * 0.35, number(s, 2), size=MIN_TEXT, anchor="start")
    legend(d, title_w, y_k + h * len(titles) + 16, "part2-topics", width=220, name="topic value")
    d.text(
        SLIDE - 50,
        y_k + h * len(titles) + 46,
        "score = Σ query × key, topic by topic",
        anchor="end",
        size=MIN_TEXT,
        fill=MUTED,
    )
    return arranged(d.render(), _phone(heading, desc, query, q, titles, keys, scores, topics))


def _phone(heading, desc, query, q, titles, keys, scores, topics) -> Drawing:
    """The search at a phone's width: the query's row under its topics (slanted
    over cells of 40 units), then each video's title on a line of its own with
    its score at the right end, over its key row and the score's bar."""
    cell_w, h, x0 = 40.0, 30, 10
    bar_x = x0 + cell_w * len(topics) + 12
    track, top = PHONE - 8 - bar_x, max(scores) or 1.0
    p = Drawing(PHONE, 0, "part2-search-phone", heading, desc)
    p.text(x0, 24, "query", size=MIN_TEXT, anchor="start", weight="600", fill=ROLES["query"])
    p.text(
        x0 + text_width("query", MIN_TEXT, bold=True) * 1.2 + 12,
        24,
        f"“{query}”",
        size=MIN_TEXT,
        anchor="start",
        weight="600",
    )
    y_q = 24 + 16 + max(text_width(t, MIN_TEXT) for t in topics) * 0.75
    cells(p, x0, y_q, [q], "part2-topics", digits=1, cell_w=cell_w, cell_h=h, col_labels=topics, rotate_cols=True)
    y = y_q + h + 40
    p.text(x0, y, "keys", size=MIN_TEXT, anchor="start", weight="600", fill=ROLES["key"])
    p.text(PHONE - 8, y, "score q·k", size=MIN_TEXT, anchor="end", weight="600")
    for title, key, s in zip(titles, keys, scores):
        y += 30
        p.text(x0, y, title, size=MIN_TEXT, anchor="start")
        p.text(PHONE - 8, y, number(s, 2), size=MIN_TEXT, anchor="end")
        cells(p, x0, y + 8, [key], "part2-topics", digits=1, cell_w=cell_w, cell_h=h)
        p.rect(bar_x, y + 8 + 6, track, h - 12, fill=SURFACE, stroke="none", radius=2)
        p.rect(bar_x, y + 8 + 6, max(s / top * track, 1.5), h - 12, fill=ACCENT, stroke="none", radius=2)
        y += 8 + h
    legend(p, x0, y + 24, "part2-topics", width=200, name="topic value")
    p.text(x0, y + 24 + 64, "score = Σ query × key, topic by topic", anchor="start", size=MIN_TEXT, fill=MUTED)
    p.height = y + 24 + 64 + 12
    return p
