"""The video search of Part II as one picture (issue 20), from
``part2_video``: a query card and one key card per video, each a row of cells
on the named topics, and the score q·k of each key as a bar."""

from __future__ import annotations

from common.palette import ACCENT, MUTED, ROLES, SURFACE

from ..kit.cells import cells, legend, number
from ..kit.draw import MIN_TEXT, SLIDE, Drawing, text_width


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
    d = Drawing(
        SLIDE - 40, y_k + h * len(titles) + 70, "part2-search", f"Searching for “{query}”: one score per key", desc
    )
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
    return d.render()
