// What the exercise kinds (web/core/exercises-*.js) share: small readable draws
// from a seeded generator, the arithmetic they ask for, and number formatting.
// Pure functions: no DOM, so Node runs them in tests/js/exercises.test.mjs and
// tests/test_exercises_parity.py compares them with export/exercises.py.

import { num } from './dom.js';

// A whole number in [lo, hi], both ends included.
export function int(rng, lo, hi) {
  return lo + Math.floor(rng() * (hi - lo + 1));
}

// A number with `places` decimals in [lo, hi]: drawn as a whole number of
// hundredths (or tenths), then divided once, so 0.3 is stored as 0.3.
export function dec(rng, lo, hi, places = 1) {
  const scale = 10 ** places;
  return int(rng, Math.round(lo * scale), Math.round(hi * scale)) / scale;
}

// Like dec, but never 0 (a zero coordinate makes a product vanish from the sum).
export function decNonZero(rng, lo, hi, places = 1) {
  for (;;) {
    const x = dec(rng, lo, hi, places);
    if (x !== 0) return x;
  }
}

export function pick(rng, items) {
  return items[int(rng, 0, items.length - 1)];
}

export function vector(rng, n, lo, hi, places = 1) {
  return Array.from({ length: n }, () => decNonZero(rng, lo, hi, places));
}

// n whole numbers of hundredths, each at least `least`, adding up to 100: weights
// (or probabilities) with two decimals that sum to exactly 1 on paper.
export function hundredths(rng, n, least = 1) {
  for (;;) {
    const cuts = Array.from({ length: n - 1 }, () => int(rng, 0, 100)).sort((a, b) => a - b);
    const parts = [...cuts, 100].map((c, i) => c - (i ? cuts[i - 1] : 0));
    if (parts.every((p) => p >= least)) return parts;
  }
}

// ---- the arithmetic ----------------------------------------------------------

export const sum = (xs) => xs.reduce((a, b) => a + b, 0);
export const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
export const mean = (xs) => sum(xs) / xs.length;

// softmax over the entries that are numbers; null entries (masked, −∞) get 0.
export function softmax(scores) {
  const live = scores.filter((s) => s !== null);
  const top = Math.max(...live);
  const e = scores.map((s) => (s === null ? 0 : Math.exp(s - top)));
  const total = sum(e);
  return e.map((x) => x / total);
}

// The scores of a query against each key, q·k_j, and the same divided by √d_k.
export const rawScores = (q, keys) => keys.map((k) => dot(q, k));
export const scaledScores = (q, keys) => rawScores(q, keys).map((s) => s / Math.sqrt(q.length));

// A number as printed to `digits` decimals, for arithmetic that goes on from what the learner reads.
export const asPrinted = (x, digits = 4) => Number(x.toFixed(digits));

// x / Σ xs: a share of a sum; null when the sum is too near 0 to share anything out.
export function shareOf(x, xs) {
  const total = sum(xs);
  return Math.abs(total) < 0.1 ? null : x / total;
}

// ---- formatting --------------------------------------------------------------

// A number as the slides print it: fixed decimals, a true minus sign.
export const f = (x, digits = 1) => num(x, digits);

// A whole number without grouping (so that the last number of a solution reads as one).
export const whole = (n) => num(n, 0);

export const vec = (xs, digits = 1) => `[${xs.map((x) => (x === null ? '−∞' : f(x, digits))).join(', ')}]`;

// "a·b + c·d + …" for a dot product written out term by term.
export function products(a, b, da = 1, db = 1) {
  return a.map((x, i) => `${i ? paren(x, da) : f(x, da)}·${paren(b[i], db)}`).join(' + ');
}

// A negative number in brackets, for writing it after an operator.
export const paren = (x, digits = 1) => (x < 0 ? `(${f(x, digits)})` : f(x, digits));
