// Score mode's maths, a mirror of export/parity.py's teacher_forced: every
// token of a text is predicted from the tokens before it (history = BOS +
// tokens so far, its last `width` IDs left-padded with PAD), with a softmax over
// all logits (specials included) in float64.

import { contextWindow, startHistory } from './decoding.js';
import { EOS_ID } from './tokenizer.js';

// The targets (the text's IDs, then EOS when asked) and the context each is
// read from: the last `width` IDs of the history up to it, so the work grows
// linearly with the text (never a copy of the whole history per token).
export function scoreContexts(ids, eos, width) {
  const targets = eos ? [...ids, EOS_ID] : [...ids];
  const history = startHistory(ids);
  const contexts = targets.map((_, t) => contextWindow(history.slice(Math.max(0, t + 1 - width), t + 1), width));
  return { targets, contexts };
}

// log softmax(logits)[target] in float64.
export function logProbability(logits, target) {
  let top = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > top) top = logits[i];
  let total = 0;
  for (let i = 0; i < logits.length; i++) total += Math.exp(logits[i] - top);
  return logits[target] - top - Math.log(total);
}

// Cross-entropy (mean negative log probability, nats/token) and perplexity.
export function summarize(logProbs) {
  if (!logProbs.length) return { probabilities: [], cross_entropy: null, perplexity: null };
  let sum = 0;
  for (const lp of logProbs) sum -= lp;
  const ce = sum / logProbs.length;
  return { probabilities: logProbs.map(Math.exp), cross_entropy: ce, perplexity: Math.exp(ce) };
}

// Surprisal in bits, the quantity the score view colours by.
export function surprisalBits(p) {
  return p > 0 ? -Math.log2(p) : Infinity;
}
