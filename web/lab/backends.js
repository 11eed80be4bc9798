// The runtime the models run on: the menu's choice ('auto', 'webgpu' or
// 'wasm') prepared once in the worker (sessions created and warmed up), the
// status it reports, and the Runtime section and Generate button kept in step.

import { checkBackend } from './guards.js';
import { addToPlan } from './progress.js';
import { call } from './rpc.js';
import { S, $ } from './state.js';
import { backendName } from './view.js';
import { renderBackendLine, renderLoadTable, renderModelErrors } from './runtime-view.js';
import { updateGenerate } from './controls.js';

// ?adapter=any: automatic times a software WebGPU adapter too, as it would a real GPU (README).
export const CONSIDER_SOFTWARE = new URLSearchParams(location.search).get('adapter') === 'any';

// A runtime's row in the download bars.
export function runtimeItem(backend) {
  const build = S.manifest.builds[backend];
  return { file: `runtime-${backend}`, label: `${backendName(backend)} runtime`, bytes: build.bytes };
}

export function showLoadTable() {
  renderLoadTable($('load-table').querySelector('tbody'), S.metadata, S.load, S.sessions);
}

export function showModelErrors(status) {
  renderModelErrors(S.views, S.metadata, S.load, status);
}

// Prepared once per choice; a failed try is forgotten, so a later one may work
// (back online, another adapter).
function prepareBackend(choice) {
  try { checkBackend(choice); } catch (err) { return Promise.reject(err); }
  if (!S.prepared[choice]) {
    if (choice !== 'auto') addToPlan($('load-progress'), runtimeItem(choice));
    S.prepared[choice] = call('prepare', { backend: choice, considerSoftware: CONSIDER_SOFTWARE }).then((status) => {
      if (!status.ok) delete S.prepared[choice];
      if (status.ok) {
        S.sessions[status.backend] = S.sessions[status.backend] || {};
        for (const [kind, r] of Object.entries(status.models)) {
          if (r.ok && !r.cached) S.sessions[status.backend][kind] = r;
          if (!r.ok) S.sessions[status.backend][kind] = { error: r.error };
        }
      }
      showLoadTable();
      return status;
    }, (err) => { delete S.prepared[choice]; throw err; });
  }
  return S.prepared[choice];
}

// Makes the choice the one in use; rejects (after saying why on the page) when it cannot run.
export async function useBackend(choice) {
  const status = await prepareBackend(choice);
  S.status = { ...status, choice };
  renderBackendLine($('backend-line'), $('fallback-line'), S.status, S.metadata.order.length);
  showModelErrors(status);
  updateGenerate();
  if (!status.ok) throw new Error(status.error);
  return status;
}

// The menu's choice: Generate waits (and says so) while the runtime starts,
// and is enabled again as soon as any model is ready on it.
export async function switchBackend(choice) {
  S.phase = 'starting';
  updateGenerate();
  try {
    await useBackend(choice);
  } catch { /* the backend line shows why */ } finally {
    S.phase = 'ready';
    updateGenerate();
  }
}
