// The inspect panel: for one step, each model's context, its top-10 before and
// after the sampling controls, the final query's attention per head on one
// fixed 0-1 scale, and (attention models) the full causal matrix per head.
// Anything that carries data-pos (a position in the text) lights up in every
// view when pointed at or focused.

import { PAD_ID, EOS_ID, UNK_ID, detokenizePieces } from '../core/tokenizer.js';
import { el, fmt, visibleToken } from '../core/dom.js';
import { distributions, heatColors, topRows } from '../core/inspect.js';
import { slideLink } from './slides.js';

const canvases = new Set(); // live matrix canvases, redrawn when the linked position changes
let linked = null;

// ------------------------------------------------------------ linking
export function linkPosition(pos) {
  if (pos === linked) return;
  linked = pos;
  for (const node of document.querySelectorAll('.linked')) node.classList.remove('linked');
  if (pos !== null) {
    for (const node of document.querySelectorAll(`[data-pos="${pos}"]`)) node.classList.add('linked');
  }
  for (const c of canvases) if (c.isConnected) c.draw(); else canvases.delete(c);
}

export function installLinking(root) {
  const find = (event) => event.target.closest?.('[data-pos]');
  root.addEventListener('pointerover', (e) => { const n = find(e); if (n) linkPosition(Number(n.dataset.pos)); });
  root.addEventListener('pointerleave', () => linkPosition(null));
  root.addEventListener('focusin', (e) => { const n = find(e); linkPosition(n ? Number(n.dataset.pos) : null); });
}

// ------------------------------------------------------------ legend
export function weightLegend() {
  const stops = [0, 0.25, 0.5, 0.75, 1];
  return el('div', { class: 'legend', role: 'img',
    'aria-label': 'Colour scale: attention weight from 0 (white) to 1 (dark blue), the same for every head and model' },
  el('span', { class: 'legend-title', text: 'Attention weight' }),
  stops.map((w) => {
    const c = heatColors(w);
    return el('span', { class: 'legend-swatch', style: { backgroundColor: c.background, color: c.color },
      text: String(w) });
  }),
  el('span', { class: 'legend-note', text: 'same scale for every head and model; hatched = masked' }));
}

// ------------------------------------------------------------ one step
// item: {kind, entry, context (64 IDs), offset (history index of slot 0),
//        logits, attention [heads][64] | null, matrix Float32Array | null,
//        matrixDims, chosen (ID) | null, own (bool)}
export function renderInspect(container, { stepIndex, items, controls, vocab, metadata, sameFrom, onScore,
  onSameContext }) {
  canvases.clear();
  const tops = [];
  const maps = [];
  const first = items.find((it) => it);
  const step = stepIndex + 1;
  const count = (n) => n.toLocaleString('en-US');
  const intro = el('div', { class: 'inspect-intro' },
    el('p', { class: 'note' },
      sameFrom
        ? `All three models read the same context here: ${metadata.models[sameFrom].label}'s text up to step ${step}. `
        : `Each model continues its own text, so at step ${step} each one read a different context ` +
          '(shown above its table). ',
      el('label', { class: 'check' },
        el('input', { type: 'checkbox', id: 'same-context', checked: Boolean(sameFrom),
          onchange: (e) => onSameContext(e.target.checked) }),
        ' compare all three on the same context')),
    el('p', { class: 'note' }, `Probability: the model's own softmax over all ${count(metadata.vocab_size)} tokens. `,
      'Sampled with: softmax(logits / T) over the tokens that can be chosen, after top-k and top-p ' +
      `(${describeControls(controls)}); `,
      'rows cut by top-k or top-p are greyed. Change the controls above and these columns redraw. ',
      slideLink('softmax', 'Slide: block special tokens, then softmax')));
  const choosable = metadata.vocab_size - metadata.banned_ids.length;
  for (const kind of metadata.order) {
    const entry = metadata.models[kind];
    const it = items.find((x) => x && x.kind === kind);
    const section = el('section', { class: 'inspect-model', 'data-kind': kind,
      'aria-label': `${entry.label}, step ${step}` }, el('h3', { text: `${entry.label} · step ${step}` }));
    tops.push(section);
    if (!it) {
      section.append(el('p', { class: 'note', text: 'This model had already stopped before this step.' }));
      continue;
    }
    section.append(contextStrip(it, vocab));
    const dist = distributions(it.logits, controls);
    if (it.chosen !== null && it.chosen !== undefined) {
      section.append(el('p', { class: 'note chosen-line' }, 'Chose ',
        el('strong', { class: 'tok-inline',
          text: it.chosen === EOS_ID ? '<EOS>' : visibleToken(vocab.token(it.chosen)) }),
        ` (probability ${fmt.pct(dist.model[it.chosen])})`,
        it.chosen === EOS_ID ? ': the story ends here, so this model adds nothing more.' : '.'));
    }
    section.append(topTable(entry, dist, vocab, it.chosen));
    section.append(el('p', { class: 'note kept-line',
      text: `Your controls keep ${count(dist.keptCount)} of the ${count(choosable)} tokens that can be chosen.` }));
    if (it.attention) maps.push(attentionSection(it, entry, vocab));
  }
  const actions = onScore ? el('p', { class: 'note' }, el('button', { type: 'button', class: 'link-button',
    onclick: onScore, text: 'Score this continuation with all three models' })) : null;
  container.replaceChildren(intro, el('div', { class: 'inspect-top' }, tops), actions,
    maps.length ? el('div', { class: 'attention-intro' },
      el('h3', { text: `Attention at step ${step}` }),
      el('p', { class: 'note' },
        'Each row is one head: how much of its message the newest token (the query, marked ▼) takes from each ' +
          'token it can see. ',
        'Each row sums to 1. ', slideLink('attention', 'Slide: softmax turns scores into weights')),
      weightLegend()) : null,
    ...maps);
  scrollToNewest(container);
  return first;
}

// Heatmaps open at the newest tokens. A hidden one (another model's, on a
// phone) is scrolled when it is first shown.
export function scrollToNewest(root) {
  for (const wrap of root.querySelectorAll('.table-wrap.scroll-end:not([data-scrolled])')) {
    if (!wrap.offsetParent) continue;
    wrap.scrollLeft = wrap.scrollWidth;
    wrap.dataset.scrolled = '1';
  }
}

export function describeControls(c) {
  const topP = c.top_p < 1 ? fmt.num(c.top_p, 2) : 'off';
  return `T = ${fmt.num(c.temperature, 2)}, top-k ${c.top_k ? c.top_k : 'off'}, top-p ${topP}`;
}

// The context slots that hold a token (not PAD).
function realSlots(context) {
  const real = [];
  for (let j = 0; j < context.length; j++) if (context[j] !== PAD_ID) real.push(j);
  return real;
}

function contextStrip(it, vocab) {
  const real = realSlots(it.context);
  const shown = real.slice(-12);
  const pieces = detokenizePieces(shown.map((j) => vocab.token(it.context[j])));
  return el('p', { class: 'context-strip note' },
    el('span', { class: 'context-label', text: `Read (last ${shown.length} of ${real.length} tokens): ` }),
    real.length > shown.length ? '… ' : '',
    shown.map((j, n) => el('span', { class: 'ctx-tok', 'data-pos': it.offset + j, tabindex: '0',
      title: `position ${it.offset + j} of the text`, dir: 'auto' },
    visibleToken(pieces[n] || vocab.token(it.context[j])))));
}

function topTable(entry, dist, vocab, chosen) {
  const rows = topRows(dist, 10);
  const head = el('tr', {}, el('th', { scope: 'col', text: '#' }), el('th', { scope: 'col', text: 'Next token' }),
    el('th', { scope: 'col', text: 'Probability' }),
    el('th', { scope: 'col', class: 'sampled-col', text: 'Sampled with' }));
  const body = rows.map((t, r) => el('tr',
    { class: [t.id === chosen ? 'chosen' : '', t.kept ? '' : 'cut'].filter(Boolean).join(' '), 'data-id': t.id },
  el('td', { text: String(r + 1) }),
  el('td', {}, el('span', { class: `tok-inline${t.id === UNK_ID ? ' unk' : ''}`, dir: 'auto',
    text: visibleToken(vocab.token(t.id)) }),
  t.banned ? el('small', { class: 'note', text: ' never chosen' }) : null),
  el('td', { class: 'bar-cell' }, el('span', { class: 'bar', style: { width: `${Math.max(1, 100 * t.p)}%` } }),
    el('span', { class: 'bar-label', text: fmt.pct(t.p) })),
  el('td', { class: 'sampled-cell', 'data-q': String(t.q) }, t.banned ? '–' : t.kept ? fmt.pct(t.q) : 'cut')));
  return el('table', { class: 'top10', 'aria-label': `${entry.label}: ten most likely next tokens` },
    el('thead', {}, head), el('tbody', {}, body));
}

// ------------------------------------------------------------ attention
function attentionSection(it, entry, vocab) {
  const heads = it.attention.length;
  const real = realSlots(it.context);
  const pads = it.context.length - real.length;
  const query = it.context.length - 1;
  const label = (j) => visibleToken(vocab.token(it.context[j]));
  const header = el('tr', {}, el('th', { scope: 'col', class: 'head-label', text: 'head' }),
    real.map((j) => el('th', { scope: 'col', class: `ctx-label${j === query ? ' query' : ''}`,
      'data-pos': it.offset + j, title: `position ${it.offset + j}${j === query ? ' (the query)' : ''}` },
    el('span', { dir: 'auto', text: `${j === query ? '▼ ' : ''}${label(j)}` }))));
  const rows = [];
  for (let h = 0; h < heads; h++) {
    rows.push(el('tr', {}, el('th', { scope: 'row', class: 'head-label', text: String(h + 1) }), real.map((j) => {
      const w = it.attention[h][j];
      const c = heatColors(w);
      return el('td', {
        class: `cell${j === query ? ' query' : ''}`, tabindex: '-1', 'data-pos': it.offset + j,
        style: { backgroundColor: c.background, color: c.color },
        title: `head ${h + 1}, "${vocab.token(it.context[j])}": ${w.toFixed(4)}`,
        'data-weight': w.toFixed(6),
      }, el('span', { 'aria-hidden': 'true', text: fmt.weight(w) }),
      el('span', { class: 'visually-hidden', text: `head ${h + 1}, ${label(j)}: ${w.toFixed(3)}` }));
    })));
  }
  const table = el('table', { class: 'attention', 'data-heads': heads, role: 'grid',
    'aria-label': `${entry.label}: attention of the final query per head; arrow keys move between cells` },
  el('thead', {}, header), el('tbody', {}, rows));
  rovingGrid(table, 'td.cell');
  const section = el('section', { class: 'inspect-attention', 'data-kind': entry.kind || it.kind,
    'aria-label': `${entry.label}: attention` },
  el('h4', { text: `${entry.label}: final query's attention, per head` }),
  el('p', { class: 'note' }, `${real.length} token${real.length === 1 ? '' : 's'} in view`,
    pads ? ` (${pads} PAD slot${pads === 1 ? '' : 's'} hidden: weight exactly 0)` : '',
    '. Opens at the newest tokens; scroll left for older ones.'),
  el('div', { class: 'table-wrap scroll-end' }, table));
  if (it.matrix) section.append(matrixDetails(it, entry, vocab, real));
  return section;
}

// Arrow keys move focus between the cells of a table (one tab stop per table).
function rovingGrid(table, selector) {
  const cells = () => [...table.querySelectorAll(selector)];
  const all = cells();
  if (!all.length) return;
  all[all.length - 1].tabIndex = 0;
  table.addEventListener('keydown', (e) => {
    const cell = e.target.closest(selector);
    if (!cell) return;
    const row = cell.parentElement;
    const rowsList = [...table.querySelectorAll('tbody tr')];
    const r = rowsList.indexOf(row);
    const c = [...row.querySelectorAll(selector)].indexOf(cell);
    let next = null;
    if (e.key === 'ArrowRight') next = row.querySelectorAll(selector)[c + 1];
    else if (e.key === 'ArrowLeft') next = row.querySelectorAll(selector)[c - 1];
    else if (e.key === 'ArrowDown') next = rowsList[r + 1]?.querySelectorAll(selector)[c];
    else if (e.key === 'ArrowUp') next = rowsList[r - 1]?.querySelectorAll(selector)[c];
    else if (e.key === 'Home') next = row.querySelector(selector);
    else if (e.key === 'End') { const rc = row.querySelectorAll(selector); next = rc[rc.length - 1]; }
    if (!next) return;
    e.preventDefault();
    for (const x of cells()) x.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  });
}

// The full causal matrix of every head, drawn on canvases once opened.
function matrixDetails(it, entry, vocab, real) {
  const [heads, T] = it.matrixDims;
  const details = el('details', { class: 'matrix-details' },
    el('summary', { text: `Full attention matrix: every query row, ${heads} head${heads === 1 ? '' : 's'}` }));
  details.addEventListener('toggle', () => {
    if (!details.open || details.dataset.drawn) return;
    details.dataset.drawn = '1';
    details.append(el('p', { class: 'note' },
      'Row = the query (the token doing the looking), column = the key it looks at. ',
      'Above the diagonal is the future, masked (hatched); PAD rows and columns are left out. ',
      'Focus a matrix and use the arrow keys to read any cell. ',
      slideLink('matrix', 'Slide: all rows at once, the matrix form')));
    const grid = el('div', { class: 'matrices' });
    for (let h = 0; h < heads; h++) grid.append(matrixCanvas(it, entry, vocab, real, h, heads, T));
    details.append(grid);
  });
  return details;
}

function matrixCanvas(it, entry, vocab, real, h, heads, T) {
  const n = real.length;
  const cell = Math.max(6, Math.min(18, Math.floor(360 / Math.max(1, n))));
  const size = n * cell;
  const canvas = el('canvas', { width: size, height: size, class: 'matrix', tabindex: '0', role: 'application',
    'aria-roledescription': 'attention matrix',
    'aria-label': `${entry.label}, head ${h + 1}: ${n} by ${n} attention matrix. ` +
      'Arrow keys move; the weight is read out below.' });
  const readout = el('p', { class: 'note readout', 'aria-live': 'polite',
    text: 'Point at or move through the matrix to read a weight.' });
  const at = (q, k) => it.matrix[((h * T) + real[q]) * T + real[k]];
  let cursor = { q: n - 1, k: n - 1 };
  const ctx2d = canvas.getContext('2d');
  const label = (j) => visibleToken(vocab.token(it.context[real[j]]));
  canvas.draw = () => {
    ctx2d.clearRect(0, 0, size, size);
    for (let q = 0; q < n; q++) {
      for (let k = 0; k < n; k++) {
        if (k > q) {
          ctx2d.fillStyle = '#e6e6e6';
          ctx2d.fillRect(k * cell, q * cell, cell, cell);
          ctx2d.strokeStyle = '#bdbdbd';
          ctx2d.beginPath();
          ctx2d.moveTo(k * cell, (q + 1) * cell);
          ctx2d.lineTo((k + 1) * cell, q * cell);
          ctx2d.stroke();
          continue;
        }
        ctx2d.fillStyle = heatColors(at(q, k)).background;
        ctx2d.fillRect(k * cell, q * cell, cell, cell);
      }
    }
    const pos = linked === null ? -1 : real.findIndex((j) => it.offset + j === linked);
    if (pos >= 0) {
      ctx2d.strokeStyle = '#d97706';
      ctx2d.lineWidth = 2;
      ctx2d.strokeRect(1, pos * cell + 1, size - 2, cell - 2);
      ctx2d.strokeRect(pos * cell + 1, 1, cell - 2, size - 2);
      ctx2d.lineWidth = 1;
    }
    if (document.activeElement === canvas) {
      ctx2d.strokeStyle = '#111';
      ctx2d.lineWidth = 2;
      ctx2d.strokeRect(cursor.k * cell + 1, cursor.q * cell + 1, cell - 2, cell - 2);
      ctx2d.lineWidth = 1;
    }
  };
  const say = () => {
    const { q, k } = cursor;
    readout.textContent = k > q
      ? `Query "${label(q)}" cannot see "${label(k)}": it is in the future (masked).`
      : `Head ${h + 1}: query "${label(q)}" (position ${it.offset + real[q]}) gives "${label(k)}" ` +
        `(position ${it.offset + real[k]}) weight ${at(q, k).toFixed(3)}.`;
  };
  canvas.addEventListener('keydown', (e) => {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const m = moves[e.key];
    if (!m) return;
    e.preventDefault();
    cursor = { q: Math.min(n - 1, Math.max(0, cursor.q + m[0])), k: Math.min(n - 1, Math.max(0, cursor.k + m[1])) };
    say();
    linkPosition(it.offset + real[cursor.k]);
    canvas.draw();
  });
  canvas.addEventListener('focus', () => { say(); canvas.draw(); });
  canvas.addEventListener('blur', () => canvas.draw());
  canvas.addEventListener('pointermove', (e) => {
    const r = canvas.getBoundingClientRect();
    const k = Math.floor(((e.clientX - r.left) / r.width) * n);
    const q = Math.floor(((e.clientY - r.top) / r.height) * n);
    if (q < 0 || k < 0 || q >= n || k >= n) return;
    cursor = { q, k };
    say();
    linkPosition(it.offset + real[k]);
  });
  canvases.add(canvas);
  canvas.draw();
  return el('figure', { class: 'matrix-figure' }, el('figcaption', { text: `Head ${h + 1}` }),
    el('div', { class: 'matrix-frame' }, el('span', { class: 'axis-y', text: 'query ↓' }), canvas),
    el('span', { class: 'axis-x', text: 'key →' }), readout);
}
