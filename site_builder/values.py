"""Looking values up in a deck's tables and formatting them, the same way on
every slide (the browser tests format the JSON with the same rule)."""

from __future__ import annotations

import math

from common.numbers import written


def resolve(data: dict, value):
    """A source string "TABLE.key.0" -> (value, source); a tracked value -> (value,
    its path); any other value -> (value, None)."""
    if not isinstance(value, str):
        return value, source_of(value)
    name, *path = value.split(".")
    if name not in data:
        raise ValueError(f"unknown table {name!r} in {value!r}: list it in the deck's front matter `tables`")
    v = data[name]
    for i, key in enumerate(path):
        where = ".".join([name] + path[: i + 1])
        if isinstance(v, list):
            try:
                v = v[int(key)]
            except (ValueError, IndexError) as exc:
                raise ValueError(f"{where}: no list index {key!r}") from exc
        elif isinstance(v, dict):
            if key not in v:
                raise ValueError(f"{where}: no key {key!r}")
            v = v[key]
        else:
            raise ValueError(f"{where}: cannot index into {type(v).__name__}")
    return v, value


def fmt(value, digits: int = 4, group: bool = True) -> str:
    """None -> '—'; bool -> true/false; int or float written as the course writes
    numbers (common/numbers.written): digits grouped with a comma from 1,000 on
    (4,000 stories, step 5,250, 2,224.5 s), a float with ``digits`` fixed decimals,
    no sign on a zero, − for minus; infinity -> ∞; list -> [a, b], its numbers never
    grouped (IDs and shapes: [2, 4000]); anything else -> str."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isinf(value):
        return "−∞" if value < 0 else "∞"
    if isinstance(value, (int, float)):
        return written(value, digits, group)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(fmt(v, digits, group=False) for v in value) + "]"
    return str(value)


def is_unavailable(value) -> bool:
    return isinstance(value, dict) and value.get("available") is False


def table_parts(data: dict, value, header=None) -> dict:
    v, source = resolve(data, value)
    if is_unavailable(v):
        return {"unavailable": v.get("reason", "not measured yet"), "source": source}
    if isinstance(v, dict):
        if "rows" not in v:
            raise ValueError(f"{source or 'table'}: a table dict needs 'rows' (and optionally 'header')")
        rows, hdr = v["rows"], v.get("header") if header is None else header
    else:
        rows, hdr = v, header
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        raise ValueError(f"{source or 'table'}: rows must be a list of lists")
    return {"rows": rows, "header": hdr, "source": source, "unavailable": None}


def bars_parts(data: dict, value, labels=None) -> dict:
    v, source = resolve(data, value)
    if is_unavailable(v):
        return {"unavailable": v.get("reason", "not measured yet"), "source": source}
    if isinstance(v, dict):
        values, labels = v["values"], v.get("labels") if labels is None else labels
    else:
        values = v
    if labels is None:
        labels = [str(i) for i in range(len(values))]
    if len(labels) != len(values):
        raise ValueError(f"{source or 'bars'}: {len(labels)} labels for {len(values)} values")
    top = max([abs(x) for x in values if isinstance(x, (int, float))] + [1e-12])
    widths = [round(100 * abs(x) / top, 2) if isinstance(x, (int, float)) else 0 for x in values]
    return {"values": values, "labels": labels, "widths": widths, "source": source, "unavailable": None}


# ---- numbers that remember where they came from ---------------------------------
# The deck's tables are handed to Jinja "tracked": every int and float (and list)
# knows its JSON path. Printing one ({{ data.t.x }} or m.num) leaves a marker in
# the text that the renderer turns into <span data-source="t.x"> in prose and
# \htmlData{source=t.x} in math, so the site tests compare every printed number
# with its JSON value. Arithmetic on tracked numbers gives plain numbers, which
# have no path: printing those stops the build (compute them in export/tables).

SOURCE_ATTR = "_jpath"


class TInt(int):
    pass


class TFloat(float):
    pass


class TList(list):
    pass


class TDict(dict):
    pass


def track(value, path: str):
    """A copy of a parsed JSON value whose numbers, lists and dicts carry their path."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float, list, dict)):
        if isinstance(value, int):
            out = TInt(value)
        elif isinstance(value, float):
            out = TFloat(value)
        elif isinstance(value, list):
            out = TList(track(v, f"{path}.{i}") for i, v in enumerate(value))
        else:
            out = TDict((k, track(v, f"{path}.{k}")) for k, v in value.items())
        setattr(out, SOURCE_ATTR, path)
        return out
    return value


def source_of(value) -> str | None:
    return getattr(value, SOURCE_ATTR, None) if isinstance(value, (TInt, TFloat, TList, TDict)) else None


def is_plain_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def figure_parts(data: dict, value, phone: bool = True) -> dict:
    """A diagram stored as an SVG string in a table -> {svg: Markup, source};
    with ``phone``, its phone arrangement after it where it has one."""
    from markupsafe import Markup

    v, source = resolve(data, value)
    if is_unavailable(v):
        return {"unavailable": v.get("reason", "not measured yet"), "source": source, "svg": None}
    if not isinstance(v, str) or not v.startswith("<svg") or "<title" not in v or "<desc" not in v:
        raise ValueError(
            f"{source or value!r}: a figure must be an SVG string with <title> and <desc> "
            f"(draw it with export/tables/kit/draw.py)"
        )
    phone = _phone_arrangement(data, value) if phone else None
    if phone:  # drawn twice (kit/draw.py Arranged; the phone one of class figure-phone): site.css shows one
        v = v + phone
    return {"unavailable": None, "source": source or "", "svg": Markup(v)}


PHONE_KEY = "_phone"  # export/tables/kit/draw.py: a figure's phone arrangement sits beside it


def _phone_arrangement(data: dict, value) -> str | None:
    """The phone arrangement stored beside the figure ``value`` names, if any."""
    if not isinstance(value, str) or "." not in value:
        return None
    try:
        v, _ = resolve(data, value + PHONE_KEY)
    except ValueError:
        return None
    return v if isinstance(v, str) and v.startswith("<svg") else None
