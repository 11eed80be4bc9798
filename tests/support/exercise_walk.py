"""One walk of a deck's exercises and predictions per viewport
(tests/test_exercise_layout.py, tests/test_exercises_browser.py and
tests/test_predictions_browser.py assert over what it collected; conftest.py's
``exercise_walk`` makes each once): the deck opened at ``?seed=`` in a fresh
context of the size, then every exercise box in turn (one call a box, VISIT):
its slide shown, the other boxes closed, the slide's layout read, the box
opened by a click on its summary, its rectangle measured against the slide's
figures and text (OPENED), axe-core run on the box with the deck's other slides
out of the document (support/decks.py AXE_IN_SLIDE), and the box closed again
with the slide's layout read once more; then every prediction box: its first
choice clicked, its answer shown, axe on it, and whether it fits its width.
Two animation frames are awaited after each open and close (reveal lays the
slide out again)."""

from __future__ import annotations

from dataclasses import dataclass, field

from support.decks import AXE_IN_SLIDE, open_deck
from support.exercises import SEED
from support.lab import AXE
from support.pages import PageWatch

SLIDE_OF = "(b) => [...document.querySelectorAll('.slides > section')].indexOf(b.closest('.slides > section'))"
CLOSE_ALL = "document.querySelectorAll('.exercise-box[open]:not(.exercise-alone)').forEach((d) => (d.open = false))"

# the exercise box `k` of the page, opened: its rectangle against every figure and
# every text block of its slide outside the box, each as it is painted (clipped to
# the boxes that scroll or clip it, up to the slide)
OPENED = """(k) => {
  const box = document.querySelectorAll('.exercise-box')[k], s = box.closest('.slides > section');
  const r = (e) => { const q = e.getBoundingClientRect(); return { l: q.left, t: q.top, r: q.right, b: q.bottom }; };
  const painted = (e) => {
    let v = r(e);
    for (let a = e.parentElement; a && a !== s.parentElement; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX !== 'visible' || cs.overflowY !== 'visible') {
        const c = r(a);
        v = { l: Math.max(v.l, c.l), t: Math.max(v.t, c.t), r: Math.min(v.r, c.r), b: Math.min(v.b, c.b) };
      }
    }
    return v;
  };
  const meets = (a, b) => Math.min(a.r, b.r) - Math.max(a.l, b.l) > 1 && Math.min(a.b, b.b) - Math.max(a.t, b.t) > 1;
  // (a closed <details> keeps the last layout of what it folds: checkVisibility says it is not drawn)
  const shown = (e) => { const q = e.getBoundingClientRect(); return q.width > 1 && q.height > 1
                         && e.checkVisibility({ visibilityProperty: true, opacityProperty: true }); };
  const outside = (sel) => [...s.querySelectorAll(sel)].filter((e) => !box.contains(e) && !e.closest('.katex')
    && !(e.parentElement && e.parentElement.closest('svg')) && !e.closest('.slide-head, .slide-foot') && shown(e));
  const b = r(box), name = (e) => e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined
    ? '.' + e.className.split(' ')[0] : '');
  const figures = outside('svg, img, table, canvas'), texts = outside('p, li, h3, .katex-display');
  const foot = s.querySelector('.slide-foot'), slide = r(s);
  return {
    id: box.querySelector('[data-exercise]').dataset.exercise, open: box.open,
    title: (s.querySelector('h1, h2') || {}).textContent || '', position: getComputedStyle(box).position,
    box: b, slide_box: slide, foot: foot ? r(foot) : null, alone: box.classList.contains('exercise-alone'),
    covered: figures.filter((e) => meets(b, painted(e))).map(name),
    hidden: texts.filter((e) => meets(b, painted(e))).map(name),
    figures: figures.map((e) => ({ name: name(e), raw: r(e), painted: painted(e) })),
    ask: (({ ask }) => shown(ask) && painted(ask).b > r(ask).t)({ ask: box.querySelector('.ex-ask') }),
  };
}"""

# the slide body's children, as a list of tag.class (the slide's layout, to compare)
BODY = """(k) => [...document.querySelectorAll('.exercise-box')[k].closest('.slide-body').children]
  .map((c) => c.tagName + '.' + c.className).join(' ')"""


@dataclass
class ExerciseWalk:
    slug: str
    size: tuple[int, int]
    boxes: list[dict] = field(default_factory=list)  # per box: OPENED's record, "slide", "axe", "before", "after"
    predictions: list[dict] = field(default_factory=list)  # per prediction: "id", "answer_shown", "axe", "fits"
    errors: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)

    def assert_clean(self) -> None:
        assert not self.errors, f"{self.slug} at {self.size}: console errors: {self.errors}"
        assert not self.outside, f"{self.slug} at {self.size}: requests outside the origin: {self.outside}"


# one box's whole visit in one call (a round trip a step cost more than the steps):
# its slide shown, the other boxes closed, the layout read, the box opened by a
# click on its summary (as a learner opens it), OPENED, axe on its slide alone,
# and, unless it stays open in place, closed again and the layout read once more
VISIT = (
    """async (k) => {
  const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const slideOf = """
    + SLIDE_OF
    + """, opened = """
    + OPENED
    + """, body = """
    + BODY
    + """, axeIn = """
    + AXE_IN_SLIDE
    + """;
  const box = document.querySelectorAll('.exercise-box')[k], slide = slideOf(box);
  Reveal.slide(slide);
  if (Reveal.getIndices().h !== slide) throw new Error(`exercise box ${k}: Reveal did not show slide ${slide}`);
  """
    + CLOSE_ALL
    + """;
  await frames();
  const before = body(k);
  if (!box.open) box.querySelector(':scope > summary').click();
  await frames();
  const found = Object.assign(opened(k), {slide, before, after: before});
  found.axe = await axeIn(`.exercise-box:has([data-exercise='${found.id}'])`);
  if (!found.alone) {
    box.querySelector(':scope > summary').click();
    await frames();
    found.after = body(k);
  }
  return found;
}"""
)


# every prediction box of the deck (m.predict): [its id, its slide]
PREDICTIONS = """() => [...document.querySelectorAll('[data-prediction]')].map((b) => [b.dataset.prediction,
  [...document.querySelectorAll('.slides > section')].findIndex((s) => s.contains(b))])"""


def walk_exercises(browser, site_url: str, slug: str, size: tuple[int, int]) -> ExerciseWalk:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    walk = ExerciseWalk(slug, size)
    watch = PageWatch(page, site_url)
    walk.errors, walk.outside = watch.errors, watch.outside
    try:
        open_deck(page, site_url, slug, f"?seed={SEED}")
        page.add_script_tag(path=str(AXE))
        for k in range(page.evaluate("document.querySelectorAll('.exercise-box').length")):
            walk.boxes.append(page.evaluate(VISIT, k))
        # then each prediction: its slide shown, its first choice clicked, its answer, axe, its width
        for ident, slide in page.evaluate(PREDICTIONS):
            page.evaluate("(i) => Reveal.slide(i)", slide)
            page.wait_for_function("(i) => Reveal.getIndices().h === i", arg=slide)
            box = page.locator(f"#pr-{ident}")
            box.locator("button[data-choice='0']").click()
            walk.predictions.append(
                {
                    "id": ident,
                    "answer_shown": box.locator("[data-prediction-answer]").is_visible(),
                    "axe": page.evaluate(AXE_IN_SLIDE, f"#pr-{ident}"),
                    "fits": box.evaluate("(b) => b.scrollWidth <= b.clientWidth + 1"),
                }
            )
    finally:
        context.close()
    return walk
