"""The last cell of every companion notebook: compare the values the notebook
computed with the ones its deck shows (build/tables/*.json).

``got`` maps a key to the notebook's value. A key is ``table.path.to.value``:
dots walk into the table's JSON (list items by index); ``*`` collects one
field from every item of a list (``part3_toys.heads.*.name``). A table whose
rows need another way in (a row picked by its contents) is passed in
``special`` as ``{table: fn(value, path) -> shown value}``.

Floats compare to 1e-6 relative; lists, tuples and dicts compare item by item.
The printed lines ("ok  key" / "DIFF key", then "all N values match the
deck's tables in ...") are what tests/test_notebooks.py reads.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from pathlib import Path

from common.settings import ROOT, TABLES_DIR

TABLES_ENV = "COURSE_TABLES"  # site_builder.notebooks points the notebooks at a tables folder with it


def tables_dir() -> Path:
    return Path(os.environ.get(TABLES_ENV, TABLES_DIR))


def lookup(key: str, tables: Path, special: dict[str, Callable] | None = None):
    """The value the deck shows for ``key``."""
    table, *path = key.split(".")
    value = json.loads((tables / f"{table}.json").read_text(encoding="utf-8"))
    if special and table in special:
        return special[table](value, path)
    for part in path:
        if part == "*":
            return [item[path[-1]] for item in value]
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def same(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
    return a == b


def check(got: dict, special: dict[str, Callable] | None = None, tables: Path | None = None) -> None:
    """Print one line per value and raise AssertionError naming every value that differs."""
    tables = tables or tables_dir()
    shown = tables.relative_to(ROOT) if tables.is_relative_to(ROOT) else tables
    bad = [key for key, value in got.items() if not same(value, lookup(key, tables, special))]
    for key in got:
        print("ok  " if key not in bad else "DIFF", key)
    if bad:
        raise AssertionError(f"{len(bad)} value(s) differ from {shown}: {', '.join(bad)}")
    print(f"all {len(got)} values match the deck's tables in {shown}")
