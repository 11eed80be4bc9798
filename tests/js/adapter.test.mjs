// The automatic runtime choice's adapter classification (web/lab/runtime.js
// classifyAdapter), unit-tested: the browser tests only ever see SwiftShader,
// which carries both software signals (issue 25, point 6).
import test from 'node:test';
import assert from 'node:assert/strict';

import { classifyAdapter } from '../../web/lab/runtime.js';

test('SwiftShader: the fallback flag and the name', () => {
  const c = classifyAdapter({ vendor: 'google', architecture: 'swiftshader', isFallbackAdapter: true });
  assert.equal(c.software, true);
  assert.match(c.software_reason, /fallback \(software\) adapter \(google swiftshader\)/);
});

test('only the fallback flag (an unnamed software adapter) is software', () => {
  assert.equal(classifyAdapter({ vendor: 'acme', architecture: 'gen-9', isFallbackAdapter: true }).software, true);
  // the flag on the adapter itself (older browsers), not in adapter.info
  const c = classifyAdapter({ vendor: 'acme', architecture: 'gen-9' }, true);
  assert.equal(c.software, true);
  assert.match(c.software_reason, /fallback \(software\) adapter \(acme gen-9\)/);
});

test('only the name (llvmpipe, lavapipe, WARP, ...) is software', () => {
  for (const info of [{ vendor: 'mesa', architecture: 'llvmpipe' }, { description: 'lavapipe (LLVM 15)' },
    { vendor: 'microsoft', description: 'Microsoft Basic Render Driver' }, { device: 'SwiftShader Device' }]) {
    const c = classifyAdapter({ ...info, isFallbackAdapter: false });
    assert.equal(c.software, true, JSON.stringify(info));
    assert.match(c.software_reason, /software renderer/);
  }
});

test('a real GPU is not software, with or without an explicit flag', () => {
  for (const [info, flag] of [[{ vendor: 'nvidia', architecture: 'hopper', isFallbackAdapter: false }, undefined],
    [{ vendor: 'apple', architecture: 'metal-3' }, false], [{ vendor: 'intel', description: 'Iris Xe' }, undefined]]) {
    const c = classifyAdapter(info, flag);
    assert.equal(c.software, false, JSON.stringify(info));
    assert.equal(c.software_reason, null);
  }
  assert.deepEqual(classifyAdapter({ vendor: 'nvidia', architecture: 'hopper' }).adapter,
    { vendor: 'nvidia', architecture: 'hopper', device: '', description: '' });
});

test('adapter.info wins over the adapter\'s own flag when both are given', () => {
  assert.equal(classifyAdapter({ vendor: 'nvidia', isFallbackAdapter: false }, true).software, false);
  assert.equal(classifyAdapter({ vendor: 'nvidia', isFallbackAdapter: true }, false).software, true);
});
