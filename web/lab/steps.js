// Per-step attention (lab.attentionSteps and the inspect view's default
// matrix): the final query's weights on the window of every step of a token
// history, from the exported graphs, one batched call per 64 windows.

import { hideInWindow, stepWindows } from '../core/ablation.js';
import { call } from './rpc.js';
import { S } from './state.js';
import { useBackend } from './backends.js';
import { checkBackend } from './guards.js';

const STEP_BATCH = 64;

// Rows from..ids.length-1 of the per-step attention (the inspect view asks for
// the window's rows only). Each batch's windows are cut when it is sent (never
// all of them at once); a job (lab.attentionSteps) ends after the batch in
// flight once lab.stop() marks it stopped.
export async function stepRows(kind, ids, from, backend, hidden = null, job = null) {
  const status = await useBackend(checkBackend(backend));
  const width = S.metadata.context;
  const rows = [];
  for (let start = from; start < ids.length; start += STEP_BATCH) {
    if (job?.stopped) {
      throw new Error(`attentionSteps stopped by you after ${rows.length.toLocaleString('en-US')} of ` +
        `${(ids.length - from).toLocaleString('en-US')} steps`);
    }
    const end = Math.min(ids.length, start + STEP_BATCH);
    const batch = stepWindows(ids, width, start, end).map((w, i) => hideInWindow(w, start + i + 1, hidden));
    const out = await call('run', { kind, backend: status.backend, contexts: batch });
    const [, heads, slots] = out.attentionDims;
    batch.forEach((_, b) => rows.push(Array.from({ length: heads }, (__, h) =>
      Array.from(out.attention.subarray((b * heads + h) * slots, (b * heads + h + 1) * slots)))));
  }
  return rows;
}
