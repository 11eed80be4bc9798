"""site_builder/notebook_check.py, the last cell of every notebook: keys walk into
the tables, '*' collects a field, special tables are read by their own rule,
and a differing value is printed as DIFF and named in the error."""

from __future__ import annotations

import json

import pytest

from site_builder import notebook_check


@pytest.fixture
def tables(tmp_path):
    (tmp_path / "toy.json").write_text(
        json.dumps(
            {
                "loss": 1.2345678,
                "rows": [[1, 2], [3, 4]],
                "heads": [{"name": "a", "w": 1}, {"name": "b", "w": 2}],
                "nested": {"x": {"y": [0.5, 0.25]}},
            }
        ),
        encoding="utf-8",
    )
    (tmp_path / "runs.json").write_text(
        json.dumps({"rows": [["mlp", 11, "4.1"], ["mlp", 12, "4.3"]]}), encoding="utf-8"
    )
    return tmp_path


def test_lookup_walks_keys_indices_and_stars(tables):
    assert notebook_check.lookup("toy.loss", tables) == 1.2345678
    assert notebook_check.lookup("toy.rows.1.0", tables) == 3
    assert notebook_check.lookup("toy.heads.*.name", tables) == ["a", "b"]
    assert notebook_check.lookup("toy.nested.x.y", tables) == [0.5, 0.25]
    seed12 = lambda table, path: next(r[2] for r in table["rows"] if r[1] == int(path[-1]))  # noqa: E731
    assert notebook_check.lookup("runs.seed.12", tables, {"runs": seed12}) == "4.3"


def test_same_is_relative_for_floats_and_exact_otherwise():
    assert notebook_check.same(1.0 + 5e-7, 1.0)
    assert not notebook_check.same(1.0 + 5e-6, 1.0)
    assert notebook_check.same([1.0, (2, "x")], [1.0, [2, "x"]])
    assert not notebook_check.same([1.0, 2.0], [1.0])
    assert notebook_check.same({"a": 0.1}, {"a": 0.1 + 1e-12})
    assert not notebook_check.same({"a": 1}, {"b": 1})
    assert not notebook_check.same("4.10", "4.1")  # shown digits compare as text


def test_check_prints_every_key_and_raises_naming_the_differences(tables, capsys, monkeypatch):
    notebook_check.check({"toy.loss": 1.2345678, "toy.heads.*.w": [1, 2]}, tables=tables)
    out = capsys.readouterr().out
    assert "ok   toy.loss" in out and "ok   toy.heads.*.w" in out
    assert "all 2 values match the deck's tables" in out
    with pytest.raises(AssertionError, match=r"1 value\(s\) differ from .*: toy.rows.0.1$"):
        notebook_check.check({"toy.loss": 1.2345678, "toy.rows.0.1": 5}, tables=tables)
    assert "DIFF toy.rows.0.1" in capsys.readouterr().out
    monkeypatch.setenv(notebook_check.TABLES_ENV, str(tables))  # the folder site_builder.notebooks passes
    assert notebook_check.tables_dir() == tables
