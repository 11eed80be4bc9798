// The lab's inference worker: downloads and verifies the three ONNX models,
// creates onnxruntime-web sessions (WebGPU or WASM), and runs the decoding
// loops so that the page never freezes. Messages: see handlers at the bottom.

import * as ort from '../vendor/onnxruntime-web/ort.all.min.mjs';
import { sha256Hex } from '../core/sha256.js';
import { CONTEXT, choose, contextWindow, mulberry32, samplingWeights, softmax, startHistory, topK } from '../core/decoding.js';
import { EOS_ID } from '../core/tokenizer.js';

// ort.all.min.mjs runs both WebGPU and WASM sessions on this one WebAssembly build (JSEP).
const RUNTIME_WASM = 'ort-wasm-simd-threaded.jsep.wasm';
const VENDOR = new URL('../vendor/onnxruntime-web/', import.meta.url).href;
ort.env.wasm.wasmPaths = VENDOR;
ort.env.wasm.numThreads = 1; // threads need cross-origin isolation, which a static host rarely gives
ort.env.wasm.proxy = false; // we already are a worker
ort.env.logLevel = 'error';

const state = {
  metadata: null,
  bytes: {}, // kind -> Uint8Array of the verified model
  loadErrors: {}, // kind -> message
  sessions: { webgpu: {}, wasm: {} }, // backend -> kind -> InferenceSession
  sessionErrors: { webgpu: {}, wasm: {} },
  webgpu: null, // {ok, reason, adapter}
  stops: new Set(),
};

// Let queued messages (Stop) in between model calls: a macrotask yield without timer clamping.
const channel = new MessageChannel();
const pending = [];
channel.port1.onmessage = () => pending.shift()?.();
function yieldToEvents() {
  return new Promise((resolve) => { pending.push(resolve); channel.port2.postMessage(0); });
}

// Session runs are serialized: one model call at a time, whichever backend.
let queue = Promise.resolve();
function serialized(fn) {
  const result = queue.then(fn, fn);
  queue = result.catch(() => {});
  return result;
}

function describeError(err) {
  return err && err.message ? err.message : String(err);
}

// The runtime's .wasm is downloaded here, timed on its own, and handed to
// onnxruntime-web, so that session creation times exclude the download.
async function loadRuntime() {
  const t0 = performance.now();
  let response;
  try {
    response = await fetch(VENDOR + RUNTIME_WASM);
  } catch (err) {
    throw new Error(`could not download the runtime ${RUNTIME_WASM}: ${describeError(err)}`);
  }
  if (!response.ok) throw new Error(`runtime file missing: vendor/onnxruntime-web/${RUNTIME_WASM} (HTTP ${response.status})`);
  const buffer = await response.arrayBuffer();
  ort.env.wasm.wasmBinary = buffer;
  return { ok: true, file: RUNTIME_WASM, bytes: buffer.byteLength, download_ms: performance.now() - t0,
    version: ort.env.versions?.web ?? null };
}

async function load({ base, metadata }) {
  state.metadata = metadata;
  const report = {};
  const runtime = loadRuntime().catch((err) => ({ ok: false, error: describeError(err) }));
  await Promise.all(metadata.order.map(async (kind) => {
    const entry = metadata.models[kind];
    const url = new URL(entry.file, base).href;
    const t0 = performance.now();
    try {
      let response;
      try {
        response = await fetch(url);
      } catch (err) {
        throw new Error(`could not download ${entry.file}: ${describeError(err)}`);
      }
      if (!response.ok) throw new Error(`model file missing: ${entry.file} (HTTP ${response.status})`);
      const buffer = await response.arrayBuffer();
      const downloadMs = performance.now() - t0;
      const t1 = performance.now();
      const digest = await sha256Hex(buffer);
      const hashMs = performance.now() - t1;
      if (digest !== entry.sha256) {
        throw new Error(`${entry.file} failed its SHA-256 check (got ${digest.slice(0, 12)}…, ` +
          `metadata.json expects ${entry.sha256.slice(0, 12)}…): the file is corrupt or stale`);
      }
      state.bytes[kind] = new Uint8Array(buffer);
      report[kind] = { ok: true, bytes: buffer.byteLength, download_ms: downloadMs, hash_ms: hashMs };
    } catch (err) {
      state.loadErrors[kind] = describeError(err);
      report[kind] = { ok: false, error: describeError(err) };
    }
  }));
  report.runtime = await runtime;
  if (!report.runtime.ok) {
    for (const kind of metadata.order) state.loadErrors[kind] = state.loadErrors[kind] || report.runtime.error;
  }
  return report;
}

async function probeWebGPU() {
  if (state.webgpu) return state.webgpu;
  let result;
  if (!('gpu' in navigator) || !navigator.gpu) {
    result = { ok: false, reason: 'this browser has no WebGPU (navigator.gpu is missing)' };
  } else {
    try {
      const adapter = await navigator.gpu.requestAdapter();
      if (!adapter) {
        result = { ok: false, reason: 'the browser offers WebGPU but found no usable GPU adapter' };
      } else {
        const info = adapter.info || {};
        result = { ok: true, adapter: { vendor: info.vendor || '', architecture: info.architecture || '',
          device: info.device || '', description: info.description || '' } };
      }
    } catch (err) {
      result = { ok: false, reason: `requesting a WebGPU adapter failed: ${describeError(err)}` };
    }
  }
  state.webgpu = result;
  return result;
}

function feeds(contexts) {
  const flat = new BigInt64Array(contexts.length * CONTEXT);
  contexts.forEach((ctx, b) => {
    if (ctx.length !== CONTEXT) throw new Error(`a context must hold ${CONTEXT} IDs, got ${ctx.length}`);
    ctx.forEach((id, j) => { flat[b * CONTEXT + j] = BigInt(id); });
  });
  return { context_ids: new ort.Tensor('int64', flat, [contexts.length, CONTEXT]) };
}

async function createSession(kind, backend) {
  const t0 = performance.now();
  const options = { executionProviders: [backend], graphOptimizationLevel: 'all', logSeverityLevel: 3 };
  const session = await ort.InferenceSession.create(state.bytes[kind].slice(), options);
  const createMs = performance.now() - t0;
  const t1 = performance.now();
  await runSession(session, [contextWindow(startHistory([]))]);
  return { session, create_ms: createMs, warmup_ms: performance.now() - t1 };
}

async function runSession(session, contexts) {
  const outputs = await session.run(feeds(contexts));
  const logits = outputs.logits;
  const result = { logits: new Float32Array(await logits.getData()), dims: logits.dims.map(Number) };
  if (outputs.attention) {
    result.attention = new Float32Array(await outputs.attention.getData());
    result.attentionDims = outputs.attention.dims.map(Number);
  }
  for (const t of Object.values(outputs)) t.dispose?.();
  return result;
}

// Resolve 'auto' and create (and warm up) the sessions of one backend.
async function prepare({ backend }) {
  let fallback = null;
  let chosen = backend;
  if (backend === 'auto' || backend === 'webgpu') {
    const gpu = await probeWebGPU();
    if (!gpu.ok) {
      if (backend === 'webgpu') return { backend: 'webgpu', ok: false, error: `WebGPU unavailable: ${gpu.reason}`, models: {} };
      chosen = 'wasm';
      fallback = gpu.reason;
    } else {
      chosen = 'webgpu';
    }
  } else if (backend !== 'wasm') {
    throw new Error(`unknown backend ${backend}; use auto, webgpu or wasm`);
  }
  let report = await createSessions(chosen);
  if (backend === 'auto' && chosen === 'webgpu' && Object.values(report).some((r) => !r.ok && !r.load_error)) {
    const failed = Object.entries(report).find(([, r]) => !r.ok && !r.load_error);
    fallback = `WebGPU session for ${failed[0]} failed (${failed[1].error})`;
    chosen = 'wasm';
    report = await createSessions('wasm');
  }
  return { backend: chosen, ok: true, fallback_reason: fallback, adapter: chosen === 'webgpu' ? state.webgpu.adapter : null, models: report };
}

async function createSessions(backend) {
  const report = {};
  for (const kind of state.metadata.order) {
    if (state.loadErrors[kind]) { report[kind] = { ok: false, load_error: true, error: state.loadErrors[kind] }; continue; }
    if (state.sessions[backend][kind]) { report[kind] = { ok: true, cached: true }; continue; }
    try {
      const made = await serialized(() => createSession(kind, backend));
      state.sessions[backend][kind] = made.session;
      report[kind] = { ok: true, create_ms: made.create_ms, warmup_ms: made.warmup_ms };
    } catch (err) {
      state.sessionErrors[backend][kind] = describeError(err);
      report[kind] = { ok: false, error: describeError(err) };
    }
  }
  return report;
}

function sessionFor(kind, backend) {
  const session = state.sessions[backend]?.[kind];
  if (session) return session;
  const why = state.loadErrors[kind] || state.sessionErrors[backend]?.[kind] || `no ${backend} session yet`;
  throw new Error(`${kind} is not available on ${backend}: ${why}`);
}

async function run({ kind, backend, contexts }) {
  const session = sessionFor(kind, backend);
  const t0 = performance.now();
  const out = await serialized(() => runSession(session, contexts));
  out.ms = performance.now() - t0;
  out.backend = backend;
  return out;
}

async function bench({ kind, backend, runs }) {
  const session = sessionFor(kind, backend);
  const ctx = [contextWindow(startHistory([5, 6, 7, 8, 9]))];
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await serialized(() => runSession(session, ctx));
    times.push(performance.now() - t0);
  }
  return { times };
}

function median(values) {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// One decoding loop per model and prompt. The models take turns, one model
// call at a time; a model's active prompts share that call as one batch.
// Each token is posted as soon as it is chosen.
async function generate({ runId, kinds, backend, prompts, mode, temperature, seed, limit }) {
  const C = state.metadata.vocab_size;
  const models = kinds.map((kind) => ({
    kind, error: null,
    loops: prompts.map((promptIds, prompt) => ({
      kind, prompt, history: startHistory(promptIds), rng: mulberry32(seed), ids: [], times: [],
      stop: null, error: null, t0: performance.now(),
    })),
  }));
  const finish = (loop, stop, error = null) => {
    loop.stop = stop;
    loop.error = error;
    postMessage({ event: 'done', runId, kind: loop.kind, prompt: loop.prompt, stats: stats(loop, backend) });
  };
  for (const model of models) {
    try { sessionFor(model.kind, backend); } catch (err) { model.loops.forEach((l) => finish(l, 'error', describeError(err))); }
  }
  const unfinished = () => models.some((m) => m.loops.some((l) => !l.stop));
  while (unfinished()) {
    for (const model of models) {
      for (const loop of model.loops) {
        if (loop.stop) continue;
        if (state.stops.has(runId)) finish(loop, 'stopped');
        else if (loop.ids.length >= limit) finish(loop, 'limit');
      }
      const active = model.loops.filter((l) => !l.stop);
      if (!active.length) continue;
      const contexts = active.map((l) => contextWindow(l.history));
      let out;
      try {
        out = await run({ kind: model.kind, backend, contexts });
      } catch (err) {
        active.forEach((l) => finish(l, 'error', describeError(err)));
        continue;
      }
      active.forEach((loop, b) => {
        loop.times.push(out.ms);
        const logits = out.logits.subarray(b * C, (b + 1) * C);
        const next = choose(logits, mode, temperature, loop.rng);
        const probs = softmax(logits);
        const step = {
          index: loop.times.length - 1, id: next, context: contexts[b], ms: out.ms, batch: contexts.length,
          top: topK(probs, 10).map((id) => ({ id, p: probs[id] })), chosen_p: probs[next],
        };
        if (mode === 'sampled') {
          const w = samplingWeights(logits, temperature);
          const total = w.reduce((a, c) => a + c, 0);
          step.top.forEach((t) => { t.q = w[t.id] / total; });
          step.chosen_q = w[next] / total;
        }
        if (out.attention) {
          const [, heads, slots] = out.attentionDims;
          step.attention = { dims: [heads, slots], data: Array.from(out.attention.subarray(b * heads * slots, (b + 1) * heads * slots)) };
        }
        postMessage({ event: 'step', runId, kind: loop.kind, prompt: loop.prompt, step });
        if (next === EOS_ID) { finish(loop, 'eos'); return; }
        loop.history.push(next);
        loop.ids.push(next);
        if (loop.ids.length >= limit) finish(loop, 'limit');
      });
    }
    await yieldToEvents();
  }
  state.stops.delete(runId);
  return { runId };
}

function stats(loop, backend) {
  return {
    ids: loop.ids, stop: loop.stop, error: loop.error, calls: loop.times.length,
    new_tokens: loop.ids.length, total_ms: performance.now() - loop.t0,
    median_ms: median(loop.times), compute_ms: loop.times.reduce((a, b) => a + b, 0), backend,
  };
}

const handlers = {
  load, prepare, run, bench, generate,
  stop: async ({ runId }) => { state.stops.add(runId); return {}; },
};

self.onmessage = async (event) => {
  const { id, op, args } = event.data;
  try {
    const result = await handlers[op](args || {});
    const transfer = [];
    if (result && result.logits instanceof Float32Array) transfer.push(result.logits.buffer);
    if (result && result.attention instanceof Float32Array) transfer.push(result.attention.buffer);
    postMessage({ id, ok: true, result }, transfer);
  } catch (err) {
    postMessage({ id, ok: false, error: describeError(err) });
  }
};
