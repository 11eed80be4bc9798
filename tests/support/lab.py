"""The lab's helpers for the browser tests: its models and backends, the
parity tolerance, opening the lab until ``lab.ready``, and the texts scored
against PyTorch."""

from __future__ import annotations

from common.chromium import evaluate
from common.settings import ROOT

BACKENDS = ["wasm", "webgpu"]
KINDS = ["mlp", "attn1", "attn4"]
TOLERANCE = 1e-4
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


def axe_serious(page, selector: str = "body") -> list:
    """axe-core's serious and critical violations inside ``selector`` (id,
    impact and the first three nodes of each)."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        "async (s) => (await axe.run(document.querySelector(s))).violations.map((v) => ({id: v.id,"
        " impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))",
        selector,
    )
    return [v for v in found if v["impact"] in ("serious", "critical")]


def open_lab(page, url: str, query: str = ""):
    page.goto(f"{url}/lab/{query}")
    return evaluate(page, "return await window.lab.ready;", timeout_s=240)


def score_texts(references):
    """The held-out story and every other dataset preset's whole story (with
    their EOS, as in the test evaluation), and typed text with unknown words,
    markup and more than 64 tokens."""
    stories = [(p["source"]["text"], True) for p in references["presets"] if p["source"]]
    typed = ('The quantum lecture covered gluons!! <b>Then</b> the little dog said "hi" & ran home. ' * 4, False)
    return stories + [typed, ("x", False)]


# the lab's controls (every input, select and textarea of the workbench) as the
# page set them at start-up, in document order
CONTROLS = "[...document.querySelectorAll('#workbench input, #workbench select, #workbench textarea')]"
SNAPSHOT = f"() => {CONTROLS}.map((e) => ({{id: e.id, name: e.name, value: e.value, checked: e.checked}}))"
# lab.stop(), wait until no job runs (Stop is disabled again), put every
# control back as it was at start-up (firing the events a learner's edit
# fires), choose the restored backend through lab.setBackend, wait until
# Generate is enabled, and return that status
RESTORE = (
    """async (saved) => {
  const until = async (what, ok) => {
    const start = performance.now();
    while (!ok()) {
      if (performance.now() - start > 60000) throw new Error(`reset: still waiting after 60 s for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  window.lab.stop();
  await until('the running job to stop (Stop disabled)', () => document.querySelector('#stop').disabled);
  // the page's experiment (heads off, words hidden) cleared the way a learner clears it
  document.querySelector('#clear-experiment')?.click();
  const note = document.querySelector('#experiment-note');
  if (note) note.hidden = true;
  const now = """
    + CONTROLS
    + """;
  if (now.length !== saved.length) throw new Error(`the lab has ${now.length} controls, ${saved.length} at start-up`);
  saved.forEach((s, i) => {
    const e = now[i];
    if (e.id !== s.id || e.name !== s.name) throw new Error(`control ${i} is ${e.id || e.name}, was ${s.id || s.name}`);
    const radio = e.type === 'radio' || e.type === 'checkbox';
    if (radio ? e.checked === s.checked : e.value === s.value) return;
    if (radio) e.checked = s.checked; else e.value = s.value;
    e.dispatchEvent(new Event('input', { bubbles: true }));
    e.dispatchEvent(new Event('change', { bubbles: true }));
  });
  const status = await window.lab.setBackend(document.querySelector('#backend').value);
  await until('Generate to be enabled', () => !document.querySelector('#generate').disabled);
  return status;
}"""
)


def reset_lab(page, viewport: dict | None = None):
    """The shared lab page back to its start-up controls, at ``viewport``, with
    no job running and a clean status and watch; returns the page."""
    assert not page.watch.errors, f"an earlier test left console errors on the shared lab: {page.watch.errors}"
    assert not page.watch.outside, f"an earlier test left requests outside the origin: {page.watch.outside}"
    if viewport and page.viewport_size != viewport:
        page.set_viewport_size(viewport)
    status = page.evaluate(RESTORE, page.defaults)
    assert status and status["ok"] and status["backend"] == "wasm", status
    return page
