// The lab page's state, all of it in one object that its modules share
// (lab.js fills in the loaded files at start-up), and the page's one element lookup.

export const S = {
  ready: null, // lab.ready: the start-up promise every job waits for
  files: null, // the build's files loaded and the page built: a run from the page's buttons may start then
  early: {}, // kind -> its 'model-ready' event: usable before the others arrive (progressive readiness)
  earlyBackend: null, // the runtime those early sessions run on
  firstReadyAt: null, // page time (ms since navigation) the first model became usable
  metadata: null, // onnx/metadata.json
  vocab: null, // a Vocab of onnx/vocab.json
  presets: [], // onnx/presets.json
  manifest: null, // vendor/onnxruntime-web/runtimes.json
  views: {}, // kind -> its model card (view.js modelCard)
  load: {}, // kind -> download report
  prepared: {}, // choice -> Promise<status>
  sessions: {}, // backend -> kind -> {create_ms, warmup_ms}
  status: null, // latest resolved status
  phase: 'download', // download -> starting -> ready (Generate says why it waits)
  job: null, // the running generation, score or benchmark: {kind, runId, stopped}
  runCounter: 0, // the last job's runId
  run: null, // current or last generation
  selected: null, // inspected step
  selectedKind: null, // the card the step was selected in
  sameContext: false, // inspect all three models on the selected card's context
  inspected: null, // {index, items} with the logits of the inspected step
  inspectCounter: 0, // the latest inspect request: an older answer that arrives later is dropped
  score: null, // the last score result
  shown: null, // 'generate' or 'score': the last run started from the page's buttons (kept for Back)
  pendingStep: null, // {kind, index}: the step a link or a kept place inspects once its run is shown
  ablation: null, // the inspect view's experiment: {heads_off: {kind: [heads]}, hide: [history positions]}
};

export const $ = (id) => document.getElementById(id);
