"""The registry of tables: each deck package declares its tables with
``@table(NAME, needs=[...])``; ``run`` computes each one once, dependencies
first, and passes every table a function needs as a keyword argument of the
same name.

    @table("maps_figures", needs=["maps_story", "maps_windows"])
    def figures(maps_story, maps_windows): ...

Besides tables, ``needs`` can name ``sources`` (the run's inputs,
kit/sources.py) and private values declared with ``@value(NAME, ...)``: a
value is computed once per run and passed on like a table, never written (a
toy model after its training step, the run's tensors).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

NAME = re.compile(r"^[A-Za-z0-9_]+$")
SOURCES = "sources"  # the name under which a table receives the run's inputs


class TablesError(RuntimeError):
    """A table failed or returned something unusable; the message names it."""


@dataclass(frozen=True)
class Entry:
    name: str
    deck: str
    compute: Callable
    needs: tuple[str, ...]
    written: bool  # a table (build/tables/NAME.json) or a private value

    @property
    def where(self) -> str:
        """The file that declares it, as the error messages name it."""
        return self.compute.__module__.replace(".", "/") + ".py"


ENTRIES: dict[str, Entry] = {}


def _register(name: str, needs, written: bool):
    if not NAME.match(name):
        raise TablesError(f"bad table name {name!r} (letters, digits, _)")

    def add(fn: Callable) -> Callable:
        deck = fn.__module__.split(".")[2] if fn.__module__.startswith("export.tables.") else fn.__module__
        entry = Entry(name, deck, fn, tuple(needs), written)
        if name in ENTRIES and ENTRIES[name].compute is not fn:
            raise TablesError(f"table {name!r} is produced by both {ENTRIES[name].where} and {entry.where}")
        ENTRIES[name] = entry
        return fn

    return add


def table(name: str, needs=()):
    """Declare the table NAME (written to build/tables/NAME.json)."""
    return _register(name, needs, written=True)


def value(name: str, needs=()):
    """Declare a private value NAME: computed once per run, passed to the
    tables that need it, never written."""
    return _register(name, needs, written=False)


def order(names: list[str]) -> list[Entry]:
    """``names`` and everything they need, each once, every entry after the
    entries it needs (otherwise in declaration order)."""
    done: dict[str, Entry] = {}

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in done or name == SOURCES:
            return
        if name in path:
            raise TablesError(f"tables need each other in a circle: {' -> '.join(path + (name,))}")
        entry = ENTRIES.get(name)
        if entry is None:
            who = f"table {path[-1]!r} ({ENTRIES[path[-1]].where}) needs" if path else "asked for"
            raise TablesError(f"{who} {name!r}, which no deck declares")
        for need in entry.needs:
            visit(need, path + (name,))
        done[name] = entry

    for name in names:
        visit(name, ())
    return list(done.values())


def with_phone(value):
    """``value`` with each figure drawn in two arrangements (kit/draw.py
    ``Arranged``) written as two: its wide SVG under its key and its phone
    SVG under the key + ``_phone`` beside it."""
    from .draw import PHONE_KEY, Arranged

    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            out[k] = with_phone(v)
            if isinstance(v, Arranged):
                out[f"{k}{PHONE_KEY}"] = str(v.phone)
        return out
    if isinstance(value, list):
        return [with_phone(v) for v in value]
    return str(value) if isinstance(value, Arranged) else value


def run(names: list[str], sources) -> dict[str, object]:
    """Compute ``names`` (and what they need) once each; returns every
    computed entry's value by name. Raises TablesError naming the table."""
    values: dict[str, object] = {SOURCES: sources}
    for entry in order(names):
        try:
            made = entry.compute(**{need: values[need] for need in entry.needs})
            values[entry.name] = with_phone(made) if entry.written else made
        except TablesError:
            raise
        except Exception as exc:  # name the table and its file, keep the cause
            raise TablesError(f"{entry.where}: table {entry.name!r} failed: {type(exc).__name__}: {exc}") from exc
    del values[SOURCES]
    return values
