"""Toy-example tables for the slides.

Every module of this package that defines ``compute() -> dict[str, object]`` is
discovered automatically (pkgutil; no registry to edit). Each key NAME of the
returned dict becomes build/tables/NAME.json. Names are unique across modules
(prefix them with the deck slug). A module whose input file is absent returns
``{"available": False, "reason": ...}`` for that table, never a made-up number.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re

NAME = re.compile(r"^[A-Za-z0-9_]+$")


class TablesError(RuntimeError):
    """A table module failed or returned something unusable; the message names it."""


def module_names() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def to_json(name: str, value) -> str:
    """The bytes written for one table: sorted keys, floats as computed."""
    try:
        return json.dumps(value, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    except (TypeError, ValueError) as exc:
        raise TablesError(f"table {name!r} is not plain JSON (no NaN/inf, no tensors): {exc}") from exc


def compute_all(names: list[str] | None = None) -> dict[str, str]:
    """Run every table module; returns NAME -> JSON text. Raises TablesError."""
    tables: dict[str, str] = {}
    owner: dict[str, str] = {}
    for mod_name in names if names is not None else module_names():
        try:
            module = importlib.import_module(f"{__name__}.{mod_name}")
        except Exception as exc:
            raise TablesError(f"export/tables/{mod_name}.py: import failed: {type(exc).__name__}: {exc}") from exc
        compute = getattr(module, "compute", None)
        if not callable(compute):
            continue
        try:
            result = compute()
        except Exception as exc:  # name the module, keep the cause
            raise TablesError(f"export/tables/{mod_name}.py: compute() failed: {type(exc).__name__}: {exc}") from exc
        if not isinstance(result, dict):
            raise TablesError(f"export/tables/{mod_name}.py: compute() must return a dict, got {type(result).__name__}")
        for name, value in result.items():
            if not isinstance(name, str) or not NAME.match(name):
                raise TablesError(f"export/tables/{mod_name}.py: bad table name {name!r} (letters, digits, _)")
            if name in owner:
                raise TablesError(
                    f"table {name!r} is produced by both export/tables/{owner[name]}.py and export/tables/{mod_name}.py"
                )
            owner[name] = mod_name
            tables[name] = to_json(name, value)
    return tables
