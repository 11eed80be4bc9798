"""assets/fonts.css and assets/reveal-theme.css: one typeface on every page.

reveal.js's white theme embeds Source Sans Pro (regular, italic, semibold and
semibold italic) as data URLs. The build splits that file in two: its
@font-face rules go to fonts.css (each font moved to its own file under
assets/fonts/, so a page downloads only the faces it uses), which every page links (templates/base.html),
and the rest of the theme to reveal-theme.css, which the decks link instead of
the theme itself, so a deck loads the fonts once and the index, the reading
views and the lab set their text in the same family offline
(common/typeface.py).

Each face is served as a WOFF2 subset (fontTools): the characters of the
course's languages and notation (SUBSET_RANGES: Latin, Latin-1 and -A, punctuation,
Greek, sub- and superscripts, arrows, mathematical operators, shapes), every
glyph, kerning and ligature those need kept, about 35 KB a face (140 KB for
the four, instead of 430 KB as the theme's WOFF); each @font-face says its
range (unicode-range), so a character outside it is drawn in the fallback face
without a download. They are shown with
`font-display: swap`: a page's text is drawn at once in
the fallback face and redrawn when the font arrives, never invisible while
three ~100 KB files download on a slow phone; and every page preloads the body
face (regular, upright: templates/base.html, the name `write` returns)."""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import logging
import re
from pathlib import Path

THEME = Path("reveal.js") / "dist" / "theme" / "white.css"
FONTS, DECK_THEME = "fonts.css", "reveal-theme.css"
FACE = re.compile(r"@font-face\s*\{[^}]*\}")
DATA_URL = re.compile(r"url\(data:font/(woff2?);base64,([A-Za-z0-9+/=]+)\)")
FORMAT = re.compile(r"format\([\"']woff2?[\"']\)")
FONT_DIR = "fonts"


def split_theme(css: str) -> tuple[str, str]:
    """(the @font-face rules, each with font-display: swap; the theme without them)."""
    faces = FACE.findall(css)
    if not faces:
        raise ValueError(f"{THEME}: no @font-face rule (a reveal.js update moved the theme's fonts?)")
    swapped = [re.sub(r"font-display:[^;}]*;?", "", f)[:-1].rstrip(";") + ";font-display:swap}" for f in faces]
    return "\n".join(swapped) + "\n", FACE.sub("", css)


def body_face(faces: str) -> str:
    """The file of the regular upright face (the body text), which every page preloads."""
    for face in FACE.findall(faces):
        weight = re.search(r"font-weight:\s*(\w+)", face)
        style = re.search(r"font-style:\s*(\w+)", face)
        url = re.search(r"url\(([^)]+)\)", face)
        if url and (not weight or weight.group(1) in ("400", "normal")) and (not style or style.group(1) == "normal"):
            return url.group(1)
    raise ValueError(f"{THEME}: no regular upright face among its @font-face rules")


# the characters the course sets in its typeface: English prose, its punctuation
# (curly quotes, dashes, thin spaces), and the notation (Greek letters, x_i-style
# sub- and superscripts, arrows, operators such as √ ≤ ×, shapes such as ▲ ●)
SUBSET_RANGES = (
    (0x0020, 0x007E),  # Basic Latin
    (0x00A0, 0x00FF),  # Latin-1 Supplement
    (0x0100, 0x017F),  # Latin Extended-A (authors' names: Łukasz)
    (0x02B0, 0x02FF),  # spacing modifier letters (ˉ)
    (0x0391, 0x03C9),  # Greek letters
    (0x2000, 0x206F),  # General Punctuation
    (0x2070, 0x209F),  # superscripts and subscripts
    (0x20A0, 0x20BF),  # currency signs
    (0x2100, 0x214F),  # letterlike symbols
    (0x2190, 0x21FF),  # arrows
    (0x2200, 0x22FF),  # mathematical operators
    (0x25A0, 0x25FF),  # geometric shapes
    (0x2700, 0x27BF),  # dingbats (✓)
)
UNICODE_RANGE = ", ".join(f"U+{a:04X}-{b:04X}" for a, b in SUBSET_RANGES)


def in_subset(codepoint: int) -> bool:
    return any(a <= codepoint <= b for a, b in SUBSET_RANGES)


@functools.lru_cache(maxsize=8)
def woff2(data: bytes) -> bytes:
    """The font cut to SUBSET_RANGES (with the glyphs, kerning and ligatures
    those characters need) in WOFF2's Brotli-compressed container: about a
    third of the theme's WOFF. The same bytes on every build, so a process that
    builds several sites (the test suite's small builds) cuts each face once:
    about 0.8 s a face."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    logging.getLogger("fontTools.subset").setLevel(logging.ERROR)  # "FFTM NOT subset; dropped": tables no browser reads
    font = TTFont(io.BytesIO(data), recalcTimestamp=False)
    options = subset.Options()
    options.flavor = "woff2"
    options.ignore_missing_unicodes = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[c for a, b in SUBSET_RANGES for c in range(a, b + 1)])
    subsetter.subset(font)
    font.flavor = "woff2"
    out = io.BytesIO()
    font.save(out, reorderTables=True)
    return out.getvalue()


def font_files(faces: str) -> tuple[str, dict[str, bytes]]:
    """The @font-face rules with each embedded font moved to its own file
    (fonts/<sha256 prefix>.woff2, converted from the theme's WOFF), so a page
    downloads only the faces it uses."""
    files: dict[str, bytes] = {}

    def extract(match: re.Match) -> str:
        data = base64.b64decode(match.group(2))
        data = woff2(data)
        name = f"{FONT_DIR}/{hashlib.sha256(data).hexdigest()[:16]}.woff2"
        files[name] = data
        return f"url({name})"

    faces = DATA_URL.sub(extract, faces)
    faces = re.sub(r";font-display:swap}", f";font-display:swap;unicode-range:{UNICODE_RANGE}}}", faces)
    return FORMAT.sub('format("woff2")', faces), files


def write(assets: Path, node_modules: Path) -> str:
    """Write fonts.css, the font files and reveal-theme.css into assets/; return
    the body face's file, relative to assets/."""
    faces, theme = split_theme((node_modules / THEME).read_text(encoding="utf-8"))
    faces, files = font_files(faces)
    for name, data in files.items():
        (assets / name).parent.mkdir(parents=True, exist_ok=True)
        (assets / name).write_bytes(data)
    (assets / FONTS).write_text(faces, encoding="utf-8")
    (assets / DECK_THEME).write_text(theme, encoding="utf-8")
    return body_face(faces)
