// Attention beside effect (lab.wordEffects and the inspect view): for one step
// of a model, every word of its window hidden alone (one batched call), the
// change in the chosen token's log-probability beside the attention each head
// gave that word, and whether the highest-weight word is the highest-effect one.

import { greedyChoice } from '../core/decoding.js';
import { hideEachWindows, weightAndEffect } from '../core/ablation.js';
import { logProbability } from '../core/scoring.js';
import { call } from './rpc.js';
import { S } from './state.js';

// history: the model's token history up to the step (BOS first; the window is
// its last `context` IDs); target: the token whose log-probability is followed
// (null: the model's greedy choice there); hidden: words already hidden (the
// page's experiment), headsOff: its heads off.
export async function wordEffects({ kind, history, target = null, headsOff = null, hidden = new Set(), backend }) {
  const width = S.metadata.context;
  const { positions, windows } = hideEachWindows(history, width, hidden);
  const out = await call('run', { kind, backend, contexts: windows, headsOff: headsOff?.length ? headsOff : null });
  const C = S.metadata.vocab_size;
  const row = (b) => out.logits.subarray(b * C, (b + 1) * C);
  const chosen = target ?? greedyChoice(row(0));
  const base = logProbability(row(0), chosen);
  const delta = positions.map((_, i) => logProbability(row(i + 1), chosen) - base);
  let attention = null;
  let mean = null;
  if (out.attention) {
    const [, heads, slots] = out.attentionDims;
    const first = history.length - width;
    attention = Array.from({ length: heads }, (_, h) => positions.map((p) => out.attention[h * slots + p - first]));
    mean = positions.map((_, i) => attention.reduce((a, r) => a + r[i], 0) / heads);
  }
  return { kind, target: chosen, logprob: base, positions, words: positions.map((p) => history[p]), delta,
    attention, mean_weight: mean, ...weightAndEffect(positions, delta, mean) };
}
