// The Training replay panel: what the seed-11 runs predicted on six fixed
// probe texts while they trained (models/training_trace.json, trimmed by
// export/lab_trace.py into onnx/training_trace.json). The file is fetched the
// first time the panel opens, never before. A step slider along the
// validation curves (each model's kept step ringed), the probe choice and
// play/pause; for the chosen step and probe, each model's top-5 next tokens
// and each head's attention from the final query over the probe's tokens;
// above them a timeline: each model's top-1 guess at every recorded step (the
// first step whose guess is the final one marked), a step selected by a click.
// Every number shown is the trace's (tests/test_lab_replay.py). Links to
// #replay elsewhere on the page (the Score view, the results) open the panel.

import { el, fmt, visibleToken } from '../core/dom.js';
import { heatColors } from '../core/inspect.js';
import { versioned } from '../core/version.js';
import { MODELS, MODELS_DIR } from './shared.js';
import { roving } from './roving.js';

export const TRACE_FILE = 'training_trace.json';
const PLAY_MS = 1100; // one trace point per tick while playing
const CURVE = { width: 320, height: 120, left: 34, right: 8, top: 10, bottom: 22 };
const SHORT = { mlp: 'MLP', attn1: 'one head', attn4: 'four heads' };
// each model's line: the one-head line dashed and drawn over the wider four-head one, so both show where they meet
const LINE = { mlp: { dash: '', width: 2 }, attn1: { dash: '5 3', width: 2 }, attn4: { dash: '', width: 4.5 } };
const lineOf = (kind) => LINE[kind] ?? { dash: '2 2', width: 2 };

// The panel (a <details>): loads and draws the replay on its first opening.
export function installReplay(details) {
  const body = details.querySelector('.replay-body');
  let started = false;
  const find = () => {
    details.open = true;
    details.scrollIntoView({ block: 'start' });
    details.querySelector('summary').focus({ preventScroll: true });
  };
  document.addEventListener('click', (e) => {
    if (!e.target.closest?.('a[href="#replay"]')) return;
    e.preventDefault();
    find();
  });
  if (location.hash === '#replay') details.open = true;
  details.addEventListener('toggle', () => {
    if (!details.open || started) return;
    started = true;
    body.replaceChildren(el('p', { class: 'note', role: 'status', text: 'Loading the training trace…' }));
    loadTrace()
      .then((trace) => replay(body, trace))
      .catch((err) => {
        started = false;
        body.replaceChildren(el('p', { class: 'error', role: 'alert', text: err.message }));
      });
  });
}

async function loadTrace() {
  const where = `${MODELS_DIR}/${TRACE_FILE}`;
  let response;
  try {
    response = await fetch(versioned(TRACE_FILE, MODELS));
  } catch (err) {
    throw new Error(`could not load ${where}: ${err.message}`, { cause: err });
  }
  if (!response.ok) throw new Error(`${where} is missing (HTTP ${response.status})`);
  const trace = await response.json();
  const first = trace.runs?.[trace.order?.[0]]?.points;
  if (!Array.isArray(trace.probes) || !trace.probes.length || !Array.isArray(first) || !first.length) {
    throw new Error(`${where} has no probes or no points`);
  }
  for (const kind of trace.order) {
    const steps = trace.runs[kind].points.map((p) => p.step);
    if (steps.join() !== first.map((p) => p.step).join()) throw new Error(`${where}: ${kind} has other steps`);
  }
  return trace;
}

// The controls and the three model blocks; returns the state for tests and scripts.
function replay(body, trace) {
  const steps = trace.runs[trace.order[0]].points.map((p) => p.step);
  const last = steps.length - 1;
  const state = { index: 0, probe: 0, timer: null };
  const slider = el('input', { type: 'range', id: 'replay-step', min: 0, max: last, step: 1, value: state.index,
    'aria-describedby': 'replay-readout' });
  const probe = el('select', { id: 'replay-probe' },
    trace.probes.map((p, i) => el('option', { value: i, text: p.text })));
  const play = el('button', { type: 'button', id: 'replay-play', 'aria-pressed': 'false', text: 'Play' });
  const readout = el('p', { id: 'replay-readout', class: 'note', 'aria-live': 'polite' });
  const curve = el('div', { class: 'replay-curve' });
  const timeline = el('div', { class: 'replay-timeline' });
  const models = el('div', { class: 'replay-models' });
  body.replaceChildren(
    el('p', { class: 'note', text: 'What the seed-11 runs predicted on fixed texts while they trained: before the ' +
      'first update, after a few early updates and at every validation point. ★ marks the step each model kept ' +
      '(its lowest validation loss).' }),
    el('div', { class: 'replay-controls' },
      el('label', { class: 'field-label', for: 'replay-probe', text: 'Text' }), probe,
      el('label', { class: 'field-label', for: 'replay-step', text: 'Training step' }), slider, play),
    curve, timeline, readout, models);

  const show = () => {
    slider.value = state.index;
    slider.setAttribute('aria-valuetext', stepText(trace, state.index));
    drawCurve(curve, trace, state.index);
    drawTimeline(timeline, trace, state, (i) => { pause(); state.index = i; show(); });
    readout.textContent = `${stepText(trace, state.index)}. Validation loss: ${trace.order.map((k) =>
      `${SHORT[k] ?? k} ${trace.runs[k].points[state.index].validation_loss.toFixed(3)}`).join(', ')}.`;
    models.replaceChildren(...trace.order.map((kind) => modelBlock(trace, kind, state.index, state.probe)));
  };
  const pause = () => {
    clearInterval(state.timer);
    state.timer = null;
    play.textContent = 'Play';
    play.setAttribute('aria-pressed', 'false');
  };
  slider.addEventListener('input', () => { state.index = Number(slider.value); show(); });
  probe.addEventListener('change', () => { state.probe = Number(probe.value); show(); });
  play.addEventListener('click', () => {
    if (state.timer) { pause(); return; }
    if (state.index === last) state.index = 0;
    play.textContent = 'Pause';
    play.setAttribute('aria-pressed', 'true');
    show();
    state.timer = setInterval(() => {
      state.index += 1;
      show();
      if (state.index >= last) pause();
    }, PLAY_MS);
  });
  show();
  return state;
}

function stepText(trace, index) {
  const step = trace.runs[trace.order[0]].points[index].step;
  const kept = trace.order.filter((k) => trace.runs[k].selected_step === step).map((k) => SHORT[k] ?? k);
  const total = trace.runs[trace.order[0]].points.at(-1).step;
  return `Step ${step.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}` +
    (kept.length ? ` (★ kept by ${kept.join(' and ')})` : '');
}

// The validation curves, one point per trace point (evenly spaced, so the early
// steps show), the current point marked by a line, each kept step by a ring.
function drawCurve(box, trace, index) {
  const { width, height, left, right, top, bottom } = CURVE;
  const n = trace.runs[trace.order[0]].points.length;
  const losses = trace.order.flatMap((k) => trace.runs[k].points.map((p) => p.validation_loss));
  const lo = Math.min(...losses), hi = Math.max(...losses);
  const x = (i) => left + (i / (n - 1)) * (width - left - right);
  const y = (v) => top + (1 - (v - lo) / (hi - lo || 1)) * (height - top - bottom);
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  const add = (parent, tag, attrs) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    parent.append(node);
    return node;
  };
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label',
    `Validation loss of the three models at each recorded step; ${stepText(trace, index)}`);
  add(svg, 'line', { x1: left, x2: width - right, y1: height - bottom, y2: height - bottom, class: 'axis' });
  for (const v of [lo, hi]) {
    add(svg, 'text', { x: left - 4, y: y(v) + 4, 'text-anchor': 'end', class: 'tick' }).textContent = v.toFixed(1);
  }
  add(svg, 'text', { x: left, y: height - 6, class: 'tick' }).textContent = 'step 0';
  add(svg, 'text', { x: width - right, y: height - 6, 'text-anchor': 'end', class: 'tick' }).textContent =
    `${trace.runs[trace.order[0]].points.at(-1).step}`;
  add(svg, 'line', { x1: x(index), x2: x(index), y1: top, y2: height - bottom, class: 'now' });
  // the widest line first, so that a narrower (dashed) one on the same values stays visible on top of it
  const drawOrder = [...trace.order].sort((a, b) => lineOf(b).width - lineOf(a).width);
  for (const kind of drawOrder) {
    const pts = trace.runs[kind].points;
    add(svg, 'polyline', { points: pts.map((p, i) => `${x(i)},${y(p.validation_loss)}`).join(' '),
      class: 'loss', 'data-kind': kind, stroke: `var(--${kind})`, 'stroke-width': lineOf(kind).width,
      'stroke-dasharray': lineOf(kind).dash || 'none' });
  }
  for (const kind of trace.order) {
    const pts = trace.runs[kind].points;
    const kept = pts.findIndex((p) => p.step === trace.runs[kind].selected_step);
    add(svg, 'circle', { cx: x(kept), cy: y(pts[kept].validation_loss), r: 5, class: 'kept',
      stroke: `var(--${kind})` });
    add(svg, 'circle', { cx: x(index), cy: y(pts[index].validation_loss), r: 3.5, fill: `var(--${kind})` });
  }
  const sample = (k) => {
    const icon = document.createElementNS(ns, 'svg');
    icon.setAttribute('viewBox', '0 0 28 10');
    icon.setAttribute('class', 'key-line');
    icon.setAttribute('aria-hidden', 'true');
    add(icon, 'line', { x1: 1, x2: 27, y1: 5, y2: 5, stroke: `var(--${k})`, 'stroke-width': lineOf(k).width,
      'stroke-dasharray': lineOf(k).dash || 'none' });
    return icon;
  };
  box.replaceChildren(svg, el('p', { class: 'replay-key' }, trace.order.map((k) =>
    el('span', { class: 'key', 'data-kind': k }, sample(k), trace.runs[k].label)),
  el('span', { text: 'validation loss at the recorded steps, evenly spaced' })));
}

// The timeline: a row per model, a cell per recorded step holding the model's
// top-1 token there (the trace's first top entry), the first step whose top-1
// is the final step's marked ◆; a cell selects its step. One Tab stop, arrow keys inside.
function drawTimeline(box, trace, state, select) {
  const focused = box.contains(document.activeElement) ? document.activeElement.dataset.kind : null;
  const points = trace.runs[trace.order[0]].points;
  const rows = trace.order.map((kind) => {
    const tops = trace.runs[kind].points.map((p) => p.top[state.probe][0][0]);
    const first = tops.indexOf(tops.at(-1));
    return el('tr', { 'data-kind': kind, 'data-first-final': first },
      el('th', { scope: 'row', text: SHORT[kind] ?? kind }),
      tops.map((tok, i) => el('td', { class: i === first ? 'first-final' : null },
        el('button', { type: 'button', class: 'tl-step', 'data-kind': kind, 'data-index': i, 'data-token': tok,
          'aria-pressed': String(i === state.index), tabindex: -1, onclick: () => select(i) },
        i === first ? el('span', { class: 'tl-mark', 'aria-hidden': 'true', text: '◆' }) : null,
        el('span', { class: 'tl-tok', dir: 'auto', text: visibleToken(tok) }),
        el('span', { class: 'visually-hidden', text: `, step ${points[i].step.toLocaleString('en-US')}` +
          (i === first ? ', the first step with its final guess' : '') })))));
  });
  const table = el('table', { class: 'replay-timeline-table' },
    el('caption', { text: 'Top guess at each recorded step (select one to show it). ◆ marks the first step ' +
      'whose guess is the model\'s final one.' }),
    el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'step' }),
      points.map((p, i) => el('th', { scope: 'col', class: i === state.index ? 'now' : null,
        text: p.step.toLocaleString('en-US') })))),
    el('tbody', {}, rows));
  const keep = (focused && table.querySelector(`.tl-step[data-kind="${focused}"][data-index="${state.index}"]`)) ||
    table.querySelector(`.tl-step[data-index="${state.index}"]`);
  keep.tabIndex = 0;
  roving(table, '.tl-step');
  const wrap = el('div', { class: 'table-wrap', role: 'region',
    'aria-label': 'Timeline: each model\'s top guess at every recorded step' }, table);
  box.replaceChildren(wrap);
  if (focused) keep.focus({ preventScroll: true });
}

// One model at one step: its validation loss, top-5 and (attention models) each head's row.
function modelBlock(trace, kind, index, probeIndex) {
  const run = trace.runs[kind];
  const point = run.points[index];
  const kept = point.step === run.selected_step ? ' ★' : '';
  const top = el('table', { class: 'numbers replay-top' },
    el('caption', { text: 'Top 5 next tokens' }),
    el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'token' }),
      el('th', { scope: 'col', text: 'probability' }))),
    el('tbody', {}, point.top[probeIndex].map(([tok, p]) => el('tr', {},
      el('td', { class: 'tok-cell', text: visibleToken(tok) }),
      el('td', { 'data-p': p, text: fmt.pct(p) })))));
  const parts = [el('h3', { text: `${run.label}${kept}` }),
    el('p', { class: 'note', text: `Validation loss ${point.validation_loss.toFixed(3)}` }), top];
  if (point.attention) parts.push(attentionTable(trace, kind, point.attention[probeIndex], probeIndex));
  return el('section', { class: 'replay-model', 'data-kind': kind, 'data-step': point.step,
    'aria-label': `${run.label} at step ${point.step}` }, parts);
}

// One row per token of the text, one column per head: the final query's weight on each token.
function attentionTable(trace, kind, heads, probeIndex) {
  const tokens = trace.probes[probeIndex].tokens.slice(-heads[0].length);
  const table = el('table', { class: 'replay-attention' },
    el('caption', { text: `Attention of the final "${visibleToken(tokens.at(-1))}"` }),
    el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'token' }),
      heads.map((_, h) => el('th', { scope: 'col', text: heads.length > 1 ? `head ${h + 1}` : 'weight' })))),
    el('tbody', {}, tokens.map((t, j) => el('tr', { 'data-slot': j },
      el('th', { scope: 'row', class: 'tok-cell', text: visibleToken(t) }),
      heads.map((row, h) => {
        const c = heatColors(row[j]);
        return el('td', { 'data-head': h, 'data-weight': row[j], style: { backgroundColor: c.background,
          color: c.color }, text: row[j].toFixed(2) });
      })))));
  return el('div', { class: 'table-wrap', tabindex: 0, role: 'region',
    'aria-label': `${trace.runs[kind].label}: attention weights per head` }, table);
}
