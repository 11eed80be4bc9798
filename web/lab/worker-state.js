// The inference worker's state and its small shared helpers (worker.js and
// worker-sessions.js): the loaded files, the sessions per runtime, one model
// call at a time, progress events, and a yield that lets Stop in.

import { RUNTIMES } from './shared.js';

export const perRuntime = () => Object.fromEntries(RUNTIMES.map((b) => [b, {}]));

export const state = {
  metadata: null,
  bytes: {}, // kind -> Uint8Array of the verified model
  loadErrors: {}, // kind -> message
  sessions: perRuntime(), // backend -> kind -> InferenceSession
  sessionErrors: perRuntime(),
  sessionReports: perRuntime(), // backend -> kind -> {create_ms, warmup_ms} of its session
  manifest: null, // vendor/onnxruntime-web/runtimes.json
  runtimeErrors: {}, // backend -> message
  tensors: new WeakMap(), // session -> the Tensor class of its onnxruntime-web build
  stops: new Set(),
  base: null, // the models' folder URL
  headsBytes: {}, // kind -> Promise<Uint8Array> of its head-switch graph, fetched on first use
  headsSessions: perRuntime(), // backend -> kind -> Promise<InferenceSession> of the head-switch graph
};

// Let queued messages (Stop) in between model calls: a macrotask yield without timer clamping.
const channel = new MessageChannel();
const pending = [];
channel.port1.onmessage = () => pending.shift()?.();
export function yieldToEvents() {
  return new Promise((resolve) => { pending.push(resolve); channel.port2.postMessage(0); });
}

// Session runs are serialized: one model call at a time, whichever backend.
let queue = Promise.resolve();
export function serialized(fn) {
  const result = queue.then(fn, fn);
  queue = result.catch(() => {});
  return result;
}

export function progress(file, name) {
  return ({ loaded, total, from }) => postMessage({ event: 'progress', file, name, loaded, total, from });
}
