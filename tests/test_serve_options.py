"""Every option of `python -m site_builder.serve` bounded like the port (issue
37 item 3): an interval of 0, a negative one, NaN or infinity would make the
watcher spin the CPU (or never look); each is refused by name, at once."""

from __future__ import annotations

import subprocess
import sys

import pytest

from common.settings import ROOT
from site_builder import serve


@pytest.mark.parametrize("bad", ["0", "-1", "nan", "inf", "0.001", "1e9", "soon"])
def test_a_bad_interval_is_refused_by_name(bad):
    proc = subprocess.run(
        [sys.executable, "-m", "site_builder.serve", "--port", "0", "--interval", bad],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "--interval" in proc.stderr and repr(bad) in proc.stderr, proc.stderr
    assert "serving" not in proc.stdout


@pytest.mark.parametrize("good", ["0.05", "0.2", "1", "3600"])
def test_a_sensible_interval_is_taken(good):
    assert serve.interval_seconds(good) == float(good)
