// The seed a page address gives its exercises (web/widgets/exercise.js): every
// seed the exercises accept (0 to 2**32 - 1, a teacher's 20240 included), and a
// message naming any other value instead of a silent fresh draw.
import test from 'node:test';
import assert from 'node:assert/strict';

import { SEED_MAX } from '../../web/core/exercises.js';
import { refusedSeed, seedFromAddress } from '../../web/widgets/exercise.js';

test('every whole number from 0 to SEED_MAX in the address is the seed', () => {
  for (const seed of [0, 7, 9999, 10000, 20240, 123456789, SEED_MAX]) {
    assert.equal(seedFromAddress(`?seed=${seed}`), seed);
    assert.equal(refusedSeed(`?seed=${seed}`), null);
  }
  assert.equal(seedFromAddress('?lang=en&seed=20240'), 20240);
  assert.equal(seedFromAddress(''), null);
  assert.equal(refusedSeed(''), null);
});

test('any other seed is refused and named', () => {
  for (const text of [String(SEED_MAX + 1), '-1', '1e3', '12abc', '3.5', 'banana', '', '99999999999']) {
    const search = `?seed=${encodeURIComponent(text)}`;
    assert.equal(seedFromAddress(search), null, text);
    const message = refusedSeed(search);
    assert.ok(message.includes(`"${text}"`) && message.includes('4,294,967,295'), message);
  }
  const long = refusedSeed(`?seed=${'9'.repeat(500)}`);
  assert.ok(long.length < 160 && long.includes('…'), long);
});
