// The three-model lab: page wiring and the window.lab API (documented in the README).
// Inference runs in worker.js; this file only tokenizes, renders and talks to it.

import { Vocab, tokenize, UNK_ID, EOS_ID } from '../core/tokenizer.js';
import { checkFilters, contextWindow, startHistory } from '../core/decoding.js';
import { logProbability, scoreContexts, summarize } from '../core/scoring.js';
import { el, fmt } from '../core/dom.js';
import { renderPreview, modelCard, renderOutput, renderStats, renderResults, backendName, markSelected } from './view.js';
import { installLinking, renderInspect, scrollToNewest } from './inspect-view.js';
import { renderScore, renderScoreDetail } from './score-view.js';
import { linkSlides } from './slides.js';
import { MAX_BENCH_RUNS, MIN_TEMPERATURE, checkBackend, checkIds, checkKind, checkMetadata, checkRuns,
  checkRuntimeManifest, checkTemperature } from './guards.js';
import { addToPlan, remaining, renderPlan, updateProgress } from './progress.js';
import { keepShell, registerOffline, shellUrls } from '../core/offline.js';

const MODELS = new URL('../onnx/', import.meta.url);
const VENDOR = new URL('../vendor/onnxruntime-web/', import.meta.url);
// ?adapter=any: automatic times a software WebGPU adapter too, as it would a real GPU (README).
const CONSIDER_SOFTWARE = new URLSearchParams(location.search).get('adapter') === 'any';
const t0 = performance.now();
const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- worker RPC
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
const waiting = new Map();
let nextId = 1;
let workerFailure = null;

worker.onmessage = (event) => {
  const msg = event.data;
  if (msg.event === 'progress') { onProgress(msg); return; }
  if (msg.event) { onWorkerEvent(msg); return; }
  const w = waiting.get(msg.id);
  if (!w) return;
  waiting.delete(msg.id);
  if (msg.ok) w.resolve(msg.result); else w.reject(new Error(msg.error));
};
worker.onerror = (event) => {
  event.preventDefault();
  workerFailure = `the inference worker failed to start (${event.message || 'a script it imports did not load'})`;
  for (const w of waiting.values()) w.reject(new Error(workerFailure));
  waiting.clear();
};

function onProgress(msg) {
  updateProgress($('load-progress'), msg);
  if (S.phase === 'download') updateGenerate();
}

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
  selected: null, // inspected step
  selectedKind: null, // the card the step was selected in
  sameContext: false, // inspect all three models on the selected card's context
  inspected: null, // {index, items} with the logits of the inspected step
  score: null, // the last score result
  manifest: null, // vendor/onnxruntime-web/runtimes.json
  phase: 'download', // download -> starting -> ready (Generate says why it waits)
  job: null, // the running generation, score or benchmark: {kind, runId, stopped}
};

async function fetchJSON(name, base = MODELS, folder = 'onnx') {
  const url = new URL(name, base);
  let response;
  try {
    response = await fetch(url, { cache: 'no-cache' }); // revalidate: a new build replaces stale files
  } catch (err) {
    throw new Error(`could not load ${folder}/${name}: ${err.message}`);
  }
  if (!response.ok) throw new Error(`${folder}/${name} is missing (HTTP ${response.status})`);
  try {
    return await response.json();
  } catch (err) {
    throw new Error(`${folder}/${name} is not valid JSON (${err.message})`);
  }
}

function showPageError(message) {
  $('page-error').hidden = false;
  $('page-error').textContent = message;
}

// ---------------------------------------------------------------- backends
function prepareBackend(choice) {
  try { checkBackend(choice); } catch (err) { return Promise.reject(err); }
  if (!S.prepared[choice]) {
    const runtimes = choice === 'auto' ? [] : [choice];
    for (const b of runtimes) addToPlan($('load-progress'), runtimeItem(b));
    S.prepared[choice] = call('prepare', { backend: choice, considerSoftware: CONSIDER_SOFTWARE }).then((status) => {
      if (!status.ok) delete S.prepared[choice]; // a later try may work (back online, another adapter)
      if (status.ok) {
        S.sessions[status.backend] = S.sessions[status.backend] || {};
        for (const [kind, r] of Object.entries(status.models)) {
          if (r.ok && !r.cached) S.sessions[status.backend][kind] = r;
          if (!r.ok) S.sessions[status.backend][kind] = { error: r.error };
        }
      }
      renderLoadTable();
      return status;
    }, (err) => { delete S.prepared[choice]; throw err; });
  }
  return S.prepared[choice];
}

async function useBackend(choice) {
  const status = await prepareBackend(choice);
  S.status = { ...status, choice };
  renderBackendLine();
  renderModelErrors(status);
  updateGenerate();
  if (!status.ok) throw new Error(status.error);
  return status;
}

// The menu's choice: Generate waits (and says so) while the runtime starts,
// and is enabled again as soon as any model is ready on it.
async function switchBackend(choice) {
  S.phase = 'starting';
  updateGenerate();
  try {
    await useBackend(choice);
  } catch { /* renderBackendLine shows why */ } finally {
    S.phase = 'ready';
    updateGenerate();
  }
}

function runtimeItem(backend) {
  const build = S.manifest.builds[backend];
  return { file: `runtime-${backend}`, label: `${backendName(backend)} runtime`, bytes: build.bytes };
}

function modelsReady() {
  return Boolean(S.status?.ok && Object.values(S.status.models || {}).some((m) => m.ok));
}

// Generate is enabled only when it can run; otherwise the line beside it says why.
function updateGenerate() {
  const why = $('generate-why');
  let reason = null;
  if (location.protocol === 'file:') reason = 'The lab needs a local web server: see the message above.';
  else if (S.job) reason = S.job.kind === 'benchmark' ? 'A benchmark is running: Stop ends it.'
    : S.job.kind === 'score' ? 'Scoring the text…' : null;
  else if (S.phase === 'download') {
    const { loaded, total } = remaining($('load-progress'));
    reason = total ? `Waiting for the download: ${fmt.mb(loaded)} of ${fmt.mb(total)} so far.` : 'Waiting for the model list.';
  } else if (S.phase === 'starting') {
    reason = 'Waiting for the runtime: creating and warming up the model sessions.';
  } else if (S.status && !S.status.ok) reason = `Cannot generate: ${S.status.error}`;
  else if (S.status && !modelsReady()) reason = 'Cannot generate: no model is ready on this runtime (see the errors above).';
  $('generate').disabled = Boolean(reason) || Boolean(S.job);
  $('score').disabled = Boolean(reason) || Boolean(S.job);
  $('stop').disabled = !S.job;
  if (why) {
    why.hidden = !reason;
    why.textContent = reason || '';
  }
}

function renderModelErrors(status) {
  for (const kind of S.metadata.order) {
    const load = S.load[kind];
    const sess = status.models?.[kind];
    const error = load?.error || sess?.error || (status.ok ? null : status.error);
    S.views[kind].error.hidden = !error;
    S.views[kind].error.textContent = error ? `Cannot run this model: ${error}` : '';
  }
}

// One job at a time (generation or benchmark), claimed synchronously so that
// a second call in the same tick is refused; lab.stop() ends the claimed job
// even before it reaches the worker.
function beginJob(kind) {
  if (S.job) {
    throw new Error(`${{ benchmark: 'a benchmark', score: 'a score' }[S.job.kind] || 'a generation'} is already running: ` +
      'wait for it or call lab.stop() first');
  }
  S.job = { kind, runId: ++S.runCounter, stopped: false };
  updateGenerate();
  return S.job;
}

function endJob(job) {
  if (S.job === job) S.job = null;
  updateGenerate();
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
  const why = st.choice === 'auto' ? st.choice_reason || st.fallback_reason : null;
  fb.hidden = !why && !st.software_adapter;
  fb.textContent = st.fallback_reason ? `Automatic choice, WASM: ${st.fallback_reason}.`
    : why ? `Automatic choice, WebGPU: ${why}.`
      : st.software_adapter ? 'This WebGPU adapter is a software renderer (a CPU emulation): expect it to be much slower than WASM.' : '';
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
      el('td', { text: load ? (load.ok ? (load.from === 'cache' ? 'offline copy' : fmt.ms(load.download_ms)) : 'failed') : '…' }),
      el('td', { class: load && !load.ok ? 'error' : '', text: load ? (load.ok ? 'verified' : load.error) : '…' }),
      el('td', { text: perBackend.map(([b]) => backendName(b)).join('\n') || '–' }),
      el('td', { text: lines((b, r) => fmt.ms(r.create_ms)) }),
      el('td', { text: lines((b, r) => fmt.ms(r.warmup_ms)) }));
  });
  for (const [backend, rt] of Object.entries(S.load.runtimes || {})) {
    rows.push(el('tr', { 'data-kind': `runtime-${backend}` },
      el('th', { scope: 'row', text: `${backendName(backend)} runtime (onnxruntime-web${rt.version ? ` ${rt.version}` : ''})` }),
      el('td', { text: rt.ok ? fmt.mb(rt.bytes) : '–' }),
      el('td', { text: rt.ok ? (rt.from === 'cache' ? 'offline copy' : fmt.ms(rt.download_ms)) : 'failed' }),
      el('td', { class: rt.ok ? '' : 'error', text: rt.ok ? 'verified' : rt.error }),
      el('td', { text: '' }), el('td', { text: '' }), el('td', { text: '' })));
  }
  body.replaceChildren(...rows);
}

// ---------------------------------------------------------------- prompt
function analyse(text) {
  const tokens = tokenize(text);
  const ids = S.vocab.encodeTokens(tokens);
  const history = startHistory(ids);
  return { tokens, ids, history, context: contextWindow(history, S.metadata.context), unknown: ids.filter((i) => i === UNK_ID).length };
}

let previewPending = false;
function schedulePreview() {
  if (previewPending) return;
  previewPending = true;
  requestAnimationFrame(() => {
    previewPending = false;
    renderPreview($('preview'), $('preview-summary'), analyse($('prompt').value), S.metadata.context);
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
  const whole = task() === 'score' && preset.source;
  $('prompt').value = whole ? preset.source.text : preset.prompt;
  if (whole) $('score-eos').checked = true;
  $('preset-note').textContent = whole
    ? `The whole story, scored with its end (<EOS>) as in the test evaluation. ${preset.note || ''}`
    : preset.note || '';
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

function task() {
  return document.querySelector('input[name="task"]:checked')?.value || 'generate';
}

function readControls() {
  return {
    prompt: $('prompt').value,
    mode: document.querySelector('input[name="mode"]:checked').value,
    temperature: Number($('temperature').value),
    top_k: $('top-k').value.trim() === '' ? 0 : Number($('top-k').value),
    top_p: Number($('top-p').value),
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
  $('top-k').value = String(o.top_k);
  $('top-p').value = String(o.top_p);
  $('seed').value = String(o.seed);
  $('limit').value = String(o.limit);
  $('backend').value = o.backend;
  syncModeInputs();
  schedulePreview();
}

function syncModeInputs() {
  const sampled = document.querySelector('input[name="mode"]:checked').value === 'sampled';
  for (const id of ['seed']) $(id).disabled = !sampled;
  $('temperature-value').textContent = Number($('temperature').value).toFixed(2);
  $('top-p-value').textContent = Number($('top-p').value).toFixed(2);
}

function syncTask() {
  const scoring = task() === 'score';
  $('generate-controls').hidden = scoring;
  $('score-controls').hidden = !scoring;
  $('generate').hidden = scoring;
  $('score').hidden = !scoring;
  $('prompt-label').textContent = scoring ? 'Text to score' : 'Prompt';
  $('outputs-section').hidden = scoring;
  $('inspect').hidden = scoring;
  $('score-view').hidden = !scoring;
  if ($('preset').value !== 'custom') selectPreset($('preset').value);
}

// ---------------------------------------------------------------- validation
// Each problem is reported next to the control that caused it.
const FIELDS = { prompt: 'prompt', temperature: 'temperature', top_k: 'top-k', top_p: 'top-p', seed: 'seed', limit: 'limit' };

function problems(o) {
  const out = {};
  if (typeof o.prompt !== 'string') out.prompt = 'the prompt must be text';
  if (!['greedy', 'sampled'].includes(o.mode)) out.mode = `mode must be "greedy" or "sampled", got "${o.mode}"`;
  try { checkTemperature(o.temperature); } catch (err) { out.temperature = err.message; }
  try { checkBackend(o.backend); } catch (err) { out.backend = err.message; }
  try { checkFilters(o.top_k, 1); } catch { out.top_k = 'top-k must be a whole number, 0 or more (0 keeps every token)'; }
  try { checkFilters(0, o.top_p); } catch { out.top_p = 'top-p must be above 0 and at most 1 (1 keeps every token)'; }
  if (!(Number.isInteger(o.seed) && o.seed >= 0 && o.seed <= 4294967295)) out.seed = 'seed must be a whole number from 0 to 4294967295';
  const maxLimit = Number($('limit').max); // the page's input says the range
  if (!(Number.isInteger(o.limit) && o.limit >= 1 && o.limit <= maxLimit)) out.limit = `token limit must be a whole number from 1 to ${maxLimit}`;
  return out;
}

function showProblems(found) {
  for (const [key, id] of Object.entries(FIELDS)) {
    const box = $(`${id}-error`);
    box.hidden = !found[key];
    box.textContent = found[key] || '';
    $(id).setAttribute('aria-invalid', found[key] ? 'true' : 'false');
  }
}

function validate(o) {
  const found = problems(o);
  showProblems(found);
  const list = Object.values(found);
  if (list.length) throw new Error(list.join('; '));
}

// ---------------------------------------------------------------- generation
// Tokens arrive faster than the screen refreshes on WASM: draw once per frame,
// appending only the new chips of each card.
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
    renderOutput(S.views[k], run.promptTokens, m.tokens, m.steps, m.stats?.stop ?? null, (i) => selectStep(k, i), S.selected);
    if (m.stats) renderStats(S.views[k], m.stats);
  }
  dirty.clear();
}

function onWorkerEvent(msg) {
  const run = S.run;
  if (!run || msg.runId !== run.id) return;
  if (msg.event === 'steps') {
    for (const step of msg.steps) {
      const m = run.results[step.prompt][step.kind];
      if (step.prompt === 0) m.steps.push(step); // only the shown prompt keeps its steps for inspection
      else m.stepCount += 1;
      if (step.id !== EOS_ID) {
        m.ids.push(step.id);
        m.tokens.push(S.vocab.token(step.id));
      }
      if (step.prompt === 0) scheduleRender(step.kind);
    }
  } else if (msg.event === 'done') {
    run.results[msg.prompt][msg.kind].stats = msg.stats;
    if (msg.prompt === 0) scheduleRender(msg.kind);
  }
}

// The context a model read at step i of the shown run, and the history
// index of its first slot.
function stepContext(kind, index) {
  const run = S.run;
  const history = startHistory(run.promptIds).concat(run.models[kind].ids.slice(0, index));
  return { context: contextWindow(history, S.metadata.context), offset: history.length - S.metadata.context, historyLength: history.length };
}

async function selectStep(kind, index) {
  S.selected = index;
  S.selectedKind = kind;
  for (const k of S.metadata.order) markSelected(S.views[k], index);
  await inspectStep();
  // focus stays on the chip that was chosen (the redraw never replaces it)
}

async function inspectStep() {
  const run = S.run;
  const index = S.selected;
  if (!run || index === null) return;
  const from = S.sameContext ? S.selectedKind : null;
  const requests = S.metadata.order.map((kind) => {
    const m = run.models[kind];
    const source = from || kind;
    if (!from && index >= m.steps.length) return null;
    if (from && index >= run.models[from].steps.length) return null;
    const { context, offset } = stepContext(source, index);
    const chosen = from && from !== kind ? null : run.models[source].steps[index]?.id ?? null;
    return { kind, context, offset, chosen };
  });
  const token = ++S.inspectCounter;
  $('inspect-hint').hidden = true;
  const items = await Promise.all(requests.map(async (r) => {
    if (!r) return null;
    const entry = S.metadata.models[r.kind];
    try {
      const out = await call('run', { kind: r.kind, backend: run.backend, contexts: [r.context], matrix: Boolean(entry.heads) });
      return { ...r, entry, logits: out.logits,
        attention: out.attention ? splitRows(out.attention, out.attentionDims[1], out.attentionDims[2]) : null,
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

function renderInspectPanel() {
  if (!S.inspected) return;
  let controls = readControls();
  const found = problems(controls);
  showProblems(found);
  if (found.temperature || found.top_k || found.top_p) return; // keep the last drawing; the message says why
  controls = { temperature: controls.temperature, top_k: controls.top_k, top_p: controls.top_p };
  renderInspect($('inspect-body'), {
    stepIndex: S.inspected.index, items: S.inspected.items, controls, vocab: S.vocab, metadata: S.metadata,
    sameFrom: S.inspected.from,
    onSameContext: (on) => { S.sameContext = on; inspectStep(); },
    onScore: () => scoreContinuation(S.selectedKind),
  });
}

// One click from a model's continuation to Score mode on that text.
function scoreContinuation(kind) {
  const run = S.run;
  if (!run) return;
  const text = S.vocab.decode([...run.promptIds, ...run.models[kind].ids]);
  document.querySelector('input[name="task"][value="score"]').checked = true;
  $('preset').value = 'custom';
  $('prompt').value = text;
  $('score-eos').checked = false;
  syncTask();
  $('preset-note').textContent = `${S.metadata.models[kind].label}'s continuation, as text: now every model reads it token by token.`;
  schedulePreview();
  score({ text }).catch((err) => showPageError(err.message));
}

// Generates for one or more prompts (the page shows the first); every
// (model, prompt) pair decodes on its own, exactly as if run alone.
function runGeneration(options, prompts) {
  let job;
  try { job = beginJob('generation'); } catch (err) { return Promise.reject(err); } // synchronously, before any await
  return generateJob(job, options, prompts).finally(() => endJob(job));
}

async function generateJob(job, options, prompts) {
  await lab.ready;
  const o = { ...readControls(), ...options, prompt: prompts[0] };
  validate(o);
  for (const p of prompts) if (typeof p !== 'string') throw new Error('every prompt must be a string');
  writeControls(o);
  if (task() !== 'generate') { document.querySelector('input[name="task"][value="generate"]').checked = true; syncTask(); }
  $('page-error').hidden = true;
  {
    const status = await useBackend(o.backend);
    const analyses = prompts.map(analyse);
    const run = {
      id: job.runId, active: true, options: o, backend: status.backend,
      promptIds: analyses[0].ids, promptTokens: analyses[0].tokens,
      results: analyses.map(() => Object.fromEntries(S.metadata.order.map((k) =>
        [k, { ids: [], tokens: [], steps: [], stepCount: 0, stats: null }]))),
    };
    run.models = run.results[0];
    for (const kind of S.metadata.order) {
      renderStats(S.views[kind], null);
      S.views[kind].output.replaceChildren();
      S.views[kind].text.replaceChildren();
    }
    S.run = run;
    S.selected = null;
    S.inspected = null;
    $('inspect-body').replaceChildren();
    $('inspect-hint').hidden = false;
    try {
      await call('generate', {
        runId: run.id, kinds: S.metadata.order, backend: status.backend, prompts: analyses.map((a) => a.ids),
        mode: o.mode, temperature: o.temperature, seed: o.seed >>> 0, limit: o.limit, top_k: o.top_k, top_p: o.top_p,
      });
    } finally {
      flushRender();
      run.active = false;
    }
    return analyses.map((analysis, p) => {
      const models = {};
      for (const kind of S.metadata.order) {
        const m = run.results[p][kind];
        models[kind] = {
          ids: [...m.ids], tokens: [...m.tokens], text: S.vocab.decode(m.ids), stop: m.stats.stop,
          error: m.stats.error, calls: m.stats.calls, new_tokens: m.stats.new_tokens, total_ms: m.stats.total_ms,
          median_ms: m.stats.median_ms, compute_ms: m.stats.compute_ms, backend: m.stats.backend,
          first_context: m.stats.first_context,
        };
      }
      return { prompt: prompts[p], prompt_ids: analysis.ids, prompt_tokens: analysis.tokens,
        history_length: analysis.history.length, backend: status.backend, options: { ...o, prompt: prompts[p] }, models };
    });
  }
}

async function generate(options = {}) {
  const prompt = options.prompt ?? $('prompt').value;
  return (await runGeneration(options, [prompt]))[0];
}

async function generateMany({ prompts, ...options } = {}) {
  if (!Array.isArray(prompts) || !prompts.length) throw new Error('generateMany needs a non-empty array of prompts');
  return runGeneration(options, prompts);
}

// Stops whatever is running or about to run (a generation, a score or a benchmark).
async function stop() {
  const job = S.job;
  if (!job || job.stopped) return;
  job.stopped = true;
  await call('stop', { runId: job.runId });
}

// ---------------------------------------------------------------- score mode
const SCORE_BATCH = 64;

// Teacher-forced scoring of one text by every model: the probability of each
// actual token given the ones before it, cross-entropy and perplexity.
function score(options = {}) {
  let job;
  try { job = beginJob('score'); } catch (err) { return Promise.reject(err); }
  return scoreJob(job, options).finally(() => endJob(job));
}

async function scoreJob(job, { text, eos = false, backend } = {}) {
  await lab.ready;
  if (typeof text !== 'string') throw new Error('score needs {text: "..."}: the text to score');
  const status = await useBackend(checkBackend(backend ?? $('backend').value));
  const a = analyse(text);
  if (!a.ids.length && !eos) throw new Error('the text has no tokens to score: type some words (or ask for the EOS target)');
  {
    const { targets, contexts } = scoreContexts(a.ids, Boolean(eos), S.metadata.context);
    const models = {};
    for (const kind of S.metadata.order) {
      const logProbs = [];
      try {
        for (let start = 0; start < contexts.length; start += SCORE_BATCH) {
          if (job.stopped) throw new Error('stopped by you');
          const batch = contexts.slice(start, start + SCORE_BATCH);
          const out = await call('run', { kind, backend: status.backend, contexts: batch });
          const C = S.metadata.vocab_size;
          batch.forEach((_, b) => logProbs.push(logProbability(out.logits.subarray(b * C, (b + 1) * C), targets[start + b])));
        }
        models[kind] = { ...summarize(logProbs), error: null };
      } catch (err) {
        models[kind] = { probabilities: [], cross_entropy: null, perplexity: null, error: err.message };
      }
    }
    const result = { text, tokens: a.tokens.concat(eos ? ['<EOS>'] : []), ids: targets, eos: Boolean(eos),
      backend: status.backend, models };
    S.score = { ...result, contexts };
    if (task() !== 'score') { document.querySelector('input[name="task"][value="score"]').checked = true; syncTask(); }
    renderScore($('score-body'), S.score, S.metadata, S.vocab, selectScoreToken);
    return result;
  }
}

async function selectScoreToken(position) {
  const sc = S.score;
  if (!sc) return;
  const context = sc.contexts[position];
  const items = await Promise.all(S.metadata.order.map(async (kind) => {
    try {
      const out = await call('run', { kind, backend: sc.backend, contexts: [context] });
      return { kind, logits: out.logits };
    } catch (err) {
      return { kind, error: err.message };
    }
  }));
  renderScoreDetail($('score-detail'), { sc, position, context, items, metadata: S.metadata, vocab: S.vocab });
}

// ---------------------------------------------------------------- logits API
async function runContexts(kind, contexts, { backend, matrix = false } = {}) {
  await lab.ready;
  checkKind(S.metadata, kind);
  const choice = checkBackend(backend ?? $('backend').value);
  if (!Array.isArray(contexts) || !contexts.length) throw new Error('contexts must be a non-empty array of ID arrays');
  contexts.forEach((ctx, b) => checkIds(ctx, S.metadata.vocab_size, S.metadata.context, `context ${b}`));
  const status = await useBackend(choice);
  const out = await call('run', { kind, backend: status.backend, contexts, matrix });
  const C = S.metadata.vocab_size;
  const logits = contexts.map((_, b) => out.logits.slice(b * C, (b + 1) * C));
  let attention = null;
  if (out.attention) {
    const [, heads, slots] = out.attentionDims;
    attention = contexts.map((_, b) => Array.from({ length: heads }, (__, h) =>
      Array.from(out.attention.subarray((b * heads + h) * slots, (b * heads + h + 1) * slots))));
  }
  return { logits, attention, matrix: out.matrix || null, matrixDims: out.matrixDims || null, backend: status.backend, ms: out.ms };
}

async function logits(kind, ids, options = {}) {
  if (!Array.isArray(ids) && !ArrayBuffer.isView(ids)) throw new Error('ids must be an array of lab.context token IDs (or an array of such arrays)');
  const batch = Array.isArray(ids[0]);
  const out = await runContexts(kind, batch ? ids : [ids], options);
  return batch ? out.logits : out.logits[0];
}

// The full causal attention matrix of one context (lab.context IDs), computed in the ONNX
// graph: [head][query][key], rows as in forward_details (a PAD query's row is 0).
async function attentionMatrix(kind, ids, options = {}) {
  await lab.ready;
  checkKind(S.metadata, kind);
  if (!S.metadata.models[kind].heads) throw new Error(`${kind} has no attention, so it has no attention matrix`);
  if (!Array.isArray(ids) || ids.length !== S.metadata.context) throw new Error(`attentionMatrix needs one context of ${S.metadata.context} IDs`);
  const out = await runContexts(kind, [ids], { ...options, matrix: true });
  const [, heads, T] = out.matrixDims;
  return Array.from({ length: heads }, (_, h) => Array.from({ length: T }, (__, q) =>
    Array.from(out.matrix.subarray((h * T + q) * T, (h * T + q + 1) * T))));
}

// At most MAX_BENCH_RUNS calls; lab.stop() ends it early (stopped: true).
function benchmark(kind, { backend, runs = 20 } = {}) {
  let job;
  try { job = beginJob('benchmark'); } catch (err) { return Promise.reject(err); }
  return benchmarkJob(job, kind, backend, runs).finally(() => endJob(job));
}

async function benchmarkJob(job, kind, backend, runs) {
  checkRuns(runs);
  await lab.ready;
  checkKind(S.metadata, kind);
  const status = await useBackend(checkBackend(backend ?? $('backend').value));
  const { times, stopped } = await call('bench', { kind, backend: status.backend, runs, runId: job.runId });
  const sorted = [...times].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = !sorted.length ? null : sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { kind, backend: status.backend, times, stopped, median_ms: median };
}

// ---------------------------------------------------------------- phones
// Below 700 px only one model card shows at a time; these buttons switch it.
function showModel(kind) {
  document.querySelector('main').dataset.show = kind;
  for (const b of $('model-tabs').querySelectorAll('button')) b.setAttribute('aria-pressed', b.dataset.kind === kind ? 'true' : 'false');
  scrollToNewest($('inspect-body'));
}

// ---------------------------------------------------------------- start-up
async function start() {
  if (location.protocol === 'file:') throw new Error('the lab needs a local web server (see the message above)');
  const offline = registerOffline();
  const [metadata, itos, presets, manifest] = await Promise.all([fetchJSON('metadata.json'), fetchJSON('vocab.json'),
    fetchJSON('presets.json'), fetchJSON('runtimes.json', VENDOR, 'vendor/onnxruntime-web')]);
  checkMetadata(metadata);
  checkRuntimeManifest(manifest);
  S.metadata = metadata;
  S.manifest = manifest;
  S.vocab = new Vocab(itos);
  S.presets = presets;
  S.inspectCounter = 0;
  lab.metadata = metadata;
  lab.context = metadata.context;
  lab.presets = presets;
  linkSlides();

  // presets
  const select = $('preset');
  const groups = new Map();
  for (const p of presets) {
    if (!groups.has(p.group)) groups.set(p.group, el('optgroup', { label: p.group }));
    groups.get(p.group).append(el('option', { value: p.id, text: p.label }));
  }
  select.replaceChildren(...groups.values(), el('option', { value: 'custom', text: 'Your own text' }));
  select.addEventListener('change', () => selectPreset(select.value));
  $('prompt').addEventListener('input', () => {
    if (select.value !== 'custom') selectPreset('custom');
    schedulePreview();
  });
  selectPreset(presets.find((p) => p.id === 'test-shortest')?.id || presets[0]?.id);

  // controls: the sampling controls redraw the inspected distribution at once
  for (const r of document.querySelectorAll('input[name="mode"]')) r.addEventListener('change', syncModeInputs);
  for (const r of document.querySelectorAll('input[name="task"]')) r.addEventListener('change', syncTask);
  for (const id of ['temperature', 'top-k', 'top-p']) {
    $(id).addEventListener('input', () => { syncModeInputs(); renderInspectPanel(); });
  }
  for (const id of ['seed', 'limit']) $(id).addEventListener('input', () => showProblems(problems(readControls())));
  syncModeInputs();
  const initial = new URLSearchParams(location.search).get('backend');
  if (['auto', 'webgpu', 'wasm'].includes(initial)) $('backend').value = initial;
  $('backend').addEventListener('change', () => { switchBackend($('backend').value); });
  $('generate').addEventListener('click', () => {
    generate().catch((err) => showPageError(err.message));
  });
  $('score').addEventListener('click', () => {
    score({ text: $('prompt').value, eos: $('score-eos').checked }).catch((err) => showPageError(err.message));
  });
  $('stop').addEventListener('click', () => { stop(); });

  // model cards (with the phone switcher) and results
  const outputs = $('outputs');
  for (const kind of metadata.order) {
    S.views[kind] = modelCard(kind, metadata.models[kind]);
    S.views[kind].scoreThis.addEventListener('click', () => scoreContinuation(kind));
    outputs.append(S.views[kind].card);
    $('model-tabs').append(el('button', { type: 'button', 'data-kind': kind, 'aria-pressed': 'false',
      'aria-controls': `card-${kind}`, onclick: () => showModel(kind), text: metadata.models[kind].label }));
  }
  showModel(metadata.order[0]);
  installLinking($('inspect'));
  renderResults($('results-table'), metadata);
  $('dataset-attribution').textContent = `Stories: ${metadata.dataset.attribution}`;
  syncTask();

  // the download, sized before it starts: the runtime(s) the choice needs, then the models
  const choice = $('backend').value;
  const planned = await call('plan', { backend: choice, considerSoftware: CONSIDER_SOFTWARE });
  const items = [...planned.runtimes.map(runtimeItem),
    ...metadata.order.map((kind) => ({ file: kind, label: metadata.models[kind].label, bytes: metadata.models[kind].bytes }))];
  renderPlan($('load-progress'), items);
  updateGenerate();
  const report = await call('load', { base: MODELS.href, metadata, manifest, runtimes: planned.runtimes });
  S.load = report;
  renderLoadTable();
  S.phase = 'starting';
  updateGenerate();
  const status = await useBackend(choice).catch((err) => ({ ok: false, error: err.message, models: {} }));
  S.phase = 'ready';
  updateGenerate();
  // the download is done: its bars fold into the Runtime section, out of the learner's way
  $('runtime').insertBefore($('load-progress'), $('runtime').querySelector('.table-wrap'));
  offline.then((o) => (o.ok ? keepOffline() : null)).catch(() => {});
  const models = {};
  for (const kind of metadata.order) {
    const load = report[kind];
    const sess = status.models?.[kind];
    models[kind] = { ok: Boolean(load.ok && sess?.ok), error: load.error || sess?.error || (status.ok ? null : status.error),
      bytes: load.bytes ?? null, download_ms: load.download_ms ?? null, hash_ms: load.hash_ms ?? null,
      from: load.from ?? null, network_bytes: load.network_bytes ?? null,
      create_ms: sess?.create_ms ?? null, warmup_ms: sess?.warmup_ms ?? null };
  }
  renderModelErrors(status);
  const networkBytes = [...Object.values(report.runtimes), ...metadata.order.map((k) => report[k])]
    .reduce((a, r) => a + (r?.network_bytes ?? 0), 0);
  return { backend: status.backend ?? null, choice, ok: Boolean(status.ok), runtime: report.runtime,
    runtimes: report.runtimes, planned_runtimes: planned.runtimes, network_bytes: networkBytes,
    choice_reason: status.choice_reason ?? null, software_adapter: status.software_adapter ?? null,
    timed_ms: status.timed_ms ?? null,
    fallback_reason: status.fallback_reason ?? null, adapter: status.adapter ?? null,
    error: status.ok ? null : status.error, models, ready_ms: performance.now() - t0, page_ms: performance.now() };
}

const lab = {
  version: 2,
  context: null, // metadata.json's context width, once loaded
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
  score,
  attentionMatrix,
  stop,
  benchmark,
  setBackend: async (choice) => {
    checkBackend(choice); // before the menu changes
    $('backend').value = choice;
    return useBackend(choice);
  },
  limits: { min_temperature: MIN_TEMPERATURE, max_bench_runs: MAX_BENCH_RUNS },
  status: () => (S.status ? { ...S.status } : null),
};
window.lab = lab;
lab.ready = start();
lab.ready.catch((err) => {
  showPageError(`The lab could not start: ${err.message}`);
  S.phase = 'failed';
  $('backend-line').textContent = 'The lab could not start.';
  $('generate-why').hidden = false;
  $('generate-why').textContent = `Cannot generate: ${err.message}`;
  $('generate').disabled = true;
});

// After a first visit, keep the page and its scripts for the next one offline.
async function keepOffline() {
  const { urls } = await call('resources', {});
  return keepShell(shellUrls(urls));
}
