// Unit tests of web/core/decoding.js in Node (node --test tests/js/).
import test from 'node:test';
import assert from 'node:assert/strict';

import {
  BANNED, mulberry32, contextWindow as windowOf, startHistory, greedyChoice, checkFilters, ranking, keptIds,
  samplingWeights, sampledChoice, choose, Decoder, generate, softmax, topK, checkWidth,
} from '../../web/core/decoding.js';
import { PAD_ID, BOS_ID, EOS_ID, UNK_ID } from '../../web/core/tokenizer.js';

// mulberry32 written again with BigInt arithmetic (mod 2^32), as an independent oracle.
function mulberry32BigInt(seed) {
  const M = (1n << 32n) - 1n;
  let a = BigInt(seed >>> 0);
  return () => {
    a = (a + 0x6D2B79F5n) & M;
    let t = ((a ^ (a >> 15n)) * (a | 1n)) & M;
    t = (((t + (((t ^ (t >> 7n)) * (t | 61n)) & M)) & M) ^ t) & M;
    return Number((t ^ (t >> 14n)) & M) / 4294967296;
  };
}

// The lab reads the width from onnx/metadata.json; these tests use the course's 64.
const W = 64;
const contextWindow = (history, size = W) => windowOf(history, size);

const close = (a, b, tol = 1e-12) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b));

test('constants: PAD BOS UNK banned; the context width is always given', () => {
  assert.throws(() => windowOf([5]), /context width must be a whole number >= 0 \(metadata.json's context\), got undefined/);
  assert.throws(() => windowOf([5], 2.5), /got 2.5/);
  assert.throws(() => windowOf([5], -1), /got -1/);
  assert.equal(checkWidth(0), 0);
  assert.throws(() => new Decoder([5], { limit: 3 }), /context width/);
  assert.throws(() => new Decoder([5], { context: W }), /limit must be a whole number of tokens, got undefined/);
  assert.deepEqual([...BANNED].sort(), [PAD_ID, BOS_ID, UNK_ID].sort());
  assert.ok(!BANNED.has(EOS_ID));
});

test('mulberry32 equals a BigInt implementation, floats in [0, 1)', () => {
  for (const seed of [0, 1, 7, 42, 2 ** 31 - 1, 2 ** 32 - 1, 2 ** 32 + 5, -1]) {
    const a = mulberry32(seed), b = mulberry32BigInt(seed);
    for (let i = 0; i < 500; i++) {
      const x = a();
      assert.equal(x, b(), `seed ${seed} draw ${i}`);
      assert.ok(x >= 0 && x < 1);
    }
  }
  assert.notEqual(mulberry32(1)(), mulberry32(2)());
});

test('contextWindow: the last 64 IDs, left-padded with PAD', () => {
  assert.deepEqual(contextWindow([]), new Array(64).fill(PAD_ID));
  const short = contextWindow([1, 5, 6]);
  assert.equal(short.length, 64);
  assert.deepEqual(short.slice(61), [1, 5, 6]);
  assert.ok(short.slice(0, 61).every((x) => x === PAD_ID));
  const long = Array.from({ length: 200 }, (_, i) => i + 1);
  assert.deepEqual(contextWindow(long), long.slice(-64));
  const exact = Array.from({ length: 64 }, (_, i) => i + 1);
  assert.deepEqual(contextWindow(exact), exact);
  assert.deepEqual(contextWindow([7, 8, 9], 2), [8, 9]);
  assert.deepEqual(contextWindow([7], 3), [0, 0, 7]);
  assert.deepEqual(contextWindow([7, 8], 0), []);
});

test('startHistory puts BOS before the prompt and copies it', () => {
  const prompt = [5, 6];
  const h = startHistory(prompt);
  assert.deepEqual(h, [BOS_ID, 5, 6]);
  h.push(9);
  assert.deepEqual(prompt, [5, 6]);
  assert.deepEqual(startHistory([]), [BOS_ID]);
});

test('greedyChoice: highest logit, lowest ID on ties, banned IDs never', () => {
  assert.equal(greedyChoice([0, 0, 0, 0, 1, 3, 2]), 5);
  assert.equal(greedyChoice([0, 0, 0, 0, 3, 1, 3]), 4);                 // tie: lower ID
  assert.equal(greedyChoice([100, 100, 0, 100, 1, 2]), 5);              // PAD BOS UNK banned
  assert.equal(greedyChoice([0, 0, 9, 0, 1]), EOS_ID);                  // EOS may win
  assert.equal(greedyChoice([0, 0, -5, 0, -7, -6]), EOS_ID);            // negative logits
  assert.equal(greedyChoice([0, 0, -Infinity, 0, -Infinity]), EOS_ID);  // first allowed even at -inf
});

test('checkFilters accepts top_k >= 0 integers and top_p in (0, 1]', () => {
  for (const [k, p] of [[0, 1], [1, 0.5], [40, 1e-9], [3, 1]]) assert.doesNotThrow(() => checkFilters(k, p));
  assert.doesNotThrow(() => checkFilters());
  for (const k of [-1, 1.5, '3', NaN, true]) assert.throws(() => checkFilters(k, 1), /top_k must be an integer >= 0/);
  for (const p of [0, -0.1, 1.01, '0.5', NaN]) assert.throws(() => checkFilters(0, p), /top_p must be in \(0, 1\]/);
  assert.throws(() => checkFilters(-2, 1), /got -2/);
  assert.throws(() => checkFilters(0, 2), /got 2/);
});

test('ranking: allowed IDs by logit, highest first, lower ID first on ties', () => {
  assert.deepEqual(ranking([9, 9, 1, 9, 3, 5, 3]), [5, 4, 6, 2]);
  assert.deepEqual(ranking([0, 0, 0, 0, 2, 2, 2]), [4, 5, 6, 2]);
});

const LOGITS = [0, 0, 1.0, 0, 3.0, 2.0, 0.5, 2.0];       // allowed: 2, 4, 5, 6, 7

test('keptIds: top-k then the shortest top-p prefix', () => {
  const w = samplingWeights(LOGITS, 1);
  assert.deepEqual(keptIds(LOGITS, w), [4, 5, 7, 2, 6]);
  assert.deepEqual(keptIds(LOGITS, w, 0, 1), [4, 5, 7, 2, 6]);
  assert.deepEqual(keptIds(LOGITS, w, 2), [4, 5]);
  assert.deepEqual(keptIds(LOGITS, w, 1, 1), [4]);
  assert.deepEqual(keptIds(LOGITS, w, 99), [4, 5, 7, 2, 6]);
  const total = w.reduce((s, x) => s + x, 0);
  const share4 = w[4] / total, share45 = (w[4] + w[5]) / total;
  assert.deepEqual(keptIds(LOGITS, w, 0, 1e-6), [4]);
  assert.deepEqual(keptIds(LOGITS, w, 0, share4), [4]);                 // reaching top_p exactly stops
  assert.deepEqual(keptIds(LOGITS, w, 0, share4 + 1e-9), [4, 5]);
  assert.deepEqual(keptIds(LOGITS, w, 0, share45 + 1e-9), [4, 5, 7]);
  // top-p measures the share of what top-k kept
  const k2 = (w[4]) / (w[4] + w[5]);
  assert.deepEqual(keptIds(LOGITS, w, 2, k2), [4]);
  assert.deepEqual(keptIds(LOGITS, w, 2, k2 + 1e-9), [4, 5]);
  assert.deepEqual(keptIds(LOGITS, w, 2, 0.9999), [4, 5]);
});

test('samplingWeights: exp((logit - max) / T) over allowed IDs, cut by top-k/top-p', () => {
  assert.throws(() => samplingWeights(LOGITS, 0), /temperature must be > 0, got 0/);
  assert.throws(() => samplingWeights(LOGITS, -1), /temperature must be > 0/);
  assert.throws(() => samplingWeights(LOGITS, NaN), /temperature must be > 0/);
  assert.throws(() => samplingWeights(LOGITS, 1, -1), /top_k/);
  assert.throws(() => samplingWeights(LOGITS, 1, 0, 0), /top_p/);
  for (const T of [0.5, 1, 2.5]) {
    const w = samplingWeights(LOGITS, T);
    assert.ok(w instanceof Float64Array && w.length === LOGITS.length);
    assert.equal(w[4], 1);                                              // the top allowed logit
    for (const i of [2, 5, 6, 7]) assert.ok(close(w[i], Math.exp((LOGITS[i] - 3) / T)), `T=${T} id ${i}`);
    for (const i of [0, 1, 3]) assert.equal(w[i], 0);
  }
  // the max is taken over allowed IDs only: a huge banned logit changes nothing
  const big = [50, 50, 1, 50, 2];
  assert.deepEqual(Array.from(samplingWeights(big, 1)), [0, 0, Math.exp(-1), 0, 1]);
  assert.deepEqual(Array.from(samplingWeights(['1', '2', '3', '4', '5'], 1)).slice(4), [1]);   // numbers from strings
  const cut = samplingWeights(LOGITS, 1, 2);
  assert.deepEqual([...cut].map((x, i) => (x > 0 ? i : -1)).filter((i) => i >= 0), [4, 5]);
  assert.equal(cut[5], Math.exp(-1));
  const cutP = samplingWeights(LOGITS, 1, 0, 1e-6);
  assert.deepEqual([...cutP].map((x) => x > 0), LOGITS.map((_, i) => i === 4));
});

test('sampledChoice: the first ID whose running weight exceeds u * total', () => {
  const logits = [0, 0, Math.log(1), 0, Math.log(2), Math.log(1)];     // weights 0.5 1 0.5 after max-shift
  const pick = (u, ...args) => sampledChoice(logits, 1, () => u, ...args);
  assert.equal(pick(0), 2);
  assert.equal(pick(0.2499), 2);
  assert.equal(pick(0.25), 4);                                          // strictly greater
  assert.equal(pick(0.7499), 4);
  assert.equal(pick(0.75), 5);
  assert.equal(pick(0.9999), 5);
  assert.equal(pick(1), 5);                                             // rounding at the end: last allowed ID
  assert.equal(pick(0.9, 1), 4);                                        // top-k 1 keeps the greedy ID
  assert.equal(pick(0.1, 0, 0.5), 4);                                   // top-p keeps only the top
  // the draw frequencies follow the weights
  const rng = mulberry32(3);
  const counts = [0, 0, 0, 0, 0, 0];
  for (let i = 0; i < 4000; i++) counts[sampledChoice(logits, 1, rng)] += 1;
  assert.ok(Math.abs(counts[4] / 4000 - 0.5) < 0.03 && Math.abs(counts[2] / 4000 - 0.25) < 0.03);
  assert.equal(counts[0] + counts[1] + counts[3], 0);
});

test('choose: greedy ignores the rng, sampled uses it, other modes throw', () => {
  let draws = 0;
  const rng = () => { draws += 1; return 0; };
  assert.equal(choose(LOGITS, 'greedy', 1, rng), 4);
  assert.equal(draws, 0);
  assert.equal(choose(LOGITS, 'sampled', 1, rng), 2);
  assert.equal(draws, 1);
  assert.equal(choose(LOGITS, 'sampled', 1, () => 0, 1), 4);
  assert.equal(choose(LOGITS, 'sampled', 1, () => 0, 0, 0.5), 4);
  assert.throws(() => choose(LOGITS, 'beam', 1, rng), /mode must be 'greedy' or 'sampled', got beam/);
});

// A bigram "model": the logits depend on the last ID of the context only.
function bigram(V, seed) {
  const r = mulberry32(seed);
  return Array.from({ length: V }, () => Array.from({ length: V }, () => 4 * r() - 2));
}

test('Decoder: context, step, EOS and limit stops, finish', () => {
  assert.throws(() => new Decoder([5], { context: W, limit: 3, mode: 'beam' }), /mode must be 'greedy' or 'sampled', got beam/);
  assert.throws(() => new Decoder([5], { context: W, limit: 3, top_k: -1 }), /top_k/);
  assert.throws(() => new Decoder([5], { context: W, limit: 3, top_p: 0 }), /top_p/);
  const d = new Decoder([5, 6], { context: W, limit: 3 });
  assert.equal(d.stop, null);
  assert.deepEqual([...d.context()], contextWindow([BOS_ID, 5, 6]));
  assert.equal(d.step([0, 0, 0, 0, 0, 0, 0, 1]), 7);
  assert.deepEqual([...d.context()], contextWindow([BOS_ID, 5, 6, 7]));
  assert.deepEqual(d.ids, [7]);
  assert.equal(d.stop, null);
  d.step([0, 0, 0, 0, 1]);
  assert.equal(d.stop, null);
  d.step([0, 0, 0, 0, 0, 1]);
  assert.deepEqual(d.ids, [7, 4, 5]);
  assert.equal(d.stop, 'limit');
  assert.equal(d.calls, 3);
  d.finish('error');
  assert.equal(d.stop, 'limit');                                        // a finished decoder keeps its reason

  const e = new Decoder([], { context: W, limit: 5 });
  assert.equal(e.step([0, 0, 5, 0, 1]), EOS_ID);
  assert.deepEqual(e.ids, []);
  assert.deepEqual(e.history, [BOS_ID]);                                // EOS adds no text
  assert.equal(e.stop, 'eos');
  assert.equal(e.calls, 1);

  const f = new Decoder([4], { context: W, limit: 5 });
  f.finish('stop');
  assert.equal(f.stop, 'stop');
  assert.equal(new Decoder([4], { context: W, limit: 0 }).stop, 'limit');
  assert.equal(new Decoder([4], { context: W, limit: -1 }).stop, 'limit');
  const g = new Decoder([4], { context: W, limit: 7 });
  assert.deepEqual([g.width, g.mode, g.temperature, g.limit, g.topK, g.topP], [W, 'greedy', 1, 7, 0, 1]);
  assert.deepEqual([...new Decoder([5, 6, 7], { context: 2, limit: 1 }).context()], [6, 7]);   // the width it was given
  const long = new Decoder(Array.from({ length: 100 }, (_, i) => 4 + (i % 30)), { context: W, limit: 1 });
  assert.deepEqual([...long.context()], contextWindow(long.history));
});

test('generate runs the Decoder loop: greedy, sampled with a seed, top-k/top-p', async () => {
  const V = 30;
  const table = bigram(V, 11);
  const calls = [];
  const fn = async (ctx) => { calls.push(ctx); return table[ctx[ctx.length - 1]]; };
  const greedy = await generate(fn, [5, 6], { context: W, limit: 10 });
  // the same loop by hand
  const history = [BOS_ID, 5, 6], ids = [];
  let stop = 'limit', n = 0;
  while (ids.length < 10) {
    n += 1;
    const next = greedyChoice(table[history[history.length - 1]]);
    if (next === EOS_ID) { stop = 'eos'; break; }
    history.push(next); ids.push(next);
  }
  assert.deepEqual(greedy, { ids, stop, calls: n });
  assert.deepEqual(calls[0], contextWindow([BOS_ID, 5, 6]));
  assert.ok(calls.every((c) => c.length === 64));
  assert.notEqual(calls[0], calls[1]);                                  // each call gets its own copy

  const opts = { context: W, mode: 'sampled', temperature: 0.8, seed: 99, limit: 40, top_k: 5, top_p: 0.9 };
  const sampled = await generate(async (ctx) => table[ctx[63]], [9], opts);
  const rng = mulberry32(99), h = [BOS_ID, 9], out = [];
  let s = 'limit', c = 0;
  while (out.length < 40) {
    c += 1;
    const next = sampledChoice(table[h[h.length - 1]], 0.8, rng, 5, 0.9);
    if (next === EOS_ID) { s = 'eos'; break; }
    h.push(next); out.push(next);
  }
  assert.deepEqual(sampled, { ids: out, stop: s, calls: c });
  const other = await generate(async (ctx) => table[ctx[63]], [9], { ...opts, seed: 100 });
  assert.notDeepEqual(other.ids, sampled.ids);

  const eos = await generate(async () => [0, 0, 1, 0, 0], [4], { context: W, limit: 5 });
  assert.deepEqual(eos, { ids: [], stop: 'eos', calls: 1 });
  const none = await generate(async () => [0, 0, 0, 0, 1], [4], { context: W, limit: 0 });
  assert.deepEqual(none, { ids: [], stop: 'limit', calls: 0 });
  const short = await generate(async (ctx) => { assert.equal(ctx.length, 3); return [0, 0, 0, 0, 1]; }, [],
    { context: 3, limit: 6 });
  assert.equal(short.ids.length, 6);
});

test('softmax: normalized exp((x - max) / T) over every ID', () => {
  const p = softmax([1, 2, 3]);
  const z = Math.exp(1) + Math.exp(2) + Math.exp(3);
  [1, 2, 3].forEach((x, i) => assert.ok(close(p[i], Math.exp(x) / z)));
  const q = softmax([1, 2, 3], 2);
  const zq = Math.exp(0.5) + Math.exp(1) + Math.exp(1.5);
  [1, 2, 3].forEach((x, i) => assert.ok(close(q[i], Math.exp(x / 2) / zq)));
  const big = softmax([1000, 1000, -1000]);                             // no overflow
  assert.ok(close(big[0], 0.5) && close(big[1], 0.5) && big[2] === 0);
  const neg = softmax([-5, -6]);
  assert.ok(close(neg[0], 1 / (1 + Math.exp(-1))));
});

test('topK: the k largest, largest first, lower index on ties', () => {
  assert.deepEqual(topK([0.1, 0.5, 0.2, 0.5, 0.9], 3), [4, 1, 3]);
  assert.deepEqual(topK([3, 1, 2], 5), [0, 2, 1]);
  assert.deepEqual(topK([1, 2, 3, 4, 5], 2), [4, 3]);
  assert.deepEqual(topK([5, 4, 3, 2, 1], 2), [0, 1]);
  assert.deepEqual(topK([2, 2, 2, 2], 2), [0, 1]);
  assert.deepEqual(topK([1, 3, 2, 5, 4], 1), [3]);
  assert.deepEqual(topK([], 3), []);
  const r = mulberry32(5);
  const values = Array.from({ length: 200 }, () => Math.round(r() * 50));
  const expected = values.map((v, i) => [v, i]).sort((a, b) => b[0] - a[0] || a[1] - b[1]).slice(0, 10)
    .map((x) => x[1]);
  assert.deepEqual(topK(values, 10), expected);
});

test('softmax and sampling weights shift by the largest allowed logit: huge logits stay finite', () => {
  const base = [0.5, -1, 2, 0.25, 1.5, -0.75, 3];
  const big = base.map((x) => x + 5000);                               // exp(5000) overflows without the shift
  const p = softmax(big), q = softmax(base);
  base.forEach((_, i) => assert.ok(Number.isFinite(p[i]) && close(p[i], q[i], 1e-9), `softmax ${i}`));
  const w = samplingWeights(big, 0.7), v = samplingWeights(base, 0.7);
  base.forEach((_, i) => assert.ok(Number.isFinite(w[i]) && close(w[i], v[i], 1e-9), `weight ${i}`));
  assert.equal(Math.max(...w), 1);                                      // the top allowed ID weighs exactly 1
  // a banned ID's huge logit does not set the shift (else every allowed weight would underflow to 0)
  const padHigh = [9000, 0, 1, 0, 2, 0.5];
  const u = samplingWeights(padHigh, 1);
  assert.equal(u[PAD_ID], 0);
  assert.equal(u[4], 1);
  assert.ok(close(u[2], Math.exp(-1)));
  assert.equal(sampledChoice(padHigh, 1, () => 0.999999), 5);           // the last allowed ID with weight
  assert.equal(greedyChoice(padHigh), 4);
});
