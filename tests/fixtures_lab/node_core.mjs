// Runs web/core/*.js in Node on a JSON request read from stdin and prints the
// results as JSON; tests/test_decoding_parity.py compares them with Python.
import { readFileSync } from 'node:fs';

const core = new URL('../../web/core/', import.meta.url);
const tok = await import(new URL('tokenizer.js', core).href);
const dec = await import(new URL('decoding.js', core).href);
const sha = await import(new URL('sha256.js', core).href);

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
out.context_window = req.histories.map((h) => dec.contextWindow(h));
out.greedy = req.logit_rows.map((row) => dec.greedyChoice(row));
out.sampled = req.sampled.map(({ row, temperature, seed, draws }) => {
  const rng = dec.mulberry32(seed);
  return Array.from({ length: draws }, () => dec.sampledChoice(row, temperature, rng));
});
// A bigram "model": logits = table[last ID of the context].
const table = req.bigram;
out.generate = [];
for (const g of req.generate) {
  out.generate.push(await dec.generate(async (ctx) => table[ctx[ctx.length - 1]], g.prompt_ids,
    { mode: g.mode, temperature: g.temperature, seed: g.seed, limit: g.limit }));
}
out.sha256 = req.buffers_b64.map((b64) => {
  const bytes = Buffer.from(b64, 'base64');
  return sha.sha256Fallback(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
});
process.stdout.write(JSON.stringify(out));
