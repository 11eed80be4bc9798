// The site's service worker (scope: the whole site): keeps every page a
// learner opens, and the files it uses, for offline use, one cache per build.
//
// Registered as sw.js?v=<build> (core/offline.js), so each build installs its
// own worker with its own cache (it takes over once no tab uses the one before
// it: see 'install' below). Every file a page loads carries its build in
// the URL (?v=<build>, site_builder/versioning.py) and is kept under that URL,
// in that build's cache: a page, online or off, only ever finds the files of
// its own build.
// Pages are fetched network first, revalidated with the server (cache:
// 'no-cache', never a stale HTTP-cache copy); the cached page answers only
// when the network fails. A versioned file of another build (an older page
// still open, or opened offline) is answered from the caches first.
// On the first visit (any page), the worker also keeps every deck, reading
// view, notebook page and the index with their files (precacheSite below), so
// a page never opened still opens offline.
// A versioned file the network answers as another build's (an error, no-store,
// or the host's version.json names another build: the site was rebuilt under
// an open tab) is never passed on: the tab gets its own build's cached copy, or
// a 410 and a message, on which it reloads as the new build (38.2). Offline, a
// page comes from the newest build whose copy of it is whole (38.3).
// Models and the runtime's .wasm are not handled here: the lab's inference
// worker keeps them in its own cache and checks their SHA-256 on every read.

const PREFIX = 'attention-course-shell-'; // also in core/offline.js
const BUILD = new URL(self.location.href).searchParams.get('v') || 'unversioned';
const CACHE = PREFIX + BUILD;
const KEEP_BUILDS = 3; // this build's cache and the two before it (pages opened only then stay offline)
const BIG = /\.(onnx|wasm)$/;

// No skipWaiting(): a new build's worker waits until no tab uses the old one.
// Replacing a busy worker mid-navigation (skipWaiting while a link is being
// followed) left that navigation hanging in Chromium; the old worker serves a
// new build correctly meanwhile (pages network first, each versioned file
// under its own build), and keeps the new build's pages with the build they carry.
self.addEventListener('activate', (event) => event.waitUntil((async () => {
  await caches.open(CACHE);
  const shells = (await caches.keys()).filter((name) => name.startsWith(PREFIX) && name !== CACHE);
  await Promise.all(shells.slice(0, Math.max(0, shells.length - (KEEP_BUILDS - 1))).map((n) => caches.delete(n)));
  await self.clients.claim();
})()));

// A page asks for the whole site once per build (core/offline.js precacheSite),
// naming its build: the worker may be an older build's, still serving the tab.
self.addEventListener('message', (event) => {
  if (event.data?.type !== 'precache') return;
  const build = /^[0-9a-f]{8,}$/.test(event.data.build || '') ? event.data.build : BUILD;
  event.waitUntil(precacheSite(build).catch(() => {}));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || BIG.test(url.pathname)) return;
  if (url.pathname.endsWith('/sw.js')) return;
  event.respondWith(answer(event, request, url));
});

// The cache key: the path, and the build for a versioned file (?backend=...
// and other page options open the same page).
function cacheKey(url) {
  const v = url.searchParams.get('v');
  return url.origin + url.pathname + (v ? `?v=${encodeURIComponent(v)}` : '');
}

function isPage(request, url) {
  return request.mode === 'navigate' || url.pathname.endsWith('/') || url.pathname.endsWith('.html');
}

// The newest build's cache first (caches.keys() lists them in the order they
// were made): offline, a page opens as the latest build the learner saw, and a
// versioned file is only ever in its own build's cache.
async function lookup(key) {
  for (const name of await shellCaches()) {
    const hit = await (await caches.open(name)).match(key);
    if (hit) return hit;
  }
  return undefined;
}

async function shellCaches() {
  return (await caches.keys()).filter((name) => name.startsWith(PREFIX)).reverse();
}

// The files a page names with its build (?v=): its scripts and styles, and its
// widgets and their tables, which the widget loader composes.
function pageReferences(text, pageUrl) {
  const build = /[?&]v=([0-9a-f]{8,})["')]/.exec(text)?.[1];
  const root = self.registration.scope;
  const refs = [];
  for (const [, ref] of text.matchAll(/(?:src|href)="([^"#]+[?&]v=[0-9a-f]+)"/g)) refs.push(new URL(ref, pageUrl));
  if (build) {
    for (const [, n] of text.matchAll(/data-widget="([\w-]+)"/g)) refs.push(new URL(`widgets/${n}.js?v=${build}`, root));
    for (const [, n] of text.matchAll(/data-table="(\w+)"/g)) refs.push(new URL(`tables/${n}.json?v=${build}`, root));
  }
  return refs.map(cacheKey);
}

// A page from the caches, offline: the newest build whose copy of it is whole
// (every file it names kept in that build's cache), not a newer build's copy
// whose precache was cut off (its HTML kept, its widgets not); the newest copy
// only when none is whole.
async function lookupPage(keys) {
  let first;
  for (const name of await shellCaches()) {
    const cache = await caches.open(name);
    for (const key of keys) {
      const hit = await cache.match(key);
      if (!hit) continue;
      first ??= hit;
      const refs = pageReferences(await hit.clone().text(), key);
      const kept = await Promise.all(refs.map((r) => cache.match(r)));
      if (kept.every(Boolean)) return hit;
    }
  }
  return first;
}

// A copy kept in the cache of its build: a versioned file's from its URL, a
// page's from the references it carries (site_builder/versioning.py stamps them).
async function keep(key, copy, v, page) {
  let build = v;
  if (page) build = /[?&]v=([0-9a-f]{8,})["')]/.exec(await copy.clone().text())?.[1];
  try {
    await (await caches.open(build ? PREFIX + build : CACHE)).put(key, copy);
  } catch { /* quota: this one will need the network */ }
}

// The build the host serves now (its version.json): a versioned file fetched
// from the network is that build's, whatever ?v= the request named (a static
// host ignores the query). An answer that agrees with the request is reused for
// a few seconds; one that disagrees is asked again first (fresh), because the
// site may have been rebuilt since it was asked: refusing a new build's file on
// an old answer would leave its page without its scripts.
let served = { at: -Infinity, build: null }; // at: when the request that got it was sent
let asking = null; // the request in flight, shared by every file that waits on it
function askServed() {
  asking ??= (async () => {
    const at = performance.now();
    try {
      const r = await fetch(new URL('version.json', self.registration.scope), { cache: 'no-store' });
      served = { at, build: r.ok ? (await r.json()).build || null : null };
    } catch { served = { at, build: null }; }
    return served;
  })().finally(() => { asking = null; });
  return asking;
}
async function servedBuild(v, stale) {
  const since = performance.now();
  if (!stale && since - served.at < 3000 && served.build === v) return v; // a host that refused it: ask
  let answer = await askServed();
  if (answer.at < since && answer.build !== v) answer = await askServed(); // asked before this file came: again
  return answer.build;
}

// A tab asked for a file of its build (v) that the host no longer has: the
// site was rebuilt under it. Its own build's bytes are not to be had, and the
// new build's would mix two builds in one page: answer 410 and tell the tab,
// which reloads as the new build (core/offline.js).
async function gone(event, url, v, now) {
  const client = event.clientId ? await self.clients.get(event.clientId) : null;
  client?.postMessage({ type: 'stale-build', build: v, current: now, path: url.pathname });
  const headers = { 'content-type': 'text/plain', 'cache-control': 'no-store' };
  return new Response(`${url.pathname} of build ${v} is no longer served (the site is now build ${now}); reload`,
    { status: 410, statusText: 'Gone: another build', headers });
}

async function answer(event, request, url) {
  const key = cacheKey(url);
  const v = url.searchParams.get('v');
  if (v && v !== BUILD) { // another build's file: its cached copy is exactly that build's
    const hit = await lookup(key);
    if (hit) return hit;
  }
  const page = isPage(request, url);
  let response;
  try {
    // a navigation keeps its redirect mode 'manual': a redirect (/lab -> /lab/) goes back to the browser
    response = await fetch(page ? new Request(request, { cache: 'no-cache' }) : request);
  } catch (err) {
    const cached = page ? await lookupPage([key, ...(url.pathname.endsWith('/') ? [`${key}index.html`] : [])])
      : await lookup(key);
    if (cached) return cached;
    throw err;
  }
  if (v && response.type === 'basic') {
    // site_builder's server answers another build's ?v= with an error, or marks it no-store;
    // any other host sends its current file: the build it serves tells
    const stale = response.status === 404 || response.status === 410
      || /no-store/.test(response.headers.get('cache-control') || '');
    const now = stale || response.ok ? await servedBuild(v, stale) : null;
    if (now && now !== v) return await lookup(key) || gone(event, url, v, now); // its own build's copy, or none
  }
  // kept unless the server says not to. waitUntil: the worker stays alive
  // until the copy is stored, even if the page closes at once.
  if (response.ok && response.type === 'basic' && !/no-store/.test(response.headers.get('cache-control') || '')) {
    event.waitUntil(keep(key, response.clone(), v, page));
  }
  return response;
}

// Precache: every page the index links to (decks, reading views, notebook
// pages, notation, glossary; not the lab, whose models its worker keeps) and
// every file they use, found by following the references the build stamps with
// ?v=<build>: scripts and styles (and the modules they import), each widget and
// its table (data-widget, data-table), fonts named in the styles. About 1 MB
// over the wire (gzipped), once per build: a marker records a complete run.
const precaching = new Map(); // build -> its run in progress
const STAMPED = /["']([^"'\s]+\.m?js\?v=[0-9a-f]+)["']/g;

function precacheSite(build) {
  if (!precaching.has(build)) precaching.set(build, precacheOnce(build).finally(() => precaching.delete(build)));
  return precaching.get(build);
}

async function precacheOnce(build) {
  const root = self.registration.scope;
  const marker = new URL(`sw-precached.txt?v=${encodeURIComponent(build)}`, root).href;
  const cache = await caches.open(PREFIX + build);
  if (await cache.match(marker)) return;
  const index = new URL('index.html', root).href;
  const seen = new Set();
  let failed = 0;
  let queue = [index];
  while (queue.length) {
    const batch = queue.filter((u) => !seen.has(u)).slice(0, 6);
    queue = queue.filter((u) => !batch.includes(u));
    batch.forEach((u) => seen.add(u));
    const found = await Promise.all(batch.map((u) => keepForOffline(u, u === index, root).catch(() => {
      failed += 1;
      return [];
    })));
    queue.push(...found.flat().filter((u) => !seen.has(u)));
  }
  if (!failed) await cache.put(marker, new Response(String(seen.size)));
}

// Fetch one file, keep it, and return the site's URLs it refers to.
async function keepForOffline(href, isIndex, root) {
  const url = new URL(href);
  const page = url.pathname.endsWith('.html');
  const key = cacheKey(url);
  const v = url.searchParams.get('v');
  const kept = v ? await lookup(key) : undefined; // this build's file, already kept: read, not fetched again
  const response = kept || await fetch(page ? new Request(href, { cache: 'no-cache' }) : href);
  if (!response.ok) return []; // a file the site lacks: nothing to keep (a network failure throws: tried again later)
  const text = /\.(html|m?js|css)$/.test(url.pathname) ? await response.clone().text() : '';
  if (!kept) await keep(key, response, v, page);
  const out = [];
  const add = (ref) => {
    const u = new URL(ref, href);
    if (u.origin === self.location.origin && u.href.startsWith(root) && !BIG.test(u.pathname)) out.push(u.href);
  };
  if (page) {
    const build = /[?&]v=([0-9a-f]{8,})["')]/.exec(text)?.[1] || BUILD;
    for (const [, ref] of text.matchAll(/(?:src|href)="([^"#]+)"/g)) {
      if (isIndex && /\.html$/.test(ref) && !/(^|\/)lab\//.test(ref)) add(ref);
      else if (/[?&]v=/.test(ref)) add(ref);
    }
    for (const [, name] of text.matchAll(/data-widget="([\w-]+)"/g)) add(new URL(`widgets/${name}.js?v=${build}`, root));
    for (const [, name] of text.matchAll(/data-table="(\w+)"/g)) add(new URL(`tables/${name}.json?v=${build}`, root));
  } else if (/\.m?js$/.test(url.pathname)) {
    for (const [, ref] of text.matchAll(STAMPED)) add(ref);
  } else if (url.pathname.endsWith('.css')) {
    for (const [, ref] of text.matchAll(/url\(["']?([^"')]+)["']?\)/g)) if (/\.woff2$|[?&]v=/.test(ref)) add(ref);
  }
  return out;
}
