"""Check that every package pinned in pyproject.toml publishes a wheel for each
Python version that `requires-python` admits (CPython 3.11, 3.12, 3.13 on
manylinux x86_64), so `pip install -e .` never has to compile anything.

    python .ci/check_wheels.py            # all pins, the default Pythons
    python .ci/check_wheels.py 3.13       # one Python version

It reads the wheel file names from PyPI's simple index (JSON) (no multi-gigabyte download of
torch) and matches their tags with `packaging`, as pip would. Exits 1 and names
each pin without a wheel; needs network access to pypi.org.
"""

from __future__ import annotations

import json
import sys
import tomllib
import urllib.request
from pathlib import Path

from packaging.requirements import Requirement
from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PYTHONS = ("3.11", "3.12", "3.13")
# the manylinux tags pip accepts on an x86_64 Linux with glibc 2.40 (older glibc tags included)
PLATFORMS = [f"manylinux_2_{minor}_x86_64" for minor in range(40, 4, -1)] + [
    "manylinux2014_x86_64",
    "manylinux2010_x86_64",
    "manylinux1_x86_64",
    "linux_x86_64",
]


def pins(pyproject: Path = ROOT / "pyproject.toml") -> list[Requirement]:
    """Every `name==version` of the runtime dependencies and the extras."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    lines = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        lines += extra
    found = [Requirement(line) for line in lines]
    for req in found:
        if len(req.specifier) != 1 or next(iter(req.specifier)).operator != "==":
            raise SystemExit(f"pyproject.toml: {req} is not pinned with ==")
    return found


def supported(python: str) -> set[Tag]:
    version = tuple(int(p) for p in python.split("."))
    return set(cpython_tags(version, platforms=PLATFORMS)) | set(compatible_tags(version, platforms=PLATFORMS))


def wheel_files(name: str, version: str) -> list[str]:
    """The wheel file names of one release, from PyPI's simple index (PEP 691 JSON)."""
    request = urllib.request.Request(
        f"https://pypi.org/simple/{canonicalize_name(name)}/",
        headers={"Accept": "application/vnd.pypi.simple.v1+json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        index = json.load(response)
    wanted = Version(version)
    return [
        f["filename"]
        for f in index["files"]
        if f["filename"].endswith(".whl") and parse_wheel_filename(f["filename"])[1] == wanted
    ]


def has_wheel(files: list[str], tags: set[Tag]) -> bool:
    return any(parse_wheel_filename(f)[3] & tags for f in files)


def main(argv: list[str]) -> int:
    pythons = argv or list(PYTHONS)
    failures = []
    for req in pins():
        version = next(iter(req.specifier)).version
        files = wheel_files(req.name, version)
        for python in pythons:
            ok = has_wheel(files, supported(python))
            print(f"{'ok  ' if ok else 'NONE'} {req.name}=={version} Python {python}")
            if not ok:
                failures.append(f"{req.name}=={version} has no wheel for Python {python}")
    for line in failures:
        print(f"error: {line}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
