"""Links from one slide to another by heading, resolved once every deck is
rendered: `m.see('part2', 'Phase A', 'phase A')` writes
``href="part2.html#see=Phase%20A"``, and ``resolve`` turns it into
``part2.html#/N`` (reveal.js's slide number), so a link survives slides being
added or moved. A heading that names no slide, or several, stops the build.

The reading views reuse the slides' HTML: ``for_reading`` points the same
links at ``read/<deck>.html#slide-N``."""

from __future__ import annotations

import re
from urllib.parse import unquote

from markupsafe import Markup

SEE = re.compile(r'href="([a-z0-9-]+)\.html#see=([^"]*)"')
SLIDE_HASH = re.compile(r'href="([a-z0-9-]+\.html)#/(\d+)"')


class LinkError(ValueError):
    """A slide link names no deck or no slide; the message says which."""


def slide_index(decks: list, slug: str, heading: str) -> int:
    """The index of the slide of deck ``slug`` whose heading is ``heading``
    (or, failing that, the one slide whose heading contains it)."""
    deck = next((d for d in decks if d.slug == slug), None)
    if deck is None:
        raise LinkError(f"no deck {slug!r} (decks: {', '.join(d.slug for d in decks)})")
    titles = [s.title for s in deck.slides]
    if heading in titles:
        return titles.index(heading)
    found = [i for i, t in enumerate(titles) if heading in t]
    if len(found) != 1:
        what = "no slide" if not found else f"{len(found)} slides"
        raise LinkError(f"{what} of {slug} has the heading {heading!r}")
    return found[0]


def resolve(decks: list) -> None:
    """Every `#see=` link of every slide -> `#/N`. Raises LinkError naming the
    deck that holds the broken link."""
    for deck in decks:
        for slide in deck.slides:
            for part in ("html", "notes"):
                html = getattr(slide, part)
                if html is None or "#see=" not in html:
                    continue

                def sub(m, deck=deck):
                    try:
                        n = slide_index(decks, m.group(1), unquote(m.group(2)))
                    except LinkError as exc:
                        raise LinkError(f"content/decks/{deck.slug}.md: slide link: {exc}") from None
                    return f'href="{m.group(1)}.html#/{n}"'

                setattr(slide, part, Markup(SEE.sub(sub, str(html))))


def for_reading(html) -> Markup:
    """Slide links of a deck page, pointed at the reading views instead."""
    return Markup(SLIDE_HASH.sub(r'href="\1#slide-\2"', str(html)))
