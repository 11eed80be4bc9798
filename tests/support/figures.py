"""The figures of a table: every SVG string anywhere in a table's JSON value."""

from __future__ import annotations


def svgs_in(value):
    """Yield each string in ``value`` (nested dicts and lists) that is an SVG figure."""
    if isinstance(value, str) and value.lstrip().startswith("<svg"):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from svgs_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from svgs_in(v)
