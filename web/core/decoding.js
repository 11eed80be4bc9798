// The decoding rule, a mirror of export/decoding.py (tests compare the two).
//   history = [BOS] + prompt IDs (no EOS); context = the last `context` IDs
//   (metadata.json's context width), left-padded with PAD; PAD, BOS and UNK
//   are never chosen; EOS stops without adding text;
//   greedy = highest logit (lowest ID on ties); sampled = softmax(logits / T)
//   over the allowed IDs in float64, one mulberry32 draw per step; top-k then
//   top-p (sampled only): rank the allowed IDs by logit (lower ID first on
//   ties), keep the first top_k (0: all), then the shortest prefix whose share
//   of the kept weight reaches top_p (1: all); the rest get weight 0.
//   The lab's worker runs this file's Decoder; generate() below is the same
//   loop for one prompt (what tests/test_decoding_parity.py runs in Node).

import { PAD_ID, BOS_ID, EOS_ID, UNK_ID } from './tokenizer.js';

export const BANNED = new Set([PAD_ID, BOS_ID, UNK_ID]);
const isBanned = (i) => i === PAD_ID || i === BOS_ID || i === UNK_ID; // BANNED, without a Set lookup per ID

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

// The context width comes from onnx/metadata.json (the lab) or the caller (tests).
export function checkWidth(size) {
  if (!(Number.isInteger(size) && size >= 0)) {
    throw new Error(`the context width must be a whole number >= 0 (metadata.json's context), got ${size}`);
  }
  return size;
}

export function contextWindow(history, size) {
  checkWidth(size);
  const tail = size ? history.slice(-size) : [];
  return new Array(size - tail.length).fill(PAD_ID).concat(tail);
}

export function startHistory(promptIds) {
  return [BOS_ID, ...promptIds];
}

export function greedyChoice(logits) {
  let best = -1, bestValue = -Infinity;
  for (let i = 0; i < logits.length; i++) {
    if (isBanned(i)) continue;
    const v = logits[i];
    if (best < 0 || v > bestValue) { best = i; bestValue = v; }
  }
  return best;
}

export function checkFilters(topK = 0, topP = 1) {
  if (!(Number.isInteger(topK) && topK >= 0)) {
    throw new Error(`top_k must be an integer >= 0 (0 keeps every token), got ${topK}`);
  }
  if (!(typeof topP === 'number' && topP > 0 && topP <= 1)) {
    throw new Error(`top_p must be in (0, 1] (1 keeps every token), got ${topP}`);
  }
}

// The allowed IDs, highest logit first, lower ID first on ties.
export function ranking(logits) {
  const ids = [];
  for (let i = 0; i < logits.length; i++) if (!isBanned(i)) ids.push(i);
  return ids.sort((a, b) => (logits[b] - logits[a]) || (a - b));
}

// The IDs that survive top-k then top-p, in ranking order.
export function keptIds(logits, weights, topK = 0, topP = 1) {
  let order = ranking(logits);
  if (topK) order = order.slice(0, topK);
  if (topP >= 1) return order;
  let total = 0;
  for (const i of order) total += weights[i];
  let running = 0;
  const kept = [];
  for (const i of order) {
    kept.push(i);
    running += weights[i];
    if (running / total >= topP) break;
  }
  return kept;
}

export function samplingWeights(logits, temperature, topK = 0, topP = 1) {
  if (!(temperature > 0)) throw new Error(`temperature must be > 0, got ${temperature}`);
  checkFilters(topK, topP);
  const n = logits.length;
  const weights = new Float64Array(n);
  let top = -Infinity;
  for (let i = 0; i < n; i++) {
    weights[i] = Number(logits[i]) / temperature;
    if (!isBanned(i) && weights[i] > top) top = weights[i];
  }
  for (let i = 0; i < n; i++) weights[i] = isBanned(i) ? 0 : Math.exp(weights[i] - top);
  if (topK || topP < 1) {
    const keep = new Uint8Array(n);
    for (const i of keptIds(logits, weights, topK, topP)) keep[i] = 1;
    for (let i = 0; i < n; i++) if (!keep[i]) weights[i] = 0;
  }
  return weights;
}

export function sampledChoice(logits, temperature, rng, topK = 0, topP = 1) {
  const weights = samplingWeights(logits, temperature, topK, topP);
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
export function choose(logits, mode, temperature, rng, topK = 0, topP = 1) {
  if (mode === 'greedy') return greedyChoice(logits);
  if (mode === 'sampled') return sampledChoice(logits, temperature, rng, topK, topP);
  throw new Error(`mode must be 'greedy' or 'sampled', got ${mode}`);
}

// One prompt's decoding loop, one step at a time: context() gives the
// `context` IDs the model reads next (written into one reused array),
// step(logits) makes the choice. stop is null while running, then 'eos' or 'limit' (or what finish()
// was told). Mirrors export.decoding.generate.
export class Decoder {
  // context (the width) and limit come from onnx/metadata.json (context, decoding.default_limit).
  constructor(promptIds,
    { context, limit, mode = 'greedy', temperature = 1, seed = 0, top_k: topK = 0, top_p: topP = 1 } = {}) {
    checkWidth(context);
    if (!Number.isInteger(limit)) throw new Error(`limit must be a whole number of tokens, got ${limit}`);
    if (mode !== 'greedy' && mode !== 'sampled') throw new Error(`mode must be 'greedy' or 'sampled', got ${mode}`);
    checkFilters(topK, topP);
    Object.assign(this, { width: context, mode, temperature, limit, topK, topP });
    this.rng = mulberry32(seed);
    this.history = startHistory(promptIds);
    this.ids = [];
    this.calls = 0;
    this.stop = limit > 0 ? null : 'limit';
    this.window = new Array(context);
  }

  context() {
    const h = this.history, w = this.window, n = this.width, start = h.length - n;
    for (let j = 0; j < n; j++) w[j] = start + j >= 0 ? h[start + j] : PAD_ID;
    return w;
  }

  step(logits) {
    this.calls += 1;
    const next = choose(logits, this.mode, this.temperature, this.rng, this.topK, this.topP);
    if (next === EOS_ID) { this.stop = 'eos'; return next; }
    this.history.push(next);
    this.ids.push(next);
    if (this.ids.length >= this.limit) this.stop = 'limit';
    return next;
  }

  finish(reason) { if (!this.stop) this.stop = reason; }
}

// The whole loop with an async logitsFn(context) -> logits.
export async function generate(logitsFn, promptIds, options = {}) {
  const d = new Decoder(promptIds, options);
  while (!d.stop) d.step(await logitsFn([...d.context()]));
  return { ids: d.ids, stop: d.stop, calls: d.calls };
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
