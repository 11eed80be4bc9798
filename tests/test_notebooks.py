"""The companion notebooks (notebooks/*.py): each runs clean in a fresh kernel,
its final cell really compares its values with build/tables and fails on a
wrong number, and the site and the code download carry the executed copies.

A notebook whose executed copy in build/notebooks/ was made from exactly the
current inputs (same fingerprint, common.runner's rule: source, the tables its
check reads, project code, tool versions; `make site` writes it) is read from
there; any other is executed here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import zipfile
from pathlib import Path

import nbformat
import pytest

from site_builder import notebooks
from site_builder.archive import ZIP_NAME
from site_builder.assemble import BuildError
from site_builder.build import Inputs, build

ROOT = Path(__file__).resolve().parent.parent
DECKS = sorted(p.stem for p in (ROOT / "content" / "decks").glob("*.md"))
CHECKED = re.compile(r"^(ok  |DIFF) (\S+)$", re.M)
ALL_MATCH = re.compile(r"all (\d+) values match the deck's tables")


def test_every_deck_has_a_notebook():
    assert DECKS, "no decks found"
    assert [p.stem for p in notebooks.sources()] == DECKS


def executed(name: str):
    """The executed notebook for the current inputs (built copy if fresh, else run now)."""
    source = notebooks.SOURCES / f"{name}.py"
    if notebooks.is_fresh(source):
        return nbformat.read(str(notebooks.OUT / f"{name}.ipynb"), as_version=4)
    return notebooks.execute(source)


def final_output(nb) -> str:
    last = [c for c in nb.cells if c.cell_type == "code"][-1]
    return "".join(o.get("text", "") for o in last.outputs if o.get("output_type") == "stream")


@pytest.mark.parametrize("name", DECKS)
def test_notebook_runs_clean_and_matches_its_deck(name):
    nb = executed(name)
    assert notebooks.errors(nb) == []
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code), "a cell did not run"
    text = final_output(nb)
    checked = CHECKED.findall(text)
    match = ALL_MATCH.search(text)
    assert match, f"{name}: the final check cell did not report success:\n{text[-2000:]}"
    # the check is not vacuous: it names every value it compared, all ok, and there are many
    assert int(match.group(1)) == len(checked) >= 10
    assert all(status == "ok  " for status, _ in checked)
    assert len({key.split(".")[0] for _, key in checked}) >= 3, "values from at least three tables"
    # something is shown on the way: most code cells print their intermediate values
    shown = sum(1 for c in code if any(o.get("output_type") == "stream" for o in c.outputs))
    assert shown >= len(code) - 2


def tampered_tables(tmp_path: Path, table: str, path: list, factor: float) -> Path:
    tables = tmp_path / "tables"
    shutil.copytree(notebooks.TABLES, tables)
    data = json.loads((tables / f"{table}.json").read_text(encoding="utf-8"))
    node = data
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = node[path[-1]] * factor
    (tables / f"{table}.json").write_text(json.dumps(data), encoding="utf-8")
    return tables


def test_a_wrong_number_in_the_deck_fails_the_notebook(tmp_path):
    """The maps deck's target probability (0.1444295) off by 0.1 %: the fresh
    kernel's final cell must raise and name it. Run from another folder."""
    tables = tampered_tables(tmp_path, "maps_mlp", ["example1", "target_probability"], 1.001)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with pytest.raises(notebooks.NotebookError) as info:
        notebooks.execute(notebooks.SOURCES / "maps.py", tables=tables, cwd=elsewhere)
    message = str(info.value)
    assert "maps.py" in message and "AssertionError" in message
    assert "maps_mlp.example1.target_probability" in message
    assert "1 value(s) differ" in message  # the other values still matched


def tiny_notebook(folder: Path, body: str = "print(json.loads((TABLES / 't.json').read_text())['x'])") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "tiny.py"
    source.write_text(
        "# %% [markdown]\n# A tiny notebook.\n\n# %%\nimport json, os\nfrom pathlib import Path\n"
        "TABLES = Path(os.environ['COURSE_TABLES'])\n\n# %%\n" + body + "\n",
        encoding="utf-8",
    )
    return source


def test_only_changed_notebooks_are_executed_again(tmp_path):
    folder, tables, out = tmp_path / "nb", tmp_path / "tables", tmp_path / "out"
    tiny_notebook(folder)
    tables.mkdir()
    (tables / "t.json").write_text('{"x": 1}', encoding="utf-8")
    first = notebooks.run_all(folder, tables, out, log=lambda *_: None)
    assert first["tiny"] is not None and (out / "tiny.ipynb").is_file()
    nb = nbformat.read(str(out / "tiny.ipynb"), as_version=4)
    nbformat.validate(nb)
    assert final_output(nb) == "1\n"
    assert notebooks.run_all(folder, tables, out, log=lambda *_: None)["tiny"] is None  # cached
    (tables / "t.json").write_text('{"x": 2}', encoding="utf-8")  # a table changed
    assert notebooks.run_all(folder, tables, out, log=lambda *_: None)["tiny"] is not None
    assert final_output(nbformat.read(str(out / "tiny.ipynb"), as_version=4)) == "2\n"
    assert notebooks.run_all(folder, tables, out, force=True, log=lambda *_: None)["tiny"] is not None


def test_two_runs_of_one_notebook_write_the_same_bytes(tmp_path):
    """Cell ids are the notebook's name and index, not nbformat's random ones, and a
    cell's output printed across a pause is one stream output, so two clones of a
    commit build the same notebooks (issue 38 item 10: build ids differed)."""
    folder, tables = tmp_path / "nb", tmp_path / "tables"
    tiny_notebook(folder, "import time\nprint('a', flush=True)\ntime.sleep(0.5)\nprint('b', flush=True)")
    tables.mkdir()
    (tables / "t.json").write_text('{"x": 1}', encoding="utf-8")
    written = []
    for out in (tmp_path / "one", tmp_path / "two"):
        notebooks.run_all(folder, tables, out, log=lambda *_: None)
        written.append((out / "tiny.ipynb").read_bytes())
    assert written[0] == written[1]
    nb = nbformat.read(str(tmp_path / "one" / "tiny.ipynb"), as_version=4)
    nbformat.validate(nb)
    assert [c.id for c in nb.cells] == [f"tiny-{i}" for i in range(len(nb.cells))]
    assert [o.text for o in nb.cells[-1].outputs] == ["a\nb\n"]


def test_a_notebook_depends_on_the_tables_its_check_reads(tmp_path):
    """A notebook whose final check compares values of table t is executed
    again when t changes, not when another table does."""
    folder, tables, out = tmp_path / "nb", tmp_path / "tables", tmp_path / "out"
    tiny_notebook(
        folder,
        body="from site_builder.notebook_check import check\n"
        "check({'t.x': json.loads((TABLES / 't.json').read_text())['x']}, tables=TABLES)",
    )
    tables.mkdir()
    (tables / "t.json").write_text('{"x": 1, "y": 1}', encoding="utf-8")
    (tables / "u.json").write_text('{"z": 1}', encoding="utf-8")
    assert notebooks.run_all(folder, tables, out, log=lambda *_: None)["tiny"] is not None
    assert json.loads((out / "tiny.stamp.json").read_text())["tables"] == ["t"]
    (tables / "u.json").write_text('{"z": 2}', encoding="utf-8")  # a table it does not read
    assert notebooks.run_all(folder, tables, out, log=lambda *_: None)["tiny"] is None
    (tables / "t.json").write_text('{"x": 1, "y": 2}', encoding="utf-8")  # the table it checks
    assert notebooks.run_all(folder, tables, out, log=lambda *_: None)["tiny"] is not None


def test_fingerprint_follows_source_tables_and_code(tmp_path):
    source = tiny_notebook(tmp_path / "nb")
    tables = tmp_path / "tables"
    tables.mkdir()
    (tables / "t.json").write_text('{"x": 1}', encoding="utf-8")
    root = tmp_path / "root"
    (root / "models").mkdir(parents=True)
    (root / "models" / "nets.py").write_text("A = 1\n", encoding="utf-8")
    base = notebooks.fingerprint(source, tables, root)
    assert notebooks.fingerprint(source, tables, root) == base
    st = source.stat()
    os.utime(source, ns=(st.st_atime_ns, st.st_mtime_ns + 10**10))  # touched only: the same
    assert notebooks.fingerprint(source, tables, root) == base
    (tables / "t.json").write_text('{"x": 1.0}', encoding="utf-8")
    after_table = notebooks.fingerprint(source, tables, root)
    (root / "models" / "nets.py").write_text("A = 2\n", encoding="utf-8")
    after_code = notebooks.fingerprint(source, tables, root)
    source.write_text(source.read_text() + "\n", encoding="utf-8")
    after_source = notebooks.fingerprint(source, tables, root)
    assert len({base, after_table, after_code, after_source}) == 4
    assert notebooks.fingerprint(source, tables, root, read=[]) != after_source  # the tables it reads count


def test_a_failing_notebook_stops_the_step_and_writes_nothing(tmp_path):
    folder, tables, out = tmp_path / "nb", tmp_path / "tables", tmp_path / "out"
    tiny_notebook(folder, body="raise ValueError('deliberate')")
    tables.mkdir()
    (tables / "t.json").write_text('{"x": 1}', encoding="utf-8")
    with pytest.raises(notebooks.NotebookError, match=r"(?s)tiny\.py: CellExecutionError.*ValueError: deliberate"):
        notebooks.run_all(folder, tables, out, log=lambda *_: None)
    assert not (out / "tiny.ipynb").exists()
    assert notebooks.main(["--tables", str(tmp_path / "absent")]) == 1


def test_the_site_build_requires_the_executed_notebooks(tmp_path):
    empty = tmp_path / "notebooks"
    empty.mkdir()
    with pytest.raises(BuildError, match="no executed notebooks"):
        build(Inputs(export=None, out=tmp_path / "site", notebooks=empty))
    assert not (tmp_path / "site").exists()


def test_site_and_code_download_carry_the_executed_notebooks(site_dir):
    with zipfile.ZipFile(site_dir / "downloads" / ZIP_NAME) as zf:
        names = set(zf.namelist())
        for name in DECKS:
            served = site_dir / "notebooks" / f"{name}.ipynb"
            assert served.is_file(), f"{served} missing: decks link to it"
            nb = nbformat.read(str(served), as_version=4)
            nbformat.validate(nb)
            assert notebooks.errors(nb) == [] and ALL_MATCH.search(final_output(nb))
            assert served.read_bytes() == (notebooks.OUT / f"{name}.ipynb").read_bytes()
            assert f"attention-course/notebooks/{name}.py" in names
            assert zf.read(f"attention-course/notebooks/{name}.ipynb") == served.read_bytes()


def test_every_notebook_link_in_the_site_resolves(site_dir):
    """Decks and reading views link to notebooks/<deck>.ipynb; each target exists."""
    link = re.compile(r'href="([^"#?]*notebooks/[^"#?]+\.ipynb)"')
    for page in sorted(site_dir.rglob("*.html")):
        for href in link.findall(page.read_text(encoding="utf-8")):
            assert (page.parent / href).resolve().is_file(), f"{page.relative_to(site_dir)} links to missing {href}"


def kernels_of(pid: int) -> list[int]:
    """The ipykernel processes whose parent is ``pid``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == pid and b"ipykernel" in cmdline:
            found.append(int(stat.parent.name))
    return found


def test_sigterm_while_a_notebook_runs_stops_it_with_one_line_and_no_kernel_left(tmp_path):
    """Ctrl-C or SIGTERM in the middle of a notebook (issue 38.10): the stage
    ends at once with one line naming the notebook, no traceback, exit 130, no
    kernel left running and nothing written for the interrupted notebook."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "notebooks"
    proc = subprocess.Popen(
        [sys.executable, "-m", "site_builder.notebooks", "--force", "--only", "maps", "--out", str(out)],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not kernels_of(proc.pid):
            assert proc.poll() is None and time.monotonic() < deadline, "the notebook's kernel never started"
            time.sleep(0.2)
        kernel = kernels_of(proc.pid)[0]
        time.sleep(1.0)  # the notebook is running its cells
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "stopped (Ctrl-C or SIGTERM) while maps.py ran" in err, err
    assert not Path(f"/proc/{kernel}").exists() or b"ipykernel" not in Path(f"/proc/{kernel}/cmdline").read_bytes()
    assert not (out / "maps.ipynb").exists()
