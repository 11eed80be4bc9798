// What the lab page, its inference worker (worker.js) and runtime.js share,
// each stated once: the runtimes and the Runtime menu's choices, the folders the
// lab loads from, the context of the timed model calls, and median().
// Values the Python build owns (the context width, the vocabulary, the
// held-out preset) come from onnx/metadata.json or the rendered page instead.

import { contextWindow, startHistory } from '../core/decoding.js';

// The onnxruntime-web runtimes (the builds in vendor/onnxruntime-web/runtimes.json,
// site_builder/assemble.py's ORT_BUILDS), and the menu's choices: 'auto' picks one.
export const RUNTIMES = ['wasm', 'webgpu'];
export const BACKENDS = ['auto', ...RUNTIMES];

// The site's folders, relative to the site root and as URLs (this file is lab/shared.js).
export const VENDOR_DIR = 'vendor/onnxruntime-web';
export const VENDOR = new URL(`../${VENDOR_DIR}/`, import.meta.url).href;
export const MODELS_DIR = 'onnx';
export const MODELS = new URL(`../${MODELS_DIR}/`, import.meta.url).href;

// The prompt of every timed call (the automatic choice's timing, lab.benchmark):
// BOS and these five IDs, left-padded with PAD. bench/__main__.py (TIMING_IDS)
// times Python's onnxruntime on the same context.
export const TIMING_IDS = [5, 6, 7, 8, 9];

export function timingContext(width) {
  return contextWindow(startHistory(TIMING_IDS), width);
}

// The middle value (the mean of the two middle ones for an even count); null when empty.
export function median(values) {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
