"""The site's typeface never hides text (issue 36): every @font-face of
assets/fonts.css is font-display: swap, and every page preloads the body face
(the regular upright one), with the same URL fonts.css names, so the preload is
the download the page uses."""

from __future__ import annotations

import re

FACE = re.compile(r"@font-face\s*\{([^}]*)\}")


def test_every_face_swaps_and_every_page_preloads_the_body_face(site_dir):
    css = (site_dir / "assets" / "fonts.css").read_text(encoding="utf-8")
    faces = FACE.findall(css)
    assert len(faces) >= 4
    assert all("font-display:swap" in f.replace(" ", "") for f in faces), faces
    body = [f for f in faces if "font-weight:400" in f and "font-style:normal" in f]
    assert len(body) == 1, faces
    body_url = re.search(r"url\(([^)]+)\)", body[0]).group(1)  # fonts/<hash>.woff?v=<build>
    assert (site_dir / "assets" / body_url.split("?")[0]).is_file()
    pages = sorted(site_dir.glob("**/*.html"))
    assert len(pages) > 10
    for page in pages:
        html = page.read_text(encoding="utf-8")
        if "assets/fonts.css" not in html:
            continue
        preload = re.search(r'<link rel="preload" href="([^"]+)" as="font" type="font/(\w+)" crossorigin>', html)
        assert preload, f"{page.relative_to(site_dir)}: no preload of the body face"
        assert preload.group(1).endswith("assets/" + body_url), (page, preload.group(1), body_url)
        assert body_url.split("?")[0].endswith("." + preload.group(2))
