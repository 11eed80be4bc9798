// The inference worker's model calls: sessions created from the verified
// model bytes, the head-switch graphs (fetched the first time a head is
// switched off), the input tensors, and one run of a batch of contexts.

import { headMask } from '../core/ablation.js';
import { describeError, fetchVerified, loadRuntime } from './runtime.js';
import { progress, serialized, state } from './worker-state.js';
import { contextWindow, startHistory } from '../core/decoding.js';
import { checkGraph } from './guards.js';
import { MODELS_DIR } from './shared.js';

// One reused input buffer per batch size: runs are serialized and onnxruntime
// copies the input before run() resolves, so the next call may overwrite it.
// IDs are written as two little-endian 32-bit halves (ID, 0): no BigInt per slot.
const inputBuffers = new Map();
function feeds(contexts, Tensor, mask = null) {
  const width = state.metadata.context;
  let buffer = inputBuffers.get(contexts.length);
  if (!buffer) {
    const flat = new BigInt64Array(contexts.length * width);
    inputBuffers.set(contexts.length, buffer = { flat, halves: new Int32Array(flat.buffer) });
  }
  const { flat, halves } = buffer;
  for (let b = 0; b < contexts.length; b++) {
    const ctx = contexts[b];
    for (let j = 0, k = 2 * b * width; j < width; j++, k += 2) { halves[k] = ctx[j]; halves[k + 1] = 0; }
  }
  const out = { context_ids: new Tensor('int64', flat, [contexts.length, width]) };
  if (mask) {
    const masks = new Float32Array(contexts.length * mask.length);
    for (let b = 0; b < contexts.length; b++) masks.set(mask, b * mask.length);
    out.head_mask = new Tensor('float32', masks, [contexts.length, mask.length]);
  }
  return out;
}

export async function createSession(kind, backend) {
  const { ort } = await loadRuntime(state.manifest, backend);
  const t0 = performance.now();
  const options = { executionProviders: [backend], graphOptimizationLevel: 'all', logSeverityLevel: 3 };
  const session = await ort.InferenceSession.create(state.bytes[kind].slice(), options);
  state.tensors.set(session, ort.Tensor);
  const createMs = performance.now() - t0;
  const t1 = performance.now();
  try {
    let out;
    try {
      out = await runSession(session, [contextWindow(startHistory([]), state.metadata.context)]);
    } catch (err) {
      throw new Error(`${MODELS_DIR}/metadata.json: the warm-up call of ${state.metadata.models[kind].file} with ` +
        `"context" ${state.metadata.context} IDs failed, so the file and the model disagree (${describeError(err)})`,
      { cause: err });
    }
    checkGraph(kind, state.metadata, out); // the graph's shapes agree with metadata.json
  } catch (err) {
    await session.release?.();
    throw err;
  }
  return { session, create_ms: createMs, warmup_ms: performance.now() - t1 };
}

// Fetches logits and the final query's attention (or, for the decoding loop,
// logits only); the full causal matrix (output attention_matrix) only when asked for.
export async function runSession(session, contexts, { matrix = false, logitsOnly = false, mask = null } = {}) {
  const names = logitsOnly ? ['logits'] : session.outputNames.filter((n) => n !== 'attention_matrix' || matrix);
  const outputs = await session.run(feeds(contexts, state.tensors.get(session), mask), names);
  const logits = outputs.logits;
  // getData() gives a copy that outlives dispose() (downloaded from the GPU, or out of the WASM heap)
  const result = { logits: await logits.getData(), dims: logits.dims.map(Number) };
  if (outputs.attention) {
    result.attention = await outputs.attention.getData();
    result.attentionDims = outputs.attention.dims.map(Number);
  }
  if (outputs.attention_matrix) {
    result.matrix = await outputs.attention_matrix.getData();
    result.matrixDims = outputs.attention_matrix.dims.map(Number);
  }
  for (const t of Object.values(outputs)) t.dispose?.();
  return result;
}

export async function newSession(kind, backend) {
  try {
    const made = await serialized(() => createSession(kind, backend));
    state.sessions[backend][kind] = made.session;
    state.sessionReports[backend][kind] = { create_ms: made.create_ms, warmup_ms: made.warmup_ms };
    return { ok: true, create_ms: made.create_ms, warmup_ms: made.warmup_ms };
  } catch (err) {
    state.sessionErrors[backend][kind] = describeError(err);
    return { ok: false, error: describeError(err) };
  }
}

export function sessionFor(kind, backend) {
  const session = state.sessions[backend]?.[kind];
  if (session) return session;
  const why = state.loadErrors[kind] || state.runtimeErrors[backend] || state.sessionErrors[backend]?.[kind] ||
    (state.bytes[kind] ? `no ${backend} session yet` : 'its file is still downloading');
  throw new Error(`${kind} is not available on ${backend}: ${why}`);
}

// The head-switch graph of an attention model (export/onnx_export.py), fetched,
// checked and its session created the first time a head is switched off.
export function headsSession(kind, backend) {
  const sessions = state.headsSessions[backend];
  if (!sessions[kind]) {
    sessions[kind] = (async () => {
      const entry = state.metadata.models[kind].heads_graph;
      if (!entry) throw new Error(`${kind} has no head-switch graph in metadata.json`);
      if (!state.headsBytes[kind]) {
        state.headsBytes[kind] = fetchVerified(new URL(entry.file, state.base).href, { name: entry.file,
          sha256: entry.sha256, bytes: entry.bytes, onProgress: progress(`${kind}-heads`, entry.file) })
          .then((got) => new Uint8Array(got.buffer));
        state.headsBytes[kind].catch(() => { delete state.headsBytes[kind]; });
      }
      const bytes = await state.headsBytes[kind];
      const { ort } = await loadRuntime(state.manifest, backend);
      const session = await ort.InferenceSession.create(bytes.slice(),
        { executionProviders: [backend], graphOptimizationLevel: 'all', logSeverityLevel: 3 });
      state.tensors.set(session, ort.Tensor);
      return session;
    })();
    sessions[kind].catch(() => { delete sessions[kind]; }); // a later try may succeed (back online)
  }
  return sessions[kind];
}

// The session for a call: the model's own graph, or its head-switch graph
// (and the mask to feed it) when heads are off.
export async function sessionWithHeads(kind, backend, headsOff) {
  const session = sessionFor(kind, backend);
  if (!headsOff || !headsOff.length) return { session, mask: null };
  const heads = state.metadata.models[kind].heads;
  return { session: await headsSession(kind, backend), mask: headMask(heads, headsOff) };
}

export async function run({ kind, backend, contexts, matrix = false, logitsOnly = false, headsOff = null }) {
  const { session, mask } = await sessionWithHeads(kind, backend, headsOff);
  if (matrix && !session.outputNames.includes('attention_matrix')) {
    throw new Error(`${kind} has no attention, so it has no attention matrix`);
  }
  const t0 = performance.now();
  const out = await serialized(() => runSession(session, contexts, { matrix, logitsOnly, mask }));
  out.ms = performance.now() - t0;
  out.backend = backend;
  return out;
}
