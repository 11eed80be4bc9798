// DOM helpers for the lab. Every piece of user or model text goes in through
// textContent (el()), never innerHTML, so a prompt can never become markup.

import { PAD_ID, UNK_ID, detokenizePieces } from '../core/tokenizer.js';

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key === 'style') Object.assign(node.style, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// A token as visible text: control and format characters (NUL, RTL marks, ...)
// are spelled out as U+XXXX so that they can be seen and cannot reorder the line.
const INVISIBLE = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]$/u;
export function visibleToken(tok) {
  if (INVISIBLE.test(tok)) return `U+${tok.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  return tok;
}

export const fmt = {
  int: (n) => (n === null || n === undefined ? '–' : Math.round(n).toLocaleString('en-US')),
  ms: (n) => (n === null || n === undefined ? '–' : n >= 100 ? `${Math.round(n)} ms` : `${n.toFixed(1)} ms`),
  s: (n) => (n === null || n === undefined ? '–' : `${n.toFixed(2)} s`),
  mb: (bytes) => `${(bytes / 1e6).toFixed(2)} MB`,
  pct: (p) => (p >= 0.0995 ? `${(100 * p).toFixed(1)}%` : `${(100 * p).toFixed(2)}%`),
  meanSd: (stat, digits, unit = '') => {
    if (!stat || stat.mean === null || stat.mean === undefined) return 'not measured yet';
    return stat.sd === null || stat.sd === undefined ? `${stat.mean.toFixed(digits)}${unit} (one seed)`
      : `${stat.mean.toFixed(digits)} ± ${stat.sd.toFixed(digits)}${unit}`;
  },
};

// Chips for the token preview: BOS first, UNK highlighted, only the IDs the
// models read (the last 64); a note counts what was cropped.
export function renderPreview(container, summary, analysis, context) {
  const { tokens, ids, history } = analysis;
  const items = [{ label: '<BOS>', cls: 'tok special', title: 'added before every prompt' }];
  tokens.forEach((tok, i) => {
    const unk = ids[i] === UNK_ID;
    items.push({ label: visibleToken(tok), cls: unk ? 'tok unk' : 'tok', unk,
      title: unk ? `"${tok}" is not in the vocabulary: the models read <UNK>` : `ID ${ids[i]}` });
  });
  const shown = items.slice(-context);
  const cropped = items.length - shown.length;
  const unknown = ids.filter((i) => i === UNK_ID).length;
  const pads = Math.max(0, context - history.length);
  const parts = [`${tokens.length.toLocaleString('en-US')} token${tokens.length === 1 ? '' : 's'}`];
  parts.push(unknown ? `${unknown} not in the vocabulary (read as <UNK>, highlighted)` : 'none unknown');
  parts.push(cropped ? `the models read only the last ${context} IDs: ${cropped.toLocaleString('en-US')} earlier token${cropped === 1 ? ' is' : 's are'} cropped away`
    : `with <BOS> they fill ${history.length} of ${context} slots${pads ? `; the other ${pads} are <PAD>` : ''}`);
  summary.textContent = `${parts.join('; ')}.`;
  const chips = shown.map((it) => el('span', { class: it.cls, title: it.title },
    it.label, it.unk ? el('small', { class: 'unk-tag', text: 'UNK' }) : null));
  container.replaceChildren(...(cropped ? [el('span', { class: 'tok cropped', text: `… ${cropped.toLocaleString('en-US')} cropped` })] : []), ...chips);
}

export function modelCard(kind, entry) {
  const heads = entry.heads ? `${entry.heads} head${entry.heads === 1 ? '' : 's'}` : 'no attention';
  const stats = el('dl', { class: 'stats' });
  const fields = [['new', 'New tokens'], ['stop', 'Stop reason'], ['total', 'Total time'],
    ['median', 'Median per model call'], ['backend', 'Runtime']];
  const values = {};
  for (const [key, label] of fields) {
    values[key] = el('dd', { 'data-stat': key, text: '–' });
    stats.append(el('div', {}, el('dt', { text: label }), values[key]));
  }
  const card = el('article', { class: 'model-card', 'data-kind': kind },
    el('h2', { text: entry.label }),
    el('p', { class: 'note', text: `${fmt.int(entry.parameters)} parameters · ${heads}` }),
    el('p', { class: 'error model-error', role: 'alert', hidden: true }),
    el('div', { class: 'output', 'aria-live': 'polite' }),
    stats);
  return { card, values, output: card.querySelector('.output'), error: card.querySelector('.model-error') };
}

// The continuation as buttons, spaced by the detokenizer rules applied to the
// whole history (so quotes pair up with the prompt's).
export function renderOutput(view, promptTokens, newTokens, steps, stop, onSelect, selected) {
  const pieces = detokenizePieces([...promptTokens, ...newTokens]);
  const echo = detokenizePieces(promptTokens).join('');
  const tail = echo.length > 90 ? `…${echo.slice(-90)}` : echo;
  const nodes = [el('span', { class: 'prompt-echo', text: tail })];
  newTokens.forEach((tok, i) => {
    const piece = pieces[promptTokens.length + i];
    if (piece.startsWith(' ')) nodes.push(' ');
    nodes.push(el('button', { type: 'button', class: `tok gen${selected === i ? ' selected' : ''}`,
      'data-step': i, 'aria-pressed': selected === i ? 'true' : 'false',
      title: `step ${i + 1}: inspect`, onclick: () => onSelect(i) }, visibleToken(piece.trimStart() || piece)));
  });
  if (stop === 'eos') {
    const i = steps.length - 1;
    nodes.push(' ', el('button', { type: 'button', class: `tok eos${selected === i ? ' selected' : ''}`,
      'data-step': i, 'aria-pressed': selected === i ? 'true' : 'false',
      title: `step ${i + 1}: the model chose <EOS>`, onclick: () => onSelect(i) }, '<EOS>'));
  } else if (stop === 'stopped') {
    nodes.push(' ', el('span', { class: 'stopped-tag', text: '■ stopped' }));
  }
  view.output.replaceChildren(...nodes);
}

export function renderStats(view, stats) {
  const stopNames = { eos: 'EOS (the model ended the story)', limit: 'token limit', stopped: 'stopped by you', error: 'error' };
  view.values.new.textContent = stats ? String(stats.new_tokens) : '–';
  view.values.stop.textContent = stats ? stopNames[stats.stop] || stats.stop : '…';
  view.values.total.textContent = stats ? fmt.s(stats.total_ms / 1000) : '–';
  view.values.median.textContent = stats && stats.median_ms !== null ? fmt.ms(stats.median_ms) : '–';
  view.values.backend.textContent = stats ? backendName(stats.backend) : '–';
  view.error.hidden = !(stats && stats.error);
  view.error.textContent = stats && stats.error ? stats.error : '';
}

export function backendName(b) {
  return { webgpu: 'WebGPU', wasm: 'WASM (CPU)', auto: 'automatic' }[b] || String(b);
}

function tokenLabel(vocab, id) {
  return visibleToken(vocab.token(id));
}

// Top-10 tables side by side, then, for the attention models, one heatmap row
// per head over the real (non-PAD) context tokens.
export function renderInspect(container, stepIndex, models, metadata, vocab, mode) {
  const tops = [];
  const maps = [];
  for (const kind of metadata.order) {
    const entry = metadata.models[kind];
    const run = models[kind];
    const step = run?.steps[stepIndex];
    const section = el('section', { class: 'inspect-model', 'data-kind': kind },
      el('h3', { text: `${entry.label} · step ${stepIndex + 1}` }));
    tops.push(section);
    if (!step) {
      section.append(el('p', { class: 'note', text: run ? `This model stopped after ${run.steps.length} step${run.steps.length === 1 ? '' : 's'}.` : 'No run.' }));
      continue;
    }
    section.append(el('p', { class: 'note' }, 'Chose ', el('strong', { class: 'tok-inline', text: tokenLabel(vocab, step.id) }),
      ` (probability ${fmt.pct(step.chosen_p)}${step.chosen_q !== undefined ? `; ${fmt.pct(step.chosen_q)} after temperature, over the allowed tokens` : ''}).`));
    const head = el('tr', {}, el('th', { scope: 'col', text: '#' }), el('th', { scope: 'col', text: 'Next token' }),
      el('th', { scope: 'col', text: 'Probability' }),
      mode === 'sampled' ? el('th', { scope: 'col', text: 'Sampled with' }) : null);
    const rows = step.top.map((t, r) => el('tr', { class: t.id === step.id ? 'chosen' : '' },
      el('td', { text: String(r + 1) }),
      el('td', {}, el('span', { class: `tok-inline${t.id === UNK_ID ? ' unk' : ''}`, text: tokenLabel(vocab, t.id) }),
        metadata.banned_ids.includes(t.id) ? el('small', { class: 'note', text: ' never chosen' }) : null),
      el('td', { class: 'bar-cell' }, el('span', { class: 'bar', style: { width: `${Math.max(1, 100 * t.p)}%` } }),
        el('span', { class: 'bar-label', text: fmt.pct(t.p) })),
      mode === 'sampled' ? el('td', { text: fmt.pct(t.q) }) : null));
    section.append(el('table', { class: 'top10', 'aria-label': `${entry.label}: top-10 next tokens` },
      el('thead', {}, head), el('tbody', {}, rows)));
    if (step.attention) {
      maps.push(el('section', { class: 'inspect-attention', 'data-kind': kind },
        el('h3', { text: `${entry.label} · attention at step ${stepIndex + 1}` }), heatmap(step, entry, vocab)));
    }
  }
  container.replaceChildren(el('div', { class: 'inspect-top' }, tops), ...maps);
}

function heatmap(step, entry, vocab) {
  const [heads, slots] = step.attention.dims;
  const real = [];
  for (let j = 0; j < slots; j++) if (step.context[j] !== PAD_ID) real.push(j);
  const pads = slots - real.length;
  let max = 0;
  for (let h = 0; h < heads; h++) for (const j of real) max = Math.max(max, step.attention.data[h * slots + j]);
  const header = el('tr', {}, el('th', { scope: 'col', text: 'head' }),
    real.map((j) => el('th', { scope: 'col', class: 'ctx-label', title: `slot ${j + 1}` },
      el('span', { text: tokenLabel(vocab, step.context[j]) }))));
  const rows = [];
  for (let h = 0; h < heads; h++) {
    rows.push(el('tr', {}, el('th', { scope: 'row', text: String(h + 1) }), real.map((j) => {
      const w = step.attention.data[h * slots + j];
      const strength = max > 0 ? w / max : 0;
      return el('td', {
        class: `cell${strength > 0.55 ? ' dark' : ''}`,
        style: { backgroundColor: `rgba(190, 60, 20, ${strength.toFixed(3)})` },
        title: `head ${h + 1}, "${vocab.token(step.context[j])}" (slot ${j + 1}): ${w.toFixed(4)}`,
        'data-weight': w.toFixed(6),
      }, w >= 0.005 ? w.toFixed(2).replace(/^0/, '') : '');
    })));
  }
  return el('figure', { class: 'heatmap' },
    el('figcaption', { class: 'note', text: `Attention of the final query, per head, over the ${real.length} real context token${real.length === 1 ? '' : 's'}` +
      `${pads ? ` (${pads} PAD slot${pads === 1 ? '' : 's'} hidden: weight exactly 0)` : ''}. Each row sums to 1; darker = more weight.` }),
    el('div', { class: 'table-wrap' }, el('table', { class: 'attention', 'data-heads': heads },
      el('thead', {}, header), el('tbody', {}, rows))));
}

export function renderResults(table, metadata) {
  const head = el('tr', {}, ['Model', 'Parameters', 'ONNX file', 'Test cross-entropy', 'Test perplexity',
    'Training time per run', 'Seeds', 'Selected step (seed 11)', 'ONNX vs PyTorch, max |Δlogit|']
    .map((t) => el('th', { scope: 'col', text: t })));
  const rows = metadata.order.map((kind) => {
    const m = metadata.models[kind];
    const agg = m.aggregate || {};
    const train = fmt.meanSd(agg.train_seconds, 1, ' s');
    return el('tr', { 'data-kind': kind },
      el('th', { scope: 'row', text: m.label }),
      el('td', { text: fmt.int(m.parameters) }),
      el('td', { text: fmt.mb(m.bytes) }),
      el('td', { text: fmt.meanSd(agg.test_loss, 3) }),
      el('td', { text: fmt.meanSd(agg.test_perplexity, 2) }),
      el('td', { text: train }),
      el('td', { text: agg.seeds ? agg.seeds.join(', ') : '–' }),
      el('td', { text: m.selected_step === null || m.selected_step === undefined ? '–' : fmt.int(m.selected_step) }),
      el('td', { text: m.ort_cpu_vs_pytorch ? m.ort_cpu_vs_pytorch.max_abs_logits.toExponential(1) : '–' }));
  });
  table.replaceChildren(el('thead', {}, head), el('tbody', {}, rows));
}
