// One job at a time (a generation, a score or a benchmark), claimed
// synchronously so that a second call in the same tick is refused; lab.stop()
// ends the claimed job even before it reaches the worker. The jobs themselves:
// job-generate.js, job-score.js and benchmark() below.

import { checkBackend, checkKind, checkRuns } from './guards.js';
import { call } from './rpc.js';
import { S, $ } from './state.js';
import { useBackend } from './backends.js';
import { updateGenerate } from './controls.js';

const RUNNING = { benchmark: 'a benchmark', score: 'a score', generation: 'a generation',
  'attention-steps': 'an attentionSteps call', 'head-sweep': 'a head sweep' };

function beginJob(kind) {
  if (S.job) {
    throw new Error(`${RUNNING[S.job.kind]} is already running: wait for it or call lab.stop() first`);
  }
  let onStop;
  const stopSignal = new Promise((resolve) => { onStop = resolve; });
  S.job = { kind, runId: ++S.runCounter, stopped: false, stopSignal, onStop };
  updateGenerate();
  return S.job;
}

function endJob(job) {
  if (S.job === job) S.job = null;
  updateGenerate();
}

// Runs body(job) as the one job of that kind; refused (a rejected promise,
// synchronously decided) while another runs.
export function runJob(kind, body) {
  let job;
  try { job = beginJob(kind); } catch (err) { return Promise.reject(err); }
  return body(job).finally(() => endJob(job));
}

// The runtime a job runs on: the one asked for, else the menu's. Started from
// the page's buttons while files still download (early), the runtime the first
// models are already usable on.
export function jobBackend(backend, early = false) {
  const choice = checkBackend(backend ?? $('backend').value);
  if (early && S.phase !== 'ready' && S.earlyBackend && choice === $('backend').value) {
    return Promise.resolve({ ok: true, backend: S.earlyBackend });
  }
  return useBackend(choice);
}

// Stops whatever is running or about to run (a generation, a score or a
// benchmark), or, while the models download, the downloads.
export async function stop() {
  const job = S.job;
  if (!job) {
    if (S.phase === 'download') await call('cancelDownloads', {});
    return;
  }
  if (job.stopped) return;
  job.stopped = true;
  job.onStop();
  if (job.kind === 'attention-steps') return; // it ends on the page, after the batch in flight
  await call('stop', { runId: job.runId });
}

// Resolves as soon as the job is stopped (a job waiting on the worker answers Stop at once).
export function whenStopped(job) {
  return job.stopSignal;
}

// At most MAX_BENCH_RUNS calls; lab.stop() ends it early (stopped: true).
export function benchmark(kind, { backend, runs = 20 } = {}) {
  return runJob('benchmark', async (job) => {
    checkRuns(runs);
    await S.ready;
    checkKind(S.metadata, kind);
    const status = await jobBackend(backend);
    const { times, stopped, median_ms: median } = await call('bench',
      { kind, backend: status.backend, runs, runId: job.runId });
    return { kind, backend: status.backend, times, stopped, median_ms: median };
  });
}
