// The lab's runtime, worker side: which onnxruntime-web build each runtime
// loads, the byte-counted and SHA-256-checked download of big files (kept in
// the browser's Cache API for offline use), and the honest WebGPU probe.
//
// Builds come from vendor/onnxruntime-web/runtimes.json, written by
// site_builder/assemble.py: the WASM runtime loads only the plain WASM build,
// the WebGPU runtime its own build, and only when it is used.

import { sha256Hex } from '../core/sha256.js';
import { VENDOR, VENDOR_DIR } from './shared.js';
import { versioned } from '../core/version.js';
import { explainScriptFailure } from '../core/host-check.js';

export const FILE_CACHE = 'attention-lab-files-v1';

export function describeError(err) {
  return err && err.message ? err.message : String(err);
}

async function openCache() {
  try {
    return self.caches ? await self.caches.open(FILE_CACHE) : null;
  } catch {
    return null; // storage disabled (private mode, file://): download every time
  }
}

// The downloads in progress; cancelDownloads() (the page's Stop while the
// models download) aborts them, and each fails naming its file. After it, no
// other file goes to the network in this page (the models still queued fail
// naming themselves; a checked offline copy is still read, it costs nothing).
const downloads = new Set();
let stopped = false;

export function cancelDownloads() {
  stopped = true;
  const n = downloads.size;
  for (const controller of downloads) controller.abort(new Error('stopped by you'));
  return n;
}

const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;

// A big file (a model or a runtime's .wasm), checked against its SHA-256.
// Read from the offline cache when the cached copy still matches; a stale copy
// (a new build changed metadata.json or runtimes.json) is downloaded again and
// replaces it. onProgress({loaded, total, from}) follows the bytes.
export async function fetchVerified(url, options) {
  const controller = new AbortController();
  if (stopped) controller.abort(new Error('stopped by you')); // read from the offline copy or not at all
  downloads.add(controller);
  try {
    return await download(url, options, controller.signal);
  } catch (err) {
    if (controller.signal.aborted) {
      throw new Error(`the download of ${options.name} was stopped by you; reload the page to download it again`,
        { cause: err });
    }
    throw err;
  } finally {
    downloads.delete(controller);
  }
}

async function download(url, { name, sha256, bytes, onProgress = () => {} }, signal) {
  const cache = await openCache();
  let stale = false;
  if (cache) {
    const hit = await cache.match(url);
    if (hit) {
      const t0 = performance.now();
      const buffer = await hit.arrayBuffer();
      const digest = await sha256Hex(buffer);
      if (digest === sha256) {
        onProgress({ loaded: buffer.byteLength, total: buffer.byteLength, from: 'cache' });
        return { buffer, from: 'cache', download_ms: 0, hash_ms: performance.now() - t0, network_bytes: 0 };
      }
      stale = true;
      await cache.delete(url);
    }
  }
  const t0 = performance.now();
  let response;
  try {
    // no-cache: revalidate with the server, never trust a possibly stale HTTP cache entry
    response = await fetch(url, { cache: 'no-cache', signal });
  } catch (err) {
    throw new Error(`could not download ${name}: ${describeError(err)}` +
      (navigator.onLine === false ? ' (the browser is offline and has no checked copy of it yet)' : ''),
    { cause: err });
  }
  if (!response.ok) throw new Error(`file missing: ${name} (HTTP ${response.status})`);
  const total = bytes || Number(response.headers.get('content-length')) || 0;
  let buffer;
  if (response.body && response.body.getReader) {
    const reader = response.body.getReader();
    const chunks = [];
    let loaded = 0;
    let lastPost = 0;
    onProgress({ loaded: 0, total, from: 'network' });
    for (;;) {
      let part;
      try {
        part = await reader.read();
      } catch (err) { // the connection dropped (or Stop aborted it) part way
        throw new Error(`the download of ${name} broke off after ${mb(loaded)}${total ? ` of ${mb(total)}` : ''} ` +
          `(${describeError(err)}); reload the page to try again`, { cause: err });
      }
      const { done, value } = part;
      if (done) break;
      chunks.push(value);
      loaded += value.byteLength;
      const now = performance.now();
      if (now - lastPost > 100) { lastPost = now; onProgress({ loaded, total, from: 'network' }); }
    }
    const joined = new Uint8Array(loaded);
    let offset = 0;
    for (const c of chunks) { joined.set(c, offset); offset += c.byteLength; }
    buffer = joined.buffer;
  } else {
    buffer = await response.arrayBuffer();
  }
  onProgress({ loaded: buffer.byteLength, total: total || buffer.byteLength, from: 'network' });
  const downloadMs = performance.now() - t0;
  const t1 = performance.now();
  const digest = await sha256Hex(buffer);
  const hashMs = performance.now() - t1;
  if (digest !== sha256) {
    throw new Error(`${name} failed its SHA-256 check (got ${digest.slice(0, 12)}…, ` +
      `expected ${sha256.slice(0, 12)}…): the file is corrupt or stale`);
  }
  if (cache) {
    try {
      const headers = { 'content-type': 'application/octet-stream' };
      await cache.put(url, new Response(buffer.slice(0), { headers }));
    } catch { /* quota: works online, just not offline */ }
  }
  return { buffer, from: stale ? 'network (cached copy was stale)' : 'network', download_ms: downloadMs,
    hash_ms: hashMs, network_bytes: buffer.byteLength };
}

// Drop cached big files that the current build no longer names.
export async function pruneCache(keepUrls) {
  const cache = await openCache();
  if (!cache) return;
  const keep = new Set(keepUrls);
  for (const request of await cache.keys()) if (!keep.has(request.url)) await cache.delete(request);
}

// runtime -> Promise<{ort, report}>: the ES module of its build, initialised
// with its verified .wasm (so session creation never downloads anything).
const runtimes = {};

export function runtimeUrl(manifest, backend) {
  return VENDOR + manifest.builds[backend].wasm;
}

export function loadRuntime(manifest, backend, onProgress) {
  if (!runtimes[backend]) {
    runtimes[backend] = (async () => {
      const build = manifest.builds[backend];
      const got = await fetchVerified(VENDOR + build.wasm,
        { name: `${VENDOR_DIR}/${build.wasm}`, sha256: build.sha256, bytes: build.bytes, onProgress });
      let ort;
      const moduleUrl = versioned(VENDOR + build.module).href; // this build's, cached for good
      const glueUrl = versioned(VENDOR + build.glue).href;
      for (const url of [moduleUrl, glueUrl]) { // the glue too, here: a failure names what the host sent
        try {
          const loaded = await import(url);
          if (url === moduleUrl) ort = loaded;
        } catch (err) {
          throw new Error(await explainScriptFailure(url, err), { cause: err });
        }
      }
      // the Emscripten glue by its versioned URL too (the .wasm itself is handed over: wasmBinary)
      ort.env.wasm.wasmPaths = { mjs: glueUrl, wasm: VENDOR + build.wasm };
      ort.env.wasm.wasmBinary = got.buffer;
      ort.env.wasm.numThreads = 1; // threads need cross-origin isolation, which a static host rarely gives
      ort.env.wasm.proxy = false; // we already are a worker
      ort.env.logLevel = 'error';
      return { ort, report: { ok: true, backend, file: build.wasm, module: build.module,
        bytes: got.buffer.byteLength, from: got.from, network_bytes: got.network_bytes, download_ms: got.download_ms,
        hash_ms: got.hash_ms, version: manifest.version } };
    })();
    runtimes[backend].catch(() => { delete runtimes[backend]; }); // a later try may succeed (back online)
  }
  return runtimes[backend];
}

// WebGPU adapters that are CPU emulations: automatic never picks them.
const SOFTWARE = /swiftshader|llvmpipe|lavapipe|softpipe|software|basic render|microsoft warp/i;

// An adapter's description, and whether it is a CPU emulation: either signal
// is enough, the fallback flag (adapter.info's, or the adapter's own in older
// browsers) or a software renderer's name in the vendor, architecture, device
// or description. (SwiftShader carries both; other software adapters only one.)
export function classifyAdapter(info = {}, adapterFallback = undefined) {
  const described = { vendor: info.vendor || '', architecture: info.architecture || '', device: info.device || '',
    description: info.description || '' };
  const fallback = Boolean(info.isFallbackAdapter ?? adapterFallback);
  const named = SOFTWARE.exec(Object.values(described).join(' '));
  const software = fallback || Boolean(named);
  const what = fallback ? 'fallback (software) adapter' : 'software renderer';
  const name = [described.vendor, described.architecture].filter(Boolean).join(' ') || 'unnamed';
  const reason = `the only WebGPU adapter is a ${what} (${name}), a CPU emulation slower than WASM`;
  return { adapter: described, software, software_reason: software ? reason : null };
}

let probed = null;
export function probeWebGPU() {
  if (!probed) probed = probe();
  return probed;
}

async function probe() {
  if (!('gpu' in navigator) || !navigator.gpu) {
    return { ok: false, software: false, reason: 'this browser has no WebGPU (navigator.gpu is missing)' };
  }
  if (typeof WebAssembly.Suspending !== 'function') {
    return { ok: false, software: false,
      reason: 'this browser lacks WebAssembly JSPI, which the WebGPU build of onnxruntime-web needs' };
  }
  try {
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) {
      return { ok: false, software: false, reason: 'the browser offers WebGPU but found no usable GPU adapter' };
    }
    return { ok: true, ...classifyAdapter(adapter.info || {}, adapter.isFallbackAdapter) };
  } catch (err) {
    return { ok: false, software: false, reason: `requesting a WebGPU adapter failed: ${describeError(err)}` };
  }
}
