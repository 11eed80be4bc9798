// Unit tests of the exercises' twin (web/core/exercises*.js) in Node. The parity
// with the Python reference (export/exercises.py) is tests/test_exercises_parity.py.
import test from 'node:test';
import assert from 'node:assert/strict';

import {
  DECKS, KINDS, answer, draw, formatAnswer, grouped, judge, kindOf, nextSeed, parseAnswer, shownTexts, tolerance,
} from '../../web/core/exercises.js';

const SEEDS = Array.from({ length: 300 }, (_, i) => i * 7919 + 3);
const BAD_TEXT = /NaN|undefined|Infinity|null|\[object/;

test('every deck has at least five exercises, every kind at least three named mistakes', () => {
  assert.deepEqual(Object.keys(DECKS), ['maps', 'part2', 'part3', 'results']);
  for (const [deck, kinds] of Object.entries(DECKS)) assert.ok(kinds.length >= 5, deck);
  for (const kind of Object.values(KINDS)) {
    assert.ok(kind.mistakes.length >= 3, kind.id);
    assert.equal(new Set(kind.mistakes.map((m) => m.name)).size, kind.mistakes.length, kind.id);
    assert.ok(kind.hint.length > 20, kind.id);
  }
  assert.throws(() => kindOf('no-such-exercise'), /unknown exercise "no-such-exercise"/);
  assert.throws(() => kindOf('constructor'), /unknown exercise/);
});

test('the same seed draws the same numbers; the numbers survive JSON (data-inputs)', () => {
  for (const id of Object.keys(KINDS)) {
    assert.deepEqual(draw(id, 42), draw(id, 42), id);
    const x = draw(id, 42);
    assert.deepEqual(JSON.parse(JSON.stringify(x)), x, id);
    const distinct = new Set(SEEDS.slice(0, 40).map((s) => JSON.stringify(draw(id, s))));
    assert.ok(distinct.size >= 8, `${id}: only ${distinct.size} different draws in 40 seeds`);
  }
  assert.notDeepEqual(draw('video-score', 5), draw('score-scaling', 5).q);
  assert.throws(() => draw('sgd-step', -1), /a seed is a whole number/);
  assert.throws(() => draw('sgd-step', 2 ** 32), /a seed is a whole number/);
  assert.throws(() => draw('sgd-step', 1.5), /a seed is a whole number/);
});

test('every kind, many seeds: a finite answer, clean text, the rounded answer accepted, each slip named', () => {
  for (const [id, kind] of Object.entries(KINDS)) {
    let named = 0;
    for (const seed of SEEDS) {
      const x = draw(id, seed);
      const exact = answer(id, x);
      assert.ok(Number.isFinite(exact), `${id} seed ${seed}`);
      const text = [...kind.question(x), ...kind.steps(x), kind.hint].join(' ');
      assert.ok(!BAD_TEXT.test(text), `${id} seed ${seed}: ${text}`);
      const shown = Number(formatAnswer(kind, exact).replace('−', '-').replace('%', ''));
      assert.equal(judge(id, x, shown).correct, true, `${id} seed ${seed}: ${shown} for ${exact}`);
      for (const mistake of kind.mistakes) {
        const slip = mistake.value(x);
        if (slip === null || Math.abs(slip - exact) <= 1.5 * tolerance(kind.digits)) continue;
        const typed = Number(slip.toFixed(kind.digits)); // a slip rounded as asked may round to the answer
        if (Math.abs(typed - exact) <= tolerance(kind.digits)) continue;
        const verdict = judge(id, x, typed);
        assert.equal(verdict.correct, false, `${id} ${mistake.name}`);
        assert.ok(verdict.mistake, `${id} seed ${seed}: ${mistake.name} not named`);
        assert.ok(Math.abs(verdict.mistake.value(x) - slip) <= 2 * tolerance(kind.digits), `${id} ${mistake.name}`);
        if (verdict.mistake === mistake) named += 1;
      }
    }
    assert.ok(named >= SEEDS.length, `${id}: mistakes named only ${named} times`);
  }
});

test('the rounding asked for: half a unit in the last place either way, no more', () => {
  const x = { q: [1, 2], k: [3, 4] }; // 11 / √2 = 7.7781745930520225
  assert.ok(Math.abs(answer('score-scaling', x) - 11 / Math.SQRT2) < 1e-15);
  assert.equal(judge('score-scaling', x, 7.778).correct, true);
  assert.equal(judge('score-scaling', x, 7.77817).correct, true);
  assert.equal(judge('score-scaling', x, 7.7777).correct, true);
  const near = judge('score-scaling', x, 7.779);
  assert.equal(near.correct, false);
  assert.match(near.reason, /does not round to the answer/);
  assert.equal(judge('score-scaling', x, 11).mistake.name, 'scaling-forgotten');
  assert.equal(judge('score-scaling', x, 5.5).mistake.name, 'divided-by-dk');
  assert.equal(judge('score-scaling', x, 15.556).mistake.name, 'multiplied');
  const plain = judge('score-scaling', x, 3);
  assert.deepEqual([plain.correct, plain.mistake, plain.reason], [false, undefined, undefined]);
  // whole-number answers: exact
  assert.equal(judge('causal-mask', { T: 5 }, 15).correct, true);
  assert.equal(judge('causal-mask', { T: 5 }, 14).correct, false);
  assert.equal(judge('causal-mask', { T: 5 }, 10).mistake.name, 'diagonal-blocked');
  assert.equal(judge('causal-mask', { T: 5 }, 25).mistake.name, 'no-mask');
  // a weight outside [0, 1] is wrong, and says why
  const scores = { scores: [null, 0, 0, 0], slot: 1 }; // 1/3 each; PAD counted: 1/4
  assert.ok(Math.abs(answer('softmax-weight', scores) - 1 / 3) < 1e-15);
  assert.equal(judge('softmax-weight', scores, 0.25).mistake.name, 'pad-counted');
  assert.match(judge('softmax-weight', scores, 1.7).reason, /between 0 and 1/);
});

test('worked values by hand, one per deck', () => {
  assert.equal(answer('story-ids', { tokens: [5, 7, 4] }), 18);
  assert.equal(answer('windows-count', { tokens: [3, 10] }), 15);
  assert.equal(answer('mlp-hidden-params', { w: 4, d: 4, h: 8 }), 136);
  assert.ok(Math.abs(answer('cross-entropy', { p: [0.5, 0.25] }) - 1.5 * Math.LN2) < 1e-15);
  assert.ok(Math.abs(answer('sgd-step', { w: 0.5, grad: 0.2, lr: 0.1 }) - 0.48) < 1e-15);
  assert.ok(Math.abs(answer('message-coordinate', { weights: [0.5, 0.5, 0, 0], values: [1, 3, 9, 9] }) - 2) < 1e-15);
  assert.ok(Math.abs(answer('retrieval-temperature', { scores: [2, 0], T: 2 }) - Math.E / (Math.E + 1)) < 1e-15);
  assert.ok(Math.abs(answer('scaled-softmax', { raw: [2, 2, 2], d_k: 4, source: 2 }) - 1 / 3) < 1e-15);
  assert.ok(Math.abs(answer('residual-update',
    { e: [1, 0, 0, 0], m: [1, 2], W_O: [[1, 0, 0, 0], [1, 0, 0, 0]], coordinate: 1 }) - 4) < 1e-15);
  assert.equal(answer('relu-unit', { x: [1, 1, 1], w: [-1, -1, -1], b: 0.5 }), 0);
  assert.equal(answer('allowed-sources', { T: 8, real: 5, query: 3 }), 3);
  assert.ok(Math.abs(answer('never-drawn', { N: 2, n: 3 }) - 12.5) < 1e-12);
  assert.ok(Math.abs(answer('perplexity', { p: [0.5, 0.125] }) - 4) < 1e-12);
  assert.ok(Math.abs(answer('mean-sd', { x: [20, 22, 24] }) - 2) < 1e-12);
  assert.equal(answer('attention-cost', { T: 8, D: 16, heads: 4 }), 1024);
  assert.equal(answer('head-split', { B: 2, T: 8, D: 16, heads: 4 }), 32);
  assert.equal(answer('head-width', { d: 64, heads: 4 }), 16);
  assert.equal(answer('projection-params', { d: 8, heads: 2 }), 256);
  assert.equal(answer('weights-count', { B: 2, heads: 4, T: 4 }), 128);
  assert.ok(Math.abs(answer('perplexity-from-loss', { loss: 2 }) - Math.E ** 2) < 1e-12);
  assert.ok(Math.abs(answer('reduction-percent', { one_head: 40, four_heads: 30 }) - 25) < 1e-12);
});

test('the multi-step exercises by hand (issue 34): each chain, and each named slip of it', () => {
  const near = (a, b) => assert.ok(Math.abs(a - b) < 1e-12, `${a} is not ${b}`);
  const named = (id, x, value) => judge(id, x, Number(value.toFixed(kindOf(id).digits))).mistake?.name;
  // equal scores share evenly: the message is the plain mean of the values; one weight per source → their sum
  const step = { q: [1, 1], keys: [[1, 0], [0, 1], [0.5, 0.5]], values: [3, 6, 9] };
  near(answer('attention-step', step), 6);
  assert.equal(named('attention-step', step, 18), 'wrong-axis');
  assert.equal(named('attention-step', step, 0.5), 'keys-mixed'); // the keys' first coordinates, mixed evenly
  const padded = { q: [2, 0], keys: [[9, 9], [0, 1], [0, -1], [0, 2]], pad: 1, slot: 3 };
  near(answer('pad-masked-weight', padded), 1 / 3);
  assert.equal(named('pad-masked-weight', padded, 1 / (Math.exp(18 / Math.SQRT2) + 3)), 'pad-counted');
  const row = { scores: [0, Math.log(3), 5, 7], query: 2, source: 1 };
  near(answer('masked-row', row), 0.25);
  assert.equal(named('masked-row', row, 0), 'past-masked');
  assert.equal(named('masked-row', { ...row, query: 3, source: 2 }, 0.75), 'diagonal-masked');
  const projection = { e: [1, 2, 0, 0], W_Q: [[1, 0], [0, 1], [5, 5], [5, 5]], k: [1, 2] };
  near(answer('query-projection', projection), 5 / Math.SQRT2);
  assert.equal(named('query-projection', projection, 5), 'scaling-forgotten');
  assert.equal(named('query-projection', projection, 4 / Math.SQRT2), 'columns-swapped');
  const heads = { scores: [[0, 0], [0, 50]], values: [[1, 3], [4, -2]], W_O: [1, 3] };
  assert.ok(Math.abs(answer('two-heads', heads) + 4) < 1e-9); // m₁ = 2, m₂ = −2
  assert.equal(named('two-heads', heads, 0), 'messages-added');
  assert.equal(named('two-heads', heads, 2), 'one-head');
  assert.equal(named('two-heads', heads, 10), 'heads-swapped');
  assert.equal(named('two-heads', heads, -6), 'one-softmax');
  const p = [0.1, 0.3, 0.05, 0.5, 0.05];
  near(answer('top-k-renormalised', { p, token: 2 }), 0.375);
  assert.equal(named('top-k-renormalised', { p, token: 2 }, 0.3 / 0.9), 'top-three');
  near(answer('top-p-renormalised', { p, top_p: 0.85 }), 0.5 / 0.9);
  assert.equal(named('top-p-renormalised', { p, top_p: 0.85 }, 0.5 / 0.8), 'one-too-few');
  assert.equal(named('top-p-renormalised', { p, top_p: 0.85 }, 0.5 / 0.95), 'one-too-many');
  const ablation = { on: 4, off: [4.1, 4.2, 4.3, 4.4], all_off: 5.5 };
  assert.ok(Math.abs(answer('ablation-interaction', ablation) - 0.5) < 1e-9); // super-additive
  assert.equal(named('ablation-interaction', ablation, -0.5), 'reversed');
  assert.equal(named('ablation-interaction', ablation, 5.5 - 17), 'losses-not-costs');
  near(answer('costliest-head', { on: 1, off: [1.5, 2, 1.2, 1.1] }), Math.E ** 2 - Math.E);
  assert.equal(named('costliest-head', { on: 1, off: [1.5, 2, 1.2, 1.1] }, 1), 'cost-in-nats');
  assert.ok(Math.abs(answer('paired-gain', { one_head: 3, four_heads: 3 - Math.LN2 }) - 50) < 1e-9);
});

test('New numbers always changes the answer, and is deterministic', () => {
  for (const id of Object.keys(KINDS)) {
    for (const seed of SEEDS.slice(0, 30)) {
      const next = nextSeed(id, seed);
      assert.equal(next, nextSeed(id, seed));
      assert.ok(Math.abs(answer(id, draw(id, next)) - answer(id, draw(id, seed))) > tolerance(kindOf(id).digits), id);
    }
  }
  assert.equal(nextSeed('head-width', 2 ** 32 - 1) < 200, true); // wraps around
});

test('grouped: every whole number from 1,000 on gets its commas, a clause comma after it too', () => {
  assert.equal(grouped('8 heads: 8 · 256 = 2048, which is w²·d.'), '8 heads: 8 · 256 = 2,048, which is w²·d.');
  assert.equal(grouped('4 · 256 = 1024, whatever the head count.'), '4 · 256 = 1,024, whatever the head count.');
  assert.equal(grouped('Answer: 16384.'), 'Answer: 16,384.');
  assert.equal(grouped('0.23236 and 1.2345, then 16,384'), '0.23236 and 1.2345, then 16,384');
  // every shown step of every exercise, for 50 seeds, has no ungrouped whole number
  for (const id of Object.keys(KINDS)) {
    for (let seed = 0; seed < 50; seed += 1) {
      const { question, steps, answer: line } = shownTexts(id, seed);
      for (const text of [...question, ...steps, line]) {
        assert.doesNotMatch(text, /(?<![\d.,\w])\d{4,}(?!\d|,\d|\.\d)/, `${id} seed ${seed}: ${text}`);
      }
    }
  }
});

test('parseAnswer: numbers in the usual spellings, a message for everything else', () => {
  const ok = (text, value, opts = {}) => assert.deepEqual(parseAnswer(text, opts), { value }, text);
  const bad = (text, pattern, opts = {}) => assert.match(parseAnswer(text, opts).error || '', pattern, text);
  ok('0.5', 0.5);
  ok(' 0,5 ', 0.5);
  ok('−0.25', -0.25);
  ok('-.5', -0.5);
  ok('+2', 2);
  ok('5.', 5);
  ok('1e-3', 0.001);
  ok('16,384', 16384, { digits: 0 });
  ok('16384', 16384, { digits: 0 });
  ok('12.5%', 12.5, { digits: 1, percent: true });
  ok('12,5 %', 12.5, { digits: 1, percent: true });
  bad('', /Type your answer/);
  bad('   ', /Type your answer/);
  bad('abc', /Type a number such as 0\.25/);
  bad('0.5 0.6', /Type a number/);
  bad('1/2', /Type a number/);
  bad('NaN', /not a number the question can have/);
  bad('-Infinity', /not a number the question can have/);
  bad('1e400', /far too large/);
  bad('123456789012345678901234567890', /far too large/);
  bad('1,2,3', /one number/);
  bad('1.000,5', /one number/);
  bad('12%', /not a percentage/);
  bad('3.5', /whole number/, { digits: 0 });
  bad('0,5', /whole number/, { digits: 0 });
  assert.deepEqual(parseAnswer(undefined), { error: 'Type your answer as a number first.' });
});
