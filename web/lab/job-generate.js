// Generation: every model continues one or more prompts in the worker (the
// page shows the first); the worker's 'steps' and 'done' events stream the
// chosen tokens to the model cards, drawn once a frame; the result is what
// lab.generate and lab.generateMany return.

import { EOS_ID } from '../core/tokenizer.js';
import { startHistory } from '../core/decoding.js';
import { renderExperimentRun, renderOutput, renderSettings, renderStats } from './view.js';
import { renderRealStory } from './real-story.js';
import { call } from './rpc.js';
import { S, $ } from './state.js';
import { runJob, jobBackend } from './jobs.js';
import { analyse, readControls, showTask, syncSamplingLast, validate, writeControls } from './controls.js';
import { checkAblation, checkText } from './guards.js';
import { selectStep } from './job-inspect.js';
import { applicable, experimentOn, showExperimentNote } from './experiment.js';
import { refreshDigests } from './experiment-runs.js';

// how.early (the Generate button): start as soon as any model is usable; the
// API waits for lab.ready. how.experiment (the Generate button): with the
// page's experiment on, the run is made twice, plain and with the experiment,
// and each card shows both (the result's `experiment`).
export async function generate(options = {}, how = {}) {
  const prompt = options?.prompt ?? $('prompt').value;
  return (await runGeneration(options ?? {}, [prompt], how))[0];
}

export async function generateMany({ prompts, ...options } = {}) {
  if (!Array.isArray(prompts) || !prompts.length) throw new Error('generateMany needs a non-empty array of prompts');
  // a sparse array's hole is no prompt: refused by its index, never skipped
  for (let i = 0; i < prompts.length; i++) {
    if (!Object.hasOwn(prompts, i)) throw new Error(`prompts[${i}] is a hole in the array: every prompt is a string`);
  }
  return runGeneration(options, [...prompts]);
}

// Every (model, prompt) pair decodes on its own, exactly as if run alone.
function runGeneration(options, prompts, how = {}) {
  return runJob('generation', (job) => generateJob(job, options, prompts, how));
}

async function generateJob(job, options, prompts, { early = false, experiment: withExperiment = false } = {}) {
  await (early ? S.files : S.ready);
  // an option given as undefined is an option not given (as in lab.score): the page's control holds
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const { heads_off: headsOff, hide, ...settings } = given;
  const o = { ...readControls(), ...settings, prompt: prompts[0] };
  validate(o);
  for (let i = 0; i < prompts.length; i++) checkText(prompts[i], prompts.length > 1 ? `prompt ${i}` : 'the prompt');
  const analyses = prompts.map(analyse);
  // hide indexes the token history (BOS = 0) of every prompt: checked against the shortest
  const ablation = checkAblation(S.metadata, { heads_off: headsOff, hide },
    Math.min(...analyses.map((a) => a.history.length)));
  // the page's experiment, when the page's button asked for it and the call names none of its own
  const second = withExperiment && headsOff === undefined && hide === undefined && experimentOn()
    ? applicable(Math.min(...analyses.map((a) => a.history.length))) : null;
  writeControls(o);
  showTask('generate');
  $('page-error').hidden = true;
  const status = await jobBackend(o.backend, early);
  const run = startRun(job, o, status.backend, analyses, ablation, second);
  syncSamplingLast();
  const decode = (a) => call('generate', {
    runId: run.id, kinds: S.metadata.order, backend: status.backend, prompts: analyses.map((x) => x.ids),
    mode: o.mode, temperature: o.temperature, seed: o.seed >>> 0, limit: o.limit, top_k: o.top_k, top_p: o.top_p,
    headsOff: a.heads_off, hide: a.hide,
  });
  try {
    await decode(ablation);
    if (second && !job.stopped) {
      flushRender();
      run.target = 'experiment'; // the worker's events now fill the experimental run
      await decode(second);
    }
  } finally {
    flushRender();
    run.active = false;
  }
  return analyses.map((analysis, p) => ({
    prompt: prompts[p], prompt_ids: analysis.ids, prompt_tokens: analysis.tokens,
    history_length: analysis.history.length, backend: status.backend,
    options: { ...o, prompt: prompts[p], heads_off: ablation.heads_off, hide: ablation.hide },
    models: Object.fromEntries(S.metadata.order.map((kind) => [kind, modelResult(run.results[p][kind])])),
    experiment: second ? { heads_off: second.heads_off, hide: second.hide, not_applied: second.dropped,
      stopped: !run.experiment.results[p][S.metadata.order[0]].stats,
      models: Object.fromEntries(S.metadata.order.map((kind) => [kind,
        run.experiment.results[p][kind].stats ? modelResult(run.experiment.results[p][kind]) : null])) } : null,
  }));
}

const emptyResults = (analyses) => analyses.map(() => Object.fromEntries(S.metadata.order.map((k) =>
  [k, { ids: [], tokens: [], steps: [], stepCount: 0, stats: null }])));

// The new run, shown on emptied cards; S.run.models is the first prompt's
// results, S.run.experiment the same run with the page's experiment (or null).
// The page's experiment itself is kept (only the learner clears it).
function startRun(job, options, backend, analyses, ablation, second) {
  const run = {
    id: job.runId, active: true, options, backend, ablation, target: 'plain',
    promptIds: analyses[0].ids, promptTokens: analyses[0].tokens, history: startHistory(analyses[0].ids),
    results: emptyResults(analyses),
    experiment: second ? { ablation: second, results: emptyResults(analyses) } : null,
  };
  run.models = run.results[0];
  S.run = run;
  if (experimentOn()) showExperimentNote(); // its words, as this run's text has them
  for (const kind of S.metadata.order) {
    renderStats(S.views[kind], null);
    S.views[kind].output.replaceChildren();
    S.views[kind].text.replaceChildren();
    renderSettings(S.views[kind], run);
    renderExperimentRun(S.views[kind], run, kind);
  }
  renderRealStory(run);
  S.selected = null;
  S.inspected = null;
  $('inspect-body').replaceChildren();
  $('inspect-hint').hidden = false;
  return run;
}

function modelResult(m) {
  const s = m.stats;
  return {
    ids: [...m.ids], tokens: [...m.tokens], text: S.vocab.decode(m.ids), stop: s.stop, error: s.error,
    calls: s.calls, new_tokens: s.new_tokens, total_ms: s.total_ms, median_ms: s.median_ms,
    compute_ms: s.compute_ms, backend: s.backend, first_context: s.first_context,
  };
}

// The worker's 'steps' (chosen IDs, a frame's worth) and 'done' (one model and
// prompt finished, with its stats) of the current run.
export function onGenerationEvent(msg) {
  const run = S.run;
  if (!run || msg.runId !== run.id) return;
  const results = run.target === 'experiment' ? run.experiment.results : run.results;
  if (msg.event === 'steps') {
    for (const step of msg.steps) {
      const m = results[step.prompt][step.kind];
      if (step.prompt === 0) m.steps.push(step); // only the shown prompt keeps its steps for inspection
      else m.stepCount += 1;
      if (step.id !== EOS_ID) {
        m.ids.push(step.id);
        m.tokens.push(S.vocab.token(step.id));
      }
      if (step.prompt === 0) scheduleRender(step.kind);
    }
  } else if (msg.event === 'done') {
    results[msg.prompt][msg.kind].stats = msg.stats;
    if (msg.prompt === 0) scheduleRender(msg.kind);
  }
}

// Tokens arrive faster than the screen refreshes on WASM: draw once per frame,
// appending only the new chips of each card.
const dirty = new Set();
let frameRequested = false;
function scheduleRender(kind) {
  dirty.add(kind);
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(flushRender);
}

function flushRender() {
  frameRequested = false;
  const run = S.run;
  if (!run || !dirty.size) return;
  for (const k of dirty) {
    const m = run.models[k];
    const select = (i) => selectStep(k, i);
    renderOutput(S.views[k], run.promptTokens, m.tokens, m.steps, m.stats?.stop ?? null, select, S.selected);
    if (m.stats) renderStats(S.views[k], m.stats);
    if (run.experiment) renderExperimentRun(S.views[k], run, k);
  }
  dirty.clear();
}

// The experiment changed (a head toggled, a word hidden, Restore) while the shown run has its
// experimental continuation: that continuation is made again with the experiment as it is now, on the
// same prompt and settings (the plain run and the inspected step stay), so the result beside the
// control (the inspect panel's digest, experiment-runs.js) and on the cards is never stale. One at a
// time: a change while it runs makes it run once more when it ends. Cleared, the cards are plain again.
let again = false;
export function rerunExperiment() {
  const run = S.run;
  if (!run || !run.experiment || run.active) return null;
  if (S.job) {
    if (S.job.experimentOnly) again = true;
    return null;
  }
  if (!experimentOn()) {
    run.experiment = null;
    for (const kind of S.metadata.order) renderExperimentRun(S.views[kind], run, kind);
    refreshDigests();
    return null;
  }
  return runJob('generation', async (job) => {
    job.experimentOnly = true;
    const second = applicable(run.history.length);
    const o = run.options;
    run.id = job.runId;
    run.active = true;
    run.target = 'experiment';
    run.experiment = { ablation: second, results: emptyResults(run.results) };
    for (const kind of S.metadata.order) renderExperimentRun(S.views[kind], run, kind);
    refreshDigests();
    try {
      await call('generate', {
        runId: run.id, kinds: S.metadata.order, backend: run.backend, prompts: [run.promptIds],
        mode: o.mode, temperature: o.temperature, seed: o.seed >>> 0, limit: o.limit, top_k: o.top_k, top_p: o.top_p,
        headsOff: second.heads_off, hide: second.hide,
      });
    } finally {
      for (const kind of S.metadata.order) dirty.add(kind);
      flushRender();
      run.active = false;
      refreshDigests(true);
    }
  }).catch((err) => {
    $('page-error').textContent = `The run with your experiment failed: ${err.message}`;
    $('page-error').hidden = false;
  }).finally(() => {
    if (again) {
      again = false;
      rerunExperiment();
    }
  });
}
