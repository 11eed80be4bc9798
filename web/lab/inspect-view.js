// The inspect panel: for one step, each model's context, its top-10 before and
// after the sampling controls, the final query's attention per head on one
// fixed 0-1 scale, and (attention models) the full causal matrix per head.
// Anything that carries data-pos (a position in the text) lights up in every
// view when pointed at or focused.

import { PAD_ID, EOS_ID, UNK_ID, detokenizePieces } from '../core/tokenizer.js';
import { el, fmt, visibleToken } from '../core/dom.js';
import { distributions, heatColors, topRows } from '../core/inspect.js';
import { slideLink } from './slides.js';
import { clearCanvases } from './linking.js';
import { matrixDetails } from './matrix-view.js';
import { headToggles, interventionPanel } from './intervene-view.js';
import { greedyChoice, softmax } from '../core/decoding.js';
import { roving } from './roving.js';
import { argmax, predictGate } from './predict.js';

export { installLinking, linkPosition } from './linking.js';

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
// experiment: {ablation, onToggleHead, onToggleHide, onRestore, loadSteps, target} (intervene-view.js).
export function renderInspect(container, { stepIndex, items, controls, vocab, metadata, sameFrom, onScore,
  onSameContext, experiment = {}, mode = 'sampled', predictKey }) {
  const greedy = mode === 'greedy';
  clearCanvases();
  const tops = [];
  const maps = [];
  const first = items.find((it) => it);
  const step = stepIndex + 1;
  const count = (n) => n.toLocaleString('en-US');
  const probLine = `Probability: the model's own softmax over all ${count(metadata.vocab_size)} tokens. `;
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
    greedy
      ? el('p', { class: 'note' }, probLine,
        'This run was greedy: each model took its most likely token that can be chosen, so the sampling ' +
        'settings played no part. ', slideLink('greedy', 'Slide: greedy decoding'))
      : el('p', { class: 'note' }, probLine,
        'Sampled with: softmax(logits / T) over the tokens that can be chosen, after top-k and top-p ' +
        `(${describeControls(controls)}); `,
        'rows cut by top-k or top-p are greyed. Change the controls above and these columns redraw. ',
        slideLink('softmax', 'Slide: block special tokens, then softmax')));
  const choosable = metadata.vocab_size - metadata.banned_ids.length;
  const readouts = []; // each model's result line, beside the hide strip
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
    section.append(chosenLine(it, vocab, dist.model, experiment.active));
    readouts.push(resultLine(it, vocab, dist.model, experiment.active, 'words'));
    section.append(topTable(entry, dist, vocab, it.target, greedy));
    if (it.effects) section.append(effectSection(it, entry, vocab));
    if (!greedy) {
      section.append(el('p', { class: 'note kept-line',
        text: `Your controls keep ${count(dist.keptCount)} of the ${count(choosable)} tokens that can be chosen.` }));
    }
    if (it.attention) maps.push(attentionSection(it, entry, vocab, experiment, dist.model));
  }
  const own = items.find((x) => x && x.kind === experiment.source) || first;
  const lab = own && experiment.ablation ? interventionPanel({ it: own, vocab, metadata,
    ablation: experiment.ablation, onToggleHide: experiment.onToggleHide, onRestore: experiment.onRestore,
    readouts, digest: experiment.digest?.('words') }) : null;
  const actions = onScore ? el('p', { class: 'note' }, el('button', { type: 'button', class: 'link-button',
    onclick: onScore, text: 'Score this continuation with all three models' })) : null;
  // the matrices are a few keys away: this link is the panel's first Tab stop
  const jump = maps.length ? el('p', { class: 'note jump' }, el('a', { href: '#inspect', class: 'jump-matrices',
    onclick: (e) => {
      e.preventDefault();
      container.querySelector('details.matrix-details summary')?.focus();
    }, text: 'Skip to the attention matrices' })) : null;
  container.replaceChildren(...[jump, intro, lab, el('div', { class: 'inspect-top' }, tops), actions,
    maps.length ? el('div', { class: 'attention-intro' },
      el('h3', { text: `Attention at step ${step}` }),
      el('p', { class: 'note' },
        'Each row is one head: how much of its message the newest token (the query, marked ▼) takes from each ' +
          'token it can see. ',
        'Each row sums to 1. ', slideLink('attention', 'Slide: softmax turns scores into weights')),
      weightLegend()) : null,
    ...maps].filter(Boolean)); // (a null would be written as the text "null")
  if (predictKey !== undefined) askAttention(container, items, vocab, predictKey, stepIndex);
  scrollToNewest(container);
  return first;
}

// Predict first (predict.js): which word will one head weight most? Asked of
// the model with the most heads, head (step mod heads); the answer is the
// argmax of the row its attention table draws; the attention stays hidden
// until the guess or the skip.
function askAttention(container, items, vocab, key, stepIndex) {
  const it = items.filter((x) => x?.attention).reduce((a, b) => (!a || b.attention.length > a.attention.length
    ? b : a), null);
  const before = container.querySelector('.inspect-top');
  if (!it || !before) return;
  const h = stepIndex % it.attention.length;
  const slots = wordSlots(it);
  const weights = slots.map((j) => it.attention[h][j]); // the row the attention table draws
  const best = it.offset + slots[argmax(weights)];
  const word = (pos) => `“${visibleToken(wordOf(it, vocab, pos - it.offset))}” (position ${pos})`;
  const weight = (pos) => it.attention[h][pos - it.offset].toFixed(3);
  const head = `head ${h + 1} of ${it.entry.label}`;
  const section = predictGate({ key: `inspect-${key}`, before, noun: 'attention row',
    question: `Predict first: which word will ${head} weight most, reading from the newest word ` +
      `“${visibleToken(wordOf(it, vocab, it.context.length - 1))}”?`,
    choices: slots.map((j) => ({ value: it.offset + j, label: visibleToken(wordOf(it, vocab, j)),
      title: `position ${it.offset + j}` })),
    answer: best,
    explain: (guess) => `${head} weights ${word(best)} most (${weight(best)}).` +
      (guess !== null && guess !== best ? ` Your ${word(guess)} gets ${weight(guess)}.` : ''),
    conceal: [...container.querySelectorAll('.jump, .attention-intro, .inspect-attention, details.effects')] });
  if (!section) return;
  Object.assign(section.dataset, { kind: it.kind, head: String(h) });
  // the asked row stands out in its table once shown
  container.querySelectorAll(`.inspect-attention[data-kind="${it.kind}"] table.attention tbody tr`)[h]
    ?.classList.add('predict-row');
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

// The slots a model's window holds a word in: the real ones of the text it
// read, a hidden word included (drawn as a masked slot, never removed).
function wordSlots(it) {
  return realSlots(it.original || it.context);
}
const isMasked = (it, j) => Boolean(it.original) && it.context[j] === PAD_ID && it.original[j] !== PAD_ID;
const wordOf = (it, vocab, j) => vocab.token((it.original || it.context)[j]);

function contextStrip(it, vocab) {
  const real = wordSlots(it);
  const shown = real.slice(-12);
  const pieces = detokenizePieces(shown.map((j) => wordOf(it, vocab, j)));
  const strip = el('p', { class: 'context-strip note' },
    el('span', { class: 'context-label', text: `Read (last ${shown.length} of ${real.length} tokens): ` }),
    real.length > shown.length ? '… ' : '',
    shown.map((j, n) => el('span', { class: `ctx-tok${isMasked(it, j) ? ' masked' : ''}`, 'data-pos': it.offset + j,
      tabindex: '-1', dir: 'auto',
      title: `position ${it.offset + j} of the text${isMasked(it, j) ? ': hidden (masked like <PAD>)' : ''}` },
    visibleToken(pieces[n] || wordOf(it, vocab, j)),
    isMasked(it, j) ? el('span', { class: 'visually-hidden', text: ' (hidden)' }) : null)));
  roving(strip, '.ctx-tok', { start: 'last' }); // one Tab stop, arrow keys inside
  return strip;
}

// Attention beside effect: one row per word of the window, each head's
// weight on it and the change in the chosen token's log-probability when that
// word alone is hidden; then whether the highest-weight word is the
// highest-effect one (weight is where a head looked, not what mattered).
function effectSection(it, entry, vocab) {
  const fx = it.effects;
  if (fx.error) return el('p', { class: 'error', text: `Attention beside effect: ${fx.error}` });
  const word = (p) => visibleToken(vocab.token(fx.words[fx.positions.indexOf(p)]));
  const target = visibleToken(fx.target === EOS_ID ? '<EOS>' : vocab.token(fx.target));
  const at = (p) => fx.positions.indexOf(p);
  const signedNats = (d) => `${d >= 0 ? '+' : '−'}${Math.abs(d).toFixed(2)}`;
  const effectText = fx.top_effect === null ? 'no word can be hidden here'
    : `hiding "${word(fx.top_effect)}" moves "${target}" most (${signedNats(fx.delta[at(fx.top_effect)])} nats)`;
  const verdict = fx.attention
    ? [`Highest mean attention weight: "${word(fx.top_weight)}" (${fx.mean_weight[at(fx.top_weight)].toFixed(2)}); `,
      `${effectText}: `, el('strong', { text: fx.same ? 'the same word.' : 'different words.' }),
      fx.same ? '' : ' Where a head looks is not the same as what the prediction needs.']
    : ['No attention to weigh: ', effectText, '.'];
  const heads = fx.attention ? fx.attention.length : 0;
  const header = el('tr', {}, el('th', { scope: 'col', text: 'Word' }), el('th', { scope: 'col', text: 'Pos.' }),
    Array.from({ length: heads }, (_, h) => el('th', { scope: 'col', text: heads > 1 ? `H${h + 1}` : 'Weight',
      title: `head ${h + 1}'s attention weight` })),
    el('th', { scope: 'col', text: 'Δ ln p', title: `change in ln p("${target}") with the word hidden alone` }));
  const marks = (p) => [p === fx.top_effect ? 'top-effect' : '', p === fx.top_weight ? 'top-weight' : '']
    .filter(Boolean).join(' ');
  const rows = fx.positions.map((p, i) => el('tr', { 'data-pos': p, 'data-delta': String(fx.delta[i]),
    class: marks(p) },
  el('th', { scope: 'row', dir: 'auto', text: word(p) }), el('td', { text: String(p) }),
  Array.from({ length: heads }, (_, h) => el('td', { 'data-head': h, 'data-weight': String(fx.attention[h][i]),
    text: fx.attention[h][i].toFixed(3) })),
  el('td', { class: fx.delta[i] > 0 ? 'raises' : 'lowers', text: signedNats(fx.delta[i]) })));
  return el('details', { class: 'effects', 'data-kind': it.kind, open: true },
    el('summary', { text: `Attention beside effect: each word hidden alone (${fx.positions.length} words)` }),
    el('p', { class: 'note', text: `Per word: ${heads ? `each head's attention weight (${heads > 1 ? 'H1, H2, …' :
      'Weight'}), then ` : ''}Δ ln p, the change in the log-probability of "${target}" (nats) when only that word ` +
      'is hidden: negative means the prediction needed it.' }),
    el('p', { class: 'note effect-verdict', 'data-same': String(fx.same), 'data-top-weight': String(fx.top_weight),
      'data-top-effect': String(fx.top_effect) }, ...verdict),
    el('div', { class: 'table-wrap effects-wrap', tabindex: '0', role: 'region',
      'aria-label': `${entry.label}: attention and the effect of hiding each word` },
    el('table', { class: 'numbers effects-table' }, el('thead', {}, header), el('tbody', {}, rows))));
}

// One statement of the model's chosen token and its probability: its own
// choice at the step (or, on another card's context, the token it ranks
// first there); under an experiment, before and after on that same context.
function chosenLine(it, vocab, after, experiment) {
  const word = (id) => el('strong', { class: 'tok-inline',
    text: id === EOS_ID ? '<EOS>' : visibleToken(vocab.token(id)) });
  const target = it.target;
  if (target === null || target === undefined) return null;
  const own = it.chosen !== null && it.chosen !== undefined;
  const was = experiment && it.before ? softmax(it.before)[target] : after[target];
  const lead = own ? ['Chose ', word(target), ` with probability ${fmt.pct(was)}`]
    : ['On this context its top choice is ', word(target), ` (${fmt.pct(was)})`];
  if (!experiment || !it.before) {
    return el('p', { class: 'note chosen-line' }, ...lead,
      own && target === EOS_ID ? ': the story ends here, so this model adds nothing more.' : '.');
  }
  const top = greedyChoice(it.logits);
  return el('p', { class: 'note chosen-line before-after', 'data-before': String(was),
    'data-after': String(after[target]), 'data-target': target, 'data-top-after': top },
  ...lead, '; with your experiment it gets ', el('strong', { text: fmt.pct(after[target]) }),
  top === target ? ' and is still its top choice.'
    : ['; its top choice becomes ', word(top), ` (${fmt.pct(after[top])}).`]);
}

// The result beside the control that changed it (issue 33: on a phone the
// cards' lines are a screen away): one line per model, right under the hide
// strip (for: 'words') or under a model's head toggles ('heads'), with its
// chosen token's probability before and after the experiment on its own context.
function resultLine(it, vocab, after, experiment, control) {
  const name = (id) => `“${id === EOS_ID ? '<EOS>' : visibleToken(vocab.token(id))}”`;
  const label = it.entry.label;
  const line = (...parts) => el('p', { class: 'note exp-readout', 'data-kind': it.kind, 'data-for': control },
    ...parts);
  const target = it.target;
  if (target === null || target === undefined) return line(`${label}: no chosen token at this step.`);
  if (!experiment || !it.before) {
    return line(el('strong', { text: `${label}: ` }), `${name(target)} ${fmt.pct(after[target])}. `,
      control === 'heads' ? 'Switch a head off: its new probability shows here.'
        : 'Hide a word: the new probabilities show here.');
  }
  const was = softmax(it.before)[target];
  const top = greedyChoice(it.logits);
  return el('p', { class: 'note exp-readout changed', 'data-kind': it.kind, 'data-for': control,
    'data-before': String(was), 'data-after': String(after[target]), 'data-top-after': top },
  el('strong', { text: `${label}: ` }), `${name(target)} ${fmt.pct(was)} → `,
  el('strong', { text: fmt.pct(after[target]) }),
  top === target ? ', still its top choice.' : `; top choice now ${name(top)} (${fmt.pct(after[top])}).`);
}

function topTable(entry, dist, vocab, chosen, greedy = false) {
  const rows = topRows(dist, 10);
  const head = el('tr', {}, el('th', { scope: 'col', text: '#' }), el('th', { scope: 'col', text: 'Next token' }),
    el('th', { scope: 'col', text: 'Probability' }),
    greedy ? null : el('th', { scope: 'col', class: 'sampled-col', text: 'Sampled with' }));
  const body = rows.map((t, r) => el('tr',
    { class: [t.id === chosen ? 'chosen' : '', greedy || t.kept ? '' : 'cut'].filter(Boolean).join(' '),
      'data-id': t.id },
  el('td', { text: String(r + 1) }),
  el('td', {}, el('span', { class: `tok-inline${t.id === UNK_ID ? ' unk' : ''}`, dir: 'auto',
    text: visibleToken(vocab.token(t.id)) }),
  t.banned ? el('small', { class: 'note', text: ' never chosen' }) : null),
  el('td', { class: 'bar-cell' }, el('span', { class: 'bar', style: { width: `${Math.max(1, 100 * t.p)}%` } }),
    el('span', { class: 'bar-label', text: fmt.pct(t.p) })),
  greedy ? null : el('td', { class: 'sampled-cell', 'data-q': String(t.q) },
    t.banned ? '–' : t.kept ? fmt.pct(t.q) : 'cut')));
  return el('table', { class: 'top10', 'aria-label': `${entry.label}: ten most likely next tokens` },
    el('thead', {}, head), el('tbody', {}, body));
}

// ------------------------------------------------------------ attention
function attentionSection(it, entry, vocab, experiment, after) {
  const heads = it.attention.length;
  const real = wordSlots(it);
  const pads = it.context.length - real.length;
  const query = it.context.length - 1;
  const label = (j) => visibleToken(wordOf(it, vocab, j));
  const masked = (j) => (isMasked(it, j) ? ' masked' : '');
  const header = el('tr', {}, el('th', { scope: 'col', class: 'head-label', text: 'head' }),
    real.map((j) => el('th', { scope: 'col', class: `ctx-label${j === query ? ' query' : ''}${masked(j)}`,
      'data-pos': it.offset + j, title: `position ${it.offset + j}${j === query ? ' (the query)' : ''}` },
    el('span', { dir: 'auto', text: `${j === query ? '▼ ' : ''}${label(j)}` }))));
  const rows = [];
  for (let h = 0; h < heads; h++) {
    rows.push(el('tr', {}, el('th', { scope: 'row', class: 'head-label', text: String(h + 1) }), real.map((j) => {
      const w = it.attention[h][j];
      const c = heatColors(w);
      return el('td', {
        class: `cell${j === query ? ' query' : ''}${masked(j)}`, tabindex: '-1', 'data-pos': it.offset + j,
        style: masked(j) ? {} : { backgroundColor: c.background, color: c.color },
        title: `head ${h + 1}, "${wordOf(it, vocab, j)}": ${w.toFixed(4)}${masked(j) ? ' (hidden: masked)' : ''}`,
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
  headToggles(it.kind, entry.label, heads, experiment.ablation?.heads_off[it.kind], experiment.onToggleHead,
    experiment.onToggleHead ? resultLine(it, vocab, after, experiment.active, 'heads') : null,
    experiment.digest?.(it.kind)),
  el('p', { class: 'note' }, `${real.length} token${real.length === 1 ? '' : 's'} in view`,
    pads ? ` (${pads} PAD slot${pads === 1 ? '' : 's'} hidden: weight exactly 0)` : '',
    '. Opens at the newest tokens; scroll left for older ones.'),
  el('div', { class: 'table-wrap scroll-end' }, table));
  if (it.matrix) section.append(matrixDetails(it, entry, vocab, realSlots(it.context), experiment.loadSteps));
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
