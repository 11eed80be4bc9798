// Inspecting one step of the shown generation: each model is run again on the
// context it read at that step (or, compared, on the selected card's context)
// for its logits and attention, and the inspect panel (inspect-view.js) draws
// them under the current sampling controls.

import { contextWindow, startHistory } from '../core/decoding.js';
import { renderInspect } from './inspect-view.js';
import { markSelected } from './view.js';
import { call } from './rpc.js';
import { S, $ } from './state.js';
import { problems, readControls, showProblems } from './controls.js';
import { scoreContinuation } from './job-score.js';

// The context a model read at step i of the shown run, and the history
// index of its first slot.
function stepContext(kind, index) {
  const run = S.run;
  const history = startHistory(run.promptIds).concat(run.models[kind].ids.slice(0, index));
  return { context: contextWindow(history, S.metadata.context), offset: history.length - S.metadata.context };
}

export async function selectStep(kind, index) {
  S.selected = index;
  S.selectedKind = kind;
  for (const k of S.metadata.order) markSelected(S.views[k], index);
  await inspectStep();
  // focus stays on the chip that was chosen (the redraw never replaces it)
}

// What to run per model: its context at the step, or null when it had stopped before it.
function stepRequests(run, index, from) {
  return S.metadata.order.map((kind) => {
    const source = from || kind;
    if (index >= run.models[source].steps.length) return null;
    const { context, offset } = stepContext(source, index);
    const chosen = from && from !== kind ? null : run.models[source].steps[index]?.id ?? null;
    return { kind, context, offset, chosen };
  });
}

async function inspectStep() {
  const run = S.run;
  const index = S.selected;
  if (!run || index === null) return;
  const from = S.sameContext ? S.selectedKind : null;
  const requests = stepRequests(run, index, from);
  const token = ++S.inspectCounter;
  $('inspect-hint').hidden = true;
  const items = await Promise.all(requests.map(async (r) => {
    if (!r) return null;
    const entry = S.metadata.models[r.kind];
    try {
      const out = await call('run', { kind: r.kind, backend: run.backend, contexts: [r.context],
        matrix: Boolean(entry.heads) });
      const [, heads, slots] = out.attentionDims || [];
      return { ...r, entry, logits: out.logits,
        attention: out.attention ? splitRows(out.attention, heads, slots) : null,
        matrix: out.matrix || null, matrixDims: out.matrixDims ? out.matrixDims.slice(1) : null };
    } catch (err) {
      return { ...r, entry, error: err.message };
    }
  }));
  if (token !== S.inspectCounter) return; // a newer selection won
  S.inspected = { index, items: items.map((it) => (it && !it.error ? it : null)), from };
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
    sameFrom: S.inspected.from,
    onSameContext: (on) => { S.sameContext = on; inspectStep(); },
    onScore: () => scoreContinuation(S.selectedKind),
  });
}
