// The site's service worker (scope: the whole site): keeps every page a
// learner opened, and the files it used, for offline use. Network first, so
// an online visit always gets the current build; the cached copy answers only
// when the network fails. The models and the runtime's .wasm are not handled
// here: the lab's inference worker keeps them in its own cache and checks
// their SHA-256 on every read (lab/runtime.js).

const SHELL_CACHE = 'attention-course-shell-v1'; // also in core/offline.js
const BIG = /\.(onnx|wasm)$/;

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || BIG.test(url.pathname)) return;
  event.respondWith(networkFirst(request, url));
});

async function networkFirst(request, url) {
  const key = url.origin + url.pathname; // ?backend=... opens the same page
  try {
    const response = await fetch(request);
    if (response.ok && response.type === 'basic') {
      const copy = response.clone();
      caches.open(SHELL_CACHE).then((cache) => cache.put(key, copy)).catch(() => {});
    }
    return response;
  } catch (err) {
    const cached = await caches.match(key, { cacheName: SHELL_CACHE })
      || (url.pathname.endsWith('/') ? await caches.match(`${key}index.html`, { cacheName: SHELL_CACHE }) : undefined);
    if (cached) return cached;
    throw err;
  }
}
