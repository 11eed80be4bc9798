// The lab's page pieces that are not the inspect or score panels: the token
// preview, the model cards and their continuations, the tables.

import { EOS_ID, UNK_ID, detokenizePieces } from '../core/tokenizer.js';
import { el, fmt, visibleToken } from '../core/dom.js';
import { slideLink } from './slides.js';
import { roving } from './roving.js';
import { chosenIds, describeAblation, firstDifference } from './experiment.js';
import { noAblation } from './guards.js';
import { scrollToNewest } from './inspect-view.js';

export { el, fmt, visibleToken };

// Chips for the token preview: BOS first, UNK highlighted, only the IDs the
// models read (the last 64); a note counts what was cropped.
export function renderPreview(container, summary, analysis, context) {
  const { tokens, ids, history } = analysis;
  const items = [{ label: '<BOS>', cls: 'tok special', title: 'added before every text' }];
  tokens.forEach((tok, i) => {
    const unk = ids[i] === UNK_ID;
    items.push({ label: visibleToken(tok), cls: unk ? 'tok unk' : 'tok', unk,
      title: unk ? `“${tok}” is not in the vocabulary: the models read <UNK>` : `ID ${ids[i]}` });
  });
  const shown = items.slice(-context);
  const cropped = items.length - shown.length;
  const unknown = ids.filter((i) => i === UNK_ID).length;
  const pads = Math.max(0, context - history.length);
  const parts = [`${tokens.length.toLocaleString('en-US')} token${tokens.length === 1 ? '' : 's'}`];
  parts.push(unknown ? `${unknown} not in the vocabulary (read as <UNK>, highlighted)` : 'none unknown');
  parts.push(cropped ? `the models read only the last ${context} IDs: ${cropped.toLocaleString('en-US')} earlier ` +
    `token${cropped === 1 ? ' is' : 's are'} cropped away`
    : `with <BOS> they fill ${history.length} of ${context} slots${pads ? `; the other ${pads} are <PAD>` : ''}`);
  summary.textContent = `${parts.join('; ')}.`;
  const chips = shown.map((it) => el('span', { class: it.cls, title: it.title },
    it.label, it.unk ? el('small', { class: 'unk-tag', text: 'UNK' }) : null));
  const croppedChip = el('span', { class: 'tok cropped', text: `… ${cropped.toLocaleString('en-US')} cropped` });
  container.replaceChildren(...(cropped ? [croppedChip] : []), ...chips);
}

// The lab's phone layout (lab.css's max-width: 700px): the cards' run details fold there, open here.
export const PHONE = window.matchMedia('(max-width: 700px)');
PHONE.addEventListener('change', () => {
  for (const d of document.querySelectorAll('.model-card .run-details')) d.open = !PHONE.matches;
});

export const STOP_LABELS = {
  eos: 'EOS: the model ended the story',
  limit: 'token limit reached',
  stopped: 'stopped by you',
  error: 'error',
  waiting: 'still downloading: not run',
};

// The same, in the one line a phone's card shows (its run details folded).
const SHORT_STOPS = { eos: 'ended the story', limit: 'token limit', stopped: 'stopped by you', error: 'error',
  waiting: 'not run' };

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
  const text = el('p', { class: 'continuation', dir: 'auto' },
    el('span', { class: 'note', text: 'Press Generate: this model\'s continuation appears here.' }));
  const chips = el('div', { class: 'output', role: 'group',
    'aria-label': `${entry.label}: generated tokens, select one to inspect` });
  const explain = el('p', { class: 'note stop-explain', hidden: true });
  const scoreThis = el('button', { type: 'button', class: 'link-button score-this', hidden: true,
    text: 'Score this continuation with all three models' });
  const settings = el('p', { class: 'note run-settings', hidden: true });
  // a run's settings and numbers: open on a wide screen (its summary not drawn), one folded line on a
  // phone, where the three cards stack and their continuations must fit one screen (lab.css)
  const digest = el('summary', { class: 'note run-digest', text: 'Details' });
  const details = el('details', { class: 'run-details', open: !PHONE.matches }, digest, settings, stats);
  const experiment = el('section', { class: 'experiment-run', hidden: true,
    'aria-label': `${entry.label}: the same run with your experiment` });
  const card = el('article',
    { class: 'model-card', 'data-kind': kind, id: `card-${kind}`, 'aria-labelledby': `card-${kind}-title` },
    el('h3', { id: `card-${kind}-title`, text: entry.label }),
    el('p', { class: 'note', text: `${fmt.int(entry.parameters)} parameters · ${heads}` }),
    el('p', { class: 'error model-error', role: 'alert', hidden: true }),
    el('p', { class: 'note model-status', 'data-state': 'loading',
      text: `Waiting for its file (${fmt.mb(entry.bytes)}).` }),
    el('p', { class: 'output-label note', text: 'Continuation (prompt in grey):' }),
    text,
    el('p', { class: 'output-label note', text: 'Tokens: select one to inspect that step' }),
    chips, explain, experiment, scoreThis, details);
  return { card, values, text, output: chips, explain, scoreThis, settings, experiment, digest,
    error: card.querySelector('.model-error'), status: card.querySelector('.model-status') };
}

// The settings that made a run, on its card (what a shared link carries too).
export function describeSettings(o, backend) {
  const parts = [o.mode === 'sampled' ? `sampled: T = ${fmt.num(o.temperature, 2)}, top-k ${o.top_k || 'off'}, ` +
    `top-p ${o.top_p < 1 ? fmt.num(o.top_p, 2) : 'off'}, seed ${o.seed}` : 'greedy', `limit ${o.limit}`,
  backendName(backend)];
  return parts.join(' · ');
}

export function renderSettings(view, run) {
  const on = run.ablation && !noAblation(run.ablation);
  const exp = on ? ` · experiment: ${describeAblation(run.ablation, run.history)}` : '';
  view.settings.hidden = false;
  view.settings.textContent = `Settings: ${describeSettings(run.options, run.backend)}${exp}.`;
}

// A run's step i as a word: its token, <EOS>, or nothing (it had stopped).
const stepWord = (r, i) => (i < r.tokens.length ? visibleToken(r.tokens[i])
  : r.stats?.stop === 'eos' && i === r.tokens.length ? '<EOS>' : 'nothing (it had stopped)');

// How a model's run with the experiment compares with its plain run: the first step where they
// differ (null: the same, or not finished), its chosen IDs, the words there, and the verdict line.
export function experimentOutcome(run, kind) {
  const plain = run.models[kind];
  const m = run.experiment.results[0][kind];
  const done = Boolean(plain.stats && m.stats);
  const mine = chosenIds(m);
  const at = done ? firstDifference(chosenIds(plain), mine) : null;
  const verdict = !done ? (m.stats || !plain.stats ? '' : 'Running with your experiment…')
    : at === null ? `The same ${mine.length} token${mine.length === 1 ? '' : 's'} as without it.`
      : `First differs at step ${at + 1}: ${stepWord(m, at)} instead of ${stepWord(plain, at)} (marked in both).`;
  const words = at === null ? { now: null, was: null } : { now: stepWord(m, at), was: stepWord(plain, at) };
  return { done, at, mine, verdict, ...words };
}

// Under the plain continuation, the same run with the page's experiment: its
// text and tokens, the first step where it chose differently marked in both strips.
export function renderExperimentRun(view, run, kind) {
  const box = view.experiment;
  for (const b of view.output.querySelectorAll('.tok.diverge')) b.classList.remove('diverge');
  if (!run.experiment) { box.hidden = true; box.replaceChildren(); return; }
  const m = run.experiment.results[0][kind];
  const a = run.experiment.ablation;
  const { at, mine, verdict } = experimentOutcome(run, kind);
  const chips = mine.map((id, i) => el('span', { class: `tok exp-tok${i === at ? ' diverge' : ''}${id === EOS_ID
    ? ' eos' : ''}`, 'data-step': i, 'data-id': id, title: `step ${i + 1} with your experiment` }, stepWord(m, i)));
  if (at !== null) view.output.querySelector(`.tok[data-step="${at}"]`)?.classList.add('diverge');
  const pieces = detokenizePieces([...run.promptTokens, ...m.tokens]);
  box.hidden = false;
  box.dataset.diverge = at === null ? '' : String(at);
  box.replaceChildren(
    el('p', { class: 'output-label note' }, el('strong', { text: 'With your experiment' }),
      el('span', { class: 'exp-what', text: ` (${describeAblation(a, run.history)})` }),
      `${a.dropped?.length ? `; position${a.dropped.length > 1 ? 's' : ''} ` +
        `${a.dropped.join(', ')} past this prompt, not hidden` : ''}:`),
    el('p', { class: 'continuation experiment-text', dir: 'auto' },
      el('span', { class: 'generated', text: pieces.slice(run.promptTokens.length).join('') })),
    el('div', { class: 'output exp-output', role: 'group', 'aria-label': 'tokens with your experiment' }, chips),
    el('p', { class: 'note exp-verdict', 'aria-live': 'polite', text: verdict }));
}

// The prompt before a continuation, in grey: its last 120 characters as text,
// in two parts: a phone shows only the tail (its last few words), so that the
// three stacked continuations fit one screen (lab.css); the text is the same.
export function promptEcho(promptTokens) {
  const full = detokenizePieces(promptTokens).join('');
  const echo = full.length > 120 ? `…${full.slice(-120)}` : full;
  const cut = echoCut(echo);
  return el('span', { class: 'prompt-echo' }, cut ? el('span', { class: 'echo-head', text: echo.slice(0, cut) }) : null,
    el('span', { class: `echo-tail${cut ? ' cut' : ''}`, text: echo.slice(cut) }));
}

// Where the tail starts: at a word boundary about 32 characters from the end (0: the echo is short, all of it shows).
function echoCut(echo) {
  if (echo.length <= 40) return 0;
  const at = echo.indexOf(' ', echo.length - 32);
  return at > 0 ? at : 0;
}

// The continuation twice: as readable text (punctuation attached, as
// models/tokenizer.py's detokenize does, continuing the prompt's quotes), and as
// token chips that open the inspect panel. Only new chips are appended while
// a generation streams; a redraw keeps the focused chip focused.
export function renderOutput(view, promptTokens, newTokens, steps, stop, onSelect, selected) {
  const pieces = detokenizePieces([...promptTokens, ...newTokens]);
  view.text.replaceChildren(promptEcho(promptTokens),
    el('span', { class: 'generated', text: pieces.slice(promptTokens.length).join('') }));
  const chipCount = newTokens.length + (stop === 'eos' ? 1 : 0);
  const existing = view.output.querySelectorAll('.tok');
  if (existing.length > chipCount || view.output.dataset.stop !== String(stop)) {
    // a new run, or the end marker changes: redraw (keeping focus on the same step)
    const focused = view.output.contains(document.activeElement) ? document.activeElement.dataset.step : null;
    view.output.replaceChildren();
    appendChips(view, newTokens, 0, stop, steps, onSelect);
    if (focused !== null) view.output.querySelector(`.tok[data-step="${focused}"]`)?.focus();
  } else {
    appendChips(view, newTokens, existing.length, null, steps, onSelect);
    if (stop && stop !== view.output.dataset.stop) {
      appendChips(view, newTokens, newTokens.length, stop, steps, onSelect);
    }
  }
  view.output.dataset.stop = String(stop);
  view.card.dataset.ran = 'true';
  markSelected(view, selected);
  roving(view.output, '.tok'); // the strip is one Tab stop; the arrow keys move between its tokens
}

function appendChips(view, tokens, from, stop, steps, onSelect) {
  const nodes = [];
  for (let i = from; i < tokens.length; i++) {
    nodes.push(el('button', { type: 'button', class: 'tok gen', 'data-step': i, 'aria-pressed': 'false',
      title: `step ${i + 1}: inspect`, onclick: () => onSelect(i) }, visibleToken(tokens[i])));
  }
  if (stop === 'eos') {
    const i = steps.length - 1;
    nodes.push(el('button', { type: 'button', class: 'tok eos', 'data-step': i, 'aria-pressed': 'false',
      title: `step ${i + 1}: the model chose <EOS>`, 'aria-label': `<EOS> (end of story), step ${i + 1}`,
      onclick: () => onSelect(i) }, '<EOS>'));
  } else if (stop === 'stopped') {
    nodes.push(el('span', { class: 'stopped-tag', text: '■ stopped' }));
  }
  view.output.append(...nodes);
}

// Below 700 px the three cards stack, and the Inspect panel shows one model at
// a time: the toggles above it (sticky while it scrolls) switch it. Scrolled
// into one model's part of the panel, the switch lands on the same part of the
// other model (its step, or its attention), never wherever the shorter panel
// leaves the page.
export function showModel(kind, keepPart = true) {
  const main = document.querySelector('main');
  const tabs = document.getElementById('model-tabs');
  const line = tabs.getBoundingClientRect().bottom;
  const before = main.dataset.show;
  const parts = (k) => [...document.querySelectorAll(`#inspect-body :is(.inspect-model, .inspect-attention)` +
    `[data-kind="${k}"]`)];
  const across = (e) => { const b = e.getBoundingClientRect(); return b.top < line && b.bottom > line; };
  const part = keepPart && PHONE.matches && before && before !== kind ? parts(before).find(across) : null;
  main.dataset.show = kind;
  for (const b of tabs.querySelectorAll('button')) {
    b.setAttribute('aria-pressed', b.dataset.kind === kind ? 'true' : 'false');
  }
  if (part) {
    const same = document.querySelector(`#inspect-body .${part.classList[0]}[data-kind="${kind}"]`)
      || document.querySelector(`#inspect-body .inspect-model[data-kind="${kind}"]`);
    if (same) window.scrollBy(0, same.getBoundingClientRect().top - tabs.getBoundingClientRect().bottom);
  }
  scrollToNewest(document.getElementById('inspect-body'));
}

export function markSelected(view, selected) {
  for (const b of view.output.querySelectorAll('.tok')) {
    const on = selected !== null && Number(b.dataset.step) === selected;
    b.classList.toggle('selected', on);
    b.setAttribute('aria-pressed', on ? 'true' : 'false');
  }
}

export function renderStats(view, stats) {
  view.values.new.textContent = stats ? String(stats.new_tokens) : '–';
  view.values.stop.textContent = stats ? STOP_LABELS[stats.stop] || stats.stop : '…';
  view.values.stop.dataset.reason = stats ? stats.stop : '';
  view.values.total.textContent = stats ? fmt.s(stats.total_ms / 1000) : '–';
  view.values.median.textContent = stats && stats.median_ms !== null ? fmt.ms(stats.median_ms) : '–';
  view.values.backend.textContent = stats ? backendName(stats.backend) : '–';
  if (view.digest) {
    view.digest.textContent = stats ? `Details · ${stats.new_tokens} token${stats.new_tokens === 1 ? '' : 's'} · ` +
      `${SHORT_STOPS[stats.stop] || stats.stop} · ${fmt.s(stats.total_ms / 1000)}` : 'Details · running…';
  }
  view.error.hidden = !(stats && stats.error);
  view.error.textContent = stats && stats.error ? `This model stopped with an error: ${stats.error}` : '';
  const immediate = stats && stats.stop === 'eos' && stats.new_tokens === 0;
  const waiting = stats && stats.stop === 'waiting';
  view.explain.hidden = !immediate && !waiting;
  view.explain.replaceChildren(...(waiting ? ['This model\'s file was still downloading when you pressed ' +
    'Generate; it joins the next run once it is checked (its card says when).'] : []), ...(immediate ? [
    'This model chose <EOS> (end of story) as its very first token: ' +
      'after this text, ending the story was its most likely next token',
    ' (or the draw landed on it). Select <EOS> to see the probabilities, or try a different text. ',
    slideLink('eos', 'Slide: extend the history, or stop')] : []));
  view.scoreThis.hidden = !(stats && stats.new_tokens > 0);
}

export function backendName(b) {
  return { webgpu: 'WebGPU', wasm: 'WASM (CPU)', auto: 'automatic' }[b] || String(b);
}

export function renderResults(table, metadata) {
  const head = el('tr', {}, ['Model', 'Parameters', 'ONNX file', 'Test cross-entropy', 'Test perplexity',
    'Training time per run', 'Seeds', 'Selected step (seed 11)', 'ONNX vs PyTorch, max |Δlogit|']
    .map((t) => el('th', { scope: 'col', text: t })));
  const rows = metadata.order.map((kind) => {
    const m = metadata.models[kind];
    const agg = m.aggregate || {};
    return el('tr', { 'data-kind': kind },
      el('th', { scope: 'row', text: m.label }),
      el('td', { text: fmt.int(m.parameters) }),
      el('td', { text: fmt.mb(m.bytes) }),
      el('td', { text: fmt.meanSd(agg.test_loss, 3) }),
      el('td', { text: fmt.meanSd(agg.test_perplexity, 2) }),
      el('td', { text: fmt.meanSd(agg.train_seconds, 1, ' s') }),
      el('td', { text: agg.seeds ? agg.seeds.join(', ') : '–' }),
      el('td', { text: m.selected_step === null || m.selected_step === undefined ? '–' : fmt.int(m.selected_step) }),
      el('td', { text: m.ort_cpu_vs_pytorch ? m.ort_cpu_vs_pytorch.max_abs_logits.toExponential(1) : '–' }));
  });
  table.replaceChildren(el('thead', {}, head), el('tbody', {}, rows));
}
