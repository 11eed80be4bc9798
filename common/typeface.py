"""The course's type, in one place: one family for the text of every page
(the index, the decks, the reading views, the lab) and of every build-time
figure, one for code, and the smallest sizes text may have.

The family is Source Sans Pro, which reveal.js's white theme embeds (so every
page has it offline: site_builder/fonts.py writes its @font-face rules to
assets/fonts.css); the rest of each stack is what a page falls back to. The
site build writes both stacks as custom properties (``--font-sans``,
``--font-mono``) into assets/palette.css; export/tables/kit/draw.py sets
``SANS`` on every figure.
"""

from __future__ import annotations

SANS = "'Source Sans Pro', system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif"
MONO = "ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace"

SLIDE_MIN_PX = 18  # the smallest text on a 1280x720 slide, figure labels and tables included
PHONE_MIN_PX = 16  # the smallest text of a deck or reading view on a phone, in CSS px


def custom_properties() -> dict[str, str]:
    """The stacks as CSS custom properties."""
    return {"font-sans": SANS, "font-mono": MONO}
