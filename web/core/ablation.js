// The lab's experiments, the maths of them (a mirror of export/ablation.py):
// the window of every step of a history (per-step attention), words hidden
// (their slots read as PAD; the newest token never is), heads switched off (a
// head mask), and how far the one-pass matrix's rows agree with what the model
// attended to at each step.

import { contextWindow } from './decoding.js';
import { PAD_ID } from './tokenizer.js';

// Slots of the window that ends at history position historyLength - 1 holding
// a hidden token; the last slot (the newest token, the query's own) never does.
export function hiddenSlots(historyLength, hidden, width) {
  const out = new Array(width).fill(false);
  if (!hidden || !hidden.size) return out;
  const first = historyLength - width;
  for (let j = 0; j < width - 1; j++) out[j] = hidden.has(first + j);
  return out;
}

// In place: the hidden tokens of a window (that of a history of historyLength
// IDs) become PAD. A PAD key is masked, so for the attention models this masks
// them as keys exactly like PAD; for the MLP it is the definition.
export function hideInWindow(window, historyLength, hidden) {
  if (!hidden || !hidden.size) return window;
  const width = window.length;
  const first = historyLength - width;
  for (let j = 0; j < width - 1; j++) if (hidden.has(first + j)) window[j] = PAD_ID;
  return window;
}

// The windows of steps from..to-1: window t is the last `width` IDs of
// history[0..t], left-padded with PAD (what the model read when it predicted
// the token after history[t]). Each window slices only its own `width` IDs, so
// the work grows linearly with the history (never a copy of it per step).
export function stepWindows(history, width, from = 0, to = history.length) {
  const out = [];
  for (let t = from; t < to; t++) out.push(contextWindow(history.slice(Math.max(0, t + 1 - width), t + 1), width));
  return out;
}

// Attention beside effect, the windows: the step's window (words in `hidden`
// already hidden) and, for every other word of it that is still shown, the
// same window with that word alone hidden too. The newest token (the query's
// own slot) is never hidden. positions: the history positions, one per window
// after the first.
export function hideEachWindows(history, width, hidden = new Set()) {
  const base = hideInWindow(contextWindow(history.slice(-width), width), history.length, hidden);
  const first = history.length - width;
  const positions = [];
  const windows = [base];
  for (let j = Math.max(0, -first); j < width - 1; j++) {
    const p = first + j;
    if (hidden.has(p)) continue;
    const w = [...base];
    w[j] = PAD_ID;
    positions.push(p);
    windows.push(w);
  }
  return { base, positions, windows };
}

// The ranking line's two words: the position with the highest mean attention
// weight over the heads (null without attention) and the one whose hiding
// moves the chosen token's log-probability most (largest |change|; ties: the
// earlier position), and whether they are the same word.
export function weightAndEffect(positions, delta, meanWeight = null) {
  const best = (score) => positions.reduce((b, p, i) => (b === null || score(i) > score(b) ? i : b), null);
  const effect = best((i) => Math.abs(delta[i]));
  const weight = meanWeight ? best((i) => meanWeight[i]) : null;
  return { top_effect: effect === null ? null : positions[effect],
    top_weight: weight === null ? null : positions[weight],
    same: weight === null || effect === null ? null : weight === effect };
}

// 1 for a head that is on, 0 for one switched off.
export function headMask(heads, off) {
  const mask = new Float32Array(heads).fill(1);
  for (const h of off || []) mask[h] = 0;
  return mask;
}

// The weight that step t's window gives history position p (0 outside it).
export function stepWeight(row, t, p, width) {
  const slot = p - (t - width + 1);
  return slot >= 0 && slot < width && p <= t ? row[slot] : 0;
}

// How far the rows of the one-pass matrix of one window agree with the
// per-step rows: for each head and each real query slot q (history position
// offset + q), the strongest source of each row (ties: the earlier position),
// and the largest weight difference, both on history positions (a position the
// one-pass window does not hold has weight 0 there).
// matrix(h, q, k): one-pass weight; steps(h, t): row t's 64 weights; real: the
// window's non-PAD slots.
export function stepAgreement({ heads, real, offset, width, matrix, steps }) {
  let rows = 0, same = 0, maxDiff = 0;
  for (let h = 0; h < heads; h++) {
    for (const q of real) {
      const t = offset + q;
      const row = steps(h, t);
      if (!row) continue;
      let bestA = -1, bestAt = null, bestB = -1, bestBt = null;
      for (let p = Math.max(0, t - width + 1); p <= t; p++) {
        const k = p - offset;
        const a = k >= 0 && k <= q ? matrix(h, q, k) : 0;
        const b = stepWeight(row, t, p, width);
        if (a > bestA) { bestA = a; bestAt = p; }
        if (b > bestB) { bestB = b; bestBt = p; }
        maxDiff = Math.max(maxDiff, Math.abs(a - b));
      }
      rows += 1;
      if (bestAt === bestBt) same += 1;
    }
  }
  return { rows, same, maxDiff };
}
