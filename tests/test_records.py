"""The records module (models/records.py): one field checker for the three
record files, and no import circle among the models/ modules (the training
launcher lives in models/launch.py, so ensure and reproduce stay apart)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from common.settings import ROOT
from models.records import NUMBER, check_fields

MODELS_PACKAGE = ROOT / "models"


def imports_of(path: Path) -> set[str]:
    """The models/ modules ``path`` imports, anywhere in the file (function-level imports included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:  # from .nets import ... / from . import numerics
                names = [node.module] if node.module else [alias.name for alias in node.names]
            elif node.level == 0 and node.module == "models":  # from models import train
                names = [alias.name for alias in node.names]
            elif node.level == 0 and (node.module or "").startswith("models."):  # from models.nets import ...
                names = [node.module.split(".")[1]]
            else:
                continue
            found.update(name.split(".")[0] for name in names)
        elif isinstance(node, ast.Import):  # import models.nets
            found.update(alias.name.split(".")[1] for alias in node.names if alias.name.startswith("models."))
    return found & {p.stem for p in MODELS_PACKAGE.glob("*.py")}


def test_no_import_circle_among_the_models_modules():
    graph = {p.stem: imports_of(p) - {p.stem} for p in MODELS_PACKAGE.glob("*.py")}
    assert "launch" in graph["ensure"] and "launch" in graph["reproduce"]
    assert "reproduce" not in graph["ensure"] and "ensure" not in graph["reproduce"]
    state: dict[str, str] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = "open"
        for other in sorted(graph[module]):
            if state.get(other) == "open":
                pytest.fail("import circle: " + " -> ".join([*path, module, other][path.index(other) :]))
            if other not in state:
                visit(other, [*path, module])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [])


def test_the_import_graph_reader_sees_every_form():
    assert {"train", "numerics", "records", "nets"} <= imports_of(MODELS_PACKAGE / "trace_check.py")


@pytest.mark.parametrize(
    "obj, problem",
    [
        ([], "x is not an object"),
        ({"n": 1}, "x.s is missing (no field 's')"),
        ({"s": "a", "n": True, "f": 1.0}, "x.n has the wrong type (bool, expected int)"),
        ({"s": "a", "n": 1, "f": "1"}, "x.f has the wrong type (str, expected a number)"),
        ({"s": "a", "n": 1, "f": float("inf")}, "x.f is not finite"),
        ({"s": "a", "n": 1, "f": False}, "x.f has the wrong type (bool, expected a number)"),
    ],
)
def test_the_field_checker_names_the_field(obj, problem):
    def fail(message):
        raise ValueError(message)

    with pytest.raises(ValueError) as info:
        check_fields(obj, {"s": str, "n": int, "f": NUMBER}, "x", fail)
    assert str(info.value) == problem
    check_fields({"s": "a", "n": 1, "f": 2}, {"s": str, "n": int, "f": NUMBER}, "x", fail)  # an int is a number
