// Score mode: teacher-forced scoring of one text by every model, the
// probability of each actual token given the ones before it, cross-entropy and
// perplexity; a selected token shows the three models on that same context.
// Bounded (guards.js): at most MAX_TEXT_CHARS characters and MAX_SCORE_TOKENS
// tokens; the model calls run in the worker, SCORE_BATCH contexts at a time,
// with progress on the page, and Stop answers at once, even mid-call.

import { leastSurprised, logProbability, scoreContexts, summarize } from '../core/scoring.js';
import { renderHeadSweep, renderScore, renderScoreDetail, renderScoreProgress } from './score-view.js';
import { checkHeadCost, loadHeadCost } from './head-cost.js';
import { MAX_SCORE_TOKENS, checkText, noAblation } from './guards.js';
import { call } from './rpc.js';
import { S, $ } from './state.js';
import { jobBackend, runJob, whenStopped } from './jobs.js';
import { checkAblation } from './guards.js';
import { hideInWindow } from '../core/ablation.js';
import { analyse, schedulePreview, showPageError, showTask, syncTask } from './controls.js';
import { applicable, experimentOn } from './experiment.js';

const SCORE_BATCH = 32; // contexts per model call: one call stays well under 100 ms on WASM

export function score(options = {}, how = {}) {
  return runJob('score', (job) => scoreJob(job, options, how));
}

const STOPPED = 'stopped by you';

// how.experiment (the Score button): with the page's experiment on, every
// model scores the text twice, plain and with it (the result's `experiment`).
async function scoreJob(job, { text, eos = false, backend, heads_off: headsOff, hide } = {},
  { early = false, experiment: withExperiment = false } = {}) {
  await (early ? S.files : S.ready);
  if (text === undefined) throw new Error('score needs {text: "..."}: the text to score');
  checkText(text, 'the text to score');
  const a = analyse(text);
  if (!a.ids.length && !eos) {
    throw new Error('the text has no tokens to score: type some words (or ask for the EOS target)');
  }
  const ablation = checkAblation(S.metadata, { heads_off: headsOff, hide }, a.history.length);
  const status = await jobBackend(backend, early);
  const { targets, contexts } = scoreContexts(a.ids, Boolean(eos), S.metadata.context);
  if (targets.length > MAX_SCORE_TOKENS) {
    throw new Error(`the text has ${targets.length.toLocaleString('en-US')} tokens to score; the lab scores at most ` +
      `${MAX_SCORE_TOKENS.toLocaleString('en-US')} at a time: shorten it`);
  }
  const second = withExperiment && headsOff === undefined && hide === undefined && experimentOn()
    ? applicable(a.history.length) : null;
  const plainContexts = second ? contexts.map((c) => [...c]) : null;
  const hidden = new Set(ablation.hide);
  contexts.forEach((ctx, t) => hideInWindow(ctx, t + 1, hidden)); // target t is read from history[0..t]
  showTask('score');
  const progress = { done: 0, total: targets.length * S.metadata.order.length * (second ? 2 : 1) };
  renderScoreProgress($('score-body'), progress);
  const models = {};
  for (const kind of S.metadata.order) {
    if (job.stopped) throw new Error(STOPPED);
    try {
      const logProbs = await logProbabilities(job, kind, status.backend, contexts, targets, ablation.heads_off[kind],
        progress);
      models[kind] = { ...summarize(logProbs), error: null };
    } catch (err) {
      if (job.stopped) throw new Error(STOPPED, { cause: err });
      models[kind] = { probabilities: [], cross_entropy: null, perplexity: null, error: err.message };
    }
  }
  let experiment = null;
  if (second) {
    const hiddenToo = new Set(second.hide);
    const ablated = plainContexts.map((ctx, t) => hideInWindow(ctx, t + 1, hiddenToo));
    const summaries = {};
    for (const kind of S.metadata.order) {
      if (job.stopped) throw new Error(STOPPED);
      try {
        summaries[kind] = { ...summarize(await logProbabilities(job, kind, status.backend, ablated, targets,
          second.heads_off[kind], progress)), error: null };
      } catch (err) {
        if (job.stopped) throw new Error(STOPPED, { cause: err });
        summaries[kind] = { probabilities: [], cross_entropy: null, perplexity: null, error: err.message };
      }
    }
    experiment = { heads_off: second.heads_off, hide: second.hide, not_applied: second.dropped, models: summaries };
  }
  const result = { text, tokens: a.tokens.concat(eos ? ['<EOS>'] : []), ids: targets, eos: Boolean(eos),
    backend: status.backend, heads_off: ablation.heads_off, hide: ablation.hide, models,
    least_surprised: leastPerToken(models, targets.length), experiment };
  S.score = { ...result, contexts, history: a.history };
  await renderScore($('score-body'), S.score, S.metadata, S.vocab, selectScoreToken,
    () => { headSweep().catch((err) => showPageError(err.message)); });
  return result;
}

// Per token, the model least surprised by it and by how many nats ({kind, margin}), or null.
function leastPerToken(models, n) {
  const order = S.metadata.order;
  return Array.from({ length: n }, (_, i) => {
    const r = leastSurprised(order.map((k) => (models[k].error ? null : models[k].probabilities[i])));
    return r && { kind: order[r.index], margin: r.margin };
  });
}

// One model's log probability of every target, SCORE_BATCH contexts a call;
// Stop ends it at once (the call in flight is left to finish in the worker).
async function logProbabilities(job, kind, backend, contexts, targets, headsOff, progress, shownIn = null) {
  const C = S.metadata.vocab_size;
  const logProbs = [];
  const stopped = whenStopped(job).then(() => { throw new Error(STOPPED); });
  for (let start = 0; start < contexts.length; start += SCORE_BATCH) {
    if (job.stopped) throw new Error(STOPPED);
    const batch = contexts.slice(start, start + SCORE_BATCH);
    const out = await Promise.race([call('run', { kind, backend, contexts: batch, headsOff, logitsOnly: true }),
      stopped]);
    batch.forEach((_, b) => logProbs.push(logProbability(out.logits.subarray(b * C, (b + 1) * C), targets[start + b])));
    progress.done += batch.length;
    progress.kind = S.metadata.models[kind].label;
    renderScoreProgress(shownIn ?? $('score-body'), progress);
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

// The head sweep (issue 33): on the text last scored, each attention model
// scores it again with each of its heads off in turn; each head's rise in
// cross-entropy over every head on, ranked, beside the head's cost on the
// whole test set (tables/results_head_cost.json). Runs on the score's own
// runtime and contexts; refused before a score or on a score that already had
// heads off or words hidden (its rows would not be the plain model's).
export function headSweep() {
  return runJob('head-sweep', async (job) => {
    await S.ready;
    const sc = S.score;
    if (!sc) throw new Error('the head sweep runs on the text last scored: score a text first (lab.score)');
    if (!noAblation({ heads_off: sc.heads_off, hide: sc.hide })) {
      throw new Error('the head sweep runs on a plain score: score the text again without heads_off or hide');
    }
    const kinds = S.metadata.order.filter((k) => S.metadata.models[k].heads && !sc.models[k].error);
    const heads = (k) => S.metadata.models[k].heads;
    const progress = { done: 0, total: sc.contexts.length * kinds.reduce((n, k) => n + heads(k), 0) };
    const table = await loadHeadCost().catch(() => null);
    const models = {};
    for (const kind of kinds) {
      const on = sc.models[kind].cross_entropy;
      let test;
      try { test = table && checkHeadCost(table, kind, heads(kind)); } catch { test = null; }
      const rows = [];
      for (let h = 0; h < heads(kind); h++) {
        if (job.stopped) throw new Error(STOPPED);
        const off = summarize(await logProbabilities(job, kind, sc.backend, sc.contexts, sc.ids, [h], progress,
          $('sweep-progress'))).cross_entropy;
        const testRise = test ? (heads(kind) > 1 ? test.heads[h].delta : test.all_off.delta) : null;
        rows.push({ head: h + 1, cross_entropy: off, rise: off - on, test_rise: testRise });
      }
      const ranking = [...rows].sort((a, b) => b.rise - a.rise).map((r) => r.head);
      const testRanking = rows.every((r) => r.test_rise !== null)
        ? [...rows].sort((a, b) => b.test_rise - a.test_rise).map((r) => r.head) : null;
      models[kind] = { on, heads: rows, ranking, test_ranking: testRanking };
    }
    const result = { tokens: sc.ids.length, backend: sc.backend, test_windows: table?.test_windows ?? null, models };
    S.score.sweep = result;
    renderHeadSweep($('head-sweep'), result, S.metadata);
    return result;
  });
}
