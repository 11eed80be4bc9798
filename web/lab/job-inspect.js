// Inspecting one step of the shown generation: each model is run again on the
// context it read at that step (or, compared, on the selected card's context)
// for its logits and attention, and the inspect panel (inspect-view.js) draws
// them under the current sampling controls.

import { contextWindow, startHistory } from '../core/decoding.js';
import { hideInWindow } from '../core/ablation.js';
import { renderInspect } from './inspect-view.js';
import { markSelected, showModel } from './view.js';
import { call } from './rpc.js';
import { S, $ } from './state.js';
import { problems, readControls, showProblems } from './controls.js';
import { scoreContinuation } from './job-score.js';
import { noAblation } from './guards.js';
import { stepRows } from './steps.js';
import { wordEffects } from './effects.js';
import { greedyChoice } from '../core/decoding.js';
import { objectKey } from './predict.js';
import { ablation as pageAblation, changed, clearExperiment, onExperimentChange } from './experiment.js';
import { digestPlace, experimentDigest } from './experiment-runs.js';
import { rerunExperiment } from './job-generate.js';

// The context a model read at step i of the shown run, and the history
// index of its first slot.
function stepContext(kind, index) {
  const run = S.run;
  const history = startHistory(run.promptIds).concat(run.models[kind].ids.slice(0, index));
  return { history, context: contextWindow(history, S.metadata.context), offset: history.length - S.metadata.context };
}

// The page's experiment (experiment.js): hidden history positions (of every
// model's own text: the prompt's words are the same for all three) and heads off.

export async function selectStep(kind, index) {
  S.selected = index;
  S.selectedKind = kind;
  for (const k of S.metadata.order) markSelected(S.views[k], index);
  showModel(kind, false); // a phone's Inspect panel shows the model whose token was selected
  await inspectStep();
  // the panel's heading takes focus: the next Tab stops are the panel's own
  $('inspect-heading').focus({ preventScroll: true });
  $('inspect').scrollIntoView({ block: 'start' });
}

// What to run per model: its context at the step, or null when it had stopped before it.
function stepRequests(run, index, from) {
  return S.metadata.order.map((kind) => {
    const source = from || kind;
    if (index >= run.models[source].steps.length) return null;
    const { history, context, offset } = stepContext(source, index);
    const chosen = from && from !== kind ? null : run.models[source].steps[index]?.id ?? null;
    return { kind, history, context, offset, chosen };
  });
}

async function inspectStep() {
  const run = S.run;
  const index = S.selected;
  if (!run || index === null) return;
  const ablation = pageAblation();
  const experiment = !noAblation(ablation);
  // each model on its own context (its own chosen token before and after), unless the learner compares on one
  const from = S.sameContext ? S.selectedKind : null;
  const requests = stepRequests(run, index, from);
  const token = ++S.inspectCounter;
  $('inspect-hint').hidden = true;
  const hidden = new Set(ablation.hide);
  const items = await Promise.all(requests.map(async (r) => {
    if (!r) return null;
    const entry = S.metadata.models[r.kind];
    try {
      const context = hideInWindow([...r.context], r.history.length, hidden);
      const out = await call('run', { kind: r.kind, backend: run.backend, contexts: [context],
        matrix: Boolean(entry.heads), headsOff: ablation.heads_off[r.kind] });
      const before = experiment ? (await call('run', { kind: r.kind, backend: run.backend, contexts: [r.context],
        logitsOnly: true })).logits : null;
      const [, heads, slots] = out.attentionDims || [];
      // its own choice at the step; on another card's context, the token it ranked first there
      const target = r.chosen ?? greedyChoice(before || out.logits);
      return { ...r, context, original: r.context, entry, logits: out.logits, before, target,
        attention: out.attention ? splitRows(out.attention, heads, slots) : null,
        matrix: out.matrix || null, matrixDims: out.matrixDims ? out.matrixDims.slice(1) : null };
    } catch (err) {
      return { ...r, entry, error: err.message };
    }
  }));
  // attention beside effect: every word of each model's window hidden alone, one batched call per model
  await Promise.all(items.map(async (it) => {
    if (!it || it.error) return;
    it.effects = await wordEffects({ kind: it.kind, history: it.history, target: it.target,
      headsOff: ablation.heads_off[it.kind], hidden, backend: run.backend })
      .catch((err) => ({ error: err.message }));
  }));
  if (token !== S.inspectCounter) return; // a newer selection won
  const source = from || S.selectedKind;
  S.inspected = { index, items: items.map((it) => (it && !it.error ? it : null)), from, experiment,
    target: run.models[source].steps[index]?.id ?? null };
  renderInspectPanel();
}

function splitRows(data, rows, width) {
  return Array.from({ length: rows }, (_, h) => data.subarray(h * width, (h + 1) * width));
}

// Redrawn at once when a sampling control changes; an invalid one keeps the
// last drawing (the message beside the control says why).
export function renderInspectPanel() {
  if (!S.inspected) return;
  const controls = readControls();
  const found = problems(controls);
  showProblems(found);
  if (found.temperature || found.top_k || found.top_p) return;
  renderInspect($('inspect-body'), {
    stepIndex: S.inspected.index, items: S.inspected.items, vocab: S.vocab, metadata: S.metadata,
    controls: { temperature: controls.temperature, top_k: controls.top_k, top_p: controls.top_p },
    sameFrom: S.inspected.from, mode: S.run?.options.mode,
    predictKey: `${objectKey(S.run)}-${S.inspected.index}-${S.inspected.from || 'own'}`,
    onSameContext: (on) => { S.sameContext = on; inspectStep(); },
    onScore: () => scoreContinuation(S.selectedKind),
    experiment: { ablation: S.ablation, active: S.inspected.experiment, target: S.inspected.target,
      source: S.selectedKind, onToggleHead: toggleHead, onToggleHide: toggleHide, onRestore: restore, loadSteps,
      digest: experimentDigest },
  });
}

// The per-step rows of the window's real slots, for the matrix view (hidden words hidden there too).
function loadSteps(it) {
  const width = S.metadata.context;
  const from = Math.max(0, it.history.length - width);
  const hidden = new Set(S.ablation?.hide || []);
  return stepRows(it.kind, it.history, from, S.run.backend, hidden).then((rows) => ({ from, rows }));
}

function toggleHead(kind, head) {
  const control = `.inspect-attention[data-kind="${kind}"] .head-toggle[data-head="${head}"]`;
  const at = placeOf(control);
  const off = new Set(S.ablation.heads_off[kind]);
  if (off.has(head)) off.delete(head); else off.add(head);
  S.ablation.heads_off[kind] = [...off].sort((a, b) => a - b);
  digestPlace(kind);
  changed();
  rerun(control, at, `.inspect-attention[data-kind="${kind}"] :is(.exp-readout, .exp-runs)`);
}

function toggleHide(pos) {
  const control = `.hide-tok[data-pos="${pos}"]`;
  const at = placeOf(control);
  const hide = new Set(S.ablation.hide);
  if (hide.has(pos)) hide.delete(pos); else hide.add(pos);
  S.ablation.hide = [...hide].sort((a, b) => a - b);
  digestPlace('words');
  changed();
  rerun(control, at, '.intervention :is(.exp-readouts, .exp-runs)');
}

function restore() {
  const at = placeOf('.hide-strip .hide-tok');
  digestPlace('words');
  clearExperiment();
  rerun('.hide-strip .hide-tok', at, '.intervention :is(.exp-readouts, .exp-runs)');
}

// Where a control of the panel is on screen (its top, in px from the viewport's).
function placeOf(selector) {
  return document.querySelector(`#inspect-body ${selector}`)?.getBoundingClientRect().top ?? null;
}

// Runs the step again and keeps focus on the control that was used, and the
// control where it was on screen (the panel is redrawn whole, and the lines
// above it change length): the result line beside it then in view too.
function rerun(focusSelector, at, resultSelector) {
  inspectStep().then(() => {
    rerunExperiment(); // the shown experimental continuation, made again with the experiment as it is now
    const control = document.querySelector(`#inspect-body ${focusSelector}`);
    if (!control) return;
    control.focus({ preventScroll: true });
    if (at !== null) window.scrollBy(0, control.getBoundingClientRect().top - at);
    // the last of the result lines (the continuations' lines come after the readouts) in view too
    const results = document.querySelectorAll(`#inspect-body :is(${resultSelector})`);
    (results[results.length - 1] || control).scrollIntoView({ block: 'nearest' });
    control.scrollIntoView({ block: 'nearest' });
  });
}

// Cleared from the workbench: the inspected step redraws without it.
onExperimentChange(() => {
  if (S.inspected && noAblation(S.ablation) && S.inspected.experiment) inspectStep();
  if (noAblation(S.ablation)) rerunExperiment(); // cleared: the cards' experimental continuations go
});
