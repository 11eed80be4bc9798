// Unit tests of the lab's bounds (issue 25, points 3 to 5): scoreContexts is
// linear in the text, and the guards name every bad value (web/lab/guards.js).
import test from 'node:test';
import assert from 'node:assert/strict';

import { scoreContexts } from '../../web/core/scoring.js';
import { contextWindow, startHistory } from '../../web/core/decoding.js';
import { EOS_ID } from '../../web/core/tokenizer.js';
import {
  MAX_CONTEXTS, MAX_TEXT_CHARS, checkContexts, checkGraph, checkIds, checkMetadata, checkPresets, checkText,
  checkVocab,
} from '../../web/lab/guards.js';

const W = 64;

test('scoreContexts: each target is read from the last 64 IDs before it, as the whole-history definition says', () => {
  const ids = Array.from({ length: 300 }, (_, i) => 4 + (i * 7) % 50);
  for (const eos of [false, true]) {
    const { targets, contexts } = scoreContexts(ids, eos, W);
    assert.deepEqual(targets, eos ? [...ids, EOS_ID] : ids);
    const history = startHistory(ids);
    contexts.forEach((ctx, t) => assert.deepEqual(ctx, contextWindow(history.slice(0, t + 1), W), `target ${t}`));
  }
});

test('scoreContexts: linear in the text (80,000 tokens in well under a second; the quadratic one took 28 s)', () => {
  const ids = Array.from({ length: 80000 }, (_, i) => 4 + (i % 3000));
  const t0 = performance.now();
  const { contexts } = scoreContexts(ids, true, W);
  const ms = performance.now() - t0;
  assert.equal(contexts.length, 80001);
  assert.deepEqual(contexts[80000], ids.slice(-W));
  assert.ok(ms < 2000, `${ms.toFixed(0)} ms`);
});

test('checkText: a string, at most MAX_TEXT_CHARS characters, else a message naming the value', () => {
  assert.equal(checkText('the cat'), 'the cat');
  assert.throws(() => checkText(undefined, "tokenize's text"), /tokenize's text must be a string \(got undefined\)/);
  assert.throws(() => checkText(42), /must be a string \(got 42\)/);
  assert.throws(() => checkText('x'.repeat(MAX_TEXT_CHARS + 1)), /is 100,001 characters long; the lab reads at most 100,000: shorten it/);
});

test('checkIds: a BigInt or a BigInt64Array is named as such; an Int32Array context is a context', () => {
  const ctx = new Array(W).fill(5);
  assert.throws(() => checkIds([...ctx.slice(1), 7n], 4000, W), /slot 63 holds 7n \(a BigInt; pass a Number\)/);
  assert.throws(() => checkIds(new BigInt64Array(W), 4000, W), /BigInt64Array: pass token IDs as Numbers/);
  assert.throws(() => checkIds(5, 4000, W), /not one ID/);
  assert.equal(checkIds(Int32Array.from(ctx), 4000, W).length, W);
  assert.throws(() => checkIds(Int32Array.from(ctx.slice(1)), 4000, W), /must hold 64 token IDs, got 63/);
});

test('checkContexts: at most MAX_CONTEXTS per call, said before anything runs', () => {
  const ctx = new Array(W).fill(5);
  assert.equal(checkContexts([ctx, ctx], 4000, W).length, 2);
  assert.throws(() => checkContexts(new Array(20000).fill(ctx), 4000, W),
    new RegExp(`20,000 contexts in one call; at most ${MAX_CONTEXTS.toLocaleString('en-US')}`));
  assert.throws(() => checkContexts('abc', 4000, W), /got "abc"/);
});

const META = () => ({
  order: ['mlp', 'attn4'], vocab_size: 6, context: W, banned_ids: [0, 1, 3],
  special_ids: { PAD: 0, BOS: 1, EOS: 2, UNK: 3 }, dataset: { attribution: 'TinyStories, CDLA-Sharing-1.0' },
  models: {
    mlp: { file: 'mlp.onnx', sha256: 'a'.repeat(64), bytes: 10, label: 'MLP', heads: 0 },
    attn4: { file: 'attn4.onnx', sha256: 'b'.repeat(64), bytes: 10, label: 'Four heads', heads: 4 },
  },
});
const VOCAB = ['<PAD>', '<BOS>', '<EOS>', '<UNK>', 'the', 'cat'];

test('checkMetadata: heads and the data set are required, named by file and field', () => {
  assert.ok(checkMetadata(META()));
  const noHeads = META();
  delete noHeads.models.attn4.heads;
  assert.throws(() => checkMetadata(noHeads), /onnx\/metadata.json: field "models.attn4.heads"/);
  const noData = META();
  delete noData.dataset;
  assert.throws(() => checkMetadata(noData), /onnx\/metadata.json: field "dataset.attribution"/);
});

test('checkVocab: the vocabulary agrees with vocab_size and the special IDs', () => {
  assert.equal(checkVocab(VOCAB, META()).length, 6);
  assert.throws(() => checkVocab(VOCAB.slice(0, 5), META()),
    /onnx\/metadata.json: field "vocab_size" says 6 but onnx\/vocab.json holds 5 tokens/);
  assert.throws(() => checkVocab(VOCAB, { ...META(), vocab_size: 5000 }), /"vocab_size" says 5000/);
  assert.throws(() => checkVocab(['<BOS>', ...VOCAB.slice(1)], META()), /ID 0 is not <PAD>/);
  assert.throws(() => checkVocab({}, META()), /onnx\/vocab.json: expected a list of token strings/);
});

test('checkPresets: a non-empty list of prompts with their strings', () => {
  assert.throws(() => checkPresets({}), /onnx\/presets.json: expected a non-empty list of prompts, got an object/);
  assert.throws(() => checkPresets([]), /non-empty list/);
  assert.throws(() => checkPresets([{ id: 'a', label: 'A', group: 'G' }]), /field "0.prompt" must be a string/);
  assert.equal(checkPresets([{ id: 'a', label: 'A', group: 'G', prompt: 'the' }]).length, 1);
});

test('checkGraph: the warm-up outputs agree with vocab_size, context and heads', () => {
  const m = META();
  assert.ok(checkGraph('attn4', m, { dims: [1, 6], attentionDims: [1, 4, W] }));
  assert.ok(checkGraph('mlp', m, { dims: [1, 6] }));
  assert.throws(() => checkGraph('mlp', { ...m, vocab_size: 5000 }, { dims: [1, 6] }),
    /field "vocab_size" says 5000 but mlp.onnx gives logits of shape \[1,6\]/);
  assert.throws(() => checkGraph('attn4', m, { dims: [1, 6], attentionDims: [1, 1, W] }), /"models.attn4.heads" \(4\)/);
  assert.throws(() => checkGraph('attn4', m, { dims: [1, 6] }), /is 4 but attn4.onnx outputs no attention/);
  assert.throws(() => checkGraph('mlp', m, { dims: [1, 6], attentionDims: [1, 1, W] }), /is 0 but mlp.onnx outputs/);
});
