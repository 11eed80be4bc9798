"""A built deck's slides as text, for the tests that read what a slide says:
``slides`` (heading, text, notes, HTML per slide), ``slide`` (one by the
start of its title), ``takeaway`` and ``table`` (a build/tables JSON file)."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

from support.decks import table  # noqa: F401  (the statement tests read tables through here)

INLINE = re.compile(r"</?(span|a|code|strong|em|b|i|sub|sup)\b[^>]*>")


def text_of(html: str) -> str:
    html = re.sub(r'<span class="katex-mathml">.*?</math></span>', " ", html, flags=re.S)  # KaTeX's visible text once
    html = INLINE.sub("", html)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def fmt_int(n: int) -> str:
    """The build's integer format: comma grouping from 1,000 on."""
    return f"{n:,}" if n >= 1_000 else str(n)


def slides(site_dir: Path, slug: str) -> list[dict]:
    """Every slide of a built deck: heading, main text, notes text, main HTML."""
    html = (site_dir / "decks" / f"{slug}.html").read_text(encoding="utf-8")
    out = []
    for body in re.findall(r'<section data-slide="\d+"[^>]*>(.*?)</section>', html, flags=re.S):
        main, _, notes = body.partition('<aside class="notes">')
        heading = re.search(r"<h[12][^>]*>(.*?)</h[12]>", main, re.S)
        out.append(
            {
                "title": text_of(heading.group(1)) if heading else "",
                "text": text_of(main),
                "notes": text_of(notes),
                "html": main,
                "notes_html": notes,
            }
        )
    return out


def slide(site_dir: Path, slug: str, start: str) -> dict:
    found = [s for s in slides(site_dir, slug) if s["title"].startswith(start)]
    assert len(found) == 1, f"{slug}: {len(found)} slides titled {start!r}"
    return found[0]


def takeaway(s: dict) -> str:
    m = re.search(r'<p class="takeaway">(.*?)</p>', s["html"], re.S)
    assert m, f"{s['title']}: no takeaway"
    return text_of(m.group(1))
