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


def test_every_face_is_a_woff2_subset_that_keeps_every_character_of_the_course(site_dir):
    """The faces are served as WOFF2 subsets (site_builder/fonts.py SUBSET_RANGES):
    each file maps exactly the theme's characters inside the course's ranges (none
    dropped, none outside), its @font-face names that range, it is under a half of
    the theme's WOFF, and every character of every page's text that the theme's
    face can draw is in the subset."""
    import base64
    import io

    from fontTools.ttLib import TTFont

    from site_builder.assemble import NODE_MODULES
    from site_builder.fonts import DATA_URL, THEME, UNICODE_RANGE, in_subset

    def key(face: str) -> tuple[str, str]:
        return re.search(r"font-weight:\s*(\w+)", face).group(1), re.search(r"font-style:\s*(\w+)", face).group(1)

    theme = {key(f): f for f in FACE.findall((NODE_MODULES / THEME).read_text(encoding="utf-8"))}
    css = (site_dir / "assets" / "fonts.css").read_text(encoding="utf-8")
    served = FACE.findall(css)
    assert len(served) == len(theme) >= 4
    text = set()
    for page in site_dir.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        html = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", html, flags=re.S)
        text |= {ord(c) for c in re.sub(r"<[^>]+>", " ", html)}
    for face in served:
        url = re.search(r"url\(([^)]+)\)", face).group(1).split("?")[0]
        assert url.endswith(".woff2") and 'format("woff2")' in face, face
        assert f"unicode-range:{UNICODE_RANGE}" in face, face
        data = (site_dir / "assets" / url).read_bytes()
        assert data[:4] == b"wOF2", url
        original = TTFont(io.BytesIO(base64.b64decode(DATA_URL.search(theme[key(face)]).group(2)))).getBestCmap()
        subset = TTFont(io.BytesIO(data)).getBestCmap()
        assert len(data) < 0.5 * len(base64.b64decode(DATA_URL.search(theme[key(face)]).group(2))), (url, len(data))
        assert set(subset) == {c for c in original if in_subset(c)}, url
        missing = sorted(chr(c) for c in text if c in original and c not in subset)
        assert not missing, (url, "characters of the pages cut from the face", missing[:20])
