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
import { afterFirstPaint } from './paint.js';

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

// The site was rebuilt under this tab: the service worker found a file this
// page asked for (of this page's build) answered as another build's, and
// answered 410 instead (sw.js). The page reloads as the new build, once per
// build (a loop is impossible: a second stale answer for the same new build
// only says so on the page).
export function onStaleBuild(data, { reload = () => location.reload(), storage = globalThis.sessionStorage } = {}) {
  if (!data || data.type !== 'stale-build' || (BUILD && data.build !== BUILD)) return false;
  const key = `attention-course-reloaded-for-${data.current}`;
  let again = false;
  try { again = storage?.getItem(key) === 'yes'; storage?.setItem(key, 'yes'); } catch { /* no storage */ }
  const line = document.createElement('p');
  line.className = 'stale-build';
  line.setAttribute('role', 'status');
  line.textContent = again
    ? `The course was updated while this page was open and ${data.path} of this version is gone: reload the page.`
    : 'The course was updated while this page was open: reloading it as the new version…';
  document.body?.prepend(line);
  if (!again) reload();
  return !again;
}

if (typeof navigator !== 'undefined' && navigator.serviceWorker) {
  navigator.serviceWorker.addEventListener('message', (event) => onStaleBuild(event.data));
}

// A script of the site that does not parse is a damaged copy (a cut-off or
// corrupt cache entry, or a proxy's): never a silent half page (37.4). Its
// copy is dropped from the offline caches; online the page reloads once and
// fetches it again, offline it says which file could not load.
export async function onDamagedScript(fileUrl, message, { reload = () => location.reload(),
  storage = globalThis.sessionStorage } = {}) {
  const url = new URL(fileUrl, location.href);
  if (url.origin !== location.origin || !/\.(js|css)$/.test(url.pathname)) return 'ignored';
  const key = cacheKey(url);
  if (self.caches) {
    for (const name of (await caches.keys()).filter((n) => n.startsWith(PREFIX))) {
      await (await caches.open(name)).delete(key);
    }
  }
  const flag = `attention-course-refetched-${key}`;
  let again = false;
  try { again = storage?.getItem(flag) === 'yes'; storage?.setItem(flag, 'yes'); } catch { /* no storage */ }
  let online = false;
  let status = null; // the host's answer, when it has no good copy either
  if (!again) { // a fresh copy to be had? (the host may be unreachable while the browser calls itself online)
    try {
      const response = await fetch(url, { cache: 'no-store' });
      online = response.ok;
      if (!response.ok) status = response.status;
    } catch { online = false; }
  }
  if (online) {
    reload();
    return 'reloaded';
  }
  const line = document.createElement('p');
  line.className = 'damaged-copy';
  line.setAttribute('role', 'alert');
  line.textContent = `Part of this page could not load: ${url.pathname.replace(SITE_ROOT.pathname, '')} ` +
    `(${message}). ${status !== null ? `The site answers HTTP ${status} for it: the site's copy is incomplete.`
      : again ? 'Reload the page to fetch it again.'
        : 'Its offline copy was damaged and is dropped: go online and reload the page.'}`;
  (document.querySelector('.reveal') ? document.body : document.querySelector('main') || document.body)?.prepend(line);
  return 'named';
}

if (typeof window !== 'undefined' && typeof location !== 'undefined' && location.protocol !== 'file:') {
  window.addEventListener('error', (event) => {
    const parse = event.error instanceof SyntaxError || /SyntaxError|Unexpected (token|end)/.test(event.message || '');
    if (parse && event.filename) onDamagedScript(event.filename, event.message).catch(() => {});
  });
  // A stylesheet of the site that did not load (missing, refused, or an offline copy
  // that is gone) is named too, never a silently unstyled page: those in the page's
  // head have loaded or failed before this module runs (a module waits for them; a
  // failed one is left with no rules: every stylesheet of the site has some), a later
  // one reports its error event.
  const failedSheet = (link) => onDamagedScript(link.href, 'the stylesheet did not load').catch(() => {});
  const empty = (sheet) => { try { return sheet.cssRules.length === 0; } catch { return false; } }; // (cross-origin)
  for (const link of document.querySelectorAll('link[rel="stylesheet"]')) { // a failed load leaves no rules
    if (!link.sheet || empty(link.sheet)) failedSheet(link);
  }
  window.addEventListener('error', (event) => {
    const link = event.target;
    if (link?.tagName === 'LINK' && link.rel === 'stylesheet') failedSheet(link);
  }, true);
}

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
// for offline use: once per build (it records a complete run), and only once
// this page is idle (no file fetched for a while, then the browser's idle
// callback): the lab calls it after lab.ready, a deck after its load, so the
// precache never competes with what the learner opened. When the browser asks
// to save data (navigator.connection.saveData, a metered connection) it is
// skipped, and the page offers a "Keep the whole course offline" button
// instead; the choice to keep it is remembered. See sw.js.
const OPT_IN = 'attention-course-keep-offline'; // localStorage: 'yes' once the learner chose to keep it all
const marker = () => new URL(`sw-precached.txt?v=${encodeURIComponent(BUILD || 'unversioned')}`, SITE_ROOT).href;

export function savesData() {
  return Boolean(typeof navigator !== 'undefined' && navigator.connection && navigator.connection.saveData);
}

function optedIn() {
  try { return localStorage.getItem(OPT_IN) === 'yes'; } catch { return false; }
}

// Resolves once no file was fetched for quietMs (or after maxMs), then at the browser's next idle moment.
export function whenIdle(quietMs = 2000, maxMs = 30000) {
  return new Promise((resolve) => {
    const start = performance.now();
    let count = -1;
    let since = start;
    const idle = self.requestIdleCallback ? (f) => self.requestIdleCallback(f, { timeout: 5000 })
      : (f) => setTimeout(f, 0);
    const tick = () => {
      const n = performance.getEntriesByType('resource').length;
      const now = performance.now();
      if (n !== count) { count = n; since = now; }
      if (now - since >= quietMs || now - start >= maxMs) idle(() => resolve());
      else setTimeout(tick, 250);
    };
    tick();
  });
}

async function askWorker() {
  const registration = await navigator.serviceWorker.ready;
  registration.active?.postMessage({ type: 'precache', build: BUILD });
  return Boolean(registration.active);
}

export async function precacheSite({ quietMs = 2000 } = {}) {
  if (!('serviceWorker' in navigator) || !self.caches) return false;
  if (await caches.match(marker())) return false; // kept already: the worker is not woken for nothing
  if (savesData() && !optedIn()) {
    offerKeepOffline();
    return false;
  }
  await whenIdle(quietMs);
  return askWorker();
}

// The visible control on a data-saving connection: one button (in the lab's
// footer, a page's main text, or a deck's bottom corner) that keeps it all.
export function offerKeepOffline(doc = document) {
  if (doc.querySelector('.keep-offline')) return doc.querySelector('.keep-offline');
  const box = doc.createElement('span');
  box.className = 'keep-offline';
  const button = doc.createElement('button');
  button.type = 'button';
  button.textContent = 'Keep the whole course offline';
  const note = doc.createElement('span');
  note.className = 'keep-offline-note';
  note.setAttribute('role', 'status');
  note.textContent = ' (not kept yet, as your browser asks to save data: every deck, reading view and notebook page)';
  button.addEventListener('click', async () => {
    try { localStorage.setItem(OPT_IN, 'yes'); } catch { /* remembered for this page only */ }
    button.disabled = true;
    note.textContent = ' Keeping the course offline…';
    await askWorker();
    for (let i = 0; i < 600 && !(await caches.match(marker())); i += 1) await new Promise((r) => setTimeout(r, 500));
    note.textContent = (await caches.match(marker())) ? ' The whole course is kept offline.'
      : ' Not all of it could be kept; the pages you open are kept as you go.';
  });
  box.append(button, note);
  const host = doc.querySelector('.lab-footer, main, footer') || doc.body; // a deck: a corner of its own (site.css)
  host.append(box);
  return box;
}

// The page's widgets are up (widgets/loader.js sets <html data-widgets-ready>;
// a deck's later slides and their widgets come after 'load'); at once on a page
// without widgets, and never later than maxMs.
function widgetsUp(maxMs = 30000) {
  const html = document.documentElement;
  const done = () => html.dataset.widgetsReady !== undefined
    || !document.querySelector('.widget[data-widget], template.slide-later');
  if (done()) return Promise.resolve();
  return new Promise((resolve) => {
    const watch = new MutationObserver(() => { if (done()) { watch.disconnect(); resolve(); } });
    watch.observe(html, { attributes: true, attributeFilter: ['data-widgets-ready'] });
    setTimeout(() => { watch.disconnect(); resolve(); }, maxMs);
  });
}

// A deck, reading view or the index: keep the page and what it loaded for
// offline use, once at 'load' (a learner may leave at once) and again a moment
// after its widgets are up for what came after it (fonts, widgets and their tables).
export function keepPageOffline(settleMs = 1500) {
  if (location.protocol === 'file:') return Promise.resolve({ ok: false, reason: 'opened as a file' });
  const loaded = document.readyState === 'complete' ? Promise.resolve()
    : new Promise((resolve) => window.addEventListener('load', resolve, { once: true }));
  // the service worker starts once the page is loaded and shown (core/paint.js):
  // installing it competes with the first paint on a slow phone
  return loaded.then(afterFirstPaint).then(registerOffline).then(async (o) => {
    if (!o.ok) return o;
    const first = await keepShell(shellUrls());
    await widgetsUp();
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const later = await keepShell(shellUrls());
    precacheSite().catch(() => {});
    return { ok: true, stored: first.stored + later.stored };
  });
}
