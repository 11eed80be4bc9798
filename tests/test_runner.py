"""The build runner (common/runner.py, stages in common/stages.py): one
fingerprint rule (content hashes of a stage's inputs and code, its arguments
and tools), a stage skipped while its fingerprint and outputs are unchanged,
a rerun that reruns the later stages whose inputs it changed, a failure that
records nothing. Tiny fake stages in a temporary project, so this takes seconds;
then the real stage table."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from common import runner
from common.runner import Runner, code_files, expand, fingerprint
from common.settings import ROOT
from common.stages import NAMES, STAGES, TRACKED, Stage, stage

pytestmark = pytest.mark.build

# first: src/in.txt -> build/a.txt (upper case); second: build/a.txt + src/other.txt -> build/b.txt
FIRST = """\
import sys
from pathlib import Path

from fake.helper import SUFFIX

with open("runs.log", "a") as log:
    log.write("first\\n")
text = Path("src/in.txt").read_text()
if "fail" in text:
    print("first: refusing", file=sys.stderr)
    sys.exit(3)
Path("build").mkdir(exist_ok=True)
Path("build/a.txt").write_text(text.upper() + SUFFIX)
"""
SECOND = """\
from pathlib import Path

with open("runs.log", "a") as log:
    log.write("second\\n")
Path("build/b.txt").write_text(Path("build/a.txt").read_text() + "|" + Path("src/other.txt").read_text())
"""
STAGE_TABLE = (
    Stage("first", "fake.first", inputs=("src/in.txt",), code=("fake/first.py",), outputs=("build/a.txt",)),
    Stage(
        "second",
        "fake.second",
        inputs=("build/a.txt", "src/other.txt"),
        code=("fake/second.py",),
        outputs=("build/b.txt",),
    ),
)


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "project"
    for name, text in {
        "fake/__init__.py": "",
        "fake/helper.py": "SUFFIX = '!'\n",
        "fake/first.py": FIRST,
        "fake/second.py": SECOND,
        "src/in.txt": "abc",
        "src/other.txt": "x",
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def runs(root: Path) -> list[str]:
    """The stages that ran since the last call (each fake stage logs itself)."""
    log = root / "runs.log"
    lines = log.read_text().split() if log.exists() else []
    log.unlink(missing_ok=True)
    return lines


def make_runner(root: Path, lines: list[str] | None = None) -> Runner:
    return Runner(STAGE_TABLE, root=root, log=(lines.append if lines is not None else lambda *_: None))


def later(path: Path, seconds: int = 100) -> None:
    """Move a file's modification time, its bytes untouched."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns + seconds * 10**9, st.st_mtime_ns + seconds * 10**9))


def test_the_fingerprint_follows_content_and_code_not_modification_times(project):
    first = STAGE_TABLE[0]

    def fp():
        return fingerprint(first.inputs, first.code, first.args, first.tools, project).digest

    base = fp()
    assert fp() == base
    later(project / "src" / "in.txt")
    later(project / "fake" / "first.py")
    assert fp() == base  # touched, same bytes: unchanged
    (project / "src" / "in.txt").write_text("abd")
    after_input = fp()
    (project / "fake" / "helper.py").write_text("SUFFIX = '?'\n")  # a module the stage's code imports
    after_code = fp()
    after_args = fingerprint(first.inputs, first.code, ["--other"], (), project).digest
    after_tools = fingerprint(first.inputs, first.code, (), ["pytest"], project).digest
    assert len({base, after_input, after_code, after_args, after_tools}) == 5
    # the code a stage runs is what it names plus every project module it imports, packages included
    assert list(code_files(first.code, project)) == ["fake/__init__.py", "fake/first.py", "fake/helper.py"]
    # a named input that does not exist is part of it: its appearance is a change
    missing = fingerprint(["src/later.txt"], root=project)
    assert missing.inputs == {"src/later.txt": None}
    (project / "src" / "later.txt").write_text("")
    assert fingerprint(["src/later.txt"], root=project).digest != missing.digest


def test_an_unchanged_stage_is_skipped_and_a_change_reruns_what_depends_on_it(project):
    lines = []
    r = make_runner(project, lines)
    assert r.run() == 0 and runs(project) == ["first", "second"]
    assert (project / "build" / "b.txt").read_text() == "ABC!|x"
    record = json.loads((project / "build" / ".stages" / "first.json").read_text())
    assert record["fingerprint"] == r.fingerprint(STAGE_TABLE[0]).digest
    assert set(record["inputs"]) == {"src/in.txt"} and "fake/helper.py" in record["code"]
    assert "runner: first ran in" in "\n".join(lines)

    lines.clear()
    assert r.run() == 0 and runs(project) == []  # nothing changed: both skipped
    assert lines == ["runner: first skipped: unchanged", "runner: second skipped: unchanged"]
    for path in (project / "src").iterdir():
        later(path)
    assert r.run() == 0 and runs(project) == []  # only modification times moved
    assert r.stale() == []

    (project / "src" / "other.txt").write_text("y")  # an input of the second stage only
    assert r.stale() == ["second"]
    assert r.run() == 0 and runs(project) == ["second"]
    assert (project / "build" / "b.txt").read_text() == "ABC!|y"

    (project / "src" / "in.txt").write_text("abd")  # the first stage's input: its new output reruns the second
    lines.clear()
    assert r.run() == 0 and runs(project) == ["first", "second"]
    assert "runner: first runs `python -m fake.first` (input changed: src/in.txt)" in lines
    assert "runner: second runs `python -m fake.second` (input changed: build/a.txt)" in lines
    (project / "src" / "in.txt").write_text("ABD")  # reruns the first, whose output stays the same
    assert r.run() == 0 and runs(project) == ["first"]

    (project / "fake" / "helper.py").write_text("SUFFIX = '?'\n")  # code the first stage imports
    assert r.run() == 0 and runs(project) == ["first", "second"]
    assert (project / "build" / "b.txt").read_text() == "ABD?|y"

    (project / "build" / "b.txt").write_text("damaged")  # an output that is no longer what the stage left
    assert r.stale() == ["second"] and r.run() == 0 and runs(project) == ["second"]
    (project / "build" / "b.txt").unlink()
    assert r.run() == 0 and runs(project) == ["second"]

    assert r.run(force=["second"]) == 0 and runs(project) == ["second"]
    assert r.run(start="first") == 0 and runs(project) == ["first", "second"]
    assert r.run(only=["second"], force=["second"]) == 0 and runs(project) == ["second"]
    with pytest.raises(KeyError, match="no stage named 'third'"):
        r.run(only=["third"])


def test_a_failed_stage_records_nothing_and_is_retried(project):
    lines = []
    r = make_runner(project, lines)
    assert r.run() == 0 and runs(project) == ["first", "second"]
    records = project / "build" / ".stages"
    (project / "src" / "in.txt").write_text("fail")
    assert r.run() == 3  # the stage's own exit status
    assert runs(project) == ["first"]  # the second never ran
    assert not (records / "first.json").exists()  # no record: the next run tries again
    assert (project / "build" / "a.txt").read_text() == "ABC!"  # its output as it was
    assert lines[-1] == "runner: first failed (exit status 3) after " + lines[-1].split(" after ")[1]
    assert lines[-1].endswith("; nothing recorded, not run: second")
    assert r.run() == 3 and runs(project) == ["first"]
    (project / "src" / "in.txt").write_text("abc")  # back to the input of its last success: it still reruns
    assert r.run() == 0 and runs(project) == ["first"]  # and the second, whose input came back the same, does not
    assert r.stale() == []


# ---------------------------------------------------------------- the real stages


SLOW = """\
import os
import sys
import time

sys.path.insert(0, os.environ["COURSE_ROOT"])
from common import children

open("stage.pid", "w").write(str(os.getpid()))
children.run([sys.executable, "-c", "import os, time; open('child.pid', 'w').write(str(os.getpid())); time.sleep(120)"])
"""
HARNESS = """\
import sys

sys.path.insert(0, sys.argv[1])
from common.runner import Runner
from common.stages import Stage

slow = Stage("slow", "fake.slow", inputs=("src/in.txt",), code=("fake/slow.py",), outputs=("build/slow.txt",))
Runner((slow,), root=sys.argv[2]).run()
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_killed_runner_leaves_no_stage_or_child_of_a_stage_running(project, tmp_path):
    """kill -9 of the runner (no cleanup runs) ends the stage it started and the
    process that stage started (a training run, a notebook kernel) within seconds,
    so no orphan writes into build/ after the build lock is free (issue 37 item 2)."""
    import signal
    import subprocess
    import time

    (project / "fake" / "slow.py").write_text(SLOW)
    harness = tmp_path / "harness.py"
    harness.write_text(HARNESS)
    env = dict(os.environ, COURSE_ROOT=str(ROOT))
    proc = subprocess.Popen([sys.executable, str(harness), str(ROOT), str(project)], cwd=project, env=env)
    try:
        deadline = time.monotonic() + 60
        while not (project / "child.pid").exists() or not (project / "child.pid").read_text():
            assert proc.poll() is None and time.monotonic() < deadline, "the slow stage did not start its child"
            time.sleep(0.1)
        stage, child = (int((project / f"{n}.pid").read_text()) for n in ("stage", "child"))
        assert _alive(stage) and _alive(child)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 15
        while (_alive(stage) or _alive(child)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(stage), "the stage outlived the killed runner"
        assert not _alive(child), "the stage's child outlived the killed runner"
    finally:
        proc.kill()
        for name in ("stage", "child"):
            path = project / f"{name}.pid"
            if path.exists() and path.read_text() and _alive(int(path.read_text())):
                os.kill(int(path.read_text()), signal.SIGKILL)


def test_the_stage_table_names_what_each_stage_reads_and_runs():
    assert NAMES == ("models", "export", "experiments", "tables", "notebooks", "site")
    for s in STAGES:
        module = s.module.replace(".", "/")
        assert (ROOT / f"{module}.py").is_file() or (ROOT / module / "__main__.py").is_file(), s.module
        for pattern in s.inputs + s.code:  # every source input exists (build outputs appear during the build)
            if not pattern.startswith("build/") and pattern not in (TRACKED, "node_modules/.package-lock.json"):
                assert expand([pattern], ROOT) and all(p.exists() for p in expand([pattern], ROOT).values()), pattern
        assert s.outputs
    code = {s.name: code_files(s.code, ROOT) for s in STAGES}
    # followed imports: the tables' kit, the shared settings; the deck packages by their glob
    assert {"export/tables/kit/draw.py", "export/tables/maps/figures.py", "common/settings.py"} <= set(code["tables"])
    assert "models/nets.py" in code["export"] and "export/onnx_export.py" in code["export"]
    assert "export/experiments.py" not in code["export"]  # the experiments are a stage of their own
    assert "site_builder/notebook_check.py" in code["notebooks"]
    assert not any(k.startswith("site_builder/") for k in code["tables"])  # nothing downstream runs upstream
    # every stage's outputs are inputs of a later one: bench.json feeds the tables, the tables the notebooks and site
    inputs = {s.name: expand(s.inputs, ROOT) for s in STAGES}
    assert "bench/bench.json" in inputs["tables"] and "build/experiments/experiments.json" in inputs["tables"]
    assert "content/decks/maps.md" in inputs["site"] and "README.md" in inputs["site"]  # the code download
    assert stage("notebooks").force_args == ("--force",)


def test_what_makes_a_notebook_stale_reruns_the_notebooks_stage():
    """Each notebook's fingerprint (site_builder/notebooks.py CODE) reads no file the
    stage's own fingerprint skips: otherwise an edit there (models/trace_check.py, say)
    left the stage skipped and every notebook stale, to be executed by a later,
    unrelated rerun of the stage."""
    from site_builder.notebooks import CODE

    notebooks = stage("notebooks")
    staged = set(expand(notebooks.inputs, ROOT)) | set(code_files(notebooks.code, ROOT))
    read = set(expand(list(CODE), ROOT))
    assert read and read <= staged, sorted(read - staged)


def test_the_command_line_names_each_stage(capsys):
    assert runner.main(["--list"]) == 0
    out = capsys.readouterr().out
    assert all(f"{name}: python -m {stage(name).module}" in out for name in NAMES)
    with pytest.raises(SystemExit):
        runner.main(["--force", "nothing"])
    assert "invalid choice: 'nothing'" in capsys.readouterr().err


def test_a_stage_imports_the_runners_tree(project):
    """Stages run with the runner's interpreter and the project root first on PYTHONPATH."""
    (project / "fake" / "where.py").write_text(
        "import fake, pathlib, sys\npathlib.Path('where.txt').write_text(fake.__file__)\n"
    )
    r = Runner((Stage("where", "fake.where", outputs=("where.txt",)),), root=project, log=lambda *_: None)
    assert r.run() == 0 and r.python == sys.executable
    assert Path((project / "where.txt").read_text()) == project / "fake" / "__init__.py"


def test_serve_builds_the_site_stage_that_make_site_builds():
    """With default options, `make serve`'s site stage has make site's fingerprint and outputs,
    so neither rebuilds what the other just built; site options become its arguments."""
    from site_builder.__main__ import parse_args
    from site_builder.serve import runner_for

    served = runner_for(parse_args([]), [])
    site = stage("site")
    mine = next(s for s in served.stages if s.name == "site")
    assert [s.name for s in served.stages] == list(NAMES)
    assert served.fingerprint(mine).digest == Runner().fingerprint(site).digest
    assert list(served.outputs(mine)) == list(Runner().outputs(site))
    other = next(s for s in runner_for(parse_args(["--no-export"]), ["--no-export"]).stages if s.name == "site")
    assert other.args == ("--no-export",) and served.fingerprint(other).digest != served.fingerprint(mine).digest
