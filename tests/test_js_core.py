"""The Node unit tests of web/core (tests/js/*.test.mjs, node:test) as part of
the pytest suite. They are also what Stryker runs against each mutant
(`make mutate`)."""

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_web_core_node_unit_tests_pass():
    node = shutil.which("node")
    assert node, "Node.js is required for the web/core unit tests"
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "js").glob("*.test.mjs"))
    assert len(files) >= 4
    proc = subprocess.run([node, "--test", *files], cwd=ROOT, capture_output=True, text=True, timeout=300)
    summary = [line for line in proc.stdout.splitlines() if line.startswith(("# pass", "# fail"))]
    assert proc.returncode == 0 and summary == ["# pass " + summary[0].split()[-1], "# fail 0"], (
        proc.stdout[-4000:] + proc.stderr[-2000:]
    )
    assert int(summary[0].split()[-1]) >= 30
