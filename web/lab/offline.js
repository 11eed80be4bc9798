// Offline after one visit, page side: registers the lab's service worker
// (sw.js) and, on a visit the service worker did not yet control (the first),
// stores the page and every script it and the inference worker loaded, so the
// next visit works with the network off. Models and runtimes: runtime.js.

const SHELL_CACHE = 'attention-lab-shell-v1'; // also in sw.js
const BIG = /\.(onnx|wasm)$/;

export const controlledAtStart = Boolean(navigator.serviceWorker?.controller);

export async function registerOffline() {
  if (!('serviceWorker' in navigator) || !self.caches) {
    return { ok: false, reason: 'this browser offers no service worker here (it needs https or localhost)' };
  }
  try {
    await navigator.serviceWorker.register(new URL('./sw.js', import.meta.url), { scope: './' });
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: `the offline copy could not be set up (${err.message})` };
  }
}

// Same-origin files this page (and, passed in, the worker) fetched, minus the
// big ones the worker caches itself.
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
