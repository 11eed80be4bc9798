// The three-model lab's page: loads the build's files, wires the controls and
// the model cards, downloads and warms up the models, and publishes window.lab.
// Where the rest lives: rpc.js (the inference worker, worker.js), state.js
// (the page's state), controls.js, backends.js, jobs.js and job-*.js
// (generate, score, inspect), the views (*-view.js, view.js) and api.js (window.lab).

import { Vocab } from '../core/tokenizer.js';
import { el } from '../core/dom.js';
import { keepShell, precacheSite, registerOffline, shellUrls } from '../core/offline.js';
import { backendName, modelCard, renderResults, showModel } from './view.js';
import { installLinking } from './inspect-view.js';
import { linkSlides } from './slides.js';
import { BACKENDS, MODELS, MODELS_DIR, VENDOR, VENDOR_DIR } from './shared.js';
import { MAX_TEXT_CHARS, checkMetadata, checkPresets, checkRuntimeManifest, checkVocab } from './guards.js';
import { versioned } from '../core/version.js';
import { renderPlan, updateProgress } from './progress.js';
import { call, onWorkerEvent } from './rpc.js';
import { S, $ } from './state.js';
import { CONSIDER_SOFTWARE, runtimeItem, showLoadTable, showModelErrors, switchBackend, useBackend }
  from './backends.js';
import { modelError } from './runtime-view.js';
import { fillPresets, problems, readControls, showPageError, showProblems, syncModeInputs, syncSamplingLast, syncTask,
  updateGenerate } from './controls.js';
import { stop } from './jobs.js';
import { generate, onGenerationEvent } from './job-generate.js';
import { renderInspectPanel } from './job-inspect.js';
import { score, scoreContinuation } from './job-score.js';
import { lab } from './api.js';
import { applySetup, keepPlace, restorePlace } from './keep.js';
import { readAddress, setupAddress, showAddressNote } from './address.js';
import { selectStep } from './job-inspect.js';
import { installReplay } from './replay-view.js';
import { realStoryView } from './real-story.js';
import { showExperimentNote } from './experiment.js';

const t0 = performance.now();

onWorkerEvent((msg) => {
  if (msg.event === 'model-ready') { modelReady(msg); return; }
  if (msg.event !== 'progress') { onGenerationEvent(msg); return; }
  updateProgress($('load-progress'), msg);
  if (S.phase === 'download') updateGenerate();
});

// A file of this page's build (?v=<build>, core/version.js): never another build's metadata or vocabulary.
async function fetchJSON(name, base = MODELS, folder = MODELS_DIR) {
  const url = versioned(name, base);
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new Error(`could not load ${folder}/${name}: ${err.message}`, { cause: err });
  }
  if (!response.ok) throw new Error(`${folder}/${name} is missing (HTTP ${response.status})`);
  try {
    return await response.json();
  } catch (err) {
    throw new Error(`${folder}/${name} is not valid JSON (${err.message})`, { cause: err });
  }
}

// The build's files, checked: the models' metadata, the vocabulary, the presets, the runtimes.
async function loadFiles() {
  const [metadata, itos, presets, manifest] = await Promise.all([fetchJSON('metadata.json'), fetchJSON('vocab.json'),
    fetchJSON('presets.json'), fetchJSON('runtimes.json', VENDOR, VENDOR_DIR)]);
  checkMetadata(metadata);
  checkVocab(itos, metadata);
  checkPresets(presets);
  checkRuntimeManifest(manifest);
  S.metadata = lab.metadata = metadata;
  S.manifest = manifest;
  S.vocab = new Vocab(itos);
  S.presets = lab.presets = presets;
  lab.context = metadata.context;
}

function wireControls() {
  // the box takes at most what the lab reads: a pasted book is cut there, not laid out whole (seconds of freeze)
  $('prompt').maxLength = MAX_TEXT_CHARS;
  for (const r of document.querySelectorAll('input[name="mode"]')) r.addEventListener('change', syncModeInputs);
  for (const r of document.querySelectorAll('input[name="task"]')) r.addEventListener('change', syncTask);
  // the sampling controls redraw the inspected distribution at once
  for (const id of ['temperature', 'top-k', 'top-p']) {
    $(id).addEventListener('input', () => { syncModeInputs(); renderInspectPanel(); });
  }
  for (const id of ['seed', 'limit']) $(id).addEventListener('input', () => showProblems(problems(readControls())));
  $('seed').addEventListener('input', syncSamplingLast);
  syncModeInputs();
  const initial = new URLSearchParams(location.search).get('backend');
  if (BACKENDS.includes(initial)) $('backend').value = initial;
  $('backend').addEventListener('change', () => { switchBackend($('backend').value); });
  $('generate').addEventListener('click', () => {
    $('outputs-section').scrollIntoView({ block: 'start' }); // the tokens stream in view
    S.shown = 'generate';
    const how = { early: true, experiment: true };
    generate({}, how).then((r) => announce('outputs-section', `Generated: ${S.metadata.order.map((k) =>
      `${S.metadata.models[k].label} ${r.models[k].new_tokens} tokens`).join(', ')}. Select a token to inspect it.`))
      .catch((err) => showPageError(err.message));
  });
  $('score').addEventListener('click', () => {
    S.shown = 'score';
    score({ text: $('prompt').value, eos: $('score-eos').checked }, { early: true, experiment: true })
      .then(() => announce('score-view', 'Scored: the numbers and every token are below.'))
      .catch((err) => showPageError(err.message));
  });
  $('stop').addEventListener('click', () => { stop(); });
  $('copy-link').addEventListener('click', () => { copyLink(); });
}

// The model cards, the phone's switcher of the Inspect panel's model, and the results table.
function buildCards() {
  const { metadata } = S;
  for (const kind of metadata.order) {
    S.views[kind] = modelCard(kind, metadata.models[kind]);
    S.views[kind].scoreThis.addEventListener('click', () => scoreContinuation(kind));
    $('outputs').append(S.views[kind].card);
    $('model-tabs').append(el('button', { type: 'button', 'data-kind': kind, 'aria-pressed': 'false',
      'aria-controls': 'inspect-body', onclick: () => showModel(kind), text: metadata.models[kind].label }));
  }
  $('outputs').after(realStoryView());
  showModel(metadata.order[0]);
  installLinking($('inspect'));
  renderResults($('results-table'), metadata);
  $('dataset-attribution').textContent = `Stories: ${metadata.dataset.attribution}`;
}

// Progressive readiness: a model is usable as soon as its own file is checked
// and its session warmed up; its card says so, and Generate may start.
function modelReady(msg) {
  const at = performance.now(); // one reading: the first model's time is its own ready time, exactly
  S.early[msg.kind] = { ...msg, page_ms: at };
  if (msg.session.ok && S.firstReadyAt === null) {
    S.firstReadyAt = at;
    S.earlyBackend = msg.backend;
  }
  showModelStatus(msg.kind, msg.session.ok, msg.backend, msg.session.error);
  updateGenerate();
}

function showModelStatus(kind, ok, backend, error) {
  const status = S.views[kind]?.status;
  if (!status) return;
  status.dataset.state = ok ? 'ready' : 'failed';
  status.textContent = ok ? `Ready: file checked, session warmed up on ${backendName(backend)}.`
    : `Not usable: ${error || 'see the message above'}`;
}

// After a run from the page: its results come into view and take focus, and a status line says what came.
function announce(id, text) {
  $('run-status').textContent = text;
  $(id).scrollIntoView({ block: 'start' });
  $(id).focus({ preventScroll: true });
}

// The download, sized before it starts: the runtime(s) the choice needs, then the models.
async function download(choice) {
  const planned = await call('plan', { backend: choice, considerSoftware: CONSIDER_SOFTWARE });
  const models = S.metadata.models;
  renderPlan($('load-progress'), [...planned.runtimes.map(runtimeItem),
    ...S.metadata.order.map((kind) => ({ file: kind, label: models[kind].label, bytes: models[kind].bytes }))]);
  updateGenerate();
  // one runtime planned: each model's session is made as soon as its file is checked (progressive readiness)
  const early = planned.runtimes.length === 1 ? planned.runtimes[0] : null;
  S.load = await call('load', { base: MODELS, metadata: S.metadata, manifest: S.manifest, runtimes: planned.runtimes,
    early });
  showLoadTable();
  return planned;
}

// lab.ready's report (README): the runtime, and per model its download and session.
function readyReport(choice, planned, status) {
  const report = S.load;
  const models = {};
  for (const kind of S.metadata.order) {
    const load = report[kind];
    const sess = status.models?.[kind];
    models[kind] = { ok: Boolean(load.ok && sess?.ok), error: modelError(load, sess, status),
      bytes: load.bytes ?? null, download_ms: load.download_ms ?? null, hash_ms: load.hash_ms ?? null,
      from: load.from ?? null, network_bytes: load.network_bytes ?? null,
      create_ms: sess?.create_ms ?? null, warmup_ms: sess?.warmup_ms ?? null,
      ready_page_ms: S.early[kind]?.session?.ok ? S.early[kind].page_ms : null };
  }
  const now = performance.now();
  const networkBytes = [...Object.values(report.runtimes), ...S.metadata.order.map((k) => report[k])]
    .reduce((a, r) => a + (r?.network_bytes ?? 0), 0);
  // ok only when at least one model can run: a runtime with no usable model is no lab
  const usable = Object.values(models).some((m) => m.ok);
  const ok = Boolean(status.ok) && usable;
  const error = ok ? null : status.ok ? `no model is usable on ${status.backend}: ${S.metadata.order
    .map((k) => `${k}: ${models[k].error || 'not ready'}`).join('; ')}` : status.error;
  return { backend: status.backend ?? null, choice, ok, runtime: report.runtime,
    runtimes: report.runtimes, planned_runtimes: planned.runtimes, network_bytes: networkBytes,
    choice_reason: status.choice_reason ?? null, software_adapter: status.software_adapter ?? null,
    timed_ms: status.timed_ms ?? null,
    fallback_reason: status.fallback_reason ?? null, adapter: status.adapter ?? null,
    error, models, ready_ms: now - t0, page_ms: now,
    first_model_ready_ms: S.firstReadyAt ?? (ok ? now : null) };
}

async function start() {
  if (location.protocol === 'file:') throw new Error('the lab needs a local web server (see the message above)');
  const offline = registerOffline();
  let filesLoaded;
  S.files = new Promise((resolve) => { filesLoaded = resolve; });
  await loadFiles();
  linkSlides();
  fillPresets(S.presets);
  wireControls();
  buildCards();
  syncTask();
  // a link's setup (checked, a bad value refused by name), else, back from a slide, the kept place
  const address = readAddress();
  showAddressNote(address.problems);
  const repeat = address.used ? applySetup(address.values) : restorePlace();
  keepPlace();
  filesLoaded();
  const choice = $('backend').value;
  const planned = await download(choice);
  S.phase = 'starting';
  updateGenerate();
  const status = await useBackend(choice).catch((err) => ({ ok: false, error: err.message, models: {} }));
  S.phase = 'ready';
  for (const kind of S.metadata.order) {
    const m = status.models?.[kind];
    showModelStatus(kind, Boolean(status.ok && m?.ok), status.backend, m?.error || status.error);
  }
  updateGenerate();
  // the download is done: its bars fold into the Runtime section, out of the learner's way
  $('runtime').insertBefore($('load-progress'), $('runtime').querySelector('.table-wrap'));
  offline.then((o) => (o.ok ? keepOffline() : null)).catch(() => {});
  showModelErrors(status);
  showExperimentNote();
  S.shown = repeat;
  return readyReport(choice, planned, status);
}

// After a first visit, keep the page and its scripts for the next one offline.
async function keepOffline() {
  const { urls } = await call('resources', {});
  const kept = await keepShell(shellUrls(urls));
  precacheSite().catch(() => {}); // then the rest of the site, for offline reading
  return kept;
}

// Back from a slide or a link's run=1: the run the learner had shown runs
// again (seeded, so it comes back the same), with the experiment, and the
// step that was inspected is inspected again.
function repeatRun() {
  const how = { experiment: true };
  if (S.shown === 'generate') {
    generate({}, how).then(() => {
      const step = S.pendingStep;
      S.pendingStep = null;
      if (step && S.run && step.index < S.run.models[step.kind].steps.length) return selectStep(step.kind, step.index);
      return null;
    }).catch((err) => showPageError(err.message));
  }
  if (S.shown === 'score') {
    score({ text: $('prompt').value, eos: $('score-eos').checked }, how).catch((err) => showPageError(err.message));
  }
}

// The Copy link button: the setup in the address bar, on the clipboard where the browser lets the page write
// there, and in the box beside the button (to copy by hand).
async function copyLink() {
  const url = setupAddress();
  try { history.replaceState(history.state, '', url); } catch { /* an address it may not set */ }
  $('copy-link-out').value = url;
  $('copy-link-box').hidden = false;
  let copied = false;
  try {
    await navigator.clipboard.writeText(url);
    copied = true;
  } catch { /* no clipboard permission: the box holds the link */ }
  $('copy-link-status').textContent = copied ? 'Link copied: it opens this setup (text, settings, experiment, ' +
    'inspected step).' : 'Copy the link from the box: it opens this setup.';
}

window.lab = lab;
installReplay($('replay')); // fetches the training trace when the panel is first opened
S.ready = lab.ready = start();
lab.ready.then(repeatRun, () => {});
lab.ready.catch((err) => {
  showPageError(`The lab could not start: ${err.message}`);
  S.phase = 'failed';
  $('backend-line').textContent = 'The lab could not start.';
  $('generate-why').hidden = false;
  $('generate-why').textContent = `Cannot generate: ${err.message}`;
  $('generate').disabled = true;
});
