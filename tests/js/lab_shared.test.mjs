// Unit tests of web/lab/shared.js, the values the lab page and its worker share.
import test from 'node:test';
import assert from 'node:assert/strict';

import { BACKENDS, RUNTIMES, TIMING_IDS, median, timingContext } from '../../web/lab/shared.js';
import { BOS_ID, PAD_ID } from '../../web/core/tokenizer.js';

test('median: the middle value, the mean of the two middle ones for an even count, null when empty', () => {
  assert.equal(median([]), null);
  assert.equal(median([7]), 7);
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  const values = [5, 1, 4];
  median(values);
  assert.deepEqual(values, [5, 1, 4]); // the input is not sorted in place
});

test('timingContext: BOS and the timing IDs, left-padded with PAD to the width', () => {
  const ctx = timingContext(8);
  assert.deepEqual(ctx, [PAD_ID, PAD_ID, BOS_ID, ...TIMING_IDS]);
  assert.deepEqual(timingContext(3), TIMING_IDS.slice(-3));
});

test('the menu offers automatic and every runtime', () => {
  assert.deepEqual([...BACKENDS].sort(), ['auto', 'wasm', 'webgpu']);
  assert.deepEqual(BACKENDS.slice(1), RUNTIMES);
});
