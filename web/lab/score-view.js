// Score mode's view: per model, cross-entropy and perplexity on the text;
// every token with three probability cells (one per model) on one fixed,
// legended surprisal scale; a selected token shows each model's top 10 on the
// identical context.

import { PAD_ID, detokenizePieces } from '../core/tokenizer.js';
import { el, fmt, visibleToken } from '../core/dom.js';
import { SCORE_MAX_BITS, scoreColors } from '../core/inspect.js';
import { softmax, topK } from '../core/decoding.js';
import { slideLink } from './slides.js';
import { objectKey, predictGate } from './predict.js';
import { noAblation } from './guards.js';
import { signed } from './head-cost.js';

const SHORT = { mlp: 'MLP', attn1: '1 head', attn4: '4 heads' };
const RUNTIME_NAMES = { webgpu: 'WebGPU', wasm: 'WASM (CPU)' };

function scoreLegend() {
  const bits = [0, 2, 4, 7, 10, SCORE_MAX_BITS];
  return el('div', { class: 'legend', role: 'img',
    'aria-label': 'Colour scale: light for likely tokens (probability near 100%), dark red for surprising ones ' +
      '(0.02% or less); the same for all three models' },
  el('span', { class: 'legend-title', text: 'Probability of the actual token' }),
  bits.map((b) => {
    const p = 2 ** -b;
    const c = scoreColors(p);
    return el('span', { class: 'legend-swatch', style: { backgroundColor: c.background, color: c.color },
      text: b === SCORE_MAX_BITS ? `≤${fmt.pct(p)}` : fmt.pct(p) });
  }),
  el('span', { class: 'legend-note', text: 'same scale for all three models; darker = more surprised' }));
}

// Each model's most surprising token: the lowest probability (the first on ties).
function mostSurprising(probabilities) {
  let at = -1;
  probabilities.forEach((p, i) => { if (at < 0 || p < probabilities[at]) at = i; });
  return at;
}

const RENDER_SLICE = 100; // token buttons added per frame, at least

// A slice ends after a sentence (its line break then reads as one), at the
// first full stop, '!', '?' or <EOS> from RENDER_SLICE tokens on, or at twice
// RENDER_SLICE tokens where no sentence ends.
export function sliceEnd(tokens, start) {
  const last = Math.min(tokens.length, start + 2 * RENDER_SLICE);
  for (let i = start + RENDER_SLICE - 1; i < last; i++) {
    if (/^(\.|!|\?|<EOS>)$/.test(tokens[i])) return i + 1;
  }
  return last;
}

export async function renderScore(container, sc, metadata, vocab, onSelect, onSweep = null) {
  const columns = ['Model', 'Cross-entropy (nats/token)', 'Perplexity', 'Tokens scored', 'Most surprising token',
    'Test-set perplexity, for comparison'];
  const worst = Object.fromEntries(metadata.order.map((k) => [k, mostSurprising(sc.models[k].probabilities)]));
  const rows = metadata.order.map((kind) => {
    const m = sc.models[kind];
    const w = worst[kind];
    const cells = [
      el('td', { 'data-value': 'cross_entropy', text: m.error ? 'error' : fmt.num(m.cross_entropy, 3) }),
      el('td', { 'data-value': 'perplexity', text: m.error ? m.error : fmt.num(m.perplexity, 2) }),
      el('td', { text: String(m.probabilities.length) }),
      el('td', { 'data-value': 'most_surprising', 'data-index': w,
        text: w < 0 ? '–' : `${sc.tokens[w]} (${exactPct(m.probabilities[w])})` }),
      el('td', { text: fmt.meanSd(metadata.models[kind].aggregate?.test_perplexity, 2) })];
    cells.forEach((td, i) => td.setAttribute('data-label', columns[i + 1]));
    return el('tr', { 'data-kind': kind }, el('th', { scope: 'row', text: metadata.models[kind].label }), cells);
  });
  const summary = el('table', { class: 'numbers score-summary' },
    el('caption', { text: 'On this text (lower is better for both). One text is a small sample: ' +
      'the test-set figure averages every target of the test split.' }),
    el('thead', {}, el('tr', {}, columns.map((t) => el('th', { scope: 'col', text: t })))),
    el('tbody', {}, rows));
  const pieces = detokenizePieces(sc.tokens.map((t) => (t === '<EOS>' ? 'EOS' : t)));
  const press = (e) => {
    for (const b of container.querySelectorAll('.score-tok')) {
      b.setAttribute('aria-pressed', b === e.currentTarget ? 'true' : 'false');
    }
  };
  const worstText = (i) => {
    const kinds = metadata.order.filter((k) => worst[k] === i).map((k) => SHORT[k] || k);
    return kinds.length ? el('span', { class: 'visually-hidden', text: `, most surprising for ${kinds.join(', ')}` })
      : null;
  };
  const spoken = (i) => metadata.order.map((k) => `${SHORT[k] || k} ${exactPct(sc.models[k].probabilities[i])}`)
    .concat(leastSpoken(sc.least_surprised?.[i]));
  const tokenButton = (tok, i) => el('button', { type: 'button', class: 'score-tok', 'data-index': i,
    'aria-pressed': 'false', onclick: (e) => { press(e); onSelect(i); } },
  el('span', { class: 'score-word', dir: 'auto',
    text: tok === '<EOS>' ? '<EOS>' : visibleToken(pieces[i].trim() || tok) }),
  el('span', { class: 'visually-hidden', text: `: ${spoken(i).join(', ')}` }),
  worstText(i),
  metadata.order.map((k) => {
    const p = sc.models[k].probabilities[i];
    const c = p === undefined ? null : scoreColors(p);
    return el('span', { class: `score-cell${worst[k] === i ? ' most' : ''}`, 'aria-hidden': 'true', 'data-kind': k,
      'data-p': p === undefined ? '' : String(p), style: c ? { backgroundColor: c.background, color: c.color } : {} },
    p === undefined ? '–' : shortPct(p));
  }),
  leastCell(sc.least_surprised?.[i]));
  const labels = metadata.order.map((k) => metadata.models[k].label).join(', ');
  // the tokens in slices of their own (lab.css .score-slice): adding one lays out that slice
  // alone, not every token before it, and a slice off screen is not laid out at all
  const firstSlice = el('div', { class: 'score-slice' },
    el('div', { class: 'score-labels', 'aria-hidden': 'true' }, el('span', { class: 'score-word', text: 'token' }),
      metadata.order.map((k) => el('span', { class: 'score-cell score-label', text: SHORT[k] || k })),
      el('span', { class: 'score-least least-label' }, el('span', { text: 'least' }),
        el('span', { text: 'surprised' }))));
  const tokens = el('div', { class: 'score-tokens', role: 'group', 'aria-label': 'Scored tokens', 'aria-busy': 'true' },
    firstSlice);
  // (replaceChildren writes a null as the text "null": the parts a score lacks are left out)
  container.replaceChildren(...[
    el('p', { class: 'note' },
      'Each model read this text one token at a time (teacher forcing, as in training and testing) ',
      'and gave a probability to the token that really comes next. ',
      'Cross-entropy is the mean of −ln p over the tokens; perplexity is e to that power: ',
      'a perplexity of 20 is as unsure as a fair pick among 20 tokens. ',
      slideLink('perplexity', 'Slide: perplexity')),
    el('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Scores on this text' }, summary),
    rankNote(sc, metadata),
    el('p', { class: 'note replay-link' }, 'How each model came to guess like this: ',
      el('a', { href: '#replay', text: 'the training replay, step by step' }), '.'),
    el('p', { class: 'note run-settings', text: `Settings: scored ${sc.ids.length} ` +
      `token${sc.ids.length === 1 ? '' : 's'} ${sc.eos ? 'with' : 'without'} the <EOS> target · ` +
      `${RUNTIME_NAMES[sc.backend] || sc.backend}` +
      `${sc.experiment ? ' · with and without your experiment' : ''}.` }),
    experimentScores(sc, metadata, vocab),
    sweepBox(sc, metadata, onSweep),
    scoreLegend(),
    el('p', { class: 'note', text: `Under each token, top to bottom: ${labels}, the probability in %; ` +
      'then the model least surprised by it and by how many nats its −ln p is below the next model\'s. ' +
      'Each model\'s most surprising token has a thick border. ' +
      'Select a token to compare the three models\' top 10 on exactly the same context.' }),
    tokens,
    el('div', { id: 'score-detail', class: 'score-detail', 'aria-live': 'polite', tabindex: '-1' })].filter(Boolean));
  askWinner(container, sc, metadata);
  // The tokens go in a slice a frame (each laid out on its own), the page answering in between:
  // a long text never freezes it. (A hidden tab runs no frames: the timeout goes on without them.)
  for (let start = 0, end; start < sc.tokens.length; start = end) {
    if (start) await new Promise((resolve) => { requestAnimationFrame(resolve); setTimeout(resolve, 100); });
    if (!tokens.isConnected) return; // a newer score replaced this one
    end = sliceEnd(sc.tokens, start);
    const slice = start ? tokens.appendChild(el('div', { class: 'score-slice' })) : firstSlice;
    slice.append(...sc.tokens.slice(start, end).map((tok, j) => tokenButton(tok, start + j)));
  }
  tokens.removeAttribute('aria-busy');
}

// Predict first (predict.js): which model is least surprised by this text?
// The answer is the lowest cross-entropy of the table it hides until then.
function askWinner(container, sc, metadata) {
  const ok = metadata.order.filter((k) => !sc.models[k].error && sc.models[k].cross_entropy !== null);
  const table = container.querySelector('table.score-summary')?.closest('.table-wrap');
  if (ok.length < 2 || !table) return;
  const best = ok.reduce((a, b) => (sc.models[b].cross_entropy < sc.models[a].cross_entropy ? b : a));
  const name = (k) => metadata.models[k].label;
  const ce = (k) => `${fmt.num(sc.models[k].cross_entropy, 3)} nats/token`;
  predictGate({ key: `score-${objectKey(sc)}`, before: table, noun: 'score',
    question: 'Predict first: which model will be least surprised by this text (the lowest cross-entropy)?',
    choices: ok.map((k) => ({ value: k, label: name(k) })),
    answer: best,
    explain: (guess) => `${name(best)} has the lowest cross-entropy, ${ce(best)}.` +
      (guess !== null && guess !== best ? ` ${name(guess)}: ${ce(guess)}.` : ''),
    conceal: [table, ...container.querySelectorAll('.rank-note, .score-experiment')] });
}

const notApplied = (list) => (list.length ? `; position${list.length > 1 ? 's' : ''} ${list.join(', ')} past this ` +
  'text, not hidden' : '');

// Beside the plain scores, the same text with the page's experiment: per model
// its cross-entropy and perplexity, and which way and by how much it moved.
function experimentScores(sc, metadata, vocab) {
  const ex = sc.experiment;
  if (!ex) return null;
  const hidden = ex.hide.map((p) => `“${visibleToken(vocab.token(sc.history[p]))}” (position ${p})`);
  const off = metadata.order.filter((k) => ex.heads_off[k]?.length)
    .map((k) => `${metadata.models[k].label}: head${ex.heads_off[k].length > 1 ? 's' : ''} ` +
      `${ex.heads_off[k].map((h) => h + 1).join(', ')} off`);
  const what = [...off, hidden.length ? `hidden: ${hidden.join(', ')}` : null].filter(Boolean).join('; ');
  const lines = metadata.order.map((k) => {
    const was = sc.models[k];
    const now = ex.models[k];
    if (was.error || now.error) {
      return el('li', { 'data-kind': k, text: `${metadata.models[k].label}: ${now.error || was.error}` });
    }
    const d = now.cross_entropy - was.cross_entropy;
    const way = Math.abs(d) < 5e-4 ? 'unchanged' : d > 0 ? `worse by ${fmt.num(d, 3)} nats/token`
      : `better by ${fmt.num(-d, 3)} nats/token`;
    return el('li', { 'data-kind': k, 'data-cross-entropy': String(now.cross_entropy), 'data-delta': String(d) },
      `${metadata.models[k].label}: ${fmt.num(now.cross_entropy, 3)} nats/token (perplexity ` +
      `${fmt.num(now.perplexity, 2)}) with your experiment, ${fmt.num(was.cross_entropy, 3)} (perplexity ` +
      `${fmt.num(was.perplexity, 2)}) without: ${way}.`);
  });
  return el('section', { class: 'score-experiment', 'aria-label': 'The same text with your experiment' },
    el('h3', { text: 'With your experiment' }),
    el('p', { class: 'note', text: `${what}${notApplied(ex.not_applied)}. The token cells below are without it.` }),
    el('ul', { class: 'note' }, lines));
}

// The row under the three cells: the least surprised model and its lead in nats.
function leastCell(least) {
  if (!least) return el('span', { class: 'score-least', 'aria-hidden': 'true', text: '–' });
  return el('span', { class: 'score-least', 'aria-hidden': 'true', 'data-least': least.kind,
    'data-margin': String(least.margin) },
  el('span', { text: SHORT[least.kind] || least.kind }), el('span', { text: `by ${least.margin.toFixed(2)}` }));
}

const leastSpoken = (least) => (least ? [`least surprised: ${SHORT[least.kind] || least.kind}, ` +
  `by ${least.margin.toFixed(2)} nats`] : []);

// The progress of a running score: the model calls done, of all of them.
export function renderScoreProgress(container, { done, total, kind }) {
  let line = container.querySelector('.score-progress');
  if (!line) {
    line = el('p', { class: 'note score-progress', role: 'status' }, el('progress', {}), el('span'));
    container.replaceChildren(line);
  }
  const bar = line.querySelector('progress');
  bar.max = total;
  bar.value = done;
  line.querySelector('span').textContent = ` Scoring: ${done.toLocaleString('en-US')} of ` +
    `${total.toLocaleString('en-US')} model readings${kind ? ` (${kind})` : ''}; Stop ends it.`;
}

// The probability in % with enough digits to tell 0.10 from 0.41 (two
// significant digits down to 0.001%).
export function shortPct(p) {
  if (p >= 0.995) return '100';
  if (p >= 0.095) return (100 * p).toFixed(0);
  if (p >= 0.0095) return (100 * p).toFixed(1);
  if (p >= 0.00095) return (100 * p).toFixed(2);
  if (p >= 0.0000095) return (100 * p).toFixed(3);
  return '<0.001';
}

const exactPct = (p) => `${shortPct(p)}%`;

// One line beside the numbers: why a short text can rank the models unlike the test set.
function rankNote(sc, metadata) {
  const ok = metadata.order.filter((k) => !sc.models[k].error && sc.models[k].perplexity !== null);
  const byText = [...ok].sort((a, b) => sc.models[a].perplexity - sc.models[b].perplexity);
  const test = (k) => metadata.models[k].aggregate?.test_perplexity?.mean ?? Infinity;
  const byTest = [...ok].sort((a, b) => test(a) - test(b));
  const same = byText.join() === byTest.join();
  const names = (list) => list.map((k) => SHORT[k] || k).join(' < ');
  const count = sc.ids.length;
  return el('p', { class: `note rank-note${same ? '' : ' differs'}`, 'data-same-ranking': String(same) },
    same ? `On this text the models rank as on the test set (${names(byText)}). `
      : `On this text the ranking (${names(byText)}) differs from the test set's (${names(byTest)}). `,
    `A text of ${count} token${count === 1 ? '' : 's'} is a small sample: one phrase the MLP's fixed window happens ` +
      'to know, or one surprise, can move its perplexity a lot, while the test figure averages every target of ' +
      'the test split.');
}

export function renderScoreDetail(container, { sc, position, context, items, metadata, vocab }) {
  const target = sc.ids[position];
  const real = context.filter((id) => id !== PAD_ID);
  const tail = real.slice(-12).map((id) => visibleToken(vocab.token(id)));
  const sections = items.map((it) => {
    const entry = metadata.models[it.kind];
    if (it.error) {
      return el('section', { class: 'inspect-model', 'data-kind': it.kind },
        el('h4', { text: entry.label }), el('p', { class: 'error', text: it.error }));
    }
    const probs = softmax(it.logits);
    let rank = 1;
    for (let i = 0; i < probs.length; i++) {
      if (probs[i] > probs[target] || (probs[i] === probs[target] && i < target)) rank += 1;
    }
    const top = topK(probs, 10);
    return el('section', { class: 'inspect-model', 'data-kind': it.kind },
      el('h4', { text: entry.label }),
      el('p', { class: 'note' }, `The actual token `,
        el('strong', { class: 'tok-inline', text: visibleToken(vocab.token(target)) }),
        ` gets ${fmt.pct(probs[target])}, rank ${rank.toLocaleString('en-US')} of ` +
        `${probs.length.toLocaleString('en-US')}.`),
      el('table', { class: 'top10', 'aria-label': `${entry.label}: ten most likely tokens here` },
        el('thead', {}, el('tr', {}, ['#', 'Token', 'Probability'].map((t) => el('th', { scope: 'col', text: t })))),
        el('tbody', {}, top.map((id, r) => el('tr', { class: id === target ? 'chosen' : '' },
          el('td', { text: String(r + 1) }),
          el('td', {}, el('span', { class: 'tok-inline', dir: 'auto', text: visibleToken(vocab.token(id)) })),
          el('td', { class: 'bar-cell' },
            el('span', { class: 'bar', style: { width: `${Math.max(1, 100 * probs[id])}%` } }),
            el('span', { class: 'bar-label', text: fmt.pct(probs[id]) })))))));
  });
  container.replaceChildren(
    el('h3', { text: `Token ${position + 1}: all three models on the same context` }),
    el('p', { class: 'note context-strip' }, `Context (last ${tail.length} of ${real.length} tokens): `,
      el('span', { dir: 'auto', text: `${real.length > tail.length ? '… ' : ''}${tail.join(' ')}` })),
    el('div', { class: 'inspect-top' }, sections));
}

// The head sweep's place in the Score view (job-score.js headSweep): offered on
// a plain score that an attention model read.
function sweepBox(sc, metadata, onSweep) {
  const plain = noAblation({ heads_off: sc.heads_off || {}, hide: sc.hide || [] });
  const kinds = metadata.order.filter((k) => metadata.models[k].heads && !sc.models[k].error);
  if (!onSweep || !plain || !kinds.length) return null;
  return el('section', { class: 'head-sweep-box', 'aria-labelledby': 'head-sweep-title' },
    el('h3', { id: 'head-sweep-title', text: 'Which head matters on this text?' }),
    el('p', { class: 'note', text: 'Each attention model scores this text again with one head switched off at ' +
      'a time; the rise in cross-entropy says how much that head helped here, beside what it is worth on the ' +
      'whole test set. ' }, slideLink('heads', 'Slide: what each head is worth')),
    el('button', { type: 'button', class: 'link-button', id: 'run-sweep', onclick: onSweep,
      text: 'Switch each head off in turn' }),
    el('div', { id: 'sweep-progress' }),
    el('div', { id: 'head-sweep', 'aria-live': 'polite' }));
}

// The sweep's table per attention model, and one line naming the head that
// matters most on this text and on the test set.
export function renderHeadSweep(container, result, metadata) {
  $progress(container)?.replaceChildren();
  const parts = [];
  for (const [kind, m] of Object.entries(result.models)) {
    const label = metadata.models[kind].label;
    const columns = ['Head off', 'Cross-entropy (nats/token)', 'Perplexity', 'Rise on this text (nats/token)',
      'Rise on the test set (nats/token)'];
    const rows = m.heads.map((r) => el('tr', { 'data-head': r.head },
      el('th', { scope: 'row', text: metadata.models[kind].heads > 1 ? `head ${r.head}` : 'its one head' }),
      el('td', { 'data-value': 'cross_entropy', text: fmt.num(r.cross_entropy, 3) }),
      el('td', { text: fmt.num(Math.exp(r.cross_entropy), 2) }),
      el('td', { 'data-value': 'rise', text: signed(r.rise) }),
      el('td', { 'data-value': 'test_rise', text: r.test_rise === null ? '–' : signed(r.test_rise) })));
    for (const tr of rows) {
      [...tr.querySelectorAll('td')].forEach((td, i) => td.setAttribute('data-label', columns[i + 1]));
    }
    const top = m.heads.find((r) => r.head === m.ranking[0]);
    const name = (h) => (metadata.models[kind].heads > 1 ? `head ${h}` : 'its one head');
    const change = (r) => `switching it off ` +
      `${r.rise >= 0 ? 'raises' : 'lowers'} the cross-entropy by ${Math.abs(r.rise).toFixed(3)} nats/token ` +
      `(perplexity ${fmt.num(Math.exp(m.on), 2)} → ${fmt.num(Math.exp(r.cross_entropy), 2)})`;
    let line = `${label}, ${name(top.head)}: ${change(top)}`;
    if (metadata.models[kind].heads > 1) {
      line = `${label}: ${name(top.head)} matters most on this text: ${change(top)}` +
        (m.test_ranking ? (m.test_ranking[0] === top.head ? '; on the test set it matters most too'
          : `; on the test set ${name(m.test_ranking[0])} does`) : '');
    }
    parts.push(el('p', { class: 'note sweep-verdict', 'data-kind': kind, text: `${line}.` }),
      el('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': `${label}: heads off` },
        el('table', { class: 'numbers head-sweep', 'data-kind': kind },
          el('caption', { text: `${label}: ${metadata.models[kind].heads > 1 ? 'every head' : 'its head'} on gives ` +
            `${fmt.num(m.on, 3)} nats/token on this text ` +
            `(${result.tokens.toLocaleString('en-US')} tokens)` }),
          el('thead', {}, el('tr', {}, columns.map((t) => el('th', { scope: 'col', text: t })))),
          el('tbody', {}, rows))));
  }
  container.replaceChildren(...parts);
  askTopHead(container, result, metadata);
}

// Predict first (predict.js): which of the four-head model's heads matters most
// on this text? The answer is the largest rise of the table it hides until then.
function askTopHead(container, result, metadata) {
  const kind = Object.keys(result.models).find((k) => metadata.models[k].heads > 1);
  if (!kind) return;
  const m = result.models[kind];
  const table = container.querySelector(`table.head-sweep[data-kind="${kind}"]`)?.closest('.table-wrap');
  const verdict = container.querySelector(`.sweep-verdict[data-kind="${kind}"]`);
  if (!table || !verdict) return;
  const best = m.ranking[0];
  const rise = (h) => `${signed(m.heads[h - 1].rise)} nats/token`;
  predictGate({ key: `sweep-${objectKey(result)}`, before: verdict, noun: 'head sweep',
    question: `Predict first: which head of the ${metadata.models[kind].label.toLowerCase()} model matters most ` +
      'on this text (switching it off raises the cross-entropy most)?',
    choices: m.heads.map((r) => ({ value: r.head, label: `head ${r.head}` })),
    answer: best,
    explain: (guess) => `with head ${best} off the text costs ${rise(best)} more.` +
      (guess !== null && guess !== best ? ` Head ${guess}: ${rise(guess)}.` : ''),
    conceal: [table, verdict] });
}

const $progress = (container) => container.parentElement?.querySelector('#sweep-progress');
