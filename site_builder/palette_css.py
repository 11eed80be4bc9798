"""build/site/assets/palette.css: every colour of common/palette.py as a CSS
custom property on :root (``query`` -> ``--query``, ``fill_data`` ->
``--fill-data``), so the site's CSS, the lab and the widgets use the colours
the build-time figures use; and the font stacks of common/typeface.py
(``--font-sans``, ``--font-mono``), which the figures use too. Pages link it
before their other stylesheets."""

from __future__ import annotations

from common import palette, typeface

NAME = "palette.css"


def custom_property(name: str) -> str:
    return "--" + name.replace("_", "-")


def stylesheet() -> str:
    lines = [f"  {custom_property(name)}: {colour};" for name, colour in palette.entries().items()]
    lines += [f"  --{name}: {stack};" for name, stack in typeface.custom_properties().items()]
    return (
        "/* written by site_builder/palette_css.py from common/palette.py and common/typeface.py; do not edit */\n"
        ":root {\n" + "\n".join(lines) + "\n}\n"
    )
