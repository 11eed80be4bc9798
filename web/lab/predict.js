// Predict first: before a view shows an answer (which word a head weights
// most, which model wins on a scored text) the learner may commit to a guess,
// one click or key, or skip; the answer is then shown either way, the verdict
// says whether the guess was right, and a tally counts the visit's guesses.
// Off until the learner turns it on (a toggle in each view); never blocks:
// "Skip, just show me" reveals without a verdict. The answer is taken from the
// numbers the view itself draws (the row of the attention table, the
// cross-entropies of the score table), never computed again here.

import { el } from '../core/dom.js';
import { roving } from './roving.js';

const KEY = 'attention-lab-predict-v1'; // sessionStorage: on/off and the tally survive a trip to a slide
const seen = new Map(); // question key -> {state: 'guessed'|'skipped'|'unasked', text, guess, answer, right}
const ids = new WeakMap();
let nextId = 1;

function store() {
  try { return window.sessionStorage; } catch { return null; }
}

function load() {
  try {
    const s = JSON.parse(store()?.getItem(KEY) || 'null');
    if (s && typeof s.on === 'boolean' && Number.isInteger(s.right) && Number.isInteger(s.guesses) &&
      s.right >= 0 && s.right <= s.guesses) return s;
  } catch { /* a foreign entry: start fresh */ }
  return { on: false, right: 0, guesses: 0 };
}

const tally = load();

function save() {
  try { store()?.setItem(KEY, JSON.stringify(tally)); } catch { /* storage full or off: the tally lives here */ }
}

// A short name for an object (a run, a score), for question keys.
export function objectKey(obj) {
  if (!ids.has(obj)) ids.set(obj, nextId++);
  return ids.get(obj);
}

export function tallyText() {
  return `${tally.right} of ${tally.guesses} guess${tally.guesses === 1 ? '' : 'es'} right this visit`;
}

// The index of the largest value, the first on ties (the row's argmax).
export function argmax(values) {
  let at = -1;
  values.forEach((v, i) => { if (at < 0 || v > values[at]) at = i; });
  return at;
}

// The gate: a section before `before` asking `question` with one button per
// choice ({value, label, title}) and a skip; `conceal` stays hidden until a
// guess or the skip. `answer` is the right choice's value, `explain(guess)`
// the reveal's sentence. A question already answered (the view redrawn) shows
// its verdict; one first shown with Predict first off is never asked.
export function predictGate({ key, before, question, choices, answer, explain, conceal, noun }) {
  if (!before?.parentNode) return null;
  if (!seen.has(key) && !tally.on) seen.set(key, { state: 'unasked' });
  const section = el('section', { class: 'predict', 'aria-label': 'Predict first' });
  const live = el('p', { class: 'note predict-verdict', 'aria-live': 'polite', tabindex: '-1' });
  const body = el('div', { class: 'predict-body' });
  const toggle = el('button', { type: 'button', class: 'predict-toggle', 'aria-pressed': String(tally.on),
    text: `Predict first: ${tally.on ? 'on' : 'off'}` });
  const count = el('span', { class: 'note predict-tally', text: tallyText() });
  section.append(el('p', { class: 'predict-head' }, toggle, ' ', count), body, live);
  before.parentNode.insertBefore(section, before);

  const show = (record) => {
    section.dataset.state = record.state;
    if (record.state === 'unasked') {
      section.removeAttribute('data-answer');
      body.replaceChildren(el('p', { class: 'note', text: tally.on
        ? `Predict first is on: the next ${noun} asks you first.`
        : `Turn Predict first on to guess before each ${noun} is shown.` }));
      return;
    }
    section.dataset.answer = String(answer);
    if (record.state === 'pending') return;
    section.dataset.guess = record.guess === null ? '' : String(record.guess);
    if (record.right !== null) section.dataset.right = String(record.right);
    body.replaceChildren();
    live.textContent = record.text;
  };
  const reveal = (guess) => {
    const right = guess === null ? null : guess === answer;
    if (right !== null) {
      tally.guesses += 1;
      if (right) tally.right += 1;
      save();
    }
    const text = guess === null ? `Shown without a guess. ${explain(null)}`
      : `${right ? 'Right' : 'Not this time'}: ${explain(guess)} ${tallyText()}.`;
    const record = { state: guess === null ? 'skipped' : 'guessed', guess, right, text };
    seen.set(key, record);
    for (const node of conceal) node.hidden = false;
    for (const line of document.querySelectorAll('.predict-tally')) line.textContent = tallyText(); // every view's
    show(record);
    live.focus({ preventScroll: true });
  };
  toggle.addEventListener('click', () => {
    tally.on = !tally.on;
    save();
    for (const other of document.querySelectorAll('.predict-toggle')) { // the other view's toggle too
      other.setAttribute('aria-pressed', String(tally.on));
      other.textContent = `Predict first: ${tally.on ? 'on' : 'off'}`;
    }
    const record = seen.get(key);
    if (record?.state === 'unasked') show(record);
  });

  const record = seen.get(key);
  if (record) { show(record); return section; }
  // asked: the answer stays hidden until a guess or the skip
  for (const node of conceal) node.hidden = true;
  show({ state: 'pending' });
  const options = el('div', { class: 'predict-choices', role: 'group', 'aria-label': question },
    choices.map((c) => el('button', { type: 'button', class: 'predict-choice', 'data-value': String(c.value),
      title: c.title || null, onclick: () => reveal(c.value) }, c.label)));
  roving(options, '.predict-choice'); // one Tab stop, arrow keys between the choices
  body.replaceChildren(el('p', { class: 'predict-question', text: question }), options,
    el('p', {}, el('button', { type: 'button', class: 'predict-skip', onclick: () => reveal(null),
      text: 'Skip, just show me' })));
  return section;
}
