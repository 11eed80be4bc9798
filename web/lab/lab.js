// The three-model lab: page wiring and the window.lab API (documented in the README).
// Inference runs in worker.js; this file only tokenizes, renders and talks to it.

import { Vocab, tokenize, UNK_ID } from '../core/tokenizer.js';
import { CONTEXT, contextWindow, startHistory } from '../core/decoding.js';
import { el, fmt, renderPreview, modelCard, renderOutput, renderStats, renderInspect, renderResults, backendName } from './view.js';

const MODELS = new URL('../onnx/', import.meta.url);
const t0 = performance.now();
const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- worker RPC
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
const waiting = new Map();
let nextId = 1;
let workerFailure = null;

worker.onmessage = (event) => {
  const msg = event.data;
  if (msg.event) { onWorkerEvent(msg); return; }
  const w = waiting.get(msg.id);
  if (!w) return;
  waiting.delete(msg.id);
  if (msg.ok) w.resolve(msg.result); else w.reject(new Error(msg.error));
};
worker.onerror = (event) => {
  event.preventDefault();
  workerFailure = `the inference worker failed to start (${event.message || 'a script it imports did not load, such as vendor/onnxruntime-web/ort.all.min.mjs'})`;
  for (const w of waiting.values()) w.reject(new Error(workerFailure));
  waiting.clear();
};

function call(op, args) {
  if (workerFailure) return Promise.reject(new Error(workerFailure));
  return new Promise((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, op, args });
  });
}

// ---------------------------------------------------------------- state
const S = {
  metadata: null, vocab: null, presets: [], views: {},
  load: {}, // kind -> download report
  prepared: {}, // choice -> Promise<status>
  sessions: {}, // backend -> kind -> {create_ms, warmup_ms}
  status: null, // latest resolved status
  run: null, // current or last generation
  runCounter: 0,
  selected: null,
};

async function fetchJSON(name) {
  const url = new URL(name, MODELS);
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new Error(`could not load onnx/${name}: ${err.message}`);
  }
  if (!response.ok) throw new Error(`onnx/${name} is missing (HTTP ${response.status})`);
  try {
    return await response.json();
  } catch (err) {
    throw new Error(`onnx/${name} is not valid JSON (${err.message})`);
  }
}

function showPageError(message) {
  $('page-error').hidden = false;
  $('page-error').textContent = message;
}

// ---------------------------------------------------------------- backends
function prepareBackend(choice) {
  if (!['auto', 'webgpu', 'wasm'].includes(choice)) {
    return Promise.reject(new Error(`unknown backend "${choice}"; use auto, webgpu or wasm`));
  }
  if (!S.prepared[choice]) {
    S.prepared[choice] = call('prepare', { backend: choice }).then((status) => {
      if (status.ok) {
        S.sessions[status.backend] = S.sessions[status.backend] || {};
        for (const [kind, r] of Object.entries(status.models)) {
          if (r.ok && !r.cached) S.sessions[status.backend][kind] = r;
          if (!r.ok) S.sessions[status.backend][kind] = { error: r.error };
        }
      }
      renderLoadTable();
      return status;
    });
  }
  return S.prepared[choice];
}

async function useBackend(choice) {
  const status = await prepareBackend(choice);
  S.status = { ...status, choice };
  renderBackendLine();
  if (!status.ok) throw new Error(status.error);
  return status;
}

function renderBackendLine() {
  const st = S.status;
  if (!st) return;
  const fb = $('fallback-line');
  if (!st.ok) {
    $('backend-line').textContent = `Runtime: ${backendName(st.choice)} is not available.`;
    fb.hidden = false;
    fb.className = 'error';
    fb.textContent = st.error;
    return;
  }
  const adapter = st.adapter ? ` (adapter: ${[st.adapter.vendor, st.adapter.architecture, st.adapter.description].filter(Boolean).join(' ') || 'unnamed'})` : '';
  const ok = Object.values(st.models).filter((m) => m.ok).length;
  $('backend-line').textContent = `Runtime in use: ${backendName(st.backend)}${adapter}` +
    `${st.choice === 'auto' ? ', chosen automatically' : ', chosen by you'}. ${ok} of ${S.metadata.order.length} models ready.`;
  fb.className = 'note';
  fb.hidden = !st.fallback_reason;
  fb.textContent = st.fallback_reason ? `Automatic fallback to WASM: ${st.fallback_reason}.` : '';
}

function renderLoadTable() {
  const body = $('load-table').querySelector('tbody');
  const rows = S.metadata.order.map((kind) => {
    const entry = S.metadata.models[kind];
    const load = S.load[kind];
    const perBackend = Object.entries(S.sessions).filter(([, m]) => m[kind]);
    const lines = (f) => perBackend.map(([b, m]) => (m[kind].error ? `${backendName(b)}: failed` : f(b, m[kind]))).join('\n') || '–';
    return el('tr', { 'data-kind': kind },
      el('th', { scope: 'row', text: entry.label }),
      el('td', { text: fmt.mb(entry.bytes) }),
      el('td', { text: load ? (load.ok ? fmt.ms(load.download_ms) : 'failed') : '…' }),
      el('td', { class: load && !load.ok ? 'error' : '', text: load ? (load.ok ? 'verified' : load.error) : '…' }),
      el('td', { text: perBackend.map(([b]) => backendName(b)).join('\n') || '–' }),
      el('td', { text: lines((b, r) => fmt.ms(r.create_ms)) }),
      el('td', { text: lines((b, r) => fmt.ms(r.warmup_ms)) }));
  });
  const rt = S.load.runtime;
  if (rt) {
    rows.push(el('tr', { 'data-kind': 'runtime' },
      el('th', { scope: 'row', text: `Runtime (onnxruntime-web${rt.version ? ` ${rt.version}` : ''})` }),
      el('td', { text: rt.ok ? fmt.mb(rt.bytes) : '–' }),
      el('td', { text: rt.ok ? fmt.ms(rt.download_ms) : 'failed' }),
      el('td', { class: rt.ok ? '' : 'error', text: rt.ok ? 'pinned npm file' : rt.error }),
      el('td', { text: '' }), el('td', { text: '' }), el('td', { text: '' })));
  }
  body.replaceChildren(...rows);
}

// ---------------------------------------------------------------- prompt
function analyse(text) {
  const tokens = tokenize(text);
  const ids = S.vocab.encodeTokens(tokens);
  const history = startHistory(ids);
  return { tokens, ids, history, context: contextWindow(history), unknown: ids.filter((i) => i === UNK_ID).length };
}

let previewPending = false;
function schedulePreview() {
  if (previewPending) return;
  previewPending = true;
  requestAnimationFrame(() => {
    previewPending = false;
    renderPreview($('preview'), $('preview-summary'), analyse($('prompt').value), CONTEXT);
  });
}

function selectPreset(id) {
  const preset = S.presets.find((p) => p.id === id);
  $('preset').value = preset ? id : 'custom';
  const source = $('source');
  if (!preset) {
    $('preset-note').textContent = 'Your own prompt: anything you type is tokenized exactly like the training text.';
    source.hidden = true;
    return;
  }
  $('prompt').value = preset.prompt;
  $('preset-note').textContent = preset.note || '';
  if (preset.source) {
    const src = preset.source;
    source.hidden = false;
    source.open = false;
    $('source-summary').textContent = `Full source story (${src.dataset}, our ${src.split} split)`;
    $('source-origin').textContent = `${src.origin_file}, story #${src.origin_index} in that file.`;
    $('source-text').textContent = src.text;
    $('source-attribution').textContent = src.attribution;
    $('source-license').href = src.license_url;
  } else {
    source.hidden = true;
  }
  schedulePreview();
}

function readControls() {
  return {
    prompt: $('prompt').value,
    mode: document.querySelector('input[name="mode"]:checked').value,
    temperature: Number($('temperature').value),
    seed: Number($('seed').value),
    limit: Number($('limit').value),
    backend: $('backend').value,
  };
}

function writeControls(o) {
  if ($('prompt').value !== o.prompt) {
    $('prompt').value = o.prompt;
    selectPreset(S.presets.find((p) => p.prompt === o.prompt)?.id || 'custom');
  }
  document.querySelector(`input[name="mode"][value="${o.mode}"]`).checked = true;
  $('temperature').value = String(o.temperature);
  $('seed').value = String(o.seed);
  $('limit').value = String(o.limit);
  $('backend').value = o.backend;
  syncModeInputs();
  schedulePreview();
}

function syncModeInputs() {
  const sampled = document.querySelector('input[name="mode"]:checked').value === 'sampled';
  $('temperature').disabled = !sampled;
  $('seed').disabled = !sampled;
}

// ---------------------------------------------------------------- generation
function validate(o) {
  if (typeof o.prompt !== 'string') throw new Error('prompt must be a string');
  if (!['greedy', 'sampled'].includes(o.mode)) throw new Error(`mode must be "greedy" or "sampled", got "${o.mode}"`);
  if (!(Number.isFinite(o.temperature) && o.temperature > 0)) throw new Error('temperature must be a number above 0');
  if (!(Number.isInteger(o.seed) && o.seed >= 0 && o.seed <= 4294967295)) throw new Error('seed must be an integer from 0 to 4294967295');
  if (!(Number.isInteger(o.limit) && o.limit >= 1 && o.limit <= 1024)) throw new Error('token limit must be an integer from 1 to 1024');
}

// Tokens arrive faster than the screen refreshes on WASM: draw once per frame.
const dirty = new Set();
let frameRequested = false;
function scheduleRender(kind) {
  dirty.add(kind);
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(flushRender);
}

function flushRender() {
  frameRequested = false;
  const run = S.run;
  if (!run || !dirty.size) return;
  for (const k of dirty) {
    const m = run.models[k];
    renderOutput(S.views[k], run.promptTokens, m.tokens, m.steps, m.stats?.stop ?? null, selectStep, S.selected);
    if (m.stats) renderStats(S.views[k], m.stats);
  }
  dirty.clear();
  if (S.selected !== null) renderInspectPanel();
}

function onWorkerEvent(msg) {
  const run = S.run;
  if (!run || msg.runId !== run.id) return;
  const m = run.results[msg.prompt][msg.kind];
  if (msg.event === 'step') {
    if (!m.firstContext) m.firstContext = msg.step.context;
    if (msg.prompt === 0) m.steps.push(msg.step); // only the shown prompt keeps its steps for inspection
    if (msg.step.id !== S.metadata.special_ids.EOS) {
      m.ids.push(msg.step.id);
      m.tokens.push(S.vocab.token(msg.step.id));
    }
  } else if (msg.event === 'done') {
    m.stats = msg.stats;
  }
  if (msg.prompt === 0) scheduleRender(msg.kind);
}

function selectStep(index) {
  S.selected = index;
  const run = S.run;
  for (const kind of S.metadata.order) {
    const m = run.models[kind];
    renderOutput(S.views[kind], run.promptTokens, m.tokens, m.steps, m.stats?.stop ?? null, selectStep, index);
  }
  renderInspectPanel();
  const focused = document.querySelector(`.model-card .tok[data-step="${index}"]`);
  if (focused && document.activeElement?.classList?.contains('tok')) {
    const kind = document.activeElement.closest('.model-card')?.dataset.kind;
    document.querySelector(`.model-card[data-kind="${kind}"] .tok[data-step="${index}"]`)?.focus();
  }
}

function renderInspectPanel() {
  if (!S.run || S.selected === null) return;
  $('inspect-hint').hidden = true;
  renderInspect($('inspect-body'), S.selected, S.run.models, S.metadata, S.vocab, S.run.options.mode);
}

// Generates for one or more prompts (the page shows the first); every
// (model, prompt) pair decodes on its own, exactly as if run alone.
async function runGeneration(options, prompts) {
  await lab.ready;
  if (S.run && S.run.active) throw new Error('a generation is already running: call lab.stop() first');
  const o = { ...readControls(), ...options, prompt: prompts[0] };
  validate(o);
  for (const p of prompts) if (typeof p !== 'string') throw new Error('every prompt must be a string');
  writeControls(o);
  $('page-error').hidden = true;
  const status = await useBackend(o.backend);
  const analyses = prompts.map(analyse);
  const run = {
    id: ++S.runCounter, active: true, options: o, backend: status.backend,
    promptIds: analyses[0].ids, promptTokens: analyses[0].tokens,
    results: analyses.map(() => Object.fromEntries(S.metadata.order.map((k) =>
      [k, { ids: [], tokens: [], steps: [], stats: null, firstContext: null }]))),
  };
  run.models = run.results[0];
  for (const kind of S.metadata.order) {
    renderStats(S.views[kind], null);
    S.views[kind].output.replaceChildren();
  }
  S.run = run;
  S.selected = null;
  $('inspect-body').replaceChildren();
  $('inspect-hint').hidden = false;
  $('generate').disabled = true;
  $('stop').disabled = false;
  try {
    await call('generate', {
      runId: run.id, kinds: S.metadata.order, backend: status.backend, prompts: analyses.map((a) => a.ids),
      mode: o.mode, temperature: o.temperature, seed: o.seed >>> 0, limit: o.limit,
    });
  } finally {
    flushRender();
    run.active = false;
    $('generate').disabled = false;
    $('stop').disabled = true;
  }
  return analyses.map((analysis, p) => {
    const models = {};
    for (const kind of S.metadata.order) {
      const m = run.results[p][kind];
      models[kind] = {
        ids: [...m.ids], tokens: [...m.tokens], text: S.vocab.decode(m.ids), stop: m.stats.stop,
        error: m.stats.error, calls: m.stats.calls, new_tokens: m.stats.new_tokens, total_ms: m.stats.total_ms,
        median_ms: m.stats.median_ms, compute_ms: m.stats.compute_ms, backend: m.stats.backend,
        first_context: m.firstContext ? [...m.firstContext] : null,
      };
    }
    return { prompt: prompts[p], prompt_ids: analysis.ids, prompt_tokens: analysis.tokens,
      history_length: analysis.history.length, backend: status.backend, options: { ...o, prompt: prompts[p] }, models };
  });
}

async function generate(options = {}) {
  const prompt = options.prompt ?? $('prompt').value;
  return (await runGeneration(options, [prompt]))[0];
}

async function generateMany({ prompts, ...options } = {}) {
  if (!Array.isArray(prompts) || !prompts.length) throw new Error('generateMany needs a non-empty array of prompts');
  return runGeneration(options, prompts);
}

async function stop() {
  if (S.run && S.run.active) await call('stop', { runId: S.run.id });
}

// ---------------------------------------------------------------- logits API
async function runContexts(kind, contexts, { backend } = {}) {
  await lab.ready;
  if (!S.metadata.models[kind]) throw new Error(`unknown model "${kind}"; use one of ${S.metadata.order.join(', ')}`);
  const status = await useBackend(backend ?? $('backend').value);
  const out = await call('run', { kind, backend: status.backend, contexts });
  const C = S.metadata.vocab_size;
  const logits = contexts.map((_, b) => out.logits.slice(b * C, (b + 1) * C));
  let attention = null;
  if (out.attention) {
    const [, heads, slots] = out.attentionDims;
    attention = contexts.map((_, b) => Array.from({ length: heads }, (__, h) =>
      Array.from(out.attention.subarray((b * heads + h) * slots, (b * heads + h + 1) * slots))));
  }
  return { logits, attention, backend: status.backend, ms: out.ms };
}

async function logits(kind, ids, options = {}) {
  const batch = Array.isArray(ids[0]);
  const out = await runContexts(kind, batch ? ids : [ids], options);
  return batch ? out.logits : out.logits[0];
}

async function benchmark(kind, { backend, runs = 20 } = {}) {
  await lab.ready;
  const status = await useBackend(backend ?? $('backend').value);
  const { times } = await call('bench', { kind, backend: status.backend, runs });
  const sorted = [...times].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return { kind, backend: status.backend, times, median_ms: sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2 };
}

// ---------------------------------------------------------------- start-up
async function start() {
  const [metadata, itos, presets] = await Promise.all([fetchJSON('metadata.json'), fetchJSON('vocab.json'), fetchJSON('presets.json')]);
  S.metadata = metadata;
  S.vocab = new Vocab(itos);
  S.presets = presets;
  lab.metadata = metadata;
  lab.presets = presets;

  // presets
  const select = $('preset');
  const groups = new Map();
  for (const p of presets) {
    if (!groups.has(p.group)) groups.set(p.group, el('optgroup', { label: p.group }));
    groups.get(p.group).append(el('option', { value: p.id, text: p.label }));
  }
  select.replaceChildren(...groups.values(), el('option', { value: 'custom', text: 'Your own prompt' }));
  select.addEventListener('change', () => selectPreset(select.value));
  $('prompt').addEventListener('input', () => {
    if (select.value !== 'custom') selectPreset('custom');
    schedulePreview();
  });
  selectPreset(presets.find((p) => p.id === 'test-shortest')?.id || presets[0]?.id);

  // controls
  for (const r of document.querySelectorAll('input[name="mode"]')) r.addEventListener('change', syncModeInputs);
  syncModeInputs();
  const initial = new URLSearchParams(location.search).get('backend');
  if (['auto', 'webgpu', 'wasm'].includes(initial)) $('backend').value = initial;
  $('backend').addEventListener('change', () => {
    useBackend($('backend').value).catch(() => {});
  });
  $('generate').addEventListener('click', () => {
    generate().catch((err) => showPageError(err.message));
  });
  $('stop').addEventListener('click', () => { stop(); });

  // model cards and results
  const outputs = $('outputs');
  for (const kind of metadata.order) {
    S.views[kind] = modelCard(kind, metadata.models[kind]);
    outputs.append(S.views[kind].card);
  }
  renderResults($('results-table'), metadata);
  $('dataset-attribution').textContent = `Stories: ${metadata.dataset.attribution}`;

  // models: download + verify, then sessions and warm-up on the chosen runtime
  const report = await call('load', { base: MODELS.href, metadata });
  S.load = report;
  renderLoadTable();
  const status = await useBackend($('backend').value).catch((err) => ({ ok: false, error: err.message, models: {} }));
  const anyReady = Object.values(status.models || {}).some((m) => m.ok);
  $('generate').disabled = !anyReady;
  const models = {};
  for (const kind of metadata.order) {
    const load = report[kind];
    const sess = status.models?.[kind];
    models[kind] = { ok: Boolean(load.ok && sess?.ok), error: load.error || sess?.error || (status.ok ? null : status.error),
      bytes: load.bytes ?? null, download_ms: load.download_ms ?? null, hash_ms: load.hash_ms ?? null,
      create_ms: sess?.create_ms ?? null, warmup_ms: sess?.warmup_ms ?? null };
  }
  for (const [kind, m] of Object.entries(models)) {
    if (m.error) {
      S.views[kind].error.hidden = false;
      S.views[kind].error.textContent = `Cannot run this model: ${m.error}`;
    }
  }
  return { backend: status.backend ?? null, choice: $('backend').value, ok: Boolean(status.ok), runtime: report.runtime,
    fallback_reason: status.fallback_reason ?? null, adapter: status.adapter ?? null,
    error: status.ok ? null : status.error, models, ready_ms: performance.now() - t0, page_ms: performance.now() };
}

const lab = {
  version: 1,
  context: CONTEXT,
  metadata: null,
  presets: null,
  tokenize: (text) => {
    const a = analyse(String(text));
    return { tokens: a.tokens, ids: a.ids, history: a.history, context: a.context, unknown: a.unknown };
  },
  logits,
  run: runContexts,
  generate,
  generateMany,
  stop,
  benchmark,
  setBackend: (choice) => { $('backend').value = choice; return useBackend(choice); },
  status: () => (S.status ? { ...S.status } : null),
};
window.lab = lab;
lab.ready = start();
lab.ready.catch((err) => showPageError(`The lab could not start: ${err.message}`));
