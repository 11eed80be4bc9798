// Runs web/core/*.js in Node on a JSON request read from stdin and prints the
// results as JSON; tests/test_decoding_parity.py compares them with Python.
import { readFileSync } from 'node:fs';

const core = new URL('../../web/core/', import.meta.url);
const tok = await import(new URL('tokenizer.js', core).href);
const dec = await import(new URL('decoding.js', core).href);
const sha = await import(new URL('sha256.js', core).href);
const scoring = await import(new URL('scoring.js', core).href);
const inspect = await import(new URL('inspect.js', core).href);

const req = JSON.parse(readFileSync(0, 'utf8'));
const out = {};
const vocab = req.vocab ? new tok.Vocab(req.vocab) : null;

out.normalize = req.strings.map((s) => tok.normalize(s));
out.tokenize = req.strings.map((s) => tok.tokenize(s));
out.detokenize = req.token_lists.map((t) => tok.detokenize(t));
out.pieces_join = req.token_lists.map((t) => tok.detokenizePieces(t).join(''));
if (vocab) {
  out.encode = req.strings.map((s) => vocab.encode(s));
  out.decode = req.id_lists.map((ids) => vocab.decode(ids));
}
out.mulberry32 = req.seeds.map((seed) => {
  const next = dec.mulberry32(seed);
  return Array.from({ length: req.draws }, () => next());
});
out.context_window = req.histories.map((h) => dec.contextWindow(h, req.context));
out.greedy = req.logit_rows.map((row) => dec.greedyChoice(row));
out.sampled = req.sampled.map(({ row, temperature, seed, draws, top_k: k = 0, top_p: p = 1 }) => {
  const rng = dec.mulberry32(seed);
  return Array.from({ length: draws }, () => dec.sampledChoice(row, temperature, rng, k, p));
});
out.kept = (req.kept || []).map(({ row, temperature, top_k: k, top_p: p }) =>
  dec.keptIds(row, dec.samplingWeights(row, temperature), k, p));
out.distributions = (req.kept || []).map(({ row, temperature, top_k: k, top_p: p }) => {
  const d = inspect.distributions(row, { temperature, top_k: k, top_p: p });
  return { model: Array.from(d.model), sampled: Array.from(d.sampled), kept: Array.from(d.kept),
    top: inspect.topRows(d, 10) };
});
out.filter_errors = (req.bad_filters || []).map(([k, p]) => {
  try { dec.checkFilters(k, p); return null; } catch (err) { return err.message; }
});
out.log_probability = (req.score_rows || []).map(({ row, target }) => scoring.logProbability(row, target));
out.score_contexts = (req.score_ids || []).map(({ ids, eos }) => scoring.scoreContexts(ids, eos, req.context));
out.summarize = (req.score_logprobs || []).map((lps) => scoring.summarize(lps));
out.heat = Array.from({ length: 1001 }, (_, i) => inspect.heatColors(i / 1000).contrast);
out.score_heat = Array.from({ length: 1001 }, (_, i) => inspect.scoreColors(2 ** (-i / 80)).contrast);
// A bigram "model": logits = table[last ID of the context].
const table = req.bigram;
out.generate = [];
for (const g of req.generate) {
  out.generate.push(await dec.generate(async (ctx) => table[ctx[ctx.length - 1]], g.prompt_ids,
    { context: req.context, mode: g.mode, temperature: g.temperature, seed: g.seed, limit: g.limit,
      top_k: g.top_k ?? 0, top_p: g.top_p ?? 1 }));
}
out.sha256 = req.buffers_b64.map((b64) => {
  const bytes = Buffer.from(b64, 'base64');
  return sha.sha256Fallback(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
});
process.stdout.write(JSON.stringify(out));
