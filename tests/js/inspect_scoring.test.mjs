// Unit tests of web/core/inspect.js and web/core/scoring.js in Node.
import test from 'node:test';
import assert from 'node:assert/strict';

import {
  distributions, topRows, BLUES, ORANGES, heatRgb, contrast, heatColors, SCORE_MAX_BITS, scoreColors,
} from '../../web/core/inspect.js';
import { scoreContexts, logProbability, summarize, surprisalBits } from '../../web/core/scoring.js';
import { contextWindow as windowOf } from '../../web/core/decoding.js';
import { BOS_ID, EOS_ID } from '../../web/core/tokenizer.js';

const W = 64; // the course's width (the lab reads it from onnx/metadata.json)
const contextWindow = (history) => windowOf(history, W);

const close = (a, b, tol = 1e-12) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b));
const LOGITS = [4, 0.5, 1.0, 2.5, 3.0, 2.0, 0.5, 2.0];      // allowed: 2, 4, 5, 6, 7; PAD's logit is the largest

test('distributions: the model at T = 1 over every ID; sampled = softmax(logits / T) over the kept allowed IDs', () => {
  for (const [T, k, p] of [[1, 0, 1], [0.5, 0, 1], [2, 0, 1], [0.7, 3, 1], [1.3, 0, 0.6], [0.9, 2, 0.8]]) {
    const d = distributions(LOGITS, { temperature: T, top_k: k, top_p: p });
    const zAll = LOGITS.reduce((s, x) => s + Math.exp(x), 0);
    LOGITS.forEach((x, i) => assert.ok(close(d.model[i], Math.exp(x) / zAll), `model ${i}`));   // T plays no part
    // the kept IDs: ranking by logit, first k, then the shortest prefix reaching p of the tempered weight
    let order = [4, 5, 7, 2, 6];
    if (k) order = order.slice(0, k);
    const w = (i) => Math.exp(LOGITS[i] / T);
    const zk = order.reduce((s, i) => s + w(i), 0);
    const kept = [];
    let run = 0;
    for (const i of order) { kept.push(i); run += w(i); if (p < 1 && run / zk >= p) break; }
    const z = kept.reduce((s, i) => s + w(i), 0);
    LOGITS.forEach((_, i) => {
      assert.ok(close(d.sampled[i], kept.includes(i) ? w(i) / z : 0, 1e-9), `T=${T} k=${k} p=${p} id ${i}`);
      assert.equal(d.kept[i], kept.includes(i) ? 1 : 0);
    });
    assert.equal(d.keptCount, kept.length);
    assert.ok(close(d.sampled.reduce((s, x) => s + x, 0), 1, 1e-9));
  }
  const dflt = distributions(LOGITS);
  assert.ok(close(dflt.sampled[4], Math.exp(3) / [2, 4, 5, 6, 7].reduce((s, i) => s + Math.exp(LOGITS[i]), 0)));
  assert.throws(() => distributions(LOGITS, { top_k: -1 }), /top_k/);
  assert.throws(() => distributions(LOGITS, { top_p: 0 }), /top_p/);
});

test('topRows: the model top 10, with the sampled probability, kept and banned flags', () => {
  const logits = Array.from({ length: 30 }, (_, i) => (i * 7) % 11);
  logits[0] = 20;                                                       // PAD on top: listed, marked banned
  const d = distributions(logits, { temperature: 0.8, top_k: 3 });
  const rows = topRows(d);
  assert.equal(rows.length, 10);
  assert.deepEqual(rows[0], { id: 0, p: d.model[0], q: 0, kept: false, banned: true });
  for (let j = 1; j < rows.length; j++) assert.ok(rows[j - 1].p >= rows[j].p);
  for (const r of rows) {
    assert.equal(r.p, d.model[r.id]);
    assert.equal(r.q, d.sampled[r.id]);
    assert.equal(r.kept, Boolean(d.kept[r.id]));
    assert.equal(r.banned, [0, 1, 3].includes(r.id));
  }
  assert.equal(rows.filter((r) => r.kept).length, 3);
  assert.equal(topRows(d, 4).length, 4);
});

test('heatRgb: linear between the stops, clamped to [0, 1]', () => {
  assert.deepEqual(heatRgb(0), BLUES[0]);
  assert.deepEqual(heatRgb(1), BLUES[4]);
  assert.deepEqual(heatRgb(0.25), BLUES[1]);
  assert.deepEqual(heatRgb(0.75), BLUES[3]);
  assert.deepEqual(heatRgb(-3), BLUES[0]);
  assert.deepEqual(heatRgb(7), BLUES[4]);
  assert.deepEqual(heatRgb('x'), BLUES[0]);
  assert.deepEqual(heatRgb(0.125), BLUES[0].map((c, j) => Math.round((c + BLUES[1][j]) / 2)));
  assert.deepEqual(heatRgb(0.9), BLUES[3].map((c, j) => Math.round(c + 0.6 * (BLUES[4][j] - c))));
  assert.deepEqual(heatRgb(0.5, ORANGES), ORANGES[2]);
  assert.deepEqual(heatRgb(1, ORANGES), ORANGES[4]);
});

test('contrast: the WCAG ratio, symmetric', () => {
  assert.ok(close(contrast([0, 0, 0], [255, 255, 255]), 21));
  assert.ok(close(contrast([255, 255, 255], [0, 0, 0]), 21));
  assert.equal(contrast([9, 9, 9], [9, 9, 9]), 1);
  // sRGB linearization: (0.5 + 0.055) / 1.055) ^ 2.4 for mid grey, the linear part for dark values
  const grey = ((128 / 255 + 0.055) / 1.055) ** 2.4;
  assert.ok(close(contrast([128, 128, 128], [0, 0, 0]), (grey + 0.05) / 0.05));
  const dark = 5 / 255 / 12.92;
  assert.ok(close(contrast([5, 5, 5], [0, 0, 0]), (dark + 0.05) / 0.05));
  const g = 0.7152 * ((200 / 255 + 0.055) / 1.055) ** 2.4;
  assert.ok(close(contrast([0, 200, 0], [0, 0, 0]), (g + 0.05) / 0.05));
  const r = 0.2126 * ((200 / 255 + 0.055) / 1.055) ** 2.4;
  assert.ok(close(contrast([200, 0, 0], [0, 0, 0]), (r + 0.05) / 0.05));
  const b = 0.0722 * ((200 / 255 + 0.055) / 1.055) ** 2.4;
  assert.ok(close(contrast([0, 0, 200], [0, 0, 0]), (b + 0.05) / 0.05));
  // the two branches meet at 0.03928: 10/255 is below it (linear), 11/255 above (power)
  assert.ok(close(contrast([10, 10, 10], [0, 0, 0]), (10 / 255 / 12.92) / 0.05 + 1));
  assert.ok(close(contrast([11, 11, 11], [0, 0, 0]), ((11 / 255 + 0.055) / 1.055) ** 2.4 / 0.05 + 1));
});

test('heatColors: black or white text, whichever contrasts more, at least 4.5:1', () => {
  const light = heatColors(0);
  assert.deepEqual(light,
    { background: `rgb(${BLUES[0].join(',')})`, color: 'rgb(0,0,0)', contrast: contrast(BLUES[0], [0, 0, 0]) });
  const darkBg = heatColors(1);
  assert.equal(darkBg.color, 'rgb(255,255,255)');
  assert.equal(darkBg.contrast, contrast(BLUES[4], [255, 255, 255]));
  for (let i = 0; i <= 100; i++) {
    const c = heatColors(i / 100);
    const bg = heatRgb(i / 100);
    const best = Math.max(contrast(bg, [0, 0, 0]), contrast(bg, [255, 255, 255]));
    assert.equal(c.contrast, best);
    assert.ok(c.contrast >= 4.5);
  }
  assert.equal(heatColors(0.5, ORANGES).background, `rgb(${ORANGES[2].join(',')})`);
});

test('scoreColors: by surprisal in bits, clipped at 12', () => {
  assert.equal(SCORE_MAX_BITS, 12);
  assert.deepEqual(scoreColors(1), heatColors(0, ORANGES));
  assert.deepEqual(scoreColors(2 ** -6), heatColors(0.5, ORANGES));
  assert.deepEqual(scoreColors(2 ** -3), heatColors(0.25, ORANGES));
  assert.deepEqual(scoreColors(2 ** -20), heatColors(1, ORANGES));
  assert.deepEqual(scoreColors(0), heatColors(1, ORANGES));
  assert.deepEqual(scoreColors(-1), heatColors(1, ORANGES));
});

test('scoreContexts: each target read from BOS + the tokens before it', () => {
  const ids = [5, 6, 7];
  const { targets, contexts } = scoreContexts(ids, false, W);
  assert.deepEqual(targets, [5, 6, 7]);
  assert.deepEqual(contexts, [contextWindow([BOS_ID]), contextWindow([BOS_ID, 5]), contextWindow([BOS_ID, 5, 6])]);
  const withEos = scoreContexts(ids, true, W);
  assert.deepEqual(withEos.targets, [5, 6, 7, EOS_ID]);
  assert.deepEqual(withEos.contexts[3], contextWindow([BOS_ID, 5, 6, 7]));
  assert.deepEqual(ids, [5, 6, 7]);
  const long = Array.from({ length: 100 }, (_, i) => 4 + i);
  assert.deepEqual(scoreContexts(long, false, W).contexts[99], long.slice(35, 99));
  assert.deepEqual(scoreContexts([], false, W), { targets: [], contexts: [] });
  assert.deepEqual(scoreContexts([5, 6], false, 2).contexts, [[0, BOS_ID], [BOS_ID, 5]]);
});

test('logProbability: log softmax over every logit', () => {
  const logits = [1, 2, 3, -1];
  const z = logits.reduce((s, x) => s + Math.exp(x), 0);
  logits.forEach((x, i) => assert.ok(close(logProbability(logits, i), Math.log(Math.exp(x) / z))));
  assert.ok(close(logProbability([1000, 1000], 0), Math.log(0.5)));    // no overflow
  assert.ok(close(logProbability([-1000, -1001], 0), -Math.log(1 + Math.exp(-1))));
});

test('summarize: cross-entropy is the mean -log p, perplexity its exp', () => {
  assert.deepEqual(summarize([]), { probabilities: [], cross_entropy: null, perplexity: null });
  const lps = [Math.log(0.5), Math.log(0.25), Math.log(0.125)];
  const s = summarize(lps);
  assert.ok(close(s.cross_entropy, Math.log(4)));
  assert.ok(close(s.perplexity, 4));
  s.probabilities.forEach((p, i) => assert.ok(close(p, [0.5, 0.25, 0.125][i])));
  assert.ok(close(summarize([Math.log(0.2)]).perplexity, 5));
});

test('surprisalBits: -log2 p, infinite at 0', () => {
  assert.equal(surprisalBits(1), -0);
  assert.equal(surprisalBits(0.25), 2);
  assert.equal(surprisalBits(0), Infinity);
  assert.equal(surprisalBits(-0.5), Infinity);
});
