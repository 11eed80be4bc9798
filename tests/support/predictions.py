"""What the prediction tests share (tests/test_predictions.py and
tests/test_predictions_browser.py): the decks, a table value by its source
path, and the right choice recomputed from the values."""

from __future__ import annotations

DECKS = ["maps", "part2", "part3", "results"]


def lookup(table, source: str):
    """build/tables' value at a source path "TABLE.key.0" (read by the test itself)."""
    name, *path = source.split(".")
    value = table(name)
    for key in path:
        value = value[int(key)] if isinstance(value, list) else value[key]
    return value


def expected_choice(pick: str, values: list[float]) -> int:
    if pick == "change":
        assert values[0] != values[1]
        return 0 if values[1] > values[0] else 1
    best = max(values) if pick == "max" else min(values)
    assert values.count(best) == 1
    return values.index(best)
