// Offline after one visit, page side: registers the site's service worker
// (sw.js?v=<build> at the site root: one worker and one cache per build) and,
// on a visit no worker of this page's build controlled yet (the first visit,
// or the first after a rebuild), stores the page and every file it loaded
// (and, for the lab, what its inference worker loaded) in this build's cache,
// so the next visit works with the network off. Later visits are kept by the
// service worker itself. Every page built from site_builder/templates/base.html
// calls keepPageOffline(); the lab passes its worker's files. Models and
// runtimes: lab/runtime.js. Versioned URLs: core/version.js.

import { BUILD, buildOf } from './version.js';

const PREFIX = 'attention-course-shell-'; // also in sw.js
export const SHELL_CACHE = PREFIX + (BUILD || 'unversioned');
const BIG = /\.(onnx|wasm)$/;
const SITE_ROOT = new URL('../', import.meta.url); // this file is core/offline.js

// Controlled, at load, by the service worker of this page's own build (an
// older build's worker does not keep this build's files).
export const controlledAtStart = (() => {
  const controller = typeof navigator !== 'undefined' ? navigator.serviceWorker?.controller : null;
  return Boolean(controller) && (buildOf(controller.scriptURL) || null) === BUILD;
})();

export async function registerOffline() {
  if (!('serviceWorker' in navigator) || !self.caches) {
    return { ok: false, reason: 'this browser offers no service worker here (it needs https or localhost)' };
  }
  try {
    const script = new URL('sw.js', SITE_ROOT);
    if (BUILD) script.searchParams.set('v', BUILD);
    await navigator.serviceWorker.register(script, { scope: SITE_ROOT.href });
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: `the offline copy could not be set up (${err.message})` };
  }
}

// The key a file is kept under (as in sw.js): the path, plus its build for a
// versioned file; other query options (?backend=...) open the same page.
export function cacheKey(u, base = location.href) {
  const url = new URL(u, base);
  const v = url.searchParams.get('v');
  return url.origin + url.pathname + (v ? `?v=${encodeURIComponent(v)}` : '');
}

// Same-origin files this page (and, passed in, the worker) fetched, minus the
// big ones the lab's worker caches itself, and minus another build's files.
export function shellUrls(workerUrls = []) {
  const page = performance.getEntriesByType('resource').map((e) => e.name);
  const urls = new Set([location.href, ...page, ...workerUrls].map((u) => {
    const url = new URL(u, location.href);
    if (url.origin !== location.origin || BIG.test(url.pathname)) return null;
    const v = url.searchParams.get('v');
    return v && v !== BUILD ? null : cacheKey(url);
  }).filter(Boolean));
  return [...urls];
}

export async function keepShell(urls) {
  if (controlledAtStart || !self.caches) return { stored: 0 };
  const cache = await caches.open(SHELL_CACHE);
  let stored = 0;
  await Promise.all(urls.map(async (u) => {
    const versioned = new URL(u).searchParams.has('v');
    try {
      if (versioned && await cache.match(u)) return; // this build's file, already kept
      // the server's headers decide: a versioned file is this build's in any cache, anything else is revalidated
      const response = await fetch(u);
      if (response.ok) { await cache.put(u, response); stored += 1; }
    } catch { /* not kept: that file will need the network */ }
  }));
  return { stored };
}

// Ask the service worker to keep every page of the site (and what they use)
// for offline use: once per build (it records a complete run), after this
// page's own files, so a first visit is never slowed by it. See sw.js.
export async function precacheSite() {
  if (!('serviceWorker' in navigator) || !self.caches) return false;
  const marker = new URL(`sw-precached.txt?v=${encodeURIComponent(BUILD || 'unversioned')}`, SITE_ROOT).href;
  if (await caches.match(marker)) return false; // kept already: the worker is not woken for nothing
  const registration = await navigator.serviceWorker.ready;
  registration.active?.postMessage({ type: 'precache', build: BUILD });
  return Boolean(registration.active);
}

// A deck, reading view or the index: keep the page and what it loaded for
// offline use, once at 'load' (a learner may leave at once) and again a moment
// later for what comes after it (fonts, widgets and their tables).
export function keepPageOffline(settleMs = 1500) {
  if (location.protocol === 'file:') return Promise.resolve({ ok: false, reason: 'opened as a file' });
  const loaded = document.readyState === 'complete' ? Promise.resolve()
    : new Promise((resolve) => window.addEventListener('load', resolve, { once: true }));
  return registerOffline().then(async (o) => {
    if (!o.ok) return o;
    await loaded;
    const first = await keepShell(shellUrls());
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const later = await keepShell(shellUrls());
    precacheSite().catch(() => {});
    return { ok: true, stored: first.stored + later.stored };
  });
}
