// The lab's inference worker: downloads and verifies the three ONNX models,
// creates onnxruntime-web sessions (WebGPU or WASM), and runs the decoding
// loops so that the page never freezes. Messages: see handlers at the bottom.
// Which onnxruntime-web build each runtime loads, the checked and cached
// downloads and the WebGPU probe live in runtime.js.

import { Decoder } from '../core/decoding.js';
import { hideInWindow } from '../core/ablation.js';
import { cancelDownloads, describeError, fetchVerified, loadRuntime, probeWebGPU, pruneCache, runtimeUrl }
  from './runtime.js';
import { checkBackend, checkRuns } from './guards.js';
import { VENDOR_DIR, median, timingContext } from './shared.js';
import { progress, serialized, state, yieldToEvents } from './worker-state.js';
import { newSession, run, runSession, sessionFor, sessionWithHeads } from './worker-sessions.js';

// Downloads (or reads from the offline cache) the runtimes the page asks
// for, then the models, smallest first, one file at a time (so that the first
// model is whole as early as the link allows), each checked against its
// SHA-256. With `early` (the one runtime the plan needs), each model's session
// is created and warmed up as soon as its file is checked, and a 'model-ready'
// event tells the page: that model is usable before the others arrive.
async function load({ base, metadata, manifest, runtimes = [], early = null }) {
  state.metadata = metadata;
  state.manifest = manifest;
  state.base = base;
  const report = { runtimes: {} };
  for (const b of runtimes) report.runtimes[b] = await ensureRuntime(b);
  const bySize = [...metadata.order].sort((a, b) => metadata.models[a].bytes - metadata.models[b].bytes);
  for (const kind of bySize) {
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
    if (early && report[kind].ok && report.runtimes[early]?.ok) {
      const made = await newSession(kind, early);
      postMessage({ event: 'model-ready', kind, backend: early, load: report[kind], session: made });
    }
  }
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
      report[kind] = { ok: true, cached: true, ...state.sessionReports[backend][kind] };
    } else {
      report[kind] = await newSession(kind, backend);
    }
  }
  return report;
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
      // a model whose file is still coming (a run started before all were ready) waits, it did not fail
      const waiting = !state.bytes[model.kind] && !state.loadErrors[model.kind];
      model.loops.forEach((l) => finish(l, waiting ? 'waiting' : 'error', waiting ? null : describeError(err)));
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
  cancelDownloads: async () => ({ cancelled: cancelDownloads() }),
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
