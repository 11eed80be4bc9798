// window.lab, the lab's API for scripts (the README's table): the jobs the page
// runs (generate, score, benchmark, stop) and direct model calls on contexts
// given as token IDs (logits, run, attentionMatrix). Every argument is checked
// here, before anything on the page changes.

import { MAX_BENCH_RUNS, MAX_CONTEXTS, MAX_SCORE_TOKENS, MAX_TEMPERATURE, MAX_TEXT_CHARS, MIN_TEMPERATURE,
  checkAblation, checkBackend, checkContexts, checkIds, checkKind, checkText } from './guards.js';
import { stepRows } from './steps.js';
import { BOS_ID, PAD_ID } from '../core/tokenizer.js';
import { call } from './rpc.js';
import { S, $ } from './state.js';
import { useBackend } from './backends.js';
import { analyse } from './controls.js';
import { benchmark, stop } from './jobs.js';
import { generate, generateMany } from './job-generate.js';
import { score } from './job-score.js';

async function runContexts(kind, contexts, { backend, matrix = false, heads_off: headsOff } = {}) {
  await S.ready;
  checkKind(S.metadata, kind);
  const choice = checkBackend(backend ?? $('backend').value);
  checkContexts(contexts, S.metadata.vocab_size, S.metadata.context);
  const ablation = checkAblation(S.metadata, { heads_off: headsOff });
  const status = await useBackend(choice);
  const out = await call('run', { kind, backend: status.backend, contexts, matrix,
    headsOff: ablation.heads_off[kind] || null });
  const C = S.metadata.vocab_size;
  const logits = contexts.map((_, b) => out.logits.slice(b * C, (b + 1) * C));
  let attention = null;
  if (out.attention) {
    const [, heads, slots] = out.attentionDims;
    attention = contexts.map((_, b) => Array.from({ length: heads }, (__, h) =>
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
  checkIds(ids, S.metadata.vocab_size, S.metadata.context, 'attentionMatrix\'s context');
  const out = await runContexts(kind, [ids], { ...options, matrix: true });
  const [, heads, T] = out.matrixDims;
  return Array.from({ length: heads }, (_, h) => Array.from({ length: T }, (__, q) =>
    Array.from(out.matrix.subarray((h * T + q) * T, (h * T + q + 1) * T))));
}

// Per-step attention: for each t, the final query's weights [head][64] when
// the window is the last 64 IDs of ids[0..t] (what the model attended to when
// it predicted the token after ids[t]); one batched call per 64 windows.
async function attentionSteps(kind, ids, { backend } = {}) {
  await S.ready;
  checkKind(S.metadata, kind);
  const heads = S.metadata.models[kind].heads;
  if (!heads) throw new Error(`${kind} has no attention, so it has no attention steps`);
  if (!Array.isArray(ids) || !ids.length) throw new Error('ids must be a non-empty array of token IDs (BOS first)');
  ids.forEach((id, t) => {
    if (!(Number.isInteger(id) && id >= 0 && id < S.metadata.vocab_size)) {
      throw new Error(`token IDs must be integers from 0 to ${S.metadata.vocab_size - 1}; ids[${t}] is ${id}`);
    }
    if (id === PAD_ID) throw new Error(`ids is a token history and holds no <PAD>; ids[${t}] is ${PAD_ID}`);
  });
  if (ids[0] !== BOS_ID) throw new Error(`ids is a token history: it starts with <BOS> (ID ${BOS_ID})`);
  return stepRows(kind, ids, 0, backend ?? $('backend').value);
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
  stop,
  benchmark,
  setBackend: async (choice) => {
    checkBackend(choice); // before the menu changes
    $('backend').value = choice;
    return useBackend(choice);
  },
  limits: { min_temperature: MIN_TEMPERATURE, max_temperature: MAX_TEMPERATURE, max_bench_runs: MAX_BENCH_RUNS,
    max_text_chars: MAX_TEXT_CHARS, max_score_tokens: MAX_SCORE_TOKENS, max_contexts: MAX_CONTEXTS },
  status: () => (S.status ? { ...S.status } : null),
};
