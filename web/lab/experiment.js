// The page's experiment (heads switched off, words hidden), one for the whole
// page: set in the inspect view, it applies to Generate and Score as well
// (each runs twice, without and with it, shown side by side), and it is only
// ever cleared by the learner (the Clear button says so), never silently.
// S.ablation: {heads_off: {kind: [0-based heads]}, hide: [history positions, BOS = 0]}.

import { EOS_ID } from '../core/tokenizer.js';
import { el, visibleToken } from '../core/dom.js';
import { noAblation } from './guards.js';
import { S, $ } from './state.js';

export function emptyAblation() {
  return { heads_off: Object.fromEntries(S.metadata.order.filter((k) => S.metadata.models[k].heads)
    .map((k) => [k, []])), hide: [] };
}

export function ablation() {
  if (!S.ablation) S.ablation = emptyAblation();
  return S.ablation;
}

export const experimentOn = () => !noAblation(S.ablation);

// The experiment a run on a history of `historyLength` IDs can apply: hidden
// positions past it cannot be (they are listed in `dropped`, and the run says so).
export function applicable(historyLength) {
  const a = ablation();
  return { heads_off: Object.fromEntries(Object.entries(a.heads_off).map(([k, h]) => [k, [...h]])),
    hide: a.hide.filter((p) => p < historyLength), dropped: a.hide.filter((p) => p >= historyLength) };
}

// "Four heads: head 2 off; hidden: "dog" (position 3)": words read from `history` where given.
export function describeAblation(a, history = null) {
  const parts = S.metadata.order.filter((k) => a.heads_off[k]?.length)
    .map((k) => `${S.metadata.models[k].label}: head${a.heads_off[k].length > 1 ? 's' : ''} ` +
      `${a.heads_off[k].map((h) => h + 1).join(', ')} off`);
  if (a.hide.length) {
    const word = (p) => (history && p < history.length ? `“${visibleToken(S.vocab.token(history[p]))}” ` : '');
    parts.push(`hidden: ${a.hide.map((p) => `${word(p)}(position ${p})`).join(', ')}`);
  }
  return parts.join('; ');
}

// The workbench's line: what the experiment is, that Generate and Score use it, and the one way to clear it.
export function showExperimentNote(message = null) {
  const note = $('experiment-note');
  if (!note || !S.metadata) return;
  const on = experimentOn();
  note.hidden = !on && !message;
  note.dataset.on = on ? 'true' : 'false';
  note.replaceChildren(...(on ? [
    el('strong', { text: 'Experiment on: ' }), describeAblation(S.ablation, S.run ? S.run.history : null), '. ',
    'Generate and Score run twice, without and with it, and show both side by side. ',
    el('button', { type: 'button', id: 'clear-experiment', class: 'link-button',
      onclick: () => clearExperiment(), text: 'Clear the experiment' }),
  ] : [message || '']));
}

const listeners = [];
export function onExperimentChange(fn) { listeners.push(fn); }

export function changed(message = null) {
  showExperimentNote(message);
  for (const fn of listeners) fn();
}

// The learner's Clear (the workbench's button or the inspect view's Restore): said, never silent.
export function clearExperiment() {
  S.ablation = emptyAblation();
  changed('Experiment cleared: every word shown, every head on; runs are plain again.');
}

// The chosen IDs of a model's run, <EOS> included when it ended the story.
export function chosenIds(m) {
  return m.ids.concat(m.stats?.stop === 'eos' ? [EOS_ID] : []);
}

// The first step at which two runs chose differently (null: the same all along).
export function firstDifference(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? null : n;
}
