// The lab's inference worker: downloads and verifies the three ONNX models,
// creates onnxruntime-web sessions (WebGPU or WASM), and runs the decoding
// loops so that the page never freezes. Messages: see handlers at the bottom.

import * as ort from '../vendor/onnxruntime-web/ort.all.min.mjs';
import { sha256Hex } from '../core/sha256.js';
import { CONTEXT, Decoder, contextWindow, startHistory } from '../core/decoding.js';

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
  for (let b = 0; b < contexts.length; b++) {
    const ctx = contexts[b];
    if (ctx.length !== CONTEXT) throw new Error(`a context must hold ${CONTEXT} IDs, got ${ctx.length}`);
    for (let j = 0; j < CONTEXT; j++) flat[b * CONTEXT + j] = BigInt(ctx[j]);
  }
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

// Fetches logits and the final query's attention; the full causal matrix
// (output attention_matrix) only when asked for.
async function runSession(session, contexts, { matrix = false } = {}) {
  const names = session.outputNames.filter((n) => n !== 'attention_matrix' || matrix);
  const outputs = await session.run(feeds(contexts), names);
  const logits = outputs.logits;
  const result = { logits: new Float32Array(await logits.getData()), dims: logits.dims.map(Number) };
  if (outputs.attention) {
    result.attention = new Float32Array(await outputs.attention.getData());
    result.attentionDims = outputs.attention.dims.map(Number);
  }
  if (outputs.attention_matrix) {
    result.matrix = new Float32Array(await outputs.attention_matrix.getData());
    result.matrixDims = outputs.attention_matrix.dims.map(Number);
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

async function run({ kind, backend, contexts, matrix = false }) {
  const session = sessionFor(kind, backend);
  if (matrix && !session.outputNames.includes('attention_matrix')) {
    throw new Error(`${kind} has no attention, so it has no attention matrix`);
  }
  const t0 = performance.now();
  const out = await serialized(() => runSession(session, contexts, { matrix }));
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

// One decoding loop (web/core's Decoder) per model and prompt. The models
// take turns, one model call at a time; a model's active prompts share that
// call as one batch. Each choice is posted as soon as it is made; the page
// rebuilds contexts and the inspected distributions from the IDs.
async function generate({ runId, kinds, backend, prompts, mode, temperature, seed, limit, top_k: topK = 0, top_p: topP = 1 }) {
  const C = state.metadata.vocab_size;
  const options = { mode, temperature, seed, limit, top_k: topK, top_p: topP };
  const models = kinds.map((kind) => ({
    kind,
    loops: prompts.map((promptIds, prompt) => Object.assign(new Decoder(promptIds, options),
      { kind, prompt, times: [], error: null, t0: performance.now(), reported: false })),
  }));
  const finish = (loop, stop, error = null) => {
    loop.finish(stop);
    loop.error = error;
  };
  const report = (loop) => {
    if (loop.reported || !loop.stop) return;
    loop.reported = true;
    postMessage({ event: 'done', runId, kind: loop.kind, prompt: loop.prompt, stats: stats(loop, backend) });
  };
  for (const model of models) {
    try { sessionFor(model.kind, backend); } catch (err) { model.loops.forEach((l) => finish(l, 'error', describeError(err))); }
    model.loops.forEach(report);
  }
  const unfinished = () => models.some((m) => m.loops.some((l) => !l.stop));
  while (unfinished()) {
    for (const model of models) {
      if (state.stops.has(runId)) model.loops.forEach((l) => finish(l, 'stopped'));
      model.loops.forEach(report);
      const active = model.loops.filter((l) => !l.stop);
      if (!active.length) continue;
      let out;
      try {
        const contexts = active.map((l) => l.context());
        for (const l of active) if (!l.first) l.first = [...l.context()]; // once per loop, for lab.generate's report
        out = await run({ kind: model.kind, backend, contexts });
      } catch (err) {
        active.forEach((l) => { finish(l, 'error', describeError(err)); report(l); });
        continue;
      }
      for (let b = 0; b < active.length; b++) {
        const loop = active[b];
        loop.times.push(out.ms);
        const id = loop.step(out.logits.subarray(b * C, (b + 1) * C));
        postMessage({ event: 'step', runId, kind: loop.kind, prompt: loop.prompt,
          step: { index: loop.calls - 1, id, ms: out.ms, batch: active.length } });
        report(loop);
      }
    }
    await yieldToEvents();
  }
  state.stops.delete(runId);
  return { runId };
}

function stats(loop, backend) {
  return {
    ids: loop.ids, stop: loop.stop, error: loop.error, calls: loop.times.length, first_context: loop.first || null,
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
    if (result && result.matrix instanceof Float32Array) transfer.push(result.matrix.buffer);
    postMessage({ id, ok: true, result }, transfer);
  } catch (err) {
    postMessage({ id, ok: false, error: describeError(err) });
  }
};
