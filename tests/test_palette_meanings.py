"""One colour, one meaning (issue 35): every colour of common/palette.py is a
neutral (text, lines, surfaces) or serves exactly one meaning (a model, a
head, a role of attention, an example sentence, a scale, the interface); no
two meanings share a colour or colours closer than a perceptual distance; and
every colour the built site draws or styles with is one of them.

Distances are CIE76 ΔE in CIELAB (tests/support/colour.py). Two colours of
different meanings are at least ``APART`` apart; two pale ones (both L* of 85
or more: box fills, soft backgrounds) at least ``PALE_APART``, since a pale
fill is never read alone (it has its outline and its label). A scale is
sampled along its whole length; its pale end (L* of 85 or more) is its "near
zero", as close to paper as the neutrals, so it is not held apart from pale
fills."""

from __future__ import annotations

import itertools
import json
import re
import xml.etree.ElementTree as ET

from common import palette
from common.settings import ROOT, SITE_DIR, TABLES_DIR
from site_builder import palette_css
from support.colour import chroma, contrast, delta_e, lab, scale_colours, simulate
from support.figures import svgs_in

APART = 10.0  # CIE76: two marks of different meanings
PALE_APART = 5.0  # two pale fills of different meanings
PALE = 85.0  # L*: a background tint, not a mark
NEUTRAL_CHROMA = 16.0  # the slate greys carry a little blue (C* 12.6 to 14.5)
SEEN_TOGETHER_APART = 10.0  # ΔE as a protan or deutan viewer sees it, within a group drawn side by side
STEPS = 64  # samples along a scale
HEX = re.compile(r"#(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{6}|[0-9a-fA-F]{3,4})\b")
RGB = re.compile(r"rgba?\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)")
SVG = re.compile(r"<svg\b.*?</svg>", re.S)
COLOUR_ATTRS = ("fill", "stroke", "stop-color", "flood-color", "lighting-color", "color")
KEYWORDS = {"none", "transparent", "currentcolor", "inherit"}


def _hex6(colour: str) -> str:
    """#rgb, #rgba, #rrggbb, #rrggbbaa -> #rrggbb (the alpha does not change what a colour means)."""
    h = colour.lstrip("#").lower()
    if len(h) in (3, 4):
        h = "".join(c * 2 for c in h[:3])
    return "#" + h[:6]


def _names() -> dict[str, str]:
    return palette.entries()


def _meaning_of() -> dict[str, str]:
    """palette entry name -> its meaning ("" for a neutral), scales' stops included."""
    out = {name: "" for name in palette.NEUTRALS}
    for meaning, names in palette.MEANING_NAMES.items():
        out |= {name: meaning for name in names}
    for meaning, prefix in palette.RAMP_NAMES.items():
        out |= {name: meaning for name in _names() if name.startswith(prefix)}
    return out


def _marks() -> list[tuple[str, str, str]]:
    """(meaning, label, colour) for every colour that means something: the
    named ones and each scale sampled along its length (its pale end left out)."""
    names = _names()
    out = [(m, n, names[n]) for m, ns in palette.MEANING_NAMES.items() for n in ns]
    for meaning, stops in palette.RAMPS.items():
        for i in range(STEPS + 1):
            colour = palette.scale_colour(i / STEPS, stops)
            if lab(colour)[0] < PALE:
                out.append((meaning, f"{meaning} at {i / STEPS:.2f}", colour))
    return out


def _closest_pair():
    pairs = []
    for (m1, n1, c1), (m2, n2, c2) in itertools.combinations(_marks(), 2):
        if m1 != m2:
            pale = lab(c1)[0] >= PALE and lab(c2)[0] >= PALE
            pairs.append((delta_e(c1, c2) / (PALE_APART if pale else APART), delta_e(c1, c2), n1, c1, n2, c2))
    return sorted(pairs)


# ---------------------------------------------------------------- the palette
def test_every_colour_is_a_neutral_or_has_one_meaning():
    meaning_of = _meaning_of()
    listed = [n for ns in palette.MEANING_NAMES.values() for n in ns] + list(palette.NEUTRALS)
    assert len(listed) == len(set(listed)), "a palette name is listed under two meanings (or as neutral too)"
    missing = sorted(set(_names()) - set(meaning_of))
    assert not missing, f"common/palette.py: no meaning (MEANING_NAMES) and not neutral (NEUTRALS): {missing}"
    unknown = sorted(set(listed) - set(_names()))
    assert not unknown, f"common/palette.py MEANING_NAMES/NEUTRALS name colours it does not define: {unknown}"


def test_the_meanings_the_course_needs_each_have_a_colour():
    meanings = set(palette.MEANING_NAMES) | set(palette.RAMPS)
    need = {"model mlp", "model attn1", "model attn4", "the query", "the key", "the value", "the message"}
    need |= {"head 1", "head 2", "head 3", "head 4", "the river sentence", "the cheque sentence"}
    need |= {"attention weight", "a signed number", "interface accent"}
    assert need <= meanings, sorted(need - meanings)
    assert len(palette.HEADS) == 4  # one per head of the four-head model, no more to repeat


def test_neutrals_are_greys():
    names = _names()
    for name in palette.NEUTRALS:
        assert chroma(names[name]) < NEUTRAL_CHROMA, f"{name} {names[name]}: C* {chroma(names[name]):.1f} is a colour"


def test_no_two_meanings_share_a_colour():
    """Two colours of different meanings are at least APART (PALE_APART when
    both are pale): the closest pair is named when it fails."""
    ratio, de, n1, c1, n2, c2 = _closest_pair()[0]
    assert ratio >= 1, f"{n1} {c1} and {n2} {c2} are ΔE {de:.1f} apart: one colour, two meanings"


def test_a_colour_two_meanings_share_is_caught(monkeypatch):
    """The check above fails when it should, on the old palette's clashes:
    head 1 drawn in the one-head model's colour; the cheque sentence in an
    amber on the signed scale's brown end."""
    monkeypatch.setattr(palette, "HEADS", (palette.MODELS["attn1"], *palette.HEADS[1:]))
    ratio, de, *names = _closest_pair()[0]
    assert ratio < 1 and de == 0 and set(names) == {"attn1", "head_1", palette.MODELS["attn1"]}
    monkeypatch.undo()
    monkeypatch.setattr(palette, "SENTENCES", {**palette.SENTENCES, "cheque": "#a16207"})
    ratio, de, n1, _, n2, _ = _closest_pair()[0]
    assert ratio < 1 and {n1.split(" at ")[0], n2.split(" at ")[0]} == {"cheque", "a signed number"}


def test_groups_drawn_together_stay_apart_for_colour_blind_readers():
    """Colours drawn side by side (the three models in a chart, the four heads
    in a fan, q/k/v/message in a diagram, the two sentences) stay apart as a
    protan or a deutan viewer sees them (Viénot, Brettel and Mollon 1999)."""
    heads = {f"head {i}": c for i, c in enumerate(palette.HEADS, 1)}
    for group in (palette.MODELS, heads, palette.ROLES, palette.SENTENCES):
        for (n1, c1), (n2, c2) in itertools.combinations(group.items(), 2):
            for kind in ("protan", "deutan"):
                seen = delta_e(simulate(c1, kind), simulate(c2, kind))
                assert seen >= SEEN_TOGETHER_APART, f"{n1} {c1} and {n2} {c2}: ΔE {seen:.1f} for a {kind} viewer"


def test_marks_read_on_the_slide_background():
    """Lines and text in a meaning's colour reach 3:1 on the slide's paper
    (text colours 4.5:1: tests/test_palette.py)."""
    names = _names()
    for meaning, ns in palette.MEANING_NAMES.items():
        for name in ns:
            colour = names[name]
            if lab(colour)[0] < PALE and not name.endswith(("_mid", "_line")):  # _mid, _line: bar fills, borders
                assert contrast(colour, palette.PAPER) >= 3, f"{meaning}: {name} {colour}"


# ---------------------------------------------------------------- what the build draws with
def _allowed() -> dict[str, str]:
    """Every colour a figure may use -> its meaning ("" for a neutral): the
    palette's entries and every colour a scale can return."""
    meaning_of = _meaning_of()
    out = {colour: meaning_of[name] for name, colour in _names().items() if name in meaning_of}
    for meaning, stops in palette.RAMPS.items():
        for colour in scale_colours(stops):
            out.setdefault(colour, meaning)
    return out


def _svg_colours(svg: str):
    """(element, attribute, colour) of an SVG's presentation attributes and styles."""
    for el in ET.fromstring(svg).iter():
        tag = el.tag.rsplit("}", 1)[-1]
        for attr in COLOUR_ATTRS:
            if el.get(attr) is not None:
                yield tag, attr, el.get(attr).strip()
        for decl in (el.get("style") or "").split(";"):
            prop, _, value = decl.partition(":")
            if prop.strip() in COLOUR_ATTRS and value.strip():
                yield tag, prop.strip(), value.strip()


def _built_svgs():
    """(where, svg markup) of every figure: build/tables' figures, the SVG
    files and the SVG inline in the pages of build/site."""
    assert (TABLES_DIR / "maps_mlp.json").exists(), "build/tables is missing: run `make site`"
    assert (SITE_DIR / "index.html").exists(), "build/site is missing: run `make site`"
    for path in sorted(TABLES_DIR.glob("*.json")):
        for svg in svgs_in(json.loads(path.read_text(encoding="utf-8"))):
            yield f"build/tables/{path.name}", svg
    for path in sorted(SITE_DIR.rglob("*.svg")):
        if "vendor" not in path.parts:
            yield path.relative_to(SITE_DIR).as_posix(), path.read_text(encoding="utf-8")
    for path in sorted(SITE_DIR.rglob("*.html")):
        if "vendor" not in path.parts:
            for svg in SVG.findall(path.read_text(encoding="utf-8")):
                yield path.relative_to(SITE_DIR).as_posix(), svg


def _defined_properties() -> set[str]:
    css = (SITE_DIR / "assets" / palette_css.NAME).read_text(encoding="utf-8")
    return set(re.findall(r"(--[a-z0-9-]+)\s*:", css))


def _check_colour(value: str, where: str, allowed: dict[str, str], defined: set[str]) -> str | None:
    """A problem with one colour value, or None."""
    if value.lower() in KEYWORDS or value.startswith("url(#"):
        return None
    var = re.fullmatch(r"var\((--[a-z0-9-]+)\)", value)
    if var:
        return None if var.group(1) in defined else f"{where}: {value} is no palette property"
    if re.fullmatch(r"#[0-9a-fA-F]{3,8}", value):
        colour = _hex6(value)
        if colour in allowed or colour in ("#000000", "#ffffff"):  # black and white in any spelling
            return None
        return f"{where}: {value} is not a palette colour"
    return f"{where}: colour {value!r} is not a palette colour"


def test_every_figure_draws_in_palette_colours_by_meaning():
    """Each fill and stroke of every built figure (and every style colour in
    one) is a palette colour, a colour of one of its scales, black, white or
    none; the meanings a figure uses are reported for the one that fails."""
    allowed, defined = _allowed(), _defined_properties()
    problems, seen, figures = [], 0, 0
    for where, svg in _built_svgs():
        figures += 1
        for tag, attr, value in _svg_colours(svg):
            seen += 1
            problem = _check_colour(value, f"{where} <{tag} {attr}>", allowed, defined)
            if problem:
                problems.append(problem)
    assert figures > 100 and seen > 10_000, (figures, seen)
    assert not problems, f"{len(problems)} colours off the palette, e.g. " + "; ".join(sorted(set(problems))[:8])


STYLE = re.compile(r"<style\b[^>]*>(.*?)</style>", re.S)


def _stylesheets():
    """(where, CSS) of the site's own stylesheets as built (vendor/ is
    reveal's and KaTeX's own) and of the <style> blocks in its pages."""
    for path in sorted(SITE_DIR.rglob("*.css")):
        if "vendor" not in path.parts and path.name != palette_css.NAME:
            yield path.relative_to(SITE_DIR).as_posix(), path.read_text(encoding="utf-8")
    for path in sorted(SITE_DIR.rglob("*.html")):
        if "vendor" not in path.parts:
            for block in STYLE.findall(path.read_text(encoding="utf-8")):
                yield path.relative_to(SITE_DIR).as_posix() + " <style>", block


def test_every_stylesheet_colour_is_a_palette_colour():
    """The built stylesheets (site, read, exercise, lab, the listings' pygments
    colours) name colours by palette property or use a palette colour;
    reveal's theme keeps its own literals only for greys and for the
    properties site.css sets again from the palette."""
    allowed, defined = _allowed(), _defined_properties()
    site_css = (SITE_DIR / "assets" / "site.css").read_text(encoding="utf-8")
    overridden = set(re.findall(r"(--r-[a-z0-9-]+)\s*:\s*var\(--", site_css))
    problems, stylesheets = [], 0
    for name, css in _stylesheets():
        stylesheets += 1
        text = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
        for match in HEX.finditer(text):
            colour = _hex6(match.group())
            prop = re.search(r"([a-z0-9-]+)\s*:[^;:{}]*$", text[: match.start()])
            where = f"{name}: {prop.group(1) if prop else '?'}: {match.group()}"
            if colour in allowed or chroma(colour) < NEUTRAL_CHROMA:
                continue  # a palette colour, or a grey (reveal's #222 text, its shadows)
            if prop and f"--{prop.group(1).lstrip('-')}" in overridden:
                continue  # reveal's default, which site.css replaces with a palette colour
            problems.append(where)
        for match in RGB.finditer(text):
            if chroma(tuple(int(v) for v in match.groups())) >= NEUTRAL_CHROMA:
                problems.append(f"{name}: {match.group()}")
        for prop in re.findall(r"var\((--[a-z0-9-]+)", text):
            own = set(re.findall(r"(--[a-z0-9-]+)\s*:", text))
            if not (prop in defined or prop in own or prop.startswith("--r-")):
                problems.append(f"{name}: var({prop}) is not defined")
    assert stylesheets >= 5
    assert not problems, problems[:10]


def test_no_script_carries_a_colour_literal():
    """The lab and the widgets draw with the palette's custom properties; the
    one exception is web/core/inspect.js's stops, which tests/test_palette.py
    holds equal to the palette's scales."""
    problems = []
    for path in sorted((ROOT / "web").rglob("*.js")):
        text = path.read_text(encoding="utf-8")
        for match in HEX.finditer(text):
            problems.append(f"{path.relative_to(ROOT)}: {match.group()}")
        for match in RGB.finditer(text):
            if path.name != "inspect.js":
                problems.append(f"{path.relative_to(ROOT)}: {match.group()}")
    assert not problems, problems


def test_a_colour_off_the_palette_is_caught():
    """The checks above reject what they should: an off-palette colour in a
    figure, an undefined property; and accept a scale colour, a grey, none."""
    allowed, defined = _allowed(), {"--query"}
    assert _check_colour("#123456", "x", allowed, defined)
    assert _check_colour("#2563eb", "x", allowed, defined)  # the old one-head blue
    assert _check_colour("var(--nope)", "x", allowed, defined)
    assert _check_colour("red", "x", allowed, defined)
    for fine in (palette.ROLES["query"], palette.scale_colour(0.37), "#fff", "none", "var(--query)"):
        assert _check_colour(fine, "x", allowed, defined) is None, fine
    svg = '<svg xmlns="http://www.w3.org/2000/svg"><rect fill="#abc" style="stroke: #0064f0"/></svg>'
    assert list(_svg_colours(svg)) == [("rect", "fill", "#abc"), ("rect", "stroke", "#0064f0")]


def _colours_of(svg: str) -> set[str]:
    return {value.lower() for _, _, value in _svg_colours(svg)}


def test_query_key_value_and_message_figures_wear_their_colours(tables_dir):
    """The Q, K, V and message tables of Part I and Part II carry their role's
    colour (the caption and a frame round the cells), the others none."""
    maps = json.loads((tables_dir / "maps_cell_figures.json").read_text(encoding="utf-8"))
    part2 = json.loads((tables_dir / "part2_pictures.json").read_text(encoding="utf-8"))
    roles = {name: colour.lower() for name, colour in palette.ROLES.items()}
    wears = {
        "maps qkv": (maps["qkv"], {"query", "key", "value"}),
        "maps message": (maps["message"], {"message"}),
        "part2 every_qkv": (part2["every_qkv"], {"query", "key", "value"}),
        "part2 queries": (part2["queries"], {"query"}),
        "part2 keys": (part2["keys"], {"key"}),
        "part2 values": (part2["values"], {"value"}),
        "part2 phase_b": (part2["phase_b"], {"value"}),
        "part2 swap2d": (part2["swap2d"], {"message"}),
        "maps weights": (maps["weights"], set()),
    }
    for name, (svg, expected) in wears.items():
        worn = {role for role, colour in roles.items() if colour in _colours_of(svg)}
        assert worn == expected, f"{name}: wears {sorted(worn)}, should wear {sorted(expected)}"


def test_four_ways_colours_only_what_attention_computes(tables_dir):
    """Part II "Four ways to mix": the fixed window, the plain mean and the
    distance weights ignore the words, so they are grey; attention is drawn in
    each sentence's colour. No other meaning appears."""
    svg = json.loads((tables_dir / "part2_pictures.json").read_text(encoding="utf-8"))["four_ways"]
    meaning_of = _allowed()
    meanings = {meaning_of[c] for c in _colours_of(svg) if c in meaning_of} - {""}
    assert meanings == {"the river sentence", "the cheque sentence"}, meanings


def test_the_labs_heads_wear_the_head_colours():
    """The lab's head toggles and matrix captions of the four-head model are
    drawn in head 1..4's colours (the decks' colours), the one-head model's
    single toggle in its model's colour."""
    css = (ROOT / "web" / "lab" / "lab.css").read_text(encoding="utf-8")
    four = '.lab .inspect-attention[data-kind="attn4"]'
    for h in range(len(palette.HEADS)):
        assert f'{four} .head-toggle[data-head="{h}"] {{ --lab-accent: var(--head-{h + 1}); }}' in css
        assert (
            f"{four} .matrices > .matrix-figure:nth-child({h + 1}) figcaption {{ color: var(--head-{h + 1}); }}" in css
        )
    assert '.lab .inspect-attention[data-kind="attn1"] .head-toggle { --lab-accent: var(--attn1); }' in css
    assert "var(--lab-accent)" in css.split(".lab .head-toggle, .lab .restore {", 1)[1].split("}", 1)[0]
