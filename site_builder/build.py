"""The whole site build: tables JSON + content -> a staging folder, swapped in
for the output folder only when every step succeeded."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import jinja2

from common.config import CONFIG
from common.export_check import ExportMismatch, check_export
from common.files import read_json, sha256_file
from common.publish import OutputRefused, build_lock, check_out, fresh_staging, recover, swap_in
from common.settings import EXPORT_DIR, ROOT, SITE_DIR, TABLES_DIR

from . import assemble, fonts, navigation, notebook_pages, palette_css, reference, versioning
from .archive import ZIP_NAME, write_source_zip
from .assemble import BuildError
from .deck import ContentError, Renderer
from .jinja_env import environment, last_template_frame
from .listing import stylesheet
from .values import fmt

HERE = Path(__file__).resolve().parent
SLIDE_SECTION = re.compile(r"<section data-slide=")
OWNER = "python -m site_builder"  # the command named in the output's marker


@dataclass
class Inputs:
    content: Path = ROOT / "content"
    tables: Path = TABLES_DIR
    export: Path | None = EXPORT_DIR  # None: do not copy the export (development only)
    out: Path = SITE_DIR
    root: Path = ROOT
    templates: Path = HERE / "templates"
    static: Path = HERE / "static"
    node_modules: Path = assemble.NODE_MODULES
    web: Path = assemble.WEB
    notebooks: Path | None = None  # executed notebooks (python -m site_builder.notebooks); None: none


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def load_tables(tables_dir: Path, root: Path) -> dict:
    if not tables_dir.is_dir():
        raise BuildError(f"{_rel(tables_dir, root)}: tables folder missing (run `python -m export.tables`)")
    tables = {}
    for path in sorted(tables_dir.glob("*.json")):
        tables[path.stem] = read_json(path, BuildError, "JSON table")
    return tables


def render_pages(inp: Inputs, tables: dict) -> tuple[list, object]:
    renderer = Renderer(inp.root, inp.content, inp.templates, inp.node_modules, inp.web)
    decks = []
    deck_dir = inp.content / "decks"
    sources = sorted(deck_dir.glob("*.md")) if deck_dir.is_dir() else []
    if not sources:
        raise BuildError(f"{_rel(deck_dir, inp.root)}: no decks (*.md) found")
    index_path = inp.content / "index.md"
    if not index_path.is_file():
        raise BuildError(f"{_rel(index_path, inp.root)}: index page text missing")
    for path, slides in [(p, True) for p in sources] + [(index_path, False)]:
        try:
            page = renderer.render_file(path, tables, slides=slides)
        except ContentError as exc:
            where = _rel(path, inp.root) + (f" line {exc.line}" if exc.line else "")
            raise BuildError(f"{where}: {exc}") from exc
        if slides:
            decks.append(page)
    decks.sort(key=lambda d: (d.meta["order"], d.slug))
    return decks, page


def copy_notebooks(inp: Inputs, staging: Path) -> list[Path]:
    """The executed companion notebooks -> site/notebooks/<deck>.ipynb."""
    if inp.notebooks is None:
        return []
    target = staging / "notebooks"
    target.mkdir(exist_ok=True)
    copied = []
    for path in sorted(inp.notebooks.glob("*.ipynb")):
        shutil.copyfile(path, target / path.name)
        copied.append(target / path.name)
    return copied


def write_site(inp: Inputs, staging: Path, tables: dict, decks: list, index, ref: reference.Reference) -> None:
    assemble.vendor(staging, inp.node_modules)
    assemble.write_runtime_manifest(staging, inp.node_modules)
    assemble.copy_web(staging, inp.web)
    if inp.export is not None:
        assemble.copy_export(staging, inp.export)
    assets = staging / "assets"
    shutil.copytree(inp.static, assets, dirs_exist_ok=True)
    (assets / "pygments.css").write_text(stylesheet(), encoding="utf-8")
    (assets / palette_css.NAME).write_text(palette_css.stylesheet(), encoding="utf-8")
    body_font = fonts.write(assets, inp.node_modules)
    (staging / "tables").mkdir(exist_ok=True)
    for name in sorted(tables):
        shutil.copyfile(inp.tables / f"{name}.json", staging / "tables" / f"{name}.json")
    executed = copy_notebooks(inp, staging)
    zip_size = write_source_zip(
        inp.root, staging / "downloads" / ZIP_NAME, extra={f"notebooks/{p.name}": p.read_bytes() for p in executed}
    )

    env = environment(inp.templates, web=inp.web)
    env.globals["body_font"] = body_font  # base.html preloads it
    (staging / "decks").mkdir(exist_ok=True)
    lab = (inp.web / "lab" / "index.html").is_file()
    nav = navigation.links(decks, lab, ref.pages)
    reference.write(env, staging, ref, ref.pages, inp.node_modules)
    notebook_pages.write(env, staging, executed, decks, nav, ref.pages)
    slide_counts = {}  # what the index says of each deck: counted in the deck as written (its end slide included)
    for deck in decks:
        html = env.get_template("deck.html").render(deck=deck, nav=nav[deck.slug], root="../")
        (staging / "decks" / f"{deck.slug}.html").write_text(html, encoding="utf-8")
        slide_counts[deck.slug] = len(SLIDE_SECTION.findall(html))
    navigation.write_reading_views(env, staging, decks, nav)
    html = env.get_template("index.html").render(
        index=index,
        decks=decks,
        slide_counts=slide_counts,
        nav=nav,
        root="",
        lab=lab,
        pages=ref.pages,
        zip_name=ZIP_NAME,
        zip_kib=fmt(max(1, round(zip_size / 1024))),  # written as every number is (4,168)
    )
    (staging / "index.html").write_text(html, encoding="utf-8")
    if lab:  # replaces the copy of web/lab/index.html
        titles = {deck.slug: [slide.title for slide in deck.slides] for deck in decks}  # web/lab/slides.js
        check_lab_slide_links(inp.web / "lab" / "slides.js", titles, inp.root)
        html = env.get_template("web/lab/index.html").render(
            root="../",
            token_limit=CONFIG.decoding.token_limit,
            held_out_preset=CONFIG.decoding.held_out_preset,
            slide_titles=titles,
            **initial_preset(staging / "onnx" / "presets.json", CONFIG.decoding.held_out_preset),
        )
        (staging / "lab" / "index.html").write_text(html, encoding="utf-8")
    versioning.stamp(staging)  # last: every reference gets the build id of the finished site


def initial_preset(presets_json: Path, preset_id: str) -> dict:
    """The preset menu and the first preset's text, note and source story, written
    into the lab page as web/lab/controls.js fillPresets and selectPreset would
    write them, so that filling them in does not move the page as it loads (its
    layout shift). Empty when the site carries no presets (a build without the export)."""
    if not presets_json.is_file():
        return {"preset_groups": [], "initial": None}
    presets = json.loads(presets_json.read_text(encoding="utf-8"))
    groups: dict[str, list[dict]] = {}
    for p in presets:
        groups.setdefault(p["group"], []).append(p)
    initial = next((p for p in presets if p["id"] == preset_id), presets[0] if presets else None)
    return {"preset_groups": list(groups.items()), "initial": initial}


LAB_SLIDE = re.compile(r"^\s*(\w+): \{ deck: '(\w+)', title: '([^']*)' \},?$", re.M)


def check_lab_slide_links(slides_js: Path, titles: dict[str, list[str]], root: Path) -> None:
    """Every slide the lab links to (web/lab/slides.js names it by deck and
    heading) is a heading of this build's decks: a renamed or removed slide
    stops the build instead of sending the lab's link to a deck's title slide.
    Links to a deck the build does not hold (a site built from some decks) are
    not checked."""
    where = _rel(slides_js, root)
    if not slides_js.is_file():  # a lab page with no slide links (a test's bare lab)
        return
    links = LAB_SLIDE.findall(slides_js.read_text(encoding="utf-8"))
    if not links:
        raise BuildError(f"{where}: no slide links found (expected lines like  key: {{ deck: 'maps', title: '...' }},)")
    for key, deck, title in links:
        if deck not in titles:  # a build of some decks only (a test site): its lab has no such link to follow
            continue
        if title not in titles[deck]:
            raise BuildError(f"{where}: {key} names the slide {title!r}, which no slide of {deck} is headed")


def _template_where(exc: jinja2.TemplateError, inp: Inputs) -> str:
    """The template file and line of a Jinja error (syntax errors carry them;
    runtime errors are found in the traceback Jinja rewrites to the template)."""
    path, line = (inp.templates / exc.name if getattr(exc, "name", None) else None), getattr(exc, "lineno", None)
    frame = last_template_frame(exc, lambda name: name.startswith((str(inp.templates), str(inp.web))))
    if frame:
        path, line = frame
    return _rel(path or inp.templates, inp.root) + (f" line {line}" if line else "")


def build(inp: Inputs) -> Path:
    """Build the site into ``inp.out`` (a link: into the folder it names).
    Raises BuildError (naming the input) and leaves ``inp.out`` untouched on
    any failure. One build at a time: a second one waits for the build lock.
    An output that holds or lies inside the sources, an input or another
    command's output, or is neither empty nor a previous site, is refused
    before anything is written (common.publish.check_out). Returns the folder
    written."""
    inputs = (inp.content, inp.tables, inp.export, inp.notebooks, inp.templates, inp.static, inp.web)
    try:
        out = check_out(inp.out, inp.root, (*inputs, inp.node_modules), owner=OWNER, adopt=inp.root / "build" / "site")
    except OutputRefused as exc:
        raise BuildError(str(exc)) from exc
    inp = dataclasses.replace(inp, out=out)
    try:
        with build_lock():
            recover(out)  # first restore a site left half-swapped by a crash
            _build_locked(inp)
    except OutputRefused as exc:  # a file put into the previous site meanwhile (swap_in checks again)
        raise BuildError(str(exc)) from exc
    except OSError as exc:  # read-only or full disk, permissions: name the path, no traceback
        raise BuildError(f"{exc.filename or out}: {exc.strerror or exc}") from exc
    return out


def check_vocab_hash(export: Path, metadata: dict, root: Path) -> None:
    """The export's vocab.json is the vocabulary the checkpoints were trained
    with (the SHA-256 they record, copied into metadata.json by the export):
    two tokens swapped would pass every other check and make the lab read two
    words as each other."""
    recorded = metadata.get("vocab_sha256")
    if recorded is None:
        return  # an export of before this field: the runner's output check reruns a changed one
    actual = sha256_file(export / "vocab.json")
    if actual != recorded:
        raise BuildError(
            f"{_rel(export / 'vocab.json', root)}: not the vocabulary the models were trained with "
            f"(SHA-256 {actual[:12]}..., the checkpoints record {recorded[:12]}...); run `python -m export` again"
        )


def refuse_links_out(inp: Inputs) -> None:
    """A link among the copied sources (web/, the static files, content/, the
    templates) that leads out of the project would publish its target (say
    /etc/passwd): BuildError names it, before anything is written."""
    root = inp.root.resolve()
    for folder in (inp.web, inp.static, inp.content, inp.templates):
        if not folder.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(folder):
            for name in dirnames + filenames:
                path = Path(dirpath, name)
                if path.is_symlink() and not path.resolve().is_relative_to(root):
                    raise BuildError(
                        f"{_rel(path, inp.root)}: a link to {os.path.realpath(path)}, outside the project; "
                        "the site would publish it (copy the file in, or remove the link)"
                    )


def _build_locked(inp: Inputs) -> None:
    refuse_links_out(inp)
    if inp.notebooks is not None and not any(inp.notebooks.glob("*.ipynb")):
        raise BuildError(
            f"{_rel(inp.notebooks, inp.root)}: no executed notebooks (run "
            f"`python -m site_builder.notebooks`; for development without them pass --no-notebooks)"
        )
    tables = load_tables(inp.tables, inp.root)
    decks, index = render_pages(inp, tables)
    ref = reference.check(inp.content, decks, web=inp.web, tables=tables, notebooks=inp.root / "notebooks")
    if inp.export is not None and not inp.export.is_dir():
        raise BuildError(
            f"{_rel(inp.export, inp.root)}: export output missing (run `python -m export`; "
            f"for development without it pass --no-export)"
        )
    if inp.export is not None:
        try:
            metadata = check_export(inp.export)
        except ExportMismatch as exc:
            raise BuildError(f"{_rel(inp.export, inp.root)}/{exc}") from exc
        check_vocab_hash(inp.export, metadata, inp.root)
    staging = fresh_staging(inp.out, OWNER)
    try:
        write_site(inp, staging, tables, decks, index, ref)
        swap_in(staging, inp.out)
    except jinja2.TemplateError as exc:
        raise BuildError(f"{_template_where(exc, inp)}: {exc}") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
