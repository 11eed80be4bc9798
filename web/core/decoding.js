// The decoding rule, a mirror of export/decoding.py (tests compare the two).
//   history = [BOS] + prompt IDs (no EOS); context = last 64 IDs, left-padded
//   with PAD; PAD, BOS and UNK are never chosen; EOS stops without adding text;
//   greedy = highest logit (lowest ID on ties); sampled = softmax(logits / T)
//   over the allowed IDs in float64, one mulberry32 draw per step.

import { PAD_ID, BOS_ID, EOS_ID, UNK_ID } from './tokenizer.js';

export const CONTEXT = 64;
export const BANNED = new Set([PAD_ID, BOS_ID, UNK_ID]);

// Tommy Ettinger's mulberry32; floats in [0, 1) with 32 random bits.
export function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t = (t + Math.imul(t ^ (t >>> 7), t | 61)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function contextWindow(history, size = CONTEXT) {
  const tail = size ? history.slice(-size) : [];
  return new Array(size - tail.length).fill(PAD_ID).concat(tail);
}

export function startHistory(promptIds) {
  return [BOS_ID, ...promptIds];
}

export function greedyChoice(logits) {
  let best = -1, bestValue = -Infinity;
  for (let i = 0; i < logits.length; i++) {
    if (BANNED.has(i)) continue;
    const v = logits[i];
    if (best < 0 || v > bestValue) { best = i; bestValue = v; }
  }
  return best;
}

export function samplingWeights(logits, temperature) {
  if (!(temperature > 0)) throw new Error(`temperature must be > 0, got ${temperature}`);
  const scaled = Array.from(logits, (v) => Number(v) / temperature);
  let top = -Infinity;
  scaled.forEach((v, i) => { if (!BANNED.has(i) && v > top) top = v; });
  return scaled.map((v, i) => (BANNED.has(i) ? 0 : Math.exp(v - top)));
}

export function sampledChoice(logits, temperature, rng) {
  const weights = samplingWeights(logits, temperature);
  let total = 0;
  for (const w of weights) total += w;
  const target = rng() * total;
  let running = 0, last = -1;
  for (let i = 0; i < weights.length; i++) {
    const w = weights[i];
    if (w <= 0) continue;
    running += w;
    last = i;
    if (running > target) return i;
  }
  return last;
}

// One decoding step's choice; rng is only used in sampled mode.
export function choose(logits, mode, temperature, rng) {
  if (mode === 'greedy') return greedyChoice(logits);
  if (mode === 'sampled') return sampledChoice(logits, temperature, rng);
  throw new Error(`mode must be 'greedy' or 'sampled', got ${mode}`);
}

// The whole loop with an async logitsFn(context) -> logits. Mirrors
// export.decoding.generate; the lab runs the same steps one at a time.
export async function generate(logitsFn, promptIds, { mode = 'greedy', temperature = 1, seed = 0, limit = 24 } = {}) {
  const rng = mulberry32(seed);
  const history = startHistory(promptIds);
  const ids = [];
  let stop = 'limit', calls = 0;
  while (ids.length < limit) {
    const logits = await logitsFn(contextWindow(history));
    calls += 1;
    const next = choose(logits, mode, temperature, rng);
    if (next === EOS_ID) { stop = 'eos'; break; }
    history.push(next);
    ids.push(next);
  }
  return { ids, stop, calls };
}

// softmax over all IDs (the model's own distribution), for the inspect panel.
export function softmax(logits, temperature = 1) {
  const n = logits.length;
  let top = -Infinity;
  for (let i = 0; i < n; i++) if (logits[i] / temperature > top) top = logits[i] / temperature;
  const e = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) { e[i] = Math.exp(logits[i] / temperature - top); total += e[i]; }
  for (let i = 0; i < n; i++) e[i] /= total;
  return e;
}

// The k largest values' indices, largest first (lower index first on ties).
export function topK(values, k) {
  const best = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (best.length === k && v <= values[best[k - 1]]) continue;
    let j = best.length < k ? best.length : k - 1;
    while (j > 0 && values[best[j - 1]] < v) { best[j] = best[j - 1]; j--; }
    best[j] = i;
  }
  return best;
}
