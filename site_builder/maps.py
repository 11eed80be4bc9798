"""The recurring "where are we on the map" strip. Maps are TOML files in
content/maps/<name>.toml with a title and an ordered list of stages."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from markupsafe import Markup, escape

# a stage label's index written in plain text (W_O) is shown as a subscript
PLAIN_INDEX = re.compile(r"(?<![\w.])([A-Za-z])_([A-Za-z0-9]+)(?!\w)")


def load_map(content_dir: Path, name: str) -> dict:
    path = content_dir / "maps" / f"{name}.toml"
    if not path.is_file():
        shown = path.relative_to(content_dir.parent) if path.is_relative_to(content_dir.parent) else path
        raise ValueError(f"map {name!r} not found: {shown}")
    try:
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"map file is broken: {path}: {exc}") from exc
    stages = spec.get("stage")
    if (
        not isinstance(spec.get("title"), str)
        or not isinstance(stages, list)
        or not stages
        or not all(
            isinstance(s, dict) and isinstance(s.get("id"), str) and isinstance(s.get("label"), str) for s in stages
        )
    ):
        raise ValueError(f'map file {path} needs title = "..." and [[stage]] entries with id and label')
    ids = [s["id"] for s in stages]
    if len(set(ids)) != len(ids):
        raise ValueError(f"map file {path} repeats a stage id")
    return spec


def map_strip(content_dir: Path, name: str, stage, reach: dict | None = None) -> Markup:
    """The strip of map ``name`` with ``stage`` (an id or a list of ids) current.
    ``reach`` (one dict per deck, filled as its slides render in order) holds the
    furthest stage of each map shown so far: the stages up to it stay done, so
    the strip never goes back; a stage before it is marked as revisited."""
    spec = load_map(content_dir, name)
    current = [stage] if isinstance(stage, str) else list(stage)
    ids = [s["id"] for s in spec["stage"]]
    unknown = [c for c in current if c not in ids]
    if unknown:
        raise ValueError(f"map {name!r} has no stage {unknown[0]!r} (stages: {', '.join(ids)})")
    first, last = min(ids.index(c) for c in current), max(ids.index(c) for c in current)
    furthest = max(last, (reach or {}).get(name, -1))
    if reach is not None:
        reach[name] = furthest
    items = []
    for i, s in enumerate(spec["stage"]):
        if s["id"] in current:
            cls, extra = ("current revisit" if i < furthest and last < furthest else "current"), ' aria-current="step"'
        elif i < first or i <= furthest:
            cls, extra = "done", ""
        else:
            cls, extra = "todo", ""
        label = escape(s["label"])
        shown = PLAIN_INDEX.sub(r"\1<sub>\2</sub>", str(label))
        code = f' data-code="{escape(s["code"])}"' if s.get("code") else ""
        tip = f"{label} · code: {escape(s['code'])}" if s.get("code") else label
        items.append(
            f'<li class="{cls}" data-stage="{escape(s["id"])}" title="{tip}"{code}{extra}>'
            f'<span class="map-label">{shown}</span></li>'
        )
    title = escape(spec["title"])
    where = f"{ids.index(current[0]) + 1} of {len(ids)}"
    return Markup(
        f'<nav class="map" data-map="{escape(name)}" aria-label="Where we are on the {title}: stage {where}">'
        f'<span class="map-title">{title}</span><ol>{"".join(items)}</ol></nav>'
    )


def code_table(content_dir: Path, name: str) -> dict:
    """The map's stages with the project file (and function) that implements each."""
    spec = load_map(content_dir, name)
    missing = [s["id"] for s in spec["stage"] if not s.get("code")]
    if missing:
        raise ValueError(f'map {name!r}: stage {missing[0]!r} has no code = "file · function"')
    return {"header": ["Box", "Where in the project"], "rows": [[s["label"], s["code"]] for s in spec["stage"]]}
