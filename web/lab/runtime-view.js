// The Runtime section: the line that says which runtime runs the models (and
// why, when the choice was automatic), the table of downloads and session
// warm-ups, and each model card's error when a model cannot run.

import { el, fmt } from '../core/dom.js';
import { backendName } from './view.js';

// st: the latest status with the menu's choice; the line and, below it, the reason or a warning.
export function renderBackendLine(line, note, st, modelCount) {
  if (!st.ok) {
    line.textContent = `Runtime: ${backendName(st.choice)} is not available.`;
    note.hidden = false;
    note.className = 'error';
    note.textContent = st.error;
    return;
  }
  const a = st.adapter;
  const adapter = a ? ` (adapter: ${[a.vendor, a.architecture, a.description].filter(Boolean).join(' ') || 'unnamed'})`
    : '';
  const ok = Object.values(st.models).filter((m) => m.ok).length;
  line.textContent = `Runtime in use: ${backendName(st.backend)}${adapter}` +
    `${st.choice === 'auto' ? ', chosen automatically' : ', chosen by you'}. ${ok} of ${modelCount} models ready.`;
  note.className = 'note';
  const why = st.choice === 'auto' ? st.choice_reason || st.fallback_reason : null;
  note.hidden = !why && !st.software_adapter;
  note.textContent = st.fallback_reason ? `Automatic choice, WASM: ${st.fallback_reason}.`
    : why ? `Automatic choice, WebGPU: ${why}.`
      : st.software_adapter
        ? 'This WebGPU adapter is a software renderer (a CPU emulation): expect it to be much slower than WASM.' : '';
}

const downloadCell = (r) => (r.from === 'cache' ? 'offline copy' : fmt.ms(r.download_ms));

// One row per model (its download, then its session and warm-up per runtime
// it ran on), then one per runtime build downloaded.
export function renderLoadTable(body, metadata, load, sessions) {
  const rows = metadata.order.map((kind) => {
    const entry = metadata.models[kind];
    const got = load[kind];
    const perBackend = Object.entries(sessions).filter(([, m]) => m[kind]);
    const lines = (f) => perBackend.map(([b, m]) => (m[kind].error ? `${backendName(b)}: failed` : f(m[kind])))
      .join('\n') || '–';
    return el('tr', { 'data-kind': kind },
      el('th', { scope: 'row', text: entry.label }),
      el('td', { text: fmt.mb(entry.bytes) }),
      el('td', { text: got ? (got.ok ? downloadCell(got) : 'failed') : '…' }),
      el('td', { class: got && !got.ok ? 'error' : '', text: got ? (got.ok ? 'verified' : got.error) : '…' }),
      el('td', { text: perBackend.map(([b]) => backendName(b)).join('\n') || '–' }),
      el('td', { text: lines((r) => fmt.ms(r.create_ms)) }),
      el('td', { text: lines((r) => fmt.ms(r.warmup_ms)) }));
  });
  for (const [backend, rt] of Object.entries(load.runtimes || {})) {
    const name = `${backendName(backend)} runtime (onnxruntime-web${rt.version ? ` ${rt.version}` : ''})`;
    rows.push(el('tr', { 'data-kind': `runtime-${backend}` },
      el('th', { scope: 'row', text: name }),
      el('td', { text: rt.ok ? fmt.mb(rt.bytes) : '–' }),
      el('td', { text: rt.ok ? downloadCell(rt) : 'failed' }),
      el('td', { class: rt.ok ? '' : 'error', text: rt.ok ? 'verified' : rt.error }),
      el('td', { text: '' }), el('td', { text: '' }), el('td', { text: '' })));
  }
  body.replaceChildren(...rows);
}

// Why a model cannot run: its download failed, its session failed, or the
// whole runtime did; null when it can.
export function modelError(load, session, status) {
  return load?.error || session?.error || (status.ok ? null : status.error);
}

// Each card says why its model cannot run.
export function renderModelErrors(views, metadata, load, status) {
  for (const kind of metadata.order) {
    const error = modelError(load[kind], status.models?.[kind], status);
    views[kind].error.hidden = !error;
    views[kind].error.textContent = error ? `Cannot run this model: ${error}` : '';
  }
}
