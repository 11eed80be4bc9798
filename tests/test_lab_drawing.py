"""What the lab draws, checked cell by cell against the numbers it draws
(issue 25, point 6): the attention heatmap's colours on the fixed scale of
each weight (never rescaled per head), the full attention matrix read back
from its canvas pixel by pixel (rows are queries, columns keys, the future
masked), and the score table's columns and token cells against the score
result. The numbers come from the lab's own API (lab.run, lab.attentionMatrix,
lab.score); the fixed scales from web/core/inspect.js (unit-tested in Node)."""

from __future__ import annotations

import pytest

from common import palette
from common.chromium import evaluate
from export.decoding import context_window, start_history
from support.colour import rgb
from support.lab import KINDS, reset_lab

PROMPT = "the cat sat on the mat"
SCALES = "const m = await import(new URL('../core/inspect.js', location.href).href);"


@pytest.fixture(scope="module")
def lab(shared_lab):
    return reset_lab(shared_lab, {"width": 1280, "height": 900})


@pytest.fixture(scope="module")
def inspected(lab):
    """attn4's step 2 selected: (its context, the final query's attention per head, the full matrix)."""
    result = evaluate(
        lab, "return await window.lab.generate({prompt: arg, mode: 'greedy', limit: 4, backend: 'wasm'});", PROMPT
    )
    step = 2
    ids = result["prompt_ids"] + result["models"]["attn4"]["ids"][:step]
    ctx = context_window(start_history(ids), lab.evaluate("window.lab.context"))
    lab.locator(f'.model-card[data-kind="attn4"] .tok[data-step="{step}"]').click()
    lab.wait_for_selector('.inspect-attention[data-kind="attn4"] table.attention')
    run = evaluate(lab, "return await window.lab.run('attn4', [arg], {backend: 'wasm'});", ctx)
    matrix = evaluate(lab, "return await window.lab.attentionMatrix('attn4', arg, {backend: 'wasm'});", ctx)
    return ctx, run["attention"][0], matrix


def test_the_heatmap_shows_each_weight_on_the_fixed_scale(lab, inspected):
    ctx, attention, _ = inspected
    pads = sum(1 for i in ctx if i == 0)
    cells = evaluate(
        lab,
        SCALES
        + """const probe = document.createElement('span');
        document.body.append(probe);
        const css = (c) => { probe.style.backgroundColor = c; return getComputedStyle(probe).backgroundColor; };
        const rows = [...document.querySelectorAll('.inspect-attention[data-kind="attn4"] table.attention tbody tr')];
        const out = rows.map((tr) => [...tr.querySelectorAll('td.cell')].map((td) => ({
          weight: Number(td.dataset.weight), shown: getComputedStyle(td).backgroundColor,
          fixed: css(m.heatColors(Number(td.dataset.weight)).background) })));
        probe.remove();
        return out;""",
    )
    assert len(cells) == 4 and all(len(row) == len(ctx) - pads for row in cells)
    for h, row in enumerate(cells):
        for i, cell in enumerate(row):
            assert cell["weight"] == pytest.approx(attention[h][pads + i], abs=2e-6), (h, i)
            assert cell["shown"] == cell["fixed"], (h, i, cell)  # the weight's colour, not a per-head rescaling


def test_the_matrix_canvas_draws_each_cell_of_its_head(lab, inspected):
    """Every cell's pixels: a query's row, a key's column, the weight's colour on
    the fixed scale below and on the diagonal, the masked grey (palette BLOCKED) above it."""
    ctx, _, matrix = inspected
    real = [j for j, i in enumerate(ctx) if i != 0]
    lab.locator('.inspect-attention[data-kind="attn4"] details.matrix-details summary').click()
    one_pass = lab.locator('.inspect-attention[data-kind="attn4"] input[value="one-pass"]')
    one_pass.wait_for()
    one_pass.check()  # the one-pass rows: the full matrix of this window, as lab.attentionMatrix gives it
    lab.wait_for_selector('.inspect-attention[data-kind="attn4"] .matrices[data-mode="one-pass"] canvas.matrix')
    drawn = evaluate(
        lab,
        SCALES
        + """const canvases = [...document.querySelectorAll(
          '.inspect-attention[data-kind="attn4"] .matrices[data-mode="one-pass"] canvas.matrix')];
        const [matrix, real, blocked] = arg;
        const n = real.length;
        return canvases.map((canvas, h) => {
          const cell = canvas.width / n;
          const px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
          const bad = [];
          for (let q = 0; q < n; q++) {
            for (let k = 0; k < n; k++) {
              // a point of the cell off its hatch line and off the highlight strokes along its edges
              const x = Math.floor((k + 0.35) * cell), y = Math.floor((q + 0.45) * cell);
              const got = Array.from(px.slice((y * canvas.width + x) * 4, (y * canvas.width + x) * 4 + 3));
              const want = k > q ? blocked : m.heatRgb(matrix[h][real[q]][real[k]]);
              if (got.some((c, i) => Math.abs(c - want[i]) > 1)) bad.push({ q, k, got, want });
            }
          }
          return { n, cell, bad: bad.slice(0, 5), count: bad.length };
        });""",
        [matrix, real, list(rgb(palette.BLOCKED))],  # the masked cell: the palette's BLOCKED grey
    )
    assert len(drawn) == 4
    for h, d in enumerate(drawn):
        assert d["n"] == len(real) and d["cell"] >= 6
        assert d["count"] == 0, (h, d)


def test_the_score_table_and_cells_show_the_quantities_they_name(lab, references):
    result = evaluate(lab, "return await window.lab.score({text: arg, backend: 'wasm'});", PROMPT)
    lab.wait_for_function(f"document.querySelectorAll('#score-body .score-tok').length === {len(result['tokens'])}")
    table = lab.evaluate("""() => Object.fromEntries([...document.querySelectorAll('table.score-summary tbody tr')]
        .map((tr) => [tr.dataset.kind, [...tr.querySelectorAll('td')].map((td) => td.textContent)]))""")
    header = lab.evaluate("[...document.querySelectorAll('table.score-summary thead th')].map((t) => t.textContent)")
    assert header == [
        "Model",
        "Cross-entropy (nats/token)",
        "Perplexity",
        "Tokens scored",
        "Most surprising token",
        "Test-set perplexity, for comparison",
    ]
    for kind in KINDS:
        m = result["models"][kind]
        test_ppl = references["metadata"]["models"][kind]["aggregate"]["test_perplexity"]
        worst = min(range(len(m["probabilities"])), key=lambda i: (m["probabilities"][i], i))
        assert table[kind][:3] == [f"{m['cross_entropy']:.3f}", f"{m['perplexity']:.2f}", str(len(result["tokens"]))]
        assert table[kind][3].startswith(f"{result['tokens'][worst]} ("), (kind, table[kind][3])
        assert table[kind][4] == f"{test_ppl['mean']:.2f} ± {test_ppl['sd']:.2f}", kind
    cells = evaluate(
        lab,
        SCALES
        + """const probe = document.createElement('span');
        document.body.append(probe);
        const css = (c) => { probe.style.backgroundColor = c; return getComputedStyle(probe).backgroundColor; };
        const out = [...document.querySelectorAll('#score-body .score-tok')].map((b) =>
          [...b.querySelectorAll('.score-cell')].map((c) => ({ kind: c.dataset.kind, p: Number(c.dataset.p),
            shown: getComputedStyle(c).backgroundColor, fixed: css(m.scoreColors(Number(c.dataset.p)).background) })));
        probe.remove();
        return out;""",
    )
    for i, row in enumerate(cells):
        assert [c["kind"] for c in row] == KINDS
        for c in row:
            assert c["p"] == pytest.approx(result["models"][c["kind"]]["probabilities"][i], rel=1e-12), (i, c)
            assert c["shown"] == c["fixed"], (i, c)
