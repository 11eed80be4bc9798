"""The project's Jinja settings, in one place: the page templates (build.py)
and the deck bodies (deck.py) get their environment from ``environment``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import jinja2


def environment(templates: Path, web: Path | None = None, **options) -> jinja2.Environment:
    """StrictUndefined (a missing name stops the build), autoescape on, and
    trim_blocks + lstrip_blocks (a line holding only a block tag leaves no
    blank line). Templates are found by name in ``templates``; with ``web``,
    web pages too as "web/<path>", so the lab page extends templates/base.html.
    ``options`` add Jinja settings (the deck bodies: keep_trailing_newline, finalize)."""
    loader = jinja2.FileSystemLoader(str(templates))
    if web is not None:
        loader = jinja2.ChoiceLoader([loader, jinja2.PrefixLoader({"web": jinja2.FileSystemLoader(str(web))})])
    return jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        **options,
    )


def last_template_frame(exc: BaseException, in_template: Callable[[str], bool]) -> tuple[Path, int] | None:
    """(file, line) of the last traceback frame whose file passes ``in_template``:
    Jinja rewrites the frames of a template's code to the template's file and line."""
    found, tb = None, exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if in_template(filename):
            found = Path(filename), tb.tb_lineno
        tb = tb.tb_next
    return found
