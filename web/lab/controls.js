// The page's controls: the preset menu and the text, the task (generate or
// score), the sampling controls read and checked (each problem shown next to
// its control), and the buttons, enabled only when they can run.

import { tokenize, UNK_ID } from '../core/tokenizer.js';
import { checkFilters, contextWindow, startHistory } from '../core/decoding.js';
import { el, fmt } from '../core/dom.js';
import { renderPreview } from './view.js';
import { MAX_SEED, MAX_TEXT_CHARS, checkBackend, checkTemperature, checkText } from './guards.js';
import { remaining } from './progress.js';
import { S, $ } from './state.js';

// ---------------------------------------------------------------- the text
// What the models read of a text: its tokens and IDs, the history and the context.
export function analyse(text) {
  const tokens = tokenize(text);
  const ids = S.vocab.encodeTokens(tokens);
  const history = startHistory(ids);
  return { tokens, ids, history, context: contextWindow(history, S.metadata.context),
    unknown: ids.filter((i) => i === UNK_ID).length };
}

let previewPending = false;
export function schedulePreview() {
  if (previewPending) return;
  previewPending = true;
  requestAnimationFrame(() => {
    if (previewPending) previewNow();
  });
}

// The token preview of the text in the box, drawn now (a run writes its prompt
// there: the chips show it as the run starts, not a frame later).
export function previewNow() {
  previewPending = false;
  const text = $('prompt').value;
  if (text.length > MAX_TEXT_CHARS) { // never tokenized: a pasted book would freeze the page
    $('preview').replaceChildren();
    $('preview-summary').textContent = `${text.length.toLocaleString('en-US')} characters: too long, the lab reads ` +
      `at most ${MAX_TEXT_CHARS.toLocaleString('en-US')}. Shorten the text to generate or score.`;
    return;
  }
  renderPreview($('preview'), $('preview-summary'), analyse(text), S.metadata.context);
}

// The preset menu, grouped, with "Your own text" last; it opens on the preset
// the page names (the held-out test story, rendered from common.settings).
export function fillPresets(presets) {
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
  selectPreset(presets.find((p) => p.id === select.dataset.initial)?.id || presets[0]?.id);
}

export function selectPreset(id) {
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
  $('preset-note').textContent = whole
    ? 'The whole story. Tick "also score the end of the story" to score its <EOS> too, as the test evaluation ' +
      `does. ${preset.note || ''}`
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

// ---------------------------------------------------------------- the task
export function task() {
  return document.querySelector('input[name="task"]:checked')?.value || 'generate';
}

// Switches the page to 'generate' or 'score' (a job started from a script does).
export function showTask(name) {
  if (task() === name) return;
  document.querySelector(`input[name="task"][value="${name}"]`).checked = true;
  syncTask();
}

export function syncTask() {
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

// ---------------------------------------------------------------- sampling controls
export function readControls() {
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

export function writeControls(o) {
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
  previewNow();
}

// Sampled mode's settings do nothing in greedy mode: disabled there, with the reason beside them.
export function syncModeInputs() {
  const greedy = document.querySelector('input[name="mode"]:checked').value !== 'sampled';
  for (const id of ['temperature', 'top-k', 'top-p', 'seed']) $(id).disabled = greedy;
  $('sampling-why').hidden = !greedy;
  $('sampling').classList.toggle('folded', greedy); // folded away in greedy mode, where they do nothing
  $('temperature-value').textContent = Number($('temperature').value).toFixed(2);
  $('top-p-value').textContent = Number($('top-p').value).toFixed(2);
  syncSamplingLast();
}

// Beside the sampling settings, what they did: the settings the shown
// continuations were made with, and which of them changed since (a change
// shows only after the next Generate), so the effect of a slider is never
// looked for in continuations it did not make.
const SAMPLING = [['temperature', 'T', (v) => Number(v).toFixed(2)],
  ['top_k', 'top-k', (v) => (v ? String(v) : 'off')], ['top_p', 'top-p', (v) => (v < 1 ? Number(v).toFixed(2) : 'off')],
  ['seed', 'seed', String]];

export function samplingLast(last, now) {
  if (!last) return '';
  if (last.mode !== 'sampled') {
    return now.mode === 'sampled' ? 'The continuations shown are greedy: Generate to sample them with these settings.'
      : '';
  }
  const made = SAMPLING.map(([key, name, show]) => `${name} ${show(last[key])}`).join(', ');
  if (now.mode !== 'sampled') return `The continuations shown were sampled (${made}).`;
  const changed = SAMPLING.filter(([key, , show]) => show(last[key]) !== show(now[key]))
    .map(([key, name, show]) => `${name} ${show(last[key])} → ${show(now[key])}`);
  return changed.length ? `The continuations shown were sampled with ${made}. Changed since: ${changed.join(', ')}: `
    + 'Generate to see the effect.' : `The continuations shown were sampled with these settings (${made}).`;
}

export function syncSamplingLast() {
  const line = $('sampling-last');
  if (!line) return;
  const text = samplingLast(S.run?.options, readControls());
  line.hidden = !text;
  line.textContent = text;
}

// Each problem is reported next to the control that caused it.
const FIELDS = { prompt: 'prompt', temperature: 'temperature', top_k: 'top-k', top_p: 'top-p', seed: 'seed',
  limit: 'limit' };

export function problems(o) {
  const out = {};
  try { checkText(o.prompt, 'the prompt'); } catch (err) { out.prompt = err.message; }
  if (!['greedy', 'sampled'].includes(o.mode)) out.mode = `mode must be "greedy" or "sampled", got "${o.mode}"`;
  if (o.mode !== 'greedy') { // greedy decoding reads no temperature (0 included)
    try { checkTemperature(o.temperature); } catch (err) { out.temperature = err.message; }
  }
  try { checkBackend(o.backend); } catch (err) { out.backend = err.message; }
  try {
    checkFilters(o.top_k, 1);
  } catch {
    out.top_k = 'top-k must be a whole number, 0 or more (0 keeps every token)';
  }
  try {
    checkFilters(0, o.top_p);
  } catch {
    out.top_p = 'top-p must be above 0 and at most 1 (1 keeps every token)';
  }
  if (!(Number.isInteger(o.seed) && o.seed >= 0 && o.seed <= MAX_SEED)) {
    out.seed = `seed must be a whole number from 0 to ${MAX_SEED}`;
  }
  const maxLimit = Number($('limit').max); // the page's input says the range
  if (!(Number.isInteger(o.limit) && o.limit >= 1 && o.limit <= maxLimit)) {
    out.limit = `token limit must be a whole number from 1 to ${maxLimit}`;
  }
  return out;
}

export function showProblems(found) {
  for (const [key, id] of Object.entries(FIELDS)) {
    const box = $(`${id}-error`);
    box.hidden = !found[key];
    box.textContent = found[key] || '';
    $(id).setAttribute('aria-invalid', found[key] ? 'true' : 'false');
  }
}

export function validate(o) {
  const found = problems(o);
  showProblems(found);
  const list = Object.values(found);
  if (list.length) throw new Error(list.join('; '));
}

// ---------------------------------------------------------------- buttons and messages
function modelsReady() {
  return Boolean(S.status?.ok && Object.values(S.status.models || {}).some((m) => m.ok));
}

// Why Generate (or Score) cannot run now; null when it can.
function waitReason() {
  if (location.protocol === 'file:') return 'The lab needs a local web server: see the message above.';
  if (S.job) {
    if (S.job.kind === 'attention-steps') return 'lab.attentionSteps is running: Stop ends it.';
    return S.job.kind === 'benchmark' ? 'A benchmark is running: Stop ends it.'
      : S.job.kind === 'score' ? 'Scoring the text…' : null;
  }
  if (S.phase !== 'ready' && earlyReady().length) return null; // progressive: the first models run already
  if (S.phase === 'download') {
    const { loaded, total } = remaining($('load-progress'));
    return total ? `Waiting for the download: ${fmt.mb(loaded)} of ${fmt.mb(total)} so far.`
      : 'Waiting for the model list.';
  }
  if (S.phase === 'starting') return 'Waiting for the runtime: creating and warming up the model sessions.';
  if (S.status && !S.status.ok) return `Cannot generate: ${S.status.error}`;
  if (S.status && !modelsReady()) return 'Cannot generate: no model is ready on this runtime (see the errors above).';
  return null;
}

function earlyReady() {
  return S.metadata ? S.metadata.order.filter((k) => S.early[k]?.session?.ok) : [];
}

// While some models are usable and others still download, the line says which.
function partialNote() {
  if (S.phase === 'ready') return null;
  const ready = earlyReady();
  if (!ready.length) return null;
  const label = (k) => S.metadata.models[k].label;
  const rest = S.metadata.order.filter((k) => !ready.includes(k));
  return rest.length ? `Ready: ${ready.map(label).join(', ')}. Still downloading: ${rest.map(label).join(', ')} ` +
    '(each joins as soon as its file is checked).' : 'All three models are ready; finishing the start-up.';
}

// Generate is enabled only when it can run; otherwise the line beside it says why.
export function updateGenerate() {
  const reason = waitReason();
  $('generate').disabled = Boolean(reason) || Boolean(S.job);
  $('score').disabled = Boolean(reason) || Boolean(S.job);
  $('stop').disabled = !S.job && S.phase !== 'download'; // Stop also cancels the downloads
  const why = $('generate-why');
  if (why) {
    const text = reason || partialNote();
    why.hidden = !text;
    why.textContent = text || '';
  }
}

export function showPageError(message) {
  $('page-error').hidden = false;
  $('page-error').textContent = message;
}
