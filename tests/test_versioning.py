"""Versioned URLs (issue 25, point 1): every reference between the site's
files carries the build id (?v=<id>), so a page names exactly the files of its
own build; the id follows the contents. The browser side: test_versions_browser.py."""

from __future__ import annotations

import json
import re

from site_builder import versioning
from site_builder.versioning import VERSION_FILE, stamp_text
from support.builds import run_build

FILES = {"core/dom.js", "lab/lab.js", "lab/worker.js", "assets/site.css", "tables/t.json", "vendor/k/f.woff2"}


def test_stamp_text_marks_references_to_site_files_only():
    text = "\n".join(
        [
            "import { el } from '../core/dom.js';",
            'const w = new Worker(new URL("./worker.js", import.meta.url));',
            "// see worker.js for the messages (a comment, not a reference)",
            "fetch('../tables/t.json'); fetch('../tables/absent.json');",
            "import x from 'https://example.org/lab.js';",
            "const t = `./${name}.js`;",
            "@font-face { src: url(../vendor/k/f.woff2) }",
            "fetch('../../outside.js');",
        ]
    )
    out = stamp_text(text, "lab/lab.js", FILES.__contains__, "abc")
    assert out.splitlines() == [
        "import { el } from '../core/dom.js?v=abc';",
        'const w = new Worker(new URL("./worker.js?v=abc", import.meta.url));',
        "// see worker.js for the messages (a comment, not a reference)",
        "fetch('../tables/t.json?v=abc'); fetch('../tables/absent.json');",
        "import x from 'https://example.org/lab.js';",
        "const t = `./${name}.js`;",
        "@font-face { src: url(../vendor/k/f.woff2?v=abc) }",
        "fetch('../../outside.js');",
    ]


def test_every_reference_in_the_built_site_carries_its_build(site_dir):
    build = json.loads((site_dir / VERSION_FILE).read_text())["build"]
    assert re.fullmatch(r"[0-9a-f]{16}", build)
    files = {p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*") if p.is_file()}
    unstamped, stamped = [], 0
    for rel in sorted(files):
        if not rel.endswith(versioning.STAMPED_FILES) or rel.startswith("vendor/"):
            continue
        text = (site_dir / rel).read_text(encoding="utf-8")
        stamped += len(re.findall(rf"\?v={build}\b", text))
        assert not re.search(r"\?v=(?!" + build + r")[0-9a-f]{16}", text), f"{rel} names another build"
        again = stamp_text(text, rel, (files - {versioning.VERSION_FILE}).__contains__, "UNSTAMPED")
        unstamped += [f"{rel}: {line.strip()}" for line in again.splitlines() if "?v=UNSTAMPED" in line]
    assert not unstamped, unstamped[:10]
    assert stamped > 100
    lab = (site_dir / "lab" / "index.html").read_text(encoding="utf-8")
    assert f'src="lab.js?v={build}"' in lab


def test_the_build_id_follows_the_contents(mini, capsys, tmp_path):
    content, tables, out = mini
    ids = []
    for value in (1, 1, 2):
        (tables / "mini.json").write_text(json.dumps({"x": value, "t": {"header": ["a"], "rows": [[1]]}}))
        assert run_build(capsys, content, tables, out, "--no-export")[0] == 0
        ids.append(json.loads((out / VERSION_FILE).read_text())["build"])
        assert f"widgets/loader.js?v={ids[-1]}" in (out / "decks" / "mini.html").read_text(encoding="utf-8")
    assert ids[0] == ids[1] != ids[2]
