// Messages to and from the inference worker (worker.js): call(op, args) posts
// one operation and resolves with its answer; the worker's events (download
// progress, generation steps) go to the listener set with onWorkerEvent.

const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
const waiting = new Map(); // message id -> {resolve, reject}
let nextId = 1;
let failure = null; // why the worker could not start, once it failed
let listener = () => {};

export function onWorkerEvent(fn) {
  listener = fn;
}

worker.onmessage = (event) => {
  const msg = event.data;
  if (msg.event) { listener(msg); return; }
  const w = waiting.get(msg.id);
  if (!w) return;
  waiting.delete(msg.id);
  if (msg.ok) w.resolve(msg.result); else w.reject(new Error(msg.error));
};

worker.onerror = (event) => {
  event.preventDefault();
  failure = `the inference worker failed to start (${event.message || 'a script it imports did not load'})`;
  for (const w of waiting.values()) w.reject(new Error(failure));
  waiting.clear();
};

export function call(op, args) {
  if (failure) return Promise.reject(new Error(failure));
  return new Promise((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, op, args });
  });
}
