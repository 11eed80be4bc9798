// The inspect panel's maths: what the model predicts at one step, before and
// after the sampling controls, and the fixed colour scale of every heatmap.

import { BANNED, checkFilters, keptIds, samplingWeights, softmax, topK } from './decoding.js';

// The model's own distribution (softmax over all IDs at T = 1), the
// distribution sampling draws from with these controls (softmax(logits / T)
// over the allowed IDs, cut by top-k then top-p, renormalized), and which IDs
// the controls keep.
export function distributions(logits, { temperature = 1, top_k: topK_ = 0, top_p: topP = 1 } = {}) {
  checkFilters(topK_, topP);
  const model = softmax(logits);
  const weights = samplingWeights(logits, temperature); // before the cuts
  const kept = new Uint8Array(weights.length);
  const keep = keptIds(logits, weights, topK_, topP);
  for (const i of keep) kept[i] = 1;
  let total = 0;
  for (let i = 0; i < weights.length; i++) if (kept[i]) total += weights[i];
  const sampled = new Float64Array(weights.length);
  for (let i = 0; i < weights.length; i++) sampled[i] = kept[i] ? weights[i] / total : 0;
  return { model, sampled, kept, keptCount: keep.length };
}

// The ten rows the panel lists: the model's top 10 (specials included, so a
// banned ID can appear, marked "never chosen").
export function topRows(distribution, k = 10) {
  return topK(distribution.model, k).map((id) => ({
    id, p: distribution.model[id], q: distribution.sampled[id], kept: Boolean(distribution.kept[id]),
    banned: BANNED.has(id),
  }));
}

// The one attention colour scale, 0 to 1, for every head and model: white to
// dark blue through the ColorBrewer "Blues" stops, linear in the weight.
export const BLUES = [[247, 251, 255], [198, 219, 239], [107, 174, 214], [33, 113, 181], [8, 48, 107]];
// Score mode's scale (surprisal): ColorBrewer "OrRd".
export const ORANGES = [[255, 247, 236], [253, 212, 158], [252, 141, 89], [215, 48, 31], [127, 0, 0]];

export function heatRgb(weight, stops = BLUES) {
  const w = Math.min(1, Math.max(0, Number(weight) || 0)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(w));
  const f = w - i;
  return stops[i].map((c, j) => Math.round(c + f * (stops[i + 1][j] - c)));
}

function luminance([r, g, b]) {
  const lin = (c) => { const s = c / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

export function contrast(a, b) {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

// Background and the text colour (black or white) with the higher contrast:
// at least 4.5:1 on every background.
export function heatColors(weight, stops = BLUES) {
  const bg = heatRgb(weight, stops);
  const dark = [0, 0, 0], light = [255, 255, 255];
  const text = contrast(bg, dark) >= contrast(bg, light) ? dark : light;
  return { background: `rgb(${bg.join(',')})`, color: `rgb(${text.join(',')})`, contrast: contrast(bg, text) };
}

// Probability colour scale of score mode (fixed for all models): by surprisal,
// -log2 p, clipped at 12 bits; high probability is light, surprise dark.
export const SCORE_MAX_BITS = 12;
export function scoreColors(p) {
  const bits = p > 0 ? Math.min(SCORE_MAX_BITS, -Math.log2(p)) : SCORE_MAX_BITS;
  return heatColors(bits / SCORE_MAX_BITS, ORANGES);
}
