// The lab keeps the learner's place: its text, task and controls, and whether
// a run was shown (one started from the page's buttons), are kept in sessionStorage when the page is left (a slide
// link, Back, a reload) and restored when it opens again; the run is repeated
// (decoding is seeded, so the outputs come back the same).

import { S, $ } from './state.js';
import { readControls, selectPreset, showTask, task, writeControls } from './controls.js';
import { SETUP_KEYS, setupAddress } from './address.js';
import { checkAblation } from './guards.js';
import { emptyAblation } from './experiment.js';

const KEY = 'attention-lab-place-v1';

function storage() {
  try { return window.sessionStorage; } catch { return null; } // storage disabled
}

export function savePlace() {
  const store = storage();
  if (!store || !S.metadata) return;
  const place = { ...readControls(), preset: $('preset').value, task: task(), eos: $('score-eos').checked,
    ran: S.shown === task(), ablation: S.ablation,
    step: S.run && S.selected !== null ? { kind: S.selectedKind, index: S.selected } : null };
  try { store.setItem(KEY, JSON.stringify(place)); } catch { /* quota: nothing kept */ }
  // a page opened from a link: its address follows the learner's changes, so that Back brings those back
  const params = new URLSearchParams(location.search);
  if (SETUP_KEYS.some((k) => params.has(k))) {
    try { history.replaceState(history.state, '', setupAddress()); } catch { /* an address it may not set */ }
  }
}

// The setup of a link (address.js readAddress, checked): applied to the
// controls, the experiment and the step to inspect; returns the task to run
// once the models are ready (run=1), or null.
export function applySetup(v) {
  if (v.task) showTask(v.task);
  const controls = { ...readControls() };
  for (const key of ['prompt', 'mode', 'temperature', 'top_k', 'top_p', 'seed', 'limit', 'backend']) {
    if (v[key] !== undefined) controls[key] = v[key];
  }
  writeControls(controls);
  if (v.eos !== undefined) $('score-eos').checked = v.eos;
  if (v.heads_off || v.hide) {
    S.ablation = { heads_off: v.heads_off ?? emptyAblation().heads_off, hide: v.hide ?? [] };
  }
  S.pendingStep = v.step ?? null;
  return v.run ? task() : null;
}

export function keepPlace() {
  window.addEventListener('pagehide', savePlace);
  document.addEventListener('click', (e) => { if (e.target.closest?.('a[data-slide], a.slide-link')) savePlace(); });
}

// Restores the controls at once; returns the run to repeat once the models are ready (or null).
export function restorePlace() {
  const store = storage();
  let place;
  try { place = JSON.parse(store?.getItem(KEY) || 'null'); } catch { return null; }
  if (!place || typeof place.prompt !== 'string') return null;
  try {
    showTask(place.task === 'score' ? 'score' : 'generate');
    if (place.preset && place.preset !== 'custom') selectPreset(place.preset);
    writeControls({ ...readControls(), ...pick(place) });
    if (place.preset === 'custom') selectPreset('custom');
    $('score-eos').checked = Boolean(place.eos);
    if (place.ablation) S.ablation = checkAblation(S.metadata, place.ablation); // the experiment, checked again
    S.pendingStep = place.step && S.metadata.order.includes(place.step.kind) && Number.isInteger(place.step.index)
      ? place.step : null;
  } catch {
    return null; // a stale or foreign entry: start fresh
  }
  return place.ran ? place.task : null;
}

function pick(p) {
  const out = {};
  for (const key of ['prompt', 'mode', 'temperature', 'top_k', 'top_p', 'seed', 'limit']) {
    if (p[key] !== undefined) out[key] = p[key];
  }
  return out;
}
