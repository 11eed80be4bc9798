// Unit tests of web/core/ablation.js: hidden words, head masks, per-step
// windows and the one-pass/per-step agreement (export/ablation.py mirrors it).
import test from 'node:test';
import assert from 'node:assert/strict';

import { headMask, hiddenSlots, hideInWindow, stepAgreement, stepWeight, stepWindows }
  from '../../web/core/ablation.js';
import { BOS_ID, PAD_ID } from '../../web/core/tokenizer.js';

test('hiddenSlots: history positions map to slots; the newest slot is never hidden', () => {
  // history of 6 IDs in a window of 4: slots hold positions 2, 3, 4, 5
  assert.deepEqual(hiddenSlots(6, new Set([0, 3, 5]), 4), [false, true, false, false]);
  // a short history: slots 0..1 are PAD (positions -2, -1)
  assert.deepEqual(hiddenSlots(2, new Set([0]), 4), [false, false, true, false]);
  assert.deepEqual(hiddenSlots(2, new Set(), 4), [false, false, false, false]);
});

test('hideInWindow: hidden tokens read as PAD, in place; nothing else changes', () => {
  const w = [7, 8, 9, 10];
  assert.equal(hideInWindow(w, 6, new Set([2, 5])), w);
  assert.deepEqual(w, [PAD_ID, 8, 9, 10]);
  assert.deepEqual(hideInWindow([1, 2, 3], 3, null), [1, 2, 3]);
});

test('stepWindows: the window of each step, left-padded', () => {
  const history = [BOS_ID, 5, 6];
  assert.deepEqual(stepWindows(history, 2), [[PAD_ID, BOS_ID], [BOS_ID, 5], [5, 6]]);
  assert.deepEqual(stepWindows(history, 2, 2), [[5, 6]]);
});

test('headMask: 1 on, 0 off', () => {
  assert.deepEqual([...headMask(4, [1, 3])], [1, 0, 1, 0]);
  assert.deepEqual([...headMask(1, [])], [1]);
});

test('stepWeight: the slot of a history position in step t\'s window, 0 outside it', () => {
  const row = [0.1, 0.2, 0.3, 0.4];
  assert.equal(stepWeight(row, 5, 5, 4), 0.4);
  assert.equal(stepWeight(row, 5, 2, 4), 0.1);
  assert.equal(stepWeight(row, 5, 1, 4), 0);
  assert.equal(stepWeight(row, 5, 6, 4), 0);
});

test('stepAgreement: counts rows whose strongest source matches and the largest difference', () => {
  // a window of 3 slots holding positions 0..2 (offset 0), one head
  const matrix = [[1, 0, 0], [0.3, 0.7, 0], [0.5, 0.25, 0.25]];
  const steps = { 0: [0, 0, 1], 1: [0, 0.4, 0.6], 2: [0.2, 0.3, 0.5] };
  const out = stepAgreement({ heads: 1, real: [0, 1, 2], offset: 0, width: 3,
    matrix: (h, q, k) => matrix[q][k], steps: (h, t) => steps[t] });
  // row 0: both on position 0; row 1: one-pass 1, steps 1 (0.6); row 2: one-pass 0, steps 2
  assert.deepEqual({ rows: out.rows, same: out.same }, { rows: 3, same: 2 });
  assert.ok(Math.abs(out.maxDiff - 0.3) < 1e-12);
});

import { checkAblation, noAblation } from '../../web/lab/guards.js';

const META = {
  order: ['mlp', 'attn1', 'attn4'],
  models: { mlp: { heads: 0, label: 'Fixed-window MLP' }, attn1: { heads: 1 }, attn4: { heads: 4 } },
};

test('checkAblation: normalizes good options, every attention model named', () => {
  assert.deepEqual(checkAblation(META, {}), { heads_off: { attn1: [], attn4: [] }, hide: [] });
  assert.deepEqual(checkAblation(META, { heads_off: { attn4: [3, 1] }, hide: [4, 0] }, 5),
    { heads_off: { attn1: [], attn4: [1, 3] }, hide: [0, 4] });
  assert.ok(noAblation(checkAblation(META, { heads_off: { attn4: [] } })));
  assert.ok(!noAblation(checkAblation(META, { hide: [1] }, 3)));
});

test('checkAblation: every bad value is refused with a message that names the option', () => {
  const bad = [
    [{ heads_off: { attn9: [0] } }, /^heads_off: unknown model "attn9"/],
    [{ heads_off: { constructor: [0] } }, /^heads_off: unknown model/],
    [{ heads_off: { mlp: [0] } }, /^heads_off\.mlp: .* no attention heads/],
    [{ heads_off: { attn4: [4] } }, /^heads_off\.attn4: head 4 does not exist \(attn4 has heads 0 to 3/],
    [{ heads_off: { attn4: [1.5] } }, /^heads_off\.attn4: 1\.5 is not a whole head number/],
    [{ heads_off: { attn4: [2, 2] } }, /^heads_off\.attn4 lists head 2 twice/],
    [{ heads_off: { attn4: 2 } }, /^heads_off\.attn4 must be an array/],
    [{ heads_off: [1] }, /^heads_off must be an object/],
    [{ hide: [5] }, /^hide: position 5 is outside the token history \(positions 0 to 4/],
    [{ hide: [-1] }, /^hide: position -1/],
    [{ hide: ['1'] }, /^hide: "1" is not a whole position number/],
    [{ hide: [1, 1] }, /^hide lists position 1 twice/],
    [{ hide: 3 }, /^hide must be an array/],
  ];
  for (const [options, message] of bad) assert.throws(() => checkAblation(META, options, 5), { message });
});
