"""`make mutate`: mutation testing of the pure code, with a score per module.

Python: mutmut mutates the functions named in PYTHON_TARGETS (configured in
pyproject.toml, [tool.mutmut]); each mutant runs the tests that cover its
function. JavaScript: Stryker mutates web/core/*.js but offline.js (stryker.config.json) and
runs the Node unit tests in tests/js. A mutant is "killed" when a test fails
(a timeout counts as killed: the mutant made the code loop). The goal is at
least 85% killed per module; survivors are listed so that each can be killed
by a new test or explained (docs in README, "Mutation testing").

    python tests/mutate.py            # both
    python tests/mutate.py python     # one side
    python tests/mutate.py report     # reprint the last results without running
"""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL = 0.85

# module -> mutmut mutant-name patterns (the functions under test; methods are
# spelled xǁClassǁmethod by mutmut).
PYTHON_TARGETS = {
    "models/tokenizer.py": ["models.tokenizer.*"],
    "models/corpus.py (split, windows)": [
        "models.corpus.x__key__mutmut_*",
        "models.corpus.x_split_of__mutmut_*",
        "models.corpus.x_make_windows__mutmut_*",
        "models.corpus.xǁCorpusǁ*",
    ],
    "models/train.py (protocol helpers)": [
        f"models.train.x_{name}__mutmut_*"
        for name in ("optimizer_settings", "eval_steps", "mean_loss", "validation_slice", "aggregate", "out_paths")
    ],
    "export/decoding.py": ["export.decoding.*"],
}
KILLED = {"killed", "timeout"}
STRYKER_REPORT = ROOT / "build" / "mutation" / "stryker.json"


def run_mutmut() -> None:
    mutmut = Path(sys.executable).parent / "mutmut"
    patterns = [p for pats in PYTHON_TARGETS.values() for p in pats]
    # one OpenMP thread: torch's thread pool does not survive mutmut's fork, and a
    # worker left spinning turns a killed mutant into a slow timeout
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    # naming the patterns reruns every matching mutant (no stale results)
    subprocess.run([str(mutmut), "run", "--max-children", "2", *patterns], cwd=ROOT, env=env, check=False)


def python_results() -> dict[str, list[tuple[str, str]]]:
    """module -> [(mutant name, status)] from mutmut's result files."""
    sys.path.insert(0, str(ROOT))
    from mutmut.stats import status_by_exit_code

    out = {}
    for module, patterns in PYTHON_TARGETS.items():
        meta = ROOT / "mutants" / (module.split(" ")[0] + ".meta")
        if not meta.exists():
            continue
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        out[module] = [
            (name, status_by_exit_code[code])
            for name, code in sorted(codes.items())
            if any(fnmatch.fnmatch(name, p) for p in patterns)
        ]
    return out


def run_stryker() -> None:
    npx = shutil.which("npx") or "npx"
    subprocess.run([npx, "stryker", "run", "--logLevel", "warn"], cwd=ROOT, check=False)


def js_results() -> dict[str, list[tuple[str, str]]]:
    if not STRYKER_REPORT.exists():
        return {}
    report = json.loads(STRYKER_REPORT.read_text())
    out = {}
    for path, data in sorted(report["files"].items()):
        rel = str(Path(path).resolve().relative_to(ROOT)) if Path(path).is_absolute() else path
        rows = []
        for m in data["mutants"]:
            status = {"Killed": "killed", "Timeout": "timeout", "Survived": "survived", "NoCoverage": "no tests"}.get(
                m["status"], m["status"].lower()
            )
            loc = m["location"]["start"]
            rows.append(
                (f"{rel}:{loc['line']}:{loc['column']} {m['mutatorName']}: {m.get('replacement', '')!r}", status)
            )
        out[rel] = rows
    return out


def report(results: dict[str, list[tuple[str, str]]], show) -> bool:
    ok = True
    for module, rows in results.items():
        counted = [r for r in rows if r[1] not in ("not checked", "skipped", "ignored")]
        killed = sum(status in KILLED for _, status in counted)
        score = killed / len(counted) if counted else 1.0
        ok &= score >= GOAL
        timeouts = sum(status == "timeout" for _, status in counted)
        print(
            f"{module}: {score:.1%} killed ({killed} of {len(counted)}, {timeouts} of them by timeout)"
            + ("" if score >= GOAL else "  < 85%")
        )
        for name, status in counted:
            if status not in KILLED:
                print(f"    {status}: {show(name)}")
    return ok


def show_python(name: str) -> str:
    mutmut = Path(sys.executable).parent / "mutmut"
    proc = subprocess.run([str(mutmut), "show", name], cwd=ROOT, capture_output=True, text=True)
    diff = [
        line for line in proc.stdout.splitlines() if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))
    ]
    return name + "".join(f"\n        {line}" for line in diff)


def main(argv: list[str]) -> int:
    which = argv[0] if argv else "all"
    if which in ("all", "python"):
        run_mutmut()
    if which in ("all", "js"):
        run_stryker()
    print("\n== mutation score per module (goal: 85% killed) ==")
    ok = True
    if which in ("all", "python", "report"):
        ok &= report(python_results(), show_python)
    if which in ("all", "js", "report"):
        ok &= report(js_results(), lambda name: name)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
