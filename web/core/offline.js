// Offline after one visit, page side: registers the site's service worker
// (sw.js at the site root) and, on a visit the service worker did not yet
// control (the first), stores the page and every file it loaded (and, for the
// lab, what its inference worker loaded), so the next visit works with the
// network off. Every page built from site_builder/templates/base.html calls
// keepPageOffline(); the lab passes its worker's files. Models and runtimes:
// lab/runtime.js.

const SHELL_CACHE = 'attention-course-shell-v1'; // also in sw.js
const BIG = /\.(onnx|wasm)$/;
const SITE_ROOT = new URL('../', import.meta.url); // this file is core/offline.js

export const controlledAtStart = Boolean(navigator.serviceWorker?.controller);

export async function registerOffline() {
  if (!('serviceWorker' in navigator) || !self.caches) {
    return { ok: false, reason: 'this browser offers no service worker here (it needs https or localhost)' };
  }
  try {
    await navigator.serviceWorker.register(new URL('sw.js', SITE_ROOT), { scope: SITE_ROOT.href });
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: `the offline copy could not be set up (${err.message})` };
  }
}

// Same-origin files this page (and, passed in, the worker) fetched, minus the
// big ones the lab's worker caches itself.
export function shellUrls(workerUrls = []) {
  const page = performance.getEntriesByType('resource').map((e) => e.name);
  const here = location.origin + location.pathname;
  const urls = new Set([here, ...page, ...workerUrls].map((u) => {
    const url = new URL(u, location.href);
    return url.origin === location.origin && !BIG.test(url.pathname) ? url.origin + url.pathname : null;
  }).filter(Boolean));
  return [...urls];
}

export async function keepShell(urls) {
  if (controlledAtStart || !self.caches) return { stored: 0 };
  const cache = await caches.open(SHELL_CACHE);
  let stored = 0;
  await Promise.all(urls.map(async (u) => {
    try {
      const response = await fetch(u);
      if (response.ok) { await cache.put(u, response); stored += 1; }
    } catch { /* not kept: that file will need the network */ }
  }));
  return { stored };
}

// A deck, reading view or the index: once the page and what it loads are in
// (fonts and widgets come a moment after 'load'), keep them for offline use.
export function keepPageOffline(settleMs = 1500) {
  if (location.protocol === 'file:') return Promise.resolve({ ok: false, reason: 'opened as a file' });
  const loaded = document.readyState === 'complete' ? Promise.resolve()
    : new Promise((resolve) => window.addEventListener('load', resolve, { once: true }));
  return registerOffline().then(async (o) => {
    if (!o.ok) return o;
    await loaded;
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    return { ok: true, ...(await keepShell(shellUrls())) };
  });
}
