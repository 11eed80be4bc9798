// window.lab, the lab's API for scripts (the README's table): the jobs the page
// runs (generate, score, benchmark, stop) and direct model calls on contexts
// given as token IDs (logits, run, attentionMatrix). Every argument is checked
// here, before anything on the page changes.

import { MAX_BENCH_RUNS, MAX_CONTEXTS, MAX_HISTORY_TOKENS, MAX_SCORE_TOKENS, MAX_TEMPERATURE, MAX_TEXT_CHARS,
  MIN_TEMPERATURE, checkAblation, checkBackend, checkContexts, checkHistory, checkIds, checkKind, checkText,
  show } from './guards.js';
import { stepRows } from './steps.js';
import { wordEffects as effectsOf } from './effects.js';
import { call } from './rpc.js';
import { S, $ } from './state.js';
import { useBackend } from './backends.js';
import { analyse } from './controls.js';
import { benchmark, runJob, stop } from './jobs.js';
import { generate, generateMany } from './job-generate.js';
import { headSweep, score } from './job-score.js';
import { checkHeadCost, loadHeadCost } from './head-cost.js';

async function runContexts(kind, contexts, { backend, matrix = false, heads_off: headsOff } = {}) {
  await S.ready;
  checkKind(S.metadata, kind);
  const choice = checkBackend(backend ?? $('backend').value);
  const checked = checkContexts(contexts, S.metadata.vocab_size, S.metadata.context); // copies, then checks
  const ablation = checkAblation(S.metadata, { heads_off: headsOff });
  const status = await useBackend(choice);
  const out = await call('run', { kind, backend: status.backend, contexts: checked, matrix,
    headsOff: ablation.heads_off[kind] || null });
  const C = S.metadata.vocab_size;
  const logits = checked.map((_, b) => out.logits.slice(b * C, (b + 1) * C));
  let attention = null;
  if (out.attention) {
    const [, heads, slots] = out.attentionDims;
    attention = checked.map((_, b) => Array.from({ length: heads }, (__, h) =>
      Array.from(out.attention.subarray((b * heads + h) * slots, (b * heads + h + 1) * slots))));
  }
  return { logits, attention, matrix: out.matrix || null, matrixDims: out.matrixDims || null,
    backend: status.backend, ms: out.ms };
}

const isContext = (v) => Array.isArray(v) || ArrayBuffer.isView(v);

async function logits(kind, ids, options = {}) {
  if (!isContext(ids)) {
    throw new Error('ids must be an array of lab.context token IDs (or an array of such arrays)');
  }
  const batch = Array.isArray(ids) && isContext(ids[0]);
  const out = await runContexts(kind, batch ? ids : [ids], options);
  return batch ? out.logits : out.logits[0];
}

// The full causal attention matrix of one context (lab.context IDs), computed in the ONNX
// graph: [head][query][key], rows as in forward_details (a PAD query's row is 0).
async function attentionMatrix(kind, ids, options = {}) {
  await S.ready;
  checkKind(S.metadata, kind);
  if (!S.metadata.models[kind].heads) throw new Error(`${kind} has no attention, so it has no attention matrix`);
  const checked = checkIds(ids, S.metadata.vocab_size, S.metadata.context, 'attentionMatrix\'s context');
  const out = await runContexts(kind, [checked], { ...options, matrix: true });
  const [, heads, T] = out.matrixDims;
  return Array.from({ length: heads }, (_, h) => Array.from({ length: T }, (__, q) =>
    Array.from(out.matrix.subarray((h * T + q) * T, (h * T + q + 1) * T))));
}

// Per-step attention: for each t, the final query's weights [head][64] when
// the window is the last 64 IDs of ids[0..t] (what the model attended to when
// it predicted the token after ids[t]); one batched call per 64 windows. At
// most MAX_HISTORY_TOKENS IDs (refused by name at once past it); a job of its
// own, so lab.stop() ends it after the batch in flight.
function attentionSteps(kind, ids, { backend } = {}) {
  return runJob('attention-steps', async (job) => {
    await S.ready;
    checkKind(S.metadata, kind);
    if (!S.metadata.models[kind].heads) throw new Error(`${kind} has no attention, so it has no attention steps`);
    const history = checkHistory(ids, S.metadata.vocab_size);
    return stepRows(kind, history, 0, backend ?? $('backend').value, null, job);
  });
}

// Attention beside effect for the step after a token history: each word of
// its window hidden alone (one batched call), the change in the target's
// log-probability (default: the model's greedy choice there), beside each
// head's attention weight on that word; on top of an experiment given as
// heads_off and hide (positions of the history, as in lab.generate).
async function wordEffects(kind, ids, { target, heads_off: headsOff, hide, backend } = {}) {
  await S.ready;
  checkKind(S.metadata, kind);
  const history = checkHistory(ids, S.metadata.vocab_size);
  const C = S.metadata.vocab_size;
  if (target !== undefined && target !== null && !(Number.isInteger(target) && target >= 0 && target < C)) {
    throw new Error(`target must be a token ID, an integer from 0 to ${C - 1} (got ${show(target)})`);
  }
  const ablation = checkAblation(S.metadata, { heads_off: headsOff, hide }, history.length);
  const status = await useBackend(checkBackend(backend ?? $('backend').value));
  return effectsOf({ kind, history, target: target ?? null, headsOff: ablation.heads_off[kind] || null,
    hidden: new Set(ablation.hide), backend: status.backend });
}

// What each head is worth on the whole test set (the results deck's table,
// fetched the first time it is asked for): an attention model's test
// cross-entropy with every head on, with each head off and with all off.
async function headCost(kind) {
  await S.files;
  checkKind(S.metadata, kind);
  const heads = S.metadata.models[kind].heads;
  if (!heads) throw new Error(`${kind} has no attention heads, so it has no head costs; use "attn1" or "attn4"`);
  const table = await loadHeadCost();
  const entry = checkHeadCost(table, kind, heads);
  return { kind, test_windows: table.test_windows, on: entry.on, heads: entry.heads, all_off: entry.all_off,
    mlp: table.mlp };
}

export const lab = {
  version: 2,
  ready: null, // the start-up report's promise (lab.js)
  context: null, // metadata.json's context width, once loaded
  metadata: null,
  presets: null,
  tokenize: (text) => {
    const a = analyse(checkText(text, 'tokenize\'s text'));
    return { tokens: a.tokens, ids: a.ids, history: a.history, context: a.context, unknown: a.unknown };
  },
  logits,
  run: runContexts,
  generate,
  generateMany,
  score,
  attentionMatrix,
  attentionSteps,
  wordEffects,
  headCost,
  headSweep,
  stop,
  benchmark,
  setBackend: async (choice) => {
    checkBackend(choice); // before the menu changes
    $('backend').value = choice;
    return useBackend(choice);
  },
  limits: { min_temperature: MIN_TEMPERATURE, max_temperature: MAX_TEMPERATURE, max_bench_runs: MAX_BENCH_RUNS,
    max_text_chars: MAX_TEXT_CHARS, max_score_tokens: MAX_SCORE_TOKENS, max_contexts: MAX_CONTEXTS,
    max_history_tokens: MAX_HISTORY_TOKENS },
  status: () => (S.status ? { ...S.status } : null),
};
