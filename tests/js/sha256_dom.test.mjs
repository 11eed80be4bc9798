// Unit tests of web/core/sha256.js and web/core/dom.js in Node.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';

import { sha256Fallback, sha256Hex } from '../../web/core/sha256.js';
import { el, visibleToken, fmt, num } from '../../web/core/dom.js';

const bufferOf = (bytes) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
const nodeSha = (bytes) => createHash('sha256').update(bytes).digest('hex');

test('sha256Fallback equals node:crypto on every padding boundary and longer inputs', () => {
  const lengths = [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000];
  for (const n of lengths) {
    const bytes = new Uint8Array(n).map((_, i) => (i * 131 + n) & 0xff);
    assert.equal(sha256Fallback(bufferOf(bytes)), nodeSha(bytes), `length ${n}`);
  }
  assert.equal(sha256Fallback(bufferOf(Buffer.from('abc'))),
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  const all = new Uint8Array(256 * 3).map((_, i) => i & 0xff);
  assert.equal(sha256Fallback(bufferOf(all)), nodeSha(all));
});

test('sha256Hex: crypto.subtle when present, the fallback otherwise', async () => {
  const bytes = new Uint8Array([1, 2, 3, 250]);
  assert.equal(await sha256Hex(bufferOf(bytes)), nodeSha(bytes));
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'crypto');
  Object.defineProperty(globalThis, 'crypto', { value: undefined, configurable: true, writable: true });
  try {
    assert.equal(await sha256Hex(bufferOf(bytes)), nodeSha(bytes));
  } finally {
    Object.defineProperty(globalThis, 'crypto', saved);
  }
  let used = false;
  Object.defineProperty(globalThis, 'crypto', {
    value: { subtle: { digest: async (alg, buf) => {
      used = alg === 'SHA-256';
      return createHash('sha256').update(new Uint8Array(buf)).digest().buffer;
    } } },
    configurable: true, writable: true });
  try {
    assert.equal(await sha256Hex(bufferOf(bytes)), nodeSha(bytes));
    assert.ok(used);
  } finally {
    Object.defineProperty(globalThis, 'crypto', saved);
  }
});

// The smallest DOM el() needs: elements that record what was set on them.
class FakeNode {}
class FakeElement extends FakeNode {
  constructor(tag) {
    super();
    Object.assign(this,
      { tag, className: '', textContent: '', style: {}, dataset: {}, attrs: {}, listeners: {}, children: [] });
  }
  setAttribute(k, v) { this.attrs[k] = v; }
  addEventListener(type, fn) { this.listeners[type] = fn; }
  append(child) { this.children.push(child); }
}
class FakeText extends FakeNode { constructor(data) { super(); this.data = data; } }

test('el: class, text, style, listeners, attributes; children as nodes or text', () => {
  globalThis.Node = FakeNode;
  globalThis.document = { createElement: (t) => new FakeElement(t), createTextNode: (d) => new FakeText(d) };
  try {
    const click = () => {};
    const child = el('span');
    const node = el('div', { class: 'a b', text: '<b>x</b>', style: { color: 'red' }, onclick: click, title: 5,
      hidden: true, skip1: undefined, skip2: null, skip3: false }, child, ['t', null, 3], undefined, false, null);
    assert.equal(node.tag, 'div');
    assert.equal(node.className, 'a b');
    assert.equal(node.textContent, '<b>x</b>');
    assert.deepEqual(node.style, { color: 'red' });
    assert.equal(node.listeners.click, click);
    assert.deepEqual(node.attrs, { title: '5', hidden: '' });
    assert.equal(node.children[0], child);
    assert.deepEqual(node.children.slice(1).map((c) => c.data), ['t', '3']);
    assert.equal(node.children.length, 3);
    assert.deepEqual(el('p').attrs, {});
    const styled = el('p', { style: 'color: red', dataset: { id: '7', kind: 'mlp' } });
    assert.deepEqual(styled.style, {});                                   // a style string is an attribute
    assert.deepEqual(styled.attrs, { style: 'color: red' });
    assert.deepEqual(styled.dataset, { id: '7', kind: 'mlp' });
  } finally {
    delete globalThis.Node;
    delete globalThis.document;
  }
});

test('visibleToken spells out control and format characters', () => {
  assert.equal(visibleToken('\u0000'), 'U+0000');
  assert.equal(visibleToken('\u202e'), 'U+202E');
  assert.equal(visibleToken('\u2028'), 'U+2028');
  assert.equal(visibleToken('\u2029'), 'U+2029');
  assert.equal(visibleToken('\u00ad'), 'U+00AD');
  assert.equal(visibleToken('\u{e0001}'), 'U+E0001');
  assert.equal(visibleToken('a'), 'a');
  assert.equal(visibleToken('dog'), 'dog');
  assert.equal(visibleToken('\u0000x'), '\u0000x');                     // only a lone character
  assert.equal(visibleToken('🐶'), '🐶');
});

test('fmt: numbers for people, a dash when missing', () => {
  for (const f of [fmt.int, fmt.ms, fmt.s, fmt.pct, fmt.num]) {
    for (const m of [null, undefined, NaN]) assert.equal(f(m), '–');
  }
  assert.equal(fmt.int(1234567.4), '1,234,567');
  assert.equal(fmt.int(0.5), '1');
  assert.equal(fmt.ms(99.94), '99.9 ms');
  assert.equal(fmt.ms(100), '100 ms');
  assert.equal(fmt.ms(1234.5), '1235 ms');
  assert.equal(fmt.s(1.005), '1.00 s');
  assert.equal(fmt.s(12.345), '12.35 s');
  assert.equal(fmt.mb(2_345_678), '2.35 MB');
  assert.equal(fmt.pct(0.5), '50.0%');
  assert.equal(fmt.pct(0.0995), '10.0%');
  assert.equal(fmt.pct(0.0994), '9.94%');
  assert.equal(fmt.pct(0.0123), '1.23%');
  assert.equal(fmt.num(3.14159), '3.14');
  assert.equal(fmt.num(3.14159, 4), '3.1416');
  assert.equal(fmt.weight(1), '1');
  assert.equal(fmt.weight(0.995), '1');
  assert.equal(fmt.weight(0.994), '.99');
  assert.equal(fmt.weight(0.05), '.05');
  assert.equal(fmt.weight(0.005), '.01');
  assert.equal(fmt.weight(0.0049), '');
  assert.equal(fmt.weight(0), '');
  assert.equal(fmt.meanSd(null, 2), 'not measured yet');
  assert.equal(fmt.meanSd({ mean: null }, 2), 'not measured yet');
  assert.equal(fmt.meanSd({ mean: 3.14159, sd: null }, 2), '3.14 (one seed)');
  assert.equal(fmt.meanSd({ mean: 3.14159, sd: 0.456 }, 1, ' s'), '3.1 ± 0.5 s');
  assert.equal(fmt.meanSd({ mean: 3.14159 }, 3, '%'), '3.142% (one seed)');
});

test('num: fixed decimals with a true minus sign, never minus zero', () => {
  assert.equal(num(3.14159), '3.142');
  assert.equal(num(3.14159, 1), '3.1');
  assert.equal(num(-2.5, 2), '−2.50');
  assert.equal(num(-0.0001), '0.000');
  assert.equal(num(-0.4, 0), '0');
  assert.equal(num(-0), '0.000');
  assert.equal(num(-10.04, 1), '−10.0');
  assert.equal(num('12.5%'), '12.5%');
  assert.equal(num(null), '—');
  assert.equal(num(undefined), '—');
  assert.equal(num('3'), '3');
  assert.equal(num(7n, 1), '7.0');
});
