// Score mode: teacher-forced scoring of one text by every model, the
// probability of each actual token given the ones before it, cross-entropy and
// perplexity; a selected token shows the three models on that same context.

import { logProbability, scoreContexts, summarize } from '../core/scoring.js';
import { renderScore, renderScoreDetail } from './score-view.js';
import { call } from './rpc.js';
import { S, $ } from './state.js';
import { jobBackend, runJob } from './jobs.js';
import { checkAblation } from './guards.js';
import { hideInWindow } from '../core/ablation.js';
import { analyse, schedulePreview, showPageError, showTask, syncTask } from './controls.js';

const SCORE_BATCH = 64; // contexts per model call

export function score(options = {}, how = {}) {
  return runJob('score', (job) => scoreJob(job, options, how));
}

async function scoreJob(job, { text, eos = false, backend, heads_off: headsOff, hide } = {}, { early = false } = {}) {
  await (early ? S.files : S.ready);
  if (typeof text !== 'string') throw new Error('score needs {text: "..."}: the text to score');
  const a = analyse(text);
  if (!a.ids.length && !eos) {
    throw new Error('the text has no tokens to score: type some words (or ask for the EOS target)');
  }
  const ablation = checkAblation(S.metadata, { heads_off: headsOff, hide }, a.history.length);
  const status = await jobBackend(backend, early);
  const { targets, contexts } = scoreContexts(a.ids, Boolean(eos), S.metadata.context);
  const hidden = new Set(ablation.hide);
  contexts.forEach((ctx, t) => hideInWindow(ctx, t + 1, hidden)); // target t is read from history[0..t]
  const models = {};
  for (const kind of S.metadata.order) {
    try {
      const logProbs = await logProbabilities(job, kind, status.backend, contexts, targets, ablation.heads_off[kind]);
      models[kind] = { ...summarize(logProbs), error: null };
    } catch (err) {
      models[kind] = { probabilities: [], cross_entropy: null, perplexity: null, error: err.message };
    }
  }
  const result = { text, tokens: a.tokens.concat(eos ? ['<EOS>'] : []), ids: targets, eos: Boolean(eos),
    backend: status.backend, heads_off: ablation.heads_off, hide: ablation.hide, models };
  S.score = { ...result, contexts };
  showTask('score');
  renderScore($('score-body'), S.score, S.metadata, S.vocab, selectScoreToken);
  return result;
}

// One model's log probability of every target, SCORE_BATCH contexts a call;
// Stop ends it between two calls.
async function logProbabilities(job, kind, backend, contexts, targets, headsOff) {
  const C = S.metadata.vocab_size;
  const logProbs = [];
  for (let start = 0; start < contexts.length; start += SCORE_BATCH) {
    if (job.stopped) throw new Error('stopped by you');
    const batch = contexts.slice(start, start + SCORE_BATCH);
    const out = await call('run', { kind, backend, contexts: batch, headsOff });
    batch.forEach((_, b) => logProbs.push(logProbability(out.logits.subarray(b * C, (b + 1) * C), targets[start + b])));
  }
  return logProbs;
}

async function selectScoreToken(position) {
  const sc = S.score;
  if (!sc) return;
  const context = sc.contexts[position];
  const items = await Promise.all(S.metadata.order.map(async (kind) => {
    try {
      const out = await call('run', { kind, backend: sc.backend, contexts: [context], headsOff: sc.heads_off[kind] });
      return { kind, logits: out.logits };
    } catch (err) {
      return { kind, error: err.message };
    }
  }));
  renderScoreDetail($('score-detail'), { sc, position, context, items, metadata: S.metadata, vocab: S.vocab });
}

// One click from a model's continuation to Score mode on that text.
export function scoreContinuation(kind) {
  const run = S.run;
  if (!run) return;
  const text = S.vocab.decode([...run.promptIds, ...run.models[kind].ids]);
  document.querySelector('input[name="task"][value="score"]').checked = true;
  $('preset').value = 'custom';
  $('prompt').value = text;
  $('score-eos').checked = false;
  syncTask();
  $('preset-note').textContent =
    `${S.metadata.models[kind].label}'s continuation, as text: now every model reads it token by token.`;
  schedulePreview();
  score({ text }).catch((err) => showPageError(err.message));
}
