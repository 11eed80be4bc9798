"""How the decks lead to each other: the part label and full title of each deck,
the links every deck ends with (next deck, lab, reading view, notebook), and
the reading view (read/<slug>.html: every slide in order with its notes
beneath, from the same rendered slides as the deck)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from .crosslinks import for_reading
from .deck import Slide


def full_title(deck) -> str:
    part = deck.meta.get("part")
    return f"{part} · {deck.meta['title']}" if part else deck.meta["title"]


def links(decks: list, lab: bool, pages: dict | None = None) -> dict[str, dict]:
    """slug -> the navigation of that deck; paths are relative to the site root.
    ``pages``: the reference pages the site has (notation, glossary), or None."""
    out = {}
    pages = pages or {}
    for i, deck in enumerate(decks):
        nxt = decks[i + 1] if i + 1 < len(decks) else None
        prev = decks[i - 1] if i > 0 else None
        out[deck.slug] = {
            "title": full_title(deck),
            "slides": f"decks/{deck.slug}.html",
            "reading": f"read/{deck.slug}.html",
            "notebook": f"notebooks/{deck.slug}.html",  # the executed notebook as a page
            "notebook_ipynb": f"notebooks/{deck.slug}.ipynb",
            "lab": "lab/index.html" if lab else None,
            "notation": pages.get("notation"),
            "glossary": pages.get("glossary"),
            "next": {
                "title": full_title(nxt),
                "subtitle": nxt.meta.get("subtitle"),
                "slides": f"decks/{nxt.slug}.html",
                "reading": f"read/{nxt.slug}.html",
            }
            if nxt
            else None,
            "prev": {
                "title": full_title(prev),
                "slides": f"decks/{prev.slug}.html",
                "reading": f"read/{prev.slug}.html",
            }
            if prev
            else None,
        }
    return out


def write_reading_views(env, staging: Path, decks: list, nav: dict) -> None:
    (staging / "read").mkdir(exist_ok=True)
    for deck in decks:
        slides = [
            Slide(for_reading(s.html), for_reading(s.notes) if s.notes is not None else None, s.section)
            for s in deck.slides
        ]
        view = SimpleNamespace(slug=deck.slug, meta=deck.meta, slides=slides)
        html = env.get_template("read.html").render(deck=view, nav=nav[deck.slug], root="../")
        (staging / "read" / f"{deck.slug}.html").write_text(html, encoding="utf-8")
