// The lab's inference worker: downloads and verifies the three ONNX models,
// creates onnxruntime-web sessions (WebGPU or WASM), and runs the decoding
// loops so that the page never freezes. Messages: see handlers at the bottom.
// Which onnxruntime-web build each runtime loads, the checked and cached
// downloads and the WebGPU probe live in runtime.js.

import { Decoder, contextWindow, startHistory } from '../core/decoding.js';
import { headMask, hideInWindow } from '../core/ablation.js';
import { describeError, fetchVerified, loadRuntime, probeWebGPU, pruneCache, runtimeUrl } from './runtime.js';
import { checkBackend, checkRuns } from './guards.js';
import { RUNTIMES, VENDOR_DIR, median, timingContext } from './shared.js';

const perRuntime = () => Object.fromEntries(RUNTIMES.map((b) => [b, {}]));

const state = {
  metadata: null,
  bytes: {}, // kind -> Uint8Array of the verified model
  loadErrors: {}, // kind -> message
  sessions: perRuntime(), // backend -> kind -> InferenceSession
  sessionErrors: perRuntime(),
  manifest: null, // vendor/onnxruntime-web/runtimes.json
  runtimeErrors: {}, // backend -> message
  tensors: new WeakMap(), // session -> the Tensor class of its onnxruntime-web build
  stops: new Set(),
  base: null, // the models' folder URL
  headsBytes: {}, // kind -> Promise<Uint8Array> of its head-switch graph, fetched on first use
  headsSessions: perRuntime(), // backend -> kind -> Promise<InferenceSession> of the head-switch graph
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

function progress(file, name) {
  return ({ loaded, total, from }) => postMessage({ event: 'progress', file, name, loaded, total, from });
}

// Downloads (or reads from the offline cache) the three models and the
// runtimes the page asks for, all at once, each checked against its SHA-256.
async function load({ base, metadata, manifest, runtimes = [] }) {
  state.metadata = metadata;
  state.manifest = manifest;
  state.base = base;
  const report = { runtimes: {} };
  const runtimeLoads = runtimes.map((b) => ensureRuntime(b).then((r) => { report.runtimes[b] = r; }));
  await Promise.all(metadata.order.map(async (kind) => {
    const entry = metadata.models[kind];
    try {
      const got = await fetchVerified(new URL(entry.file, base).href,
        { name: entry.file, sha256: entry.sha256, bytes: entry.bytes, onProgress: progress(kind, entry.file) });
      state.bytes[kind] = new Uint8Array(got.buffer);
      report[kind] = { ok: true, bytes: got.buffer.byteLength, download_ms: got.download_ms,
        hash_ms: got.hash_ms, from: got.from, network_bytes: got.network_bytes };
    } catch (err) {
      state.loadErrors[kind] = describeError(err);
      report[kind] = { ok: false, error: describeError(err) };
    }
  }));
  await Promise.all(runtimeLoads);
  report.runtime = report.runtimes[runtimes[0]] ?? null;
  const keep = [...metadata.order.map((k) => new URL(metadata.models[k].file, base).href),
    ...metadata.order.filter((k) => metadata.models[k].heads_graph)
      .map((k) => new URL(metadata.models[k].heads_graph.file, base).href),
    ...Object.keys(manifest.builds).map((b) => runtimeUrl(manifest, b))];
  pruneCache(keep).catch(() => {});
  return report;
}

// The runtime's build, downloaded once; its report, or {ok: false, error}.
async function ensureRuntime(backend) {
  try {
    const { report } = await loadRuntime(state.manifest, backend, progress(`runtime-${backend}`,
      `${VENDOR_DIR}/${state.manifest.builds[backend].wasm}`));
    delete state.runtimeErrors[backend];
    return report;
  } catch (err) {
    state.runtimeErrors[backend] = describeError(err);
    return { ok: false, backend, error: describeError(err) };
  }
}

// Which runtimes 'auto', 'webgpu' or 'wasm' will need, decided before any
// download: automatic never uses a software WebGPU adapter, and times both
// runtimes only when a real GPU is there.
// ?adapter=any on the page (considerSoftware) lets automatic time a software
// adapter too, as it would a real GPU: a way to watch (and test) the timed choice.
async function plan({ backend, considerSoftware = false }) {
  checkBackend(backend);
  if (backend === 'wasm') return { runtimes: ['wasm'] };
  const gpu = await probeWebGPU();
  if (backend === 'webgpu') return { runtimes: gpu.ok ? ['webgpu'] : [], gpu };
  if (!gpu.ok) return { runtimes: ['wasm'], gpu, reason: gpu.reason };
  if (gpu.software && !considerSoftware) return { runtimes: ['wasm'], gpu, reason: gpu.software_reason };
  return { runtimes: ['webgpu', 'wasm'], gpu };
}

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

async function createSession(kind, backend) {
  const { ort } = await loadRuntime(state.manifest, backend);
  const t0 = performance.now();
  const options = { executionProviders: [backend], graphOptimizationLevel: 'all', logSeverityLevel: 3 };
  const session = await ort.InferenceSession.create(state.bytes[kind].slice(), options);
  state.tensors.set(session, ort.Tensor);
  const createMs = performance.now() - t0;
  const t1 = performance.now();
  await runSession(session, [contextWindow(startHistory([]), state.metadata.context)]);
  return { session, create_ms: createMs, warmup_ms: performance.now() - t1 };
}

// Fetches logits and the final query's attention (or, for the decoding loop,
// logits only); the full causal matrix (output attention_matrix) only when asked for.
async function runSession(session, contexts, { matrix = false, logitsOnly = false, mask = null } = {}) {
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

// A runtime status, the same fields every time: the backend in use, whether it
// is ready (an error says why not), why 'auto' chose it, the WebGPU adapter,
// and per model its session report.
function status(backend, fields) {
  return { backend, ok: !fields.error, error: null, fallback_reason: null, choice_reason: null, adapter: null,
    software_adapter: null, seen_adapter: null, timed_ms: null, models: {}, ...fields };
}

// Resolve 'auto' and create (and warm up) the sessions of one backend.
async function prepare({ backend, considerSoftware = false }) {
  checkBackend(backend);
  const planned = await plan({ backend, considerSoftware });
  const gpu = planned.gpu;
  if (backend === 'webgpu' && !gpu.ok) return status('webgpu', { error: `WebGPU unavailable: ${gpu.reason}` });
  const adapter = gpu?.ok ? gpu.adapter : null;
  if (backend !== 'auto') {
    const rt = await ensureRuntime(backend);
    if (!rt.ok) return status(backend, { error: rt.error, adapter });
    const webgpu = backend === 'webgpu';
    return status(backend, { adapter: webgpu ? adapter : null, software_adapter: webgpu ? gpu.software : null,
      models: await createSessions(backend) });
  }
  const wasm = async (reason) => {
    const rt = await ensureRuntime('wasm');
    if (!rt.ok) return status('wasm', { error: rt.error, fallback_reason: reason });
    return status('wasm', { fallback_reason: reason, choice_reason: reason, software_adapter: gpu?.software ?? null,
      seen_adapter: gpu?.adapter ?? null, models: await createSessions('wasm') });
  };
  if (!planned.runtimes.includes('webgpu')) return wasm(planned.reason);
  // A real GPU: warm both runtimes up, then time one call of every model on each and keep the faster.
  const rt = await ensureRuntime('webgpu');
  if (!rt.ok) return wasm(`the WebGPU runtime did not load (${rt.error})`);
  const gpuReport = await createSessions('webgpu');
  const failed = Object.entries(gpuReport).find(([, r]) => !r.ok && !r.load_error);
  if (failed) return wasm(`WebGPU session for ${failed[0]} failed (${failed[1].error})`);
  const cpu = await wasm(null);
  if (!cpu.ok) {
    return status('webgpu', { adapter, software_adapter: gpu.software, models: gpuReport,
      choice_reason: `WASM did not start (${cpu.error})` });
  }
  const timed = { webgpu: await timeOneCall('webgpu'), wasm: await timeOneCall('wasm') };
  const chosen = timed.webgpu <= timed.wasm ? 'webgpu' : 'wasm';
  const why = `one call of the three models took ${timed.webgpu.toFixed(1)} ms on WebGPU and ` +
    `${timed.wasm.toFixed(1)} ms on WASM after warm-up: ${chosen === 'webgpu' ? 'WebGPU' : 'WASM'} is faster here`;
  return status(chosen, { fallback_reason: chosen === 'wasm' ? why : null, choice_reason: why,
    adapter: chosen === 'webgpu' ? adapter : null, software_adapter: gpu.software, timed_ms: timed,
    models: chosen === 'webgpu' ? gpuReport : cpu.models });
}

async function timeOneCall(backend) {
  const ctx = [timingContext(state.metadata.context)];
  let total = 0;
  for (const kind of state.metadata.order) {
    const session = state.sessions[backend][kind];
    if (!session) continue;
    const t0 = performance.now();
    await serialized(() => runSession(session, ctx));
    total += performance.now() - t0;
  }
  return total;
}

async function createSessions(backend) {
  const report = {};
  for (const kind of state.metadata.order) {
    if (state.loadErrors[kind]) {
      report[kind] = { ok: false, load_error: true, error: state.loadErrors[kind] };
    } else if (state.runtimeErrors[backend]) {
      report[kind] = { ok: false, error: state.runtimeErrors[backend] };
    } else if (state.sessions[backend][kind]) {
      report[kind] = { ok: true, cached: true };
    } else {
      report[kind] = await newSession(kind, backend);
    }
  }
  return report;
}

async function newSession(kind, backend) {
  try {
    const made = await serialized(() => createSession(kind, backend));
    state.sessions[backend][kind] = made.session;
    return { ok: true, create_ms: made.create_ms, warmup_ms: made.warmup_ms };
  } catch (err) {
    state.sessionErrors[backend][kind] = describeError(err);
    return { ok: false, error: describeError(err) };
  }
}

function sessionFor(kind, backend) {
  const session = state.sessions[backend]?.[kind];
  if (session) return session;
  const why = state.loadErrors[kind] || state.runtimeErrors[backend] || state.sessionErrors[backend]?.[kind] ||
    `no ${backend} session yet`;
  throw new Error(`${kind} is not available on ${backend}: ${why}`);
}

// The head-switch graph of an attention model (export/onnx_export.py), fetched,
// checked and its session created the first time a head is switched off.
function headsSession(kind, backend) {
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
async function sessionWithHeads(kind, backend, headsOff) {
  const session = sessionFor(kind, backend);
  if (!headsOff || !headsOff.length) return { session, mask: null };
  const heads = state.metadata.models[kind].heads;
  return { session: await headsSession(kind, backend), mask: headMask(heads, headsOff) };
}

async function run({ kind, backend, contexts, matrix = false, logitsOnly = false, headsOff = null }) {
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

// Timed single-context calls; at most MAX_BENCH_RUNS (guards.js), and Stop ends it
// between two calls (the partial times come back with stopped: true).
async function bench({ kind, backend, runs, runId }) {
  checkRuns(runs);
  const session = sessionFor(kind, backend);
  const ctx = [timingContext(state.metadata.context)];
  const times = [];
  let stopped = false;
  try {
    for (let i = 0; i < runs; i++) {
      if (state.stops.has(runId)) { stopped = true; break; }
      const t0 = performance.now();
      await serialized(() => runSession(session, ctx));
      times.push(performance.now() - t0);
      await yieldToEvents();
    }
  } finally {
    state.stops.delete(runId);
  }
  return { times, stopped, median_ms: median(times) };
}

// One decoding loop (web/core's Decoder) per model and prompt. The models
// take turns, one model call at a time; a model's active prompts share that
// call as one batch, which fetches logits only. Choices go to the page in
// 'steps' messages at most once a frame (FRAME_MS), since waking the page
// costs more than a model call here; the page rebuilds contexts and the
// inspected distributions from the IDs. Once a frame, too, the loop lets
// queued messages (Stop) in.
const FRAME_MS = 16;
async function generate({ runId, kinds, backend, prompts, mode, temperature, seed, limit, top_k: topK = 0,
  top_p: topP = 1, headsOff = {}, hide = [] }) {
  const hidden = new Set(hide);
  const C = state.metadata.vocab_size;
  const options = { context: state.metadata.context, mode, temperature, seed, limit, top_k: topK, top_p: topP };
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
    try {
      await sessionWithHeads(model.kind, backend, headsOff[model.kind]); // a head-switch graph loads here
    } catch (err) {
      model.loops.forEach((l) => finish(l, 'error', describeError(err)));
    }
    model.loops.forEach(report);
  }
  const unfinished = () => models.some((m) => m.loops.some((l) => !l.stop));
  const steps = [];
  let posted = performance.now(), yielded = posted;
  const flush = () => {
    if (steps.length) postMessage({ event: 'steps', runId, steps: steps.splice(0) });
    posted = performance.now();
  };
  const finishing = (loops) => {
    if (!loops.some((l) => l.stop && !l.reported)) return;
    flush();
    loops.forEach(report);
  };
  while (unfinished()) {
    for (const model of models) {
      if (state.stops.has(runId)) model.loops.forEach((l) => finish(l, 'stopped'));
      finishing(model.loops); // its steps, then its 'done'
      const active = model.loops.filter((l) => !l.stop);
      if (!active.length) continue;
      let out;
      try {
        const contexts = active.map((l) => hideInWindow(l.context(), l.history.length, hidden));
        for (const [b, l] of active.entries()) if (!l.first) l.first = [...contexts[b]]; // for lab.generate's report
        out = await run({ kind: model.kind, backend, contexts, logitsOnly: true, headsOff: headsOff[model.kind] });
      } catch (err) {
        active.forEach((l) => finish(l, 'error', describeError(err)));
        finishing(active);
        continue;
      }
      for (let b = 0; b < active.length; b++) {
        const loop = active[b];
        loop.times.push(out.ms);
        const id = loop.step(out.logits.subarray(b * C, (b + 1) * C));
        steps.push({ kind: loop.kind, prompt: loop.prompt, index: loop.calls - 1, id, ms: out.ms,
          batch: active.length });
      }
      finishing(active);
    }
    const now = performance.now();
    if (now - posted >= FRAME_MS) flush();
    if (now - yielded >= FRAME_MS) {
      await yieldToEvents();
      yielded = performance.now();
    }
  }
  flush();
  state.stops.delete(runId);
  return { runId };
}

function stats(loop, backend) {
  return {
    ids: loop.ids, stop: loop.stop, error: loop.error, calls: loop.times.length,
    first_context: loop.first || null, new_tokens: loop.ids.length, total_ms: performance.now() - loop.t0,
    median_ms: median(loop.times), compute_ms: loop.times.reduce((a, b) => a + b, 0), backend,
  };
}

// Files this worker fetched (its modules, the runtime's scripts), for the offline copy.
function resources() {
  return { urls: [import.meta.url, ...performance.getEntriesByType('resource').map((e) => e.name)] };
}

// The operations the page calls (rpc.js); contexts from outside (lab.run,
// lab.logits) were checked there (guards.js checkContexts).
const handlers = {
  load, plan, prepare, run, bench, generate, resources,
  stop: async ({ runId }) => { state.stops.add(runId); return {}; },
};

self.onmessage = async (event) => {
  const { id, op, args } = event.data;
  try {
    if (!Object.hasOwn(handlers, op)) throw new Error(`unknown worker operation ${JSON.stringify(op)}`);
    const result = await handlers[op](args || {});
    const transfer = ['logits', 'attention', 'matrix']
      .filter((key) => result?.[key] instanceof Float32Array).map((key) => result[key].buffer);
    postMessage({ id, ok: true, result }, transfer);
  } catch (err) {
    postMessage({ id, ok: false, error: describeError(err) });
  }
};
