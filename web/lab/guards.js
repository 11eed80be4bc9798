// Checks at the edge of the lab's API and of its input files: every bad value
// gets a message that names it, before anything on the page changes.

import { BACKENDS, MODELS_DIR, RUNTIMES, VENDOR_DIR } from './shared.js';
import { BOS_ID, PAD_ID } from '../core/tokenizer.js';

// Below this, softmax(logits / T) overflows to a one-hot (or NaN) distribution:
// use greedy decoding instead.
export const MIN_TEMPERATURE = 1e-3;
export const MAX_TEMPERATURE = 100;
export const MAX_BENCH_RUNS = 10000;
export const MAX_SEED = 4294967295; // mulberry32's 32-bit state
// The bounds of one call (README, the lab's API): a longer text, a longer score or
// more contexts would freeze the page or run the runtime out of memory.
export const MAX_TEXT_CHARS = 100000; // a prompt or a text to score, in characters (about 20,000 words)
export const MAX_SCORE_TOKENS = 4096; // the tokens one score reads (each is one context per model)
export const MAX_CONTEXTS = 1024; // contexts in one lab.run or lab.logits call
export const MAX_HISTORY_TOKENS = MAX_SCORE_TOKENS; // a token history of lab.attentionSteps or lab.wordEffects

// A value as a message shows it: strings quoted, a BigInt marked as one (5n
// would read as the integer 5), an object by its kind.
export function show(v) {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (typeof v === 'bigint') return `${v}n (a BigInt; pass a Number)`;
  if (v === null || v === undefined || typeof v !== 'object') return String(v);
  if (Array.isArray(v)) return `an array of ${v.length}`;
  return ArrayBuffer.isView(v) ? `a ${v.constructor.name} of ${v.length}` : 'an object';
}

// A text the lab tokenizes: a string, at most MAX_TEXT_CHARS long.
export function checkText(text, what = 'the text') {
  if (typeof text !== 'string') throw new Error(`${what} must be a string (got ${show(text)})`);
  if (text.length > MAX_TEXT_CHARS) {
    throw new Error(`${what} is ${text.length.toLocaleString('en-US')} characters long; the lab reads at most ` +
      `${MAX_TEXT_CHARS.toLocaleString('en-US')}: shorten it`);
  }
  return text;
}

export function checkBackend(choice) {
  if (typeof choice !== 'string' || !BACKENDS.includes(choice)) {
    throw new Error(`unknown backend ${show(choice)}; use "auto", "webgpu" or "wasm"`);
  }
  return choice;
}

// kind must be one of the build's models: an own property, never an inherited
// name such as "constructor" or "__proto__".
export function checkKind(metadata, kind) {
  if (typeof kind !== 'string' || !Object.hasOwn(metadata.models, kind) || !metadata.order.includes(kind)) {
    throw new Error(`unknown model ${show(kind)}; use one of ${metadata.order.map((k) => `"${k}"`).join(', ')}`);
  }
  return kind;
}

export function checkTemperature(t) {
  if (!(typeof t === 'number' && Number.isFinite(t) && t >= MIN_TEMPERATURE && t <= MAX_TEMPERATURE)) {
    throw new Error(`temperature must be a number from ${MIN_TEMPERATURE} to ${MAX_TEMPERATURE} (got ${show(t)}); ` +
      'for the single most likely token use greedy mode');
  }
  return t;
}

export function checkRuns(runs) {
  if (!(Number.isInteger(runs) && runs >= 1 && runs <= MAX_BENCH_RUNS)) {
    throw new Error(`runs must be an integer from 1 to ${MAX_BENCH_RUNS} (got ${show(runs)})`);
  }
  return runs;
}

// One context: `context` integer IDs in [0, vocabSize), in an array or an
// integer typed array (Int32Array...; not a BigInt64Array: its IDs are BigInts).
export function checkIds(ids, vocabSize, context, what = 'context') {
  if (typeof ids === 'bigint' || typeof ids === 'number') {
    throw new Error(`${what} must be an array of ${context} token IDs, not one ID (${show(ids)})`);
  }
  if (!Array.isArray(ids) && !ArrayBuffer.isView(ids)) {
    throw new Error(`${what} must be an array of ${context} token IDs (got ${show(ids)})`);
  }
  if (ids instanceof BigInt64Array || ids instanceof BigUint64Array) {
    throw new Error(`${what} is a ${ids.constructor.name}: pass token IDs as Numbers (an array or an Int32Array)`);
  }
  const n = ids.length; // read once: a getter cannot change it between the check and the use
  if (n !== context) throw new Error(`${what} must hold ${context} token IDs, got ${n}`);
  const copy = copyIds(ids, n, what);
  for (let j = 0; j < n; j++) {
    const id = copy[j];
    if (!(Number.isInteger(id) && id >= 0 && id < vocabSize)) {
      throw new Error(`token IDs must be integers from 0 to ${vocabSize - 1}; ${what} slot ${j} holds ${show(id)}`);
    }
  }
  return copy; // what was checked is what runs
}

// The IDs read once each into a plain array (copy, then check: an accessor or
// a Proxy cannot answer one value to the check and another to the model); a
// hole of a sparse array is refused by its index, never read as undefined or PAD.
function copyIds(ids, n, what) {
  const copy = new Array(n);
  const plain = Array.isArray(ids);
  for (let j = 0; j < n; j++) {
    if (plain && !Object.hasOwn(ids, j)) {
      throw new Error(`${what} has a hole at index ${j}: every slot holds a token ID`);
    }
    copy[j] = ids[j];
  }
  return copy;
}

// A token history (lab.attentionSteps, lab.wordEffects): a non-empty array of
// at most MAX_HISTORY_TOKENS IDs, <BOS> first, no <PAD>; refused by name at once
// past the bound (before any copy or model call); returns the checked copy.
export function checkHistory(ids, vocabSize, what = 'ids') {
  if (!Array.isArray(ids) && !ArrayBuffer.isView(ids)) {
    throw new Error(`${what} must be a non-empty array of token IDs (BOS first), got ${show(ids)}`);
  }
  const n = ids.length;
  if (!n) throw new Error(`${what} must be a non-empty array of token IDs (BOS first)`);
  if (n > MAX_HISTORY_TOKENS) {
    throw new Error(`${what} holds ${n.toLocaleString('en-US')} tokens; at most ` +
      `${MAX_HISTORY_TOKENS.toLocaleString('en-US')} in one call (lab.limits.max_history_tokens): split the history`);
  }
  const copy = copyIds(ids, n, what);
  for (let t = 0; t < n; t++) {
    const id = copy[t];
    if (!(Number.isInteger(id) && id >= 0 && id < vocabSize)) {
      throw new Error(`token IDs must be integers from 0 to ${vocabSize - 1}; ${what}[${t}] is ${show(id)}`);
    }
    if (id === PAD_ID) throw new Error(`${what} is a token history and holds no <PAD>; ${what}[${t}] is ${PAD_ID}`);
  }
  if (copy[0] !== BOS_ID) throw new Error(`${what} is a token history: it starts with <BOS> (ID ${BOS_ID})`);
  return copy;
}

// The contexts of lab.run and lab.logits: a non-empty array of such contexts.
export function checkContexts(contexts, vocabSize, context) {
  if (!Array.isArray(contexts) || !contexts.length) {
    throw new Error(`contexts must be a non-empty array of ID arrays (got ${show(contexts)})`);
  }
  const n = contexts.length;
  if (n > MAX_CONTEXTS) {
    throw new Error(`${n.toLocaleString('en-US')} contexts in one call; at most ` +
      `${MAX_CONTEXTS.toLocaleString('en-US')}: split them into several calls`);
  }
  const out = new Array(n);
  for (let b = 0; b < n; b++) {
    if (!Object.hasOwn(contexts, b)) throw new Error(`contexts has a hole at index ${b}: every entry is a context`);
    out[b] = checkIds(contexts[b], vocabSize, context, `context ${b}`);
  }
  return out; // the checked copies: what runs
}

function fail(file, field, what) {
  throw new Error(`${file}: field "${field}" ${what} (rebuild the site with \`make site\`)`);
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isCount = (v) => Number.isInteger(v) && v > 0;
const isSha = (v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
const isFileName = (v) => typeof v === 'string' && /^[\w.-]+$/.test(v);

// onnx/metadata.json, as far as the lab reads it.
export function checkMetadata(m, file = `${MODELS_DIR}/metadata.json`) {
  if (!isObject(m)) throw new Error(`${file}: expected a JSON object, got ${Array.isArray(m) ? 'an array' : typeof m}`);
  if (!Array.isArray(m.order) || !m.order.length || !m.order.every((k) => typeof k === 'string')) {
    fail(file, 'order', 'must be a non-empty list of model names');
  }
  if (!isObject(m.models)) fail(file, 'models', 'must be an object with one entry per model');
  for (const kind of m.order) {
    if (!Object.hasOwn(m.models, kind) || !isObject(m.models[kind])) fail(file, `models.${kind}`, 'is missing');
    const e = m.models[kind];
    if (!isFileName(e.file)) fail(file, `models.${kind}.file`, 'must be a plain file name');
    if (!isSha(e.sha256)) fail(file, `models.${kind}.sha256`, 'must be 64 lowercase hex digits');
    if (!isCount(e.bytes)) fail(file, `models.${kind}.bytes`, 'must be a positive integer');
    if (typeof e.label !== 'string') fail(file, `models.${kind}.label`, 'must be a string');
    if (!(Number.isInteger(e.heads) && e.heads >= 0)) {
      fail(file, `models.${kind}.heads`, 'must be the number of attention heads (0 for none)');
    }
  }
  if (!isCount(m.vocab_size)) fail(file, 'vocab_size', 'must be a positive integer');
  if (!isCount(m.context)) fail(file, 'context', 'must be a positive integer (the context width)');
  if (!isObject(m.special_ids) || !Number.isInteger(m.special_ids.EOS)) {
    fail(file, 'special_ids.EOS', 'must be an integer');
  }
  if (!Array.isArray(m.banned_ids)) fail(file, 'banned_ids', 'must be a list of IDs');
  if (!isObject(m.dataset) || typeof m.dataset.attribution !== 'string') {
    fail(file, 'dataset.attribution', 'must credit the data set (a string)');
  }
  return m;
}

// onnx/vocab.json against the metadata: as many tokens as vocab_size, the
// special tokens at their IDs.
export function checkVocab(itos, m, file = `${MODELS_DIR}/vocab.json`, metaFile = `${MODELS_DIR}/metadata.json`) {
  if (!Array.isArray(itos) || !itos.every((t) => typeof t === 'string')) {
    throw new Error(`${file}: expected a list of token strings (rebuild the site with \`make site\`)`);
  }
  if (itos.length !== m.vocab_size) {
    throw new Error(`${metaFile}: field "vocab_size" says ${m.vocab_size} but ${file} holds ${itos.length} tokens ` +
      '(rebuild the site with `make site`)');
  }
  for (const [name, id] of Object.entries(m.special_ids)) {
    const token = `<${name}>`;
    if (!Number.isInteger(id) || itos[id] !== token) {
      throw new Error(`${file}: ID ${show(id)} is not ${token} as ${metaFile} field "special_ids.${name}" says`);
    }
  }
  return itos;
}

// onnx/presets.json: a non-empty list of prompts, each with its id, label, group and prompt.
export function checkPresets(presets, file = `${MODELS_DIR}/presets.json`) {
  if (!Array.isArray(presets) || !presets.length) {
    throw new Error(`${file}: expected a non-empty list of prompts, got ${show(presets)}`);
  }
  presets.forEach((p, i) => {
    for (const key of ['id', 'label', 'group', 'prompt']) {
      if (!isObject(p) || typeof p[key] !== 'string') fail(file, `${i}.${key}`, 'must be a string');
    }
  });
  return presets;
}

// A model's graph against its metadata entry, from the shapes of its warm-up
// outputs: logits [batch, vocab_size], attention [batch, heads, context].
export function checkGraph(kind, m, out, file = `${MODELS_DIR}/metadata.json`) {
  const e = m.models[kind];
  const logits = out.dims || [];
  if (logits[logits.length - 1] !== m.vocab_size) {
    fail(file, 'vocab_size', `says ${m.vocab_size} but ${e.file} gives logits of shape [${logits}]`);
  }
  const att = out.attentionDims;
  if (!e.heads && att) fail(file, `models.${kind}.heads`, `is 0 but ${e.file} outputs attention`);
  if (e.heads && !att) fail(file, `models.${kind}.heads`, `is ${e.heads} but ${e.file} outputs no attention`);
  if (att && (att[1] !== e.heads || att[2] !== m.context)) {
    fail(file, `models.${kind}.heads`, `(${e.heads}) or "context" (${m.context}) disagrees with ${e.file}, ` +
      `whose attention has shape [${att}]`);
  }
  return out;
}

// vendor/onnxruntime-web/runtimes.json (site_builder/assemble.py), one build per runtime.
export function checkRuntimeManifest(m, file = `${VENDOR_DIR}/runtimes.json`) {
  if (!isObject(m)) throw new Error(`${file}: expected a JSON object`);
  if (!isObject(m.builds)) fail(file, 'builds', 'must be an object');
  for (const b of RUNTIMES) {
    const e = m.builds[b];
    if (!isObject(e)) fail(file, `builds.${b}`, 'is missing');
    for (const key of ['module', 'glue', 'wasm']) {
      if (!isFileName(e[key])) fail(file, `builds.${b}.${key}`, 'must be a plain file name');
    }
    if (!isCount(e.bytes)) fail(file, `builds.${b}.bytes`, 'must be a positive integer');
    if (!isSha(e.sha256)) fail(file, `builds.${b}.sha256`, 'must be 64 lowercase hex digits');
  }
  return m;
}

// The experiments' options (lab.generate, lab.score, the inspect view), checked
// whole before anything runs: heads_off {kind: [0-based heads]} and hide
// [positions in the token history, BOS = 0]. Returns them normalized (sorted;
// every attention model named), or throws a message that names the option.
export function checkAblation(metadata, { heads_off: headsOff, hide } = {}, historyLength = null) {
  const out = { heads_off: {}, hide: [] };
  for (const kind of metadata.order) if (metadata.models[kind].heads) out.heads_off[kind] = [];
  if (headsOff !== undefined && headsOff !== null) {
    if (typeof headsOff !== 'object' || Array.isArray(headsOff)) {
      throw new Error('heads_off must be an object such as {attn4: [0, 2]}: model name -> 0-based heads');
    }
    for (const [kind, heads] of Object.entries(headsOff)) {
      const what = `heads_off.${kind}`;
      if (!Object.hasOwn(metadata.models, kind) || !metadata.order.includes(kind)) {
        throw new Error(`heads_off: unknown model ${show(kind)}; use ${attentionKinds(metadata)}`);
      }
      const n = metadata.models[kind].heads;
      if (!n) throw new Error(`${what}: ${metadata.models[kind].label} has no attention heads to switch off`);
      out.heads_off[kind] = uniqueIntegers(heads, what, 'head', 0, n - 1,
        (v) => `${what}: head ${show(v)} does not exist (${kind} has heads 0 to ${n - 1}, counted from 0)`);
    }
  }
  if (hide !== undefined && hide !== null) {
    const last = historyLength === null ? Infinity : historyLength - 1;
    out.hide = uniqueIntegers(hide, 'hide', 'position', 0, last,
      (v) => `hide: position ${show(v)} is outside the token history (positions 0 to ${last}; <BOS> is 0)`);
  }
  return out;
}

function attentionKinds(metadata) {
  return metadata.order.filter((k) => metadata.models[k].heads).map((k) => `"${k}"`).join(' or ');
}

function uniqueIntegers(values, what, noun, lo, hi, outside) {
  if (!Array.isArray(values)) throw new Error(`${what} must be an array of ${noun}s (whole numbers)`);
  const seen = new Set();
  for (const v of values) {
    if (!Number.isInteger(v)) throw new Error(`${what}: ${show(v)} is not a whole ${noun} number`);
    if (v < lo || v > hi) throw new Error(outside(v));
    if (seen.has(v)) throw new Error(`${what} lists ${noun} ${v} twice`);
    seen.add(v);
  }
  return [...seen].sort((a, b) => a - b);
}

// True when an ablation changes nothing.
export function noAblation(a) {
  return !a || (!a.hide.length && Object.values(a.heads_off).every((h) => !h.length));
}
