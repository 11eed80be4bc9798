// The site's service worker (scope: the whole site): keeps every page a
// learner opens, and the files it uses, for offline use, one cache per build.
//
// Registered as sw.js?v=<build> (core/offline.js), so each build installs its
// own worker with its own cache. Every file a page loads carries its build in
// the URL (?v=<build>, site_builder/versioning.py) and is kept under that URL,
// in that build's cache: a page, online or off, only ever finds the files of
// its own build.
// Pages are fetched network first, revalidated with the server (cache:
// 'no-cache', never a stale HTTP-cache copy); the cached page answers only
// when the network fails. A versioned file of another build (an older page
// still open, or opened offline) is answered from the caches first.
// Models and the runtime's .wasm are not handled here: the lab's inference
// worker keeps them in its own cache and checks their SHA-256 on every read.

const PREFIX = 'attention-course-shell-'; // also in core/offline.js
const BUILD = new URL(self.location.href).searchParams.get('v') || 'unversioned';
const CACHE = PREFIX + BUILD;
const KEEP_BUILDS = 3; // this build's cache and the two before it (pages opened only then stay offline)
const BIG = /\.(onnx|wasm)$/;

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil((async () => {
  await caches.open(CACHE);
  const shells = (await caches.keys()).filter((name) => name.startsWith(PREFIX) && name !== CACHE);
  await Promise.all(shells.slice(0, Math.max(0, shells.length - (KEEP_BUILDS - 1))).map((n) => caches.delete(n)));
  await self.clients.claim();
})()));

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
  const names = (await caches.keys()).filter((name) => name.startsWith(PREFIX)).reverse();
  for (const name of names) {
    const cache = await caches.open(name);
    const hit = await cache.match(key);
    if (hit) return hit;
  }
  return undefined;
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

async function answer(event, request, url) {
  const key = cacheKey(url);
  const v = url.searchParams.get('v');
  if (v && v !== BUILD) { // another build's file: its cached copy is exactly that build's
    const hit = await lookup(key);
    if (hit) return hit;
  }
  const page = isPage(request, url);
  try {
    // a navigation keeps its redirect mode 'manual': a redirect (/lab -> /lab/) goes back to the browser
    const response = await fetch(page ? new Request(request, { cache: 'no-cache' }) : request);
    // kept unless the server says not to: site_builder's server marks a file asked for with another
    // build's id no-store (the file it has is not that build's). waitUntil: the worker stays alive
    // until the copy is stored, even if the page closes at once.
    if (response.ok && response.type === 'basic' && !/no-store/.test(response.headers.get('cache-control') || '')) {
      event.waitUntil(keep(key, response.clone(), v, page));
    }
    return response;
  } catch (err) {
    const cached = await lookup(key) || (url.pathname.endsWith('/') ? await lookup(`${key}index.html`) : undefined);
    if (cached) return cached;
    throw err;
  }
}
