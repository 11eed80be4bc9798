// The inspect panel's attention matrices, one per head in a grid, tokens on
// both axes. The default view is step by step: row t is what the model
// attended to when it predicted the token after t (its final query on the
// window that ended at t, lab.attentionSteps). Beside it, the one-pass matrix
// of the window (every query row at once): rows the model was never trained
// to produce, with their measured agreement with the step-by-step rows.

import { el, visibleToken } from '../core/dom.js';
import { heatColors } from '../core/inspect.js';
import { stepAgreement, stepWeight } from '../core/ablation.js';
import { slideLink } from './slides.js';
import { addCanvas, linkPosition, linkedPosition } from './linking.js';

let counter = 0;

// it: {kind, context, offset, matrix, matrixDims}; real: the window's non-PAD
// slots; loadSteps(it) -> Promise<{from, rows}>: rows[t - from][head][64].
export function matrixDetails(it, entry, vocab, real, loadSteps) {
  const [heads, T] = it.matrixDims;
  const details = el('details', { class: 'matrix-details', 'data-kind': it.kind },
    el('summary', { text: `Attention matrices, ${heads} head${heads === 1 ? '' : 's'}: ` +
      'what the model looked at, step by step' }));
  details.addEventListener('toggle', () => {
    if (!details.open || details.dataset.drawn) return;
    details.dataset.drawn = '1';
    const status = el('p', { class: 'note matrix-status', text: 'Computing what the model attended to at each step…' });
    details.append(status);
    loadSteps(it).then((steps) => {
      status.remove();
      details.append(...matrixBody(it, entry, vocab, real, steps, heads, T, details.clientWidth || 1200));
    }, (err) => { status.className = 'error'; status.textContent = `Could not compute the steps: ${err.message}`; });
  });
  return details;
}

function matrixBody(it, entry, vocab, real, steps, heads, T, avail) {
  const width = it.context.length;
  const positions = real.map((j) => it.offset + j);
  const labels = real.map((j) => visibleToken(vocab.token(it.context[j])));
  const onePass = (h) => (q, k) => (k > q ? null : it.matrix[((h * T) + real[q]) * T + real[k]]);
  const stepRow = (h, t) => steps.rows[t - steps.from]?.[h] ?? null;
  const stepwise = (h) => (q, k) => {
    const t = positions[q], p = positions[k];
    const row = stepRow(h, t);
    return p > t || !row ? null : stepWeight(row, t, p, width);
  };
  const agree = stepAgreement({ heads, real, offset: it.offset, width, steps: stepRow,
    matrix: (h, q, k) => it.matrix[((h * T) + q) * T + k] });
  const name = `matrix-view-${it.kind}-${++counter}`;
  // two columns of heads only while their cells stay readable (10 px or more); never three and one
  const columns = heads > 1 && ((avail - 24) / 2 - 96) / Math.max(1, real.length) >= 10 ? 2 : 1;
  const room = (avail - 24 * (columns - 1)) / columns - 96;
  const grid = el('div', { class: 'matrices', 'data-heads': heads, 'data-columns': columns,
    style: { gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` } });
  const draw = (mode) => {
    grid.dataset.mode = mode;
    grid.replaceChildren(...Array.from({ length: heads }, (_, h) => matrixFigure({
      title: `Head ${h + 1}`, labels, positions, room,
      value: mode === 'steps' ? stepwise(h) : onePass(h),
      label: `${entry.label}, head ${h + 1}, ${mode === 'steps' ? 'step by step' : 'one pass (never trained)'}`,
      describe: (q, k, w) => (w === null
        ? `“${labels[q]}” (position ${positions[q]}) cannot see “${labels[k]}”: it comes later.`
        : `Head ${h + 1}: ${mode === 'steps' ? 'when it predicted the token after' : 'one-pass row of'} ` +
          `“${labels[q]}” (position ${positions[q]}), “${labels[k]}” (position ${positions[k]}) ` +
          `got weight ${w.toFixed(3)}.`),
    })));
  };
  const choice = el('fieldset', { class: 'matrix-choice' },
    el('legend', { text: 'Which rows' }),
    el('label', {}, el('input', { type: 'radio', name, value: 'steps', checked: true,
      onchange: () => draw('steps') }), ' Step by step: what the model looked at when it predicted each next token'),
    el('label', {}, el('input', { type: 'radio', name, value: 'one-pass', onchange: () => draw('one-pass') }),
      ' One pass over this window: every query row at once, rows the model was never trained to produce'));
  const rowsWord = heads === 1 ? 'rows' : 'head-rows';
  const agreement = el('p', { class: 'note agreement', 'data-same': agree.same, 'data-rows': agree.rows,
    'data-max-diff': agree.maxDiff.toFixed(6) },
  `Measured here: the one-pass rows name the same strongest source as the step-by-step rows in ${agree.same} ` +
    `of ${agree.rows} ${rowsWord}, and their weights differ by up to ${agree.maxDiff.toFixed(2)}. ` +
    'Training forms the query from the final slot only, so only the last row of the one-pass matrix is a row ' +
    'the model learned to produce.');
  const note = el('p', { class: 'note' },
    'Row = the query (the token doing the looking), column = the key it looks at; tokens label both axes. ',
    'Hatched cells come later than the query. In step-by-step rows, weight on tokens older than this window is ' +
    'not drawn. Point at a cell, or focus a matrix and use the arrow keys, to read it. ',
    slideLink('matrix', 'Slide: all rows at once, the matrix form'));
  draw('steps');
  return [choice, agreement, note, grid];
}

// One head's matrix: a canvas with token labels on both axes; the cell under the
// pointer or the keyboard cursor, and its row and column, are highlighted exactly.
function matrixFigure({ title, labels, positions, value, label, describe, room }) {
  const n = labels.length;
  const cell = Math.max(8, Math.min(22, Math.floor(room / Math.max(1, n))));
  const size = n * cell;
  const ratio = window.devicePixelRatio || 1;
  const canvas = el('canvas', { width: Math.round(size * ratio), height: Math.round(size * ratio), class: 'matrix',
    tabindex: '0', role: 'application', 'aria-roledescription': 'attention matrix',
    'aria-label': `${label}: ${n} by ${n}. Arrow keys move; the weight is read out below.`,
    style: { width: `${size}px`, height: `${size}px` } });
  const readout = el('p', { class: 'note readout', 'aria-live': 'polite',
    text: 'Point at or move through the matrix to read a weight.' });
  const axis = (cls) => el('ol', { class: cls, 'aria-hidden': 'true' }, labels.map((t, i) =>
    // data-axis-pos, not data-pos: a label lights up only as the row or column of the cell being read
    el('li', { 'data-axis-pos': positions[i], title: `position ${positions[i]}` },
      el('span', { dir: 'auto', text: t }))));
  const cols = axis('axis-cols');
  const rows = axis('axis-rows');
  let cursor = { q: n - 1, k: n - 1 };
  let active = false;
  const ctx = canvas.getContext('2d');
  ctx.scale(ratio, ratio);
  const mark = () => {
    rows.querySelectorAll('li').forEach((li, i) => li.classList.toggle('on', active && i === cursor.q));
    cols.querySelectorAll('li').forEach((li, i) => li.classList.toggle('on', active && i === cursor.k));
  };
  canvas.draw = () => {
    // the palette's colours (build/site/assets/palette.css), read when drawn
    const style = getComputedStyle(document.documentElement);
    const colour = (name) => style.getPropertyValue(`--${name}`).trim();
    ctx.clearRect(0, 0, size, size);
    for (let q = 0; q < n; q++) {
      for (let k = 0; k < n; k++) {
        const w = value(q, k);
        if (w === null) {
          ctx.fillStyle = colour('blocked');
          ctx.fillRect(k * cell, q * cell, cell, cell);
          ctx.strokeStyle = colour('grid');
          ctx.beginPath();
          ctx.moveTo(k * cell, (q + 1) * cell);
          ctx.lineTo((k + 1) * cell, q * cell);
          ctx.stroke();
        } else {
          ctx.fillStyle = heatColors(w).background;
          ctx.fillRect(k * cell, q * cell, cell, cell);
        }
      }
    }
    ctx.lineWidth = 2;
    if (active) {
      ctx.strokeStyle = colour('linked');
      ctx.strokeRect(1, cursor.q * cell + 1, size - 2, cell - 2);
      ctx.strokeRect(cursor.k * cell + 1, 1, cell - 2, size - 2);
      ctx.strokeStyle = colour('ink');
      ctx.strokeRect(cursor.k * cell + 1, cursor.q * cell + 1, cell - 2, cell - 2);
    } else {
      const at = positions.indexOf(linkedPosition());
      if (at >= 0) {
        ctx.strokeStyle = colour('linked');
        ctx.strokeRect(at * cell + 1, 1, cell - 2, size - 2);
      }
    }
    ctx.lineWidth = 1;
    mark();
  };
  const say = () => {
    const { q, k } = cursor;
    readout.textContent = describe(q, k, value(q, k));
    readout.dataset.q = positions[q];
    readout.dataset.k = positions[k];
  };
  const move = (q, k) => {
    cursor = { q: Math.min(n - 1, Math.max(0, q)), k: Math.min(n - 1, Math.max(0, k)) };
    active = true;
    say();
    linkPosition(positions[cursor.k]);
    canvas.draw();
  };
  canvas.addEventListener('keydown', (e) => {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const m = moves[e.key];
    if (!m) return;
    e.preventDefault();
    move(cursor.q + m[0], cursor.k + m[1]);
  });
  canvas.addEventListener('focus', () => move(cursor.q, cursor.k));
  canvas.addEventListener('blur', () => { active = false; canvas.draw(); });
  canvas.addEventListener('pointermove', (e) => {
    const r = canvas.getBoundingClientRect();
    const k = Math.floor(((e.clientX - r.left) / r.width) * n);
    const q = Math.floor(((e.clientY - r.top) / r.height) * n);
    if (q >= 0 && k >= 0 && q < n && k < n && (q !== cursor.q || k !== cursor.k || !active)) move(q, k);
  });
  canvas.addEventListener('pointerleave', () => {
    if (document.activeElement !== canvas) { active = false; canvas.draw(); }
  });
  addCanvas(canvas);
  canvas.draw();
  const frame = el('div', { class: 'matrix-grid' },
    el('span', { class: 'axis-corner', 'aria-hidden': 'true', text: 'query ↓  key →' }), cols, rows, canvas);
  frame.style.setProperty('--lab-cell', `${cell}px`);
  frame.style.setProperty('--lab-axis-font', `${Math.min(12, cell - 1)}px`);
  return el('figure', { class: 'matrix-figure' }, el('figcaption', { text: title }),
    el('div', { class: 'matrix-scroll' },
      frame),
    readout);
}
