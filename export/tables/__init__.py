"""Every number, table and figure the slides show, computed by code.

    export/tables/
      kit/        shared by every deck: the registry of tables, the run's inputs
                  (``Sources``, each loaded once), the drawing kit (the one module
                  that writes SVG) and chart scaffolding
      maps/       one package per deck; each module declares its tables with
      part2/      ``@table(NAME, needs=[...])`` (kit/registry.py)
      part3/
      results/

Each table NAME becomes build/tables/NAME.json. A table is computed once per
run, after the tables it needs, which it receives as keyword arguments; no
table calls another's code to compute it again. A table whose input file is
absent returns ``{"available": False, "reason": ...}``, never a made-up number.
"""

from __future__ import annotations

import importlib
import json

from .kit import registry
from .kit.registry import TablesError
from .kit.sources import Sources

DECKS = ("maps", "part2", "part3", "results")

__all__ = ["DECKS", "Sources", "TablesError", "compute", "compute_all", "select", "table_names", "to_json"]


def load_decks() -> None:
    """Import every deck package (which declares its tables)."""
    for deck in DECKS:
        try:
            importlib.import_module(f"{__name__}.{deck}")
        except TablesError:
            raise
        except Exception as exc:
            raise TablesError(f"export/tables/{deck}: import failed: {type(exc).__name__}: {exc}") from exc


def table_names(deck: str | None = None) -> list[str]:
    """The tables written to build/tables (of one deck, or of all)."""
    load_decks()
    return sorted(e.name for e in registry.ENTRIES.values() if e.written and deck in (None, e.deck))


def select(only: list[str] | None = None) -> list[str]:
    """The tables a run writes: all, or those of the decks and tables named
    in ``only`` (a deck name stands for every table of that deck)."""
    if only is None:
        return table_names()
    names = []
    for item in only:
        if item in DECKS:
            names += table_names(item)
        elif item in table_names():
            names.append(item)
        else:
            raise TablesError(f"no deck or table named {item!r} (decks: {', '.join(DECKS)})")
    return sorted(set(names))


def compute(only: list[str] | None = None, sources: Sources | None = None) -> dict[str, object]:
    """The selected tables' values (see ``select``), each computed once, with
    what they need. Raises TablesError naming the table that failed."""
    names = select(only)
    values = registry.run(names, sources if sources is not None else Sources())
    return {name: values[name] for name in names}


def to_json(name: str, value) -> str:
    """The bytes written for one table: sorted keys, floats as computed."""
    try:
        return json.dumps(value, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    except (TypeError, ValueError) as exc:
        raise TablesError(f"table {name!r} is not plain JSON (no NaN/inf, no tensors): {exc}") from exc


def compute_all(only: list[str] | None = None, sources: Sources | None = None) -> dict[str, str]:
    """NAME -> JSON text of the selected tables. Raises TablesError."""
    return {name: to_json(name, value) for name, value in compute(only, sources).items()}
