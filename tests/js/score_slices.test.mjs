// The Score view adds its tokens a slice at a time (web/lab/score-view.js):
// each slice ends after a sentence once it holds RENDER_SLICE tokens, so its
// line break falls where a sentence ends; a text without one is cut at twice
// that; the slices cover every token once, in order.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sliceEnd } from '../../web/lab/score-view.js';

function slices(tokens) {
  const out = [];
  for (let start = 0, end; start < tokens.length; start = end) {
    end = sliceEnd(tokens, start);
    assert.ok(end > start, `slice at ${start} is empty`);
    out.push(tokens.slice(start, end));
  }
  return out;
}

test('slices end after a sentence from 100 tokens on and cover every token once', () => {
  const sentence = ['once', 'upon', 'a', 'time', 'the', 'dog', 'ran', 'home', '.'];
  const tokens = Array.from({ length: 4096 }, (_, i) => sentence[i % sentence.length]);
  const parts = slices(tokens);
  assert.deepEqual(parts.flat(), tokens);
  for (const part of parts.slice(0, -1)) {
    assert.equal(part.at(-1), '.');
    assert.ok(part.length >= 100 && part.length < 100 + sentence.length, part.length);
  }
});

test('a text without a sentence end is cut at 200 tokens; <EOS>, ! and ? end a sentence', () => {
  const words = Array.from({ length: 450 }, () => 'dog');
  assert.deepEqual(slices(words).map((p) => p.length), [200, 200, 50]);
  for (const end of ['<EOS>', '!', '?']) {
    const tokens = [...Array.from({ length: 120 }, () => 'dog'), end, 'the', 'cat'];
    tokens[110] = end;
    assert.equal(sliceEnd(tokens, 0), 111);
  }
});
