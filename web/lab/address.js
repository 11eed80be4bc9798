// The address carries the setup (a link a learner can share): the text, the
// task, the decoding settings, the runtime, the experiment and the inspected
// step. Every value is checked like the page's own inputs; a bad one is
// refused by name (the note under the controls lists it) and the rest still
// loads. The Copy link button writes the current setup into the address.
//   ?task=generate&prompt=...&mode=sampled&temperature=0.7&top_k=20&top_p=0.9&seed=5&limit=8
//    &backend=wasm&heads_off=attn4:1,3;attn1:0&hide=3,5&step=attn4:3&run=1
// heads_off and hide are lab.generate's options (heads counted from 0, hide:
// positions of the token history, <BOS> = 0); step: the model and the step
// (from 1) to inspect after the run; run=1: run the task once the models are ready.

import { BACKENDS } from './shared.js';
import { MAX_HISTORY_TOKENS, MAX_SEED, checkAblation, show } from './guards.js';
import { S, $ } from './state.js';
import { readControls, task } from './controls.js';
import { noAblation } from './guards.js';

export const MAX_ADDRESS_PROMPT = 8000; // characters of text a link carries
export const SETUP_KEYS = ['task', 'prompt', 'mode', 'temperature', 'top_k', 'top_p', 'seed', 'limit', 'backend',
  'heads_off', 'hide', 'step', 'run', 'eos'];

const range = (id) => [Number($(id).min), Number($(id).max)];

// One value of the address, checked: the value, or a message that names it.
function parse(key, raw) {
  const bad = (why) => { throw new Error(`${key}=${show(raw)} ${why}`); };
  const number = (v) => (v.trim() === '' || !Number.isFinite(Number(v)) ? bad('is not a number') : Number(v));
  const integer = (v, lo, hi) => {
    const n = number(v);
    return Number.isInteger(n) && n >= lo && n <= hi ? n : bad(`is not a whole number from ${lo} to ${hi}`);
  };
  switch (key) {
    case 'task': return ['generate', 'score'].includes(raw) ? raw : bad('is not "generate" or "score"');
    case 'mode': return ['greedy', 'sampled'].includes(raw) ? raw : bad('is not "greedy" or "sampled"');
    case 'backend': return BACKENDS.includes(raw) ? raw : bad('is not "auto", "webgpu" or "wasm"');
    case 'prompt': return raw.length <= MAX_ADDRESS_PROMPT ? raw
      : bad(`is ${raw.length.toLocaleString('en-US')} characters; a link carries at most ${MAX_ADDRESS_PROMPT}`);
    case 'temperature': {
      const [lo, hi] = range('temperature');
      const t = number(raw);
      return t >= lo && t <= hi ? t : bad(`is outside ${lo} to ${hi}`);
    }
    case 'top_k': return integer(raw, ...range('top-k'));
    case 'top_p': {
      const p = number(raw);
      return p > 0 && p <= 1 ? p : bad('is not above 0 and at most 1');
    }
    case 'seed': return integer(raw, 0, MAX_SEED);
    case 'limit': return integer(raw, ...range('limit'));
    case 'run': case 'eos': return raw === '1' ? true : raw === '0' ? false : bad('is not 1 or 0');
    case 'hide': {
      const list = raw === '' ? [] : raw.split(',').map((v) => integer(v, 0, MAX_HISTORY_TOKENS));
      return checkAblation(S.metadata, { hide: list }).hide;
    }
    case 'heads_off': {
      const off = {};
      for (const part of raw.split(';').filter(Boolean)) {
        const [kind, heads = ''] = part.split(':');
        off[kind] = heads === '' ? [] : heads.split(',').map((v) => integer(v, 0, 64));
      }
      return checkAblation(S.metadata, { heads_off: off }).heads_off;
    }
    case 'step': {
      const [kind, n] = raw.split(':');
      if (!S.metadata.order.includes(kind)) bad(`names no model (use ${S.metadata.order.join(', ')})`);
      return { kind, index: integer(n ?? '', 1, range('limit')[1]) - 1 };
    }
    default: return null;
  }
}

// The setup the address gives: {values, problems, used}; only the keys it names.
export function readAddress(search = location.search) {
  const params = new URLSearchParams(search);
  const values = {};
  const problems = [];
  for (const key of SETUP_KEYS) {
    if (!params.has(key)) continue;
    try {
      values[key] = parse(key, params.get(key));
    } catch (err) {
      problems.push(err.message);
    }
  }
  return { values, problems, used: SETUP_KEYS.some((k) => params.has(k)) };
}

// The current setup as an address (every setting; the experiment and the step when there are any).
export function setupAddress() {
  const c = readControls();
  const params = new URLSearchParams();
  params.set('task', task());
  params.set('prompt', c.prompt.slice(0, MAX_ADDRESS_PROMPT));
  for (const key of ['mode', 'temperature', 'top_k', 'top_p', 'seed', 'limit', 'backend']) {
    params.set(key, String(c[key]));
  }
  if (task() === 'score') params.set('eos', $('score-eos').checked ? '1' : '0');
  const a = S.ablation;
  if (a && !noAblation(a)) {
    const off = Object.entries(a.heads_off).filter(([, h]) => h.length).map(([k, h]) => `${k}:${h.join(',')}`);
    if (off.length) params.set('heads_off', off.join(';'));
    if (a.hide.length) params.set('hide', a.hide.join(','));
  }
  if (S.shown || S.run || S.score) params.set('run', '1');
  if (task() === 'generate' && S.run && S.selected !== null && S.selectedKind) {
    params.set('step', `${S.selectedKind}:${S.selected + 1}`);
  }
  const url = new URL(location.href);
  url.search = params.toString();
  url.hash = '';
  return url.href;
}

// The note under the controls: what the address set, and each value it refused.
export function showAddressNote(problems) {
  const note = $('address-note');
  if (!note) return;
  note.hidden = !problems.length;
  note.textContent = problems.length ? `The link's setup loaded except: ${problems.join('; ')} (left as the ` +
    'page\'s default).' : '';
}
