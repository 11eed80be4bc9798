"""One palette (common/palette.py) for every figure, the site's CSS, the lab and
the widgets; one module (export/tables/kit/draw.py) that writes SVG markup."""

from __future__ import annotations

import ast
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from common import palette, typeface
from common.settings import ROOT, SITE_DIR
from site_builder import palette_css
from support.colour import scale_colours
from support.figures import svgs_in

HEX = re.compile(r"#[0-9a-fA-F]{3,8}\b")
SVG_TAGS = "svg|g|rect|line|path|text|circle|ellipse|polyline|polygon|defs|marker|title|desc|tspan"
MARKUP = re.compile(rf"<({SVG_TAGS})\s+[a-zA-Z:-]+=|</({SVG_TAGS})>|<({SVG_TAGS})[^<>]*/>")
DRAW = ROOT / "export" / "tables" / "kit" / "draw.py"


def contrast(a: str, b: str) -> float:
    def lum(colour: str) -> float:
        def lin(c: float) -> float:
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = (int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5))
        return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)

    x, y = sorted((lum(a), lum(b)), reverse=True)
    return (x + 0.05) / (y + 0.05)


# ---------------------------------------------------------------- the palette itself
def test_text_colours_read_on_white_and_on_every_fill():
    texts = {"ink": palette.INK, "ink_soft": palette.INK_SOFT, "muted": palette.MUTED, "accent": palette.ACCENT}
    texts |= palette.ROLES | palette.MODELS | palette.SENTENCES
    texts |= {f"head {i}": c for i, c in enumerate(palette.HEADS, 1)}
    for name, colour in texts.items():
        assert contrast(colour, palette.PAPER) >= 4.5, name
    for name in ("ink", "ink_soft", "muted"):  # the colours text is set in on the boxes
        for kind, fill in palette.FILLS.items():
            assert contrast(texts[name], fill) >= 4.5, (name, kind)


def test_meanings_have_colours_of_their_own():
    roles = list(palette.ROLES.values())
    assert len(set(roles)) == 4 and not set(roles) & set(palette.MODELS.values())
    assert len(set(palette.MODELS.values())) == 3 and len(set(palette.HEADS)) == len(palette.HEADS)


def test_scale_colour_follows_the_labs_heat_scale():
    """Weight colours interpolate the stops exactly as web/core/inspect.js
    heatRgb does, and the JavaScript stops are the palette's."""
    assert palette.scale_colour(0) == palette.hex_colour(palette.WEIGHT_SCALE[0])
    assert palette.scale_colour(1) == palette.hex_colour(palette.WEIGHT_SCALE[-1])
    assert palette.scale_colour(0.125) == "#dfebf7"  # halfway between the first two stops, rounded half up
    js = (ROOT / "web" / "core" / "inspect.js").read_text(encoding="utf-8")
    for name, stops in (("BLUES", palette.WEIGHT_SCALE), ("ORANGES", palette.SURPRISAL_SCALE)):
        found = re.search(rf"export const {name} = (\[\[.*?\]\]);", js).group(1)
        assert [tuple(s) for s in json.loads(found)] == list(stops), name


# ---------------------------------------------------------------- the CSS written from it
def test_palette_css_holds_every_entry():
    css = palette_css.stylesheet()
    entries = palette.entries()
    assert len(entries) > 40
    for name, colour in entries.items():
        assert f"  --{name.replace('_', '-')}: {colour};\n" in css
    built = SITE_DIR / "assets" / palette_css.NAME
    if built.exists():  # the site build writes exactly this file
        assert built.read_text(encoding="utf-8") == css


def test_stylesheets_and_widgets_take_their_colours_from_the_palette():
    """No colour literal in the site's CSS, the lab's CSS or the widgets: every
    colour is a custom property palette.css defines."""
    defined = {f"--{name.replace('_', '-')}" for name in palette.entries()}
    defined |= {f"--{name}" for name in typeface.custom_properties()}  # the font stacks palette.css also holds
    files = sorted((ROOT / "site_builder" / "static").glob("*.css")) + [ROOT / "web" / "lab" / "lab.css"]
    files += sorted((ROOT / "web" / "widgets").glob("*.js"))
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert not HEX.findall(text), f"{path.name}: colour literals {HEX.findall(text)}"
        assert not re.findall(r"rgba?\(|hsla?\(", text), path.name
        own = set(re.findall(r"(--[a-z0-9-]+)\s*:", text))  # the lab's aliases (--lab-ink: var(--ink))
        for prop, computed in re.findall(r"var\((--[a-z0-9-]+)(\$\{)?", text):
            if computed:  # var(--head-${n}): a family of entries
                assert any(d.startswith(prop) for d in defined), f"{path.name}: {prop}..."
                continue
            assert prop in defined or prop in own or prop.startswith("--r-"), f"{path.name}: {prop}"


def test_every_page_links_the_palette_first():
    base = (ROOT / "site_builder" / "templates" / "base.html").read_text(encoding="utf-8")
    assert base.index("assets/palette.css") < base.index("{% block styles %}") < base.index("assets/site.css")
    lab = (ROOT / "web" / "lab" / "index.html").read_text(encoding="utf-8")
    assert lab.startswith('{% extends "base.html" %}')


# ---------------------------------------------------------------- one SVG writer
def _strings(path: Path):
    """The string constants of a module, docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.value


def _builds_tags(path: Path) -> bool:
    """An f-string that writes a tag whose name it is given: f"<{tag}...", f"</{tag}>"."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.JoinedStr):
            for a, b in zip(node.values, node.values[1:]):
                if (
                    isinstance(a, ast.Constant)
                    and str(a.value).endswith(("<", "</"))
                    and isinstance(b, ast.FormattedValue)
                ):
                    return True
    return False


def test_exactly_one_module_writes_svg_markup():
    """Only kit/draw.py writes tags (SVG elements, attributes, closing tags);
    every other module of export/ and site_builder/ draws through it."""
    writers = []
    for folder in ("export", "site_builder"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if any(MARKUP.search(s) for s in _strings(path)) or _builds_tags(path):
                writers.append(path.relative_to(ROOT).as_posix())
    assert writers == ["export/tables/kit/draw.py"]


def test_every_figure_colour_is_a_palette_colour(tables_dir):
    tables = sorted(tables_dir.glob("*.json"))
    allowed = set(palette.entries().values()) | {"none"}
    allowed |= scale_colours(palette.WEIGHT_SCALE) | scale_colours(palette.SIGNED_SCALE)
    allowed |= scale_colours(palette.SURPRISAL_SCALE)  # kit/cells.py's "surprisal" meaning, the loss bars
    seen = 0
    for path in tables:
        for svg in svgs_in(json.loads(path.read_text(encoding="utf-8"))):
            for el in ET.fromstring(svg).iter():
                for attr in ("fill", "stroke"):
                    colour = el.get(attr)
                    if colour is not None:
                        seen += 1
                        assert colour in allowed, f"{path.name}: {el.tag} {attr}={colour}"
    assert seen > 1000
