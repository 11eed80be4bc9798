// Unit tests of web/core/tokenizer.js in Node (node --test tests/js/).
// tests/test_decoding_parity.py checks this file against the Python original;
// these tests pin the rules on their own, and are what `make mutate` runs.
import test from 'node:test';
import assert from 'node:assert/strict';

import {
  PAD, BOS, EOS, UNK, SPECIALS, PAD_ID, BOS_ID, EOS_ID, UNK_ID,
  normalize, tokenize, detokenize, detokenizePieces, Vocab,
} from '../../web/core/tokenizer.js';

test('special tokens and their IDs', () => {
  assert.deepEqual(SPECIALS, ['<PAD>', '<BOS>', '<EOS>', '<UNK>']);
  assert.deepEqual([PAD, BOS, EOS, UNK], SPECIALS);
  assert.deepEqual([PAD_ID, BOS_ID, EOS_ID, UNK_ID], [0, 1, 2, 3]);
});

test('normalize: NFKC, lowercase, whitespace runs to one space, ends stripped', () => {
  assert.equal(normalize('  Ｌｉｌｙ\u00a0 FOUND\n\n a\tball '), 'lily found a ball');
  assert.equal(normalize('ﬁsh'), 'fish');
  // every character of the explicit whitespace class collapses
  for (const ws of [' ', '\t', '\n', '\r', '\f', '\v', '\x1c', '\x1f', '\x85', '\xa0', '\u1680', '\u2000',
    '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff']) {
    assert.equal(normalize(`a${ws}${ws}b`), 'a b', JSON.stringify(ws));
  }
  // ... and nothing else does: a zero-width joiner and an ordinary letter stay
  assert.equal(normalize('a\u200db'), 'a\u200db');
  assert.equal(normalize('   '), '');
  assert.equal(normalize(' x '), 'x');
  assert.equal(normalize(12), '12');
});

test('tokenize: words with one apostrophe, digit runs, every other character alone', () => {
  assert.deepEqual(tokenize("Lily can't find 12 balls!"), ['lily', "can't", 'find', '12', 'balls', '!']);
  assert.deepEqual(tokenize('redder!'), ['redder', '!']);
  assert.deepEqual(tokenize('"Hi," said Tom.'), ['"', 'hi', ',', '"', 'said', 'tom', '.']);
  assert.deepEqual(tokenize('café 3.5'), ['caf', 'é', '3', '.', '5']);
  assert.deepEqual(tokenize("rock'n'roll"), ["rock'n", "'", 'roll']);
  assert.deepEqual(tokenize('ab12cd'), ['ab', '12', 'cd']);
  assert.deepEqual(tokenize('a 🐶!'), ['a', '🐶', '!']);          // one code point, one token
  assert.deepEqual(tokenize(''), []);
  assert.deepEqual(tokenize('   '), []);
});

test('detokenize: no space before closing punctuation or after opening brackets', () => {
  assert.equal(detokenize(['lily', 'said', ',', 'hi', '!']), 'lily said, hi!');
  for (const p of ['.', ',', '!', '?', ';', ':', ')', ']', '}', '%', "'"]) {
    assert.equal(detokenize(['a', p]), `a${p}`, p);
  }
  for (const p of ['(', '[', '{']) assert.equal(detokenize(['a', p, 'b']), `a ${p}b`, p);
  assert.equal(detokenize(['a', '-', 'b']), 'a - b');
  assert.equal(detokenize(['<BOS>', 'the', 'end', '.', '<EOS>', '<PAD>']), 'the end.');
  assert.equal(detokenize([]), '');
});

test('detokenize pairs straight double quotes', () => {
  const text = 'lily said, "look at the red ball!" (it was big.)';
  assert.equal(detokenize(tokenize(text)), text);
  assert.equal(detokenize(['"', 'hi', '"', 'said', 'tom']), '"hi" said tom');
  assert.equal(detokenize(['a', '"', 'b', '"', '"', 'c', '"']), 'a "b" "c"');
  assert.equal(detokenize(['<BOS>', '"', 'x', '"']), '"x"');
});

test('detokenizePieces: one piece per token, empty for PAD/BOS/EOS, joined they are detokenize', () => {
  const tokens = ['<BOS>', 'tom', 'said', ',', '"', 'hi', '"', '(', 'ok', ')', '<EOS>', '<PAD>'];
  const pieces = detokenizePieces(tokens);
  assert.equal(pieces.length, tokens.length);
  assert.deepEqual(pieces, ['', 'tom', ' said', ',', ' "', 'hi', '"', ' (', 'ok', ')', '', '']);
  assert.equal(pieces.join(''), detokenize(tokens));
});

test('Vocab: specials first, encode with UNK, decode, size and token()', () => {
  assert.throws(() => new Vocab(['<PAD>', '<BOS>', '<EOS>']), /vocabulary must start with <PAD>, <BOS>, <EOS>, <UNK>/);
  assert.throws(() => new Vocab(['<BOS>', '<PAD>', '<EOS>', '<UNK>', 'a']), /must start with/);
  assert.throws(() => new Vocab('not a list'), /must start with/);
  const v = new Vocab([...SPECIALS, 'the', 'dog', '.', '"']);
  assert.equal(v.size, 8);
  assert.equal(v.stoi.get('dog'), 5);
  assert.deepEqual(v.encode('The DOG ran.'), [4, 5, UNK_ID, 6]);
  assert.deepEqual(v.encodeTokens(['dog', 'cat']), [5, UNK_ID]);
  assert.equal(v.token(4), 'the');
  assert.equal(v.token(99), '<UNK>');
  assert.equal(v.decode([BOS_ID, 4, 5, 6, EOS_ID]), 'the dog.');
  assert.equal(v.decode([4, 99]), 'the <UNK>');
});
