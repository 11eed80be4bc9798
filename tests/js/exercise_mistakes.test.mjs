// Every named mistake of every exercise is reachable: typed as the mistake
// computes it (rounded as asked), it is named as itself for a good share of the
// drawn numbers. A mistake computed so that it equals the answer, or shadowed by
// another mistake, is never named, and fails here.
import test from 'node:test';
import assert from 'node:assert/strict';

import { KINDS, answer, draw, judge, tolerance } from '../../web/core/exercises.js';

const SEEDS = Array.from({ length: 300 }, (_, i) => i * 7919 + 3);
const SHARE = 0.25; // the least-named mistake today is named on 42% of these seeds (top-p's unsorted)

test('each named mistake is named as itself on at least a quarter of the seeds', () => {
  for (const [id, kind] of Object.entries(KINDS)) {
    for (const mistake of kind.mistakes) {
      let named = 0;
      for (const seed of SEEDS) {
        const x = draw(id, seed);
        const slip = mistake.value(x);
        if (slip === null) continue;
        const typed = Number(slip.toFixed(kind.digits));
        if (Math.abs(typed - answer(id, x)) <= tolerance(kind.digits)) continue;
        if (judge(id, x, typed).mistake === mistake) named += 1;
      }
      assert.ok(named >= SHARE * SEEDS.length, `${id} "${mistake.name}": named on ${named} of ${SEEDS.length} seeds`);
    }
  }
});
