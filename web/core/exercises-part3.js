// Exercises of Part III (multi-head attention and TinyStories). The same shape
// as exercises-maps.js; the Python reference of every answer is export/exercises.py.
import { dec, f, int, mean, pick, sum, vec } from './exercise-kit.js';

const headSplit = {
  id: 'head-split',
  digits: 0,
  draw(rng) {
    const heads = pick(rng, [2, 4, 8]);
    return { B: int(rng, 2, 4), T: pick(rng, [8, 16, 32, 64]), D: heads * pick(rng, [4, 8, 16]), heads };
  },
  answer: ({ T, D, heads }) => (T * D) / heads,
  question: ({ B, T, D, heads }) => [
    `The packed queries Q have shape [${B}, ${T}, ${D}] (examples, slots, width d). `
      + `split_heads cuts them into n_heads = ${heads} heads: [${B}, ${heads}, ${T}, d_k].`,
    'How many numbers does one head\'s query block hold for one example?',
  ],
  mistakes: [
    { name: 'whole-width', value: ({ T, D }) => T * D,
      message: 'That is the whole width; one head keeps only d_k = d / n_heads coordinates per slot.' },
    { name: 'every-example', value: ({ B, T, D, heads }) => (B * T * D) / heads,
      message: 'That counts every example of the batch; the question asks for one.' },
    { name: 'one-slot', value: ({ D, heads }) => D / heads,
      message: 'That is d_k, one slot\'s share; the head holds d_k numbers for each of the w slots.' },
  ],
  hint: 'First the head width d_k = d / n_heads; one head\'s block for one example is w × d_k.',
  steps: ({ T, D, heads }) => [
    `d_k = d / n_heads = ${D} / ${heads} = ${D / heads}.`,
    `One head, one example: w × d_k = ${T} × ${D / heads} = ${(T * D) / heads}.`,
  ],
};

const neverDrawn = {
  id: 'never-drawn',
  digits: 1,
  percent: true,
  range: { min: 0, max: 100, message: 'A share of the windows lies between 0% and 100%.' },
  draw(rng) {
    const N = int(rng, 20, 400);
    return { N, n: int(rng, Math.ceil(N / 2), 3 * N) };
  },
  answer: ({ N, n }) => Math.exp(n * Math.log1p(-1 / N)) * 100,
  question: ({ N, n }) => [
    `A training split has N = ${N} windows. Training draws n = ${n} windows uniformly, with replacement.`,
    'What percentage of the windows do we expect never to be drawn, to 1 decimal?',
  ],
  mistakes: [
    { name: 'complement', value: ({ N, n }) => 100 - Math.exp(n * Math.log1p(-1 / N)) * 100,
      message: 'That is the share drawn at least once; the question asks for the windows never drawn.' },
    { name: 'without-replacement', value: ({ N, n }) => Math.max(0, 1 - n / N) * 100,
      message: 'That assumes every draw is a new window; draws with replacement repeat windows.' },
    { name: 'approximation', value: ({ N, n }) => Math.exp(-n / N) * 100,
      message: 'That is the approximation e^(−n/N); the exact chance is (1 − 1/N)^n.' },
  ],
  hint: 'One draw misses a given window with probability 1 − 1/N; n independent draws all miss it '
    + 'with probability (1 − 1/N)^n.',
  steps: ({ N, n }) => {
    const share = Math.exp(n * Math.log1p(-1 / N));
    return [
      `One draw misses a given window with probability 1 − 1/${N} = ${f(1 - 1 / N, 6)}.`,
      `All ${n} draws miss it: ${f(1 - 1 / N, 6)}^${n} = ${f(share, 5)}.`,
      `As a percentage: ${f(share * 100, 3)}%.`,
    ];
  },
};

const allowedSources = {
  id: 'allowed-sources',
  digits: 0,
  draw(rng) {
    const T = pick(rng, [6, 8, 10, 12]);
    const real = int(rng, 2, T - 1);
    return { T, real, query: int(rng, 1, real) };
  },
  answer: ({ query }) => query,
  question: ({ T, real, query }) => [
    `A window of w = ${T} slots holds ${T - real} PADs on the left, then ${real} real tokens, BOS first.`,
    `The query at real token number ${query}: how many sources does the mask (future and PAD) leave it?`,
  ],
  mistakes: [
    { name: 'pad-counted', value: ({ T, real, query }) => query + T - real,
      message: 'The PAD slots are blocked too: the mask joins the future slots and the padding.' },
    { name: 'whole-window', value: ({ T }) => T,
      message: 'The future slots are blocked: a query reads only its own slot and earlier ones.' },
    { name: 'itself-excluded', value: ({ query }) => query - 1,
      message: 'A query may read its own slot too (j ≤ i).' },
  ],
  hint: 'Cross out the PAD slots and every slot after the query; count what is left, the query\'s own slot included.',
  steps: ({ T, real, query }) => [
    `Slots 1 to ${T - real} are PAD: blocked.`,
    query < real ? `Real tokens ${query + 1} to ${real} come after the query: blocked.`
      : 'The query is the last token, so there is no future slot to block.',
    `Left: real tokens 1 to ${query}, so ${query} sources.`,
  ],
};

const nll = (p) => -Math.log(p);

const perplexity = {
  id: 'perplexity',
  digits: 2,
  draw: (rng) => ({ p: Array.from({ length: int(rng, 3, 4) }, () => dec(rng, 0.05, 0.9, 2)) }),
  answer: ({ p }) => Math.exp(mean(p.map(nll))),
  question: ({ p }) => [
    `A model gave ${p.length} observed targets the probabilities p = ${vec(p, 2)}.`,
    'What is its perplexity on them, to 2 decimals?',
  ],
  mistakes: [
    { name: 'base-2', value: ({ p }) => 2 ** mean(p.map(nll)),
      message: 'That raises 2 to a loss measured in nats; with the natural log, perplexity is e to the '
        + 'cross-entropy.' },
    { name: 'arithmetic-mean', value: ({ p }) => 1 / mean(p),
      message: 'That is one over the arithmetic mean; perplexity is one over the geometric mean of the '
        + 'probabilities.' },
    { name: 'total-loss', value: ({ p }) => Math.exp(sum(p.map(nll))),
      message: 'That exponentiates the total loss; take the mean over the targets first.' },
    { name: 'mean-inverse', value: ({ p }) => mean(p.map((x) => 1 / x)),
      message: 'That averages 1/p; perplexity is e to the mean of −ln p.' },
  ],
  hint: 'The cross-entropy is the mean of −ln p over the targets; perplexity is e to that.',
  steps: ({ p }) => [
    `−ln p = ${vec(p.map(nll), 4)}.`,
    `Cross-entropy = their mean = ${f(mean(p.map(nll)), 4)} nats.`,
    `Perplexity = e^${f(mean(p.map(nll)), 4)} = ${f(Math.exp(mean(p.map(nll))), 4)}.`,
  ],
};

const squares = (x) => x.map((v) => (v - mean(x)) ** 2);

const meanSd = {
  id: 'mean-sd',
  digits: 2,
  draw(rng) {
    for (;;) {
      const x = Array.from({ length: int(rng, 3, 4) }, () => dec(rng, 20, 40, 1));
      if (new Set(x).size > 1) return { x };
    }
  },
  answer: ({ x }) => Math.sqrt(sum(squares(x)) / (x.length - 1)),
  question: ({ x }) => [
    `Test perplexities of ${x.length} runs with different seeds: ${vec(x)}.`,
    'What is their sample standard deviation, to 2 decimals?',
  ],
  mistakes: [
    { name: 'divided-by-n', value: ({ x }) => Math.sqrt(sum(squares(x)) / x.length),
      message: 'That divides by n; the sample SD divides the squared deviations by n − 1.' },
    { name: 'variance', value: ({ x }) => sum(squares(x)) / (x.length - 1),
      message: 'That is the variance; the SD is its square root.' },
    { name: 'variance-by-n', value: ({ x }) => sum(squares(x)) / x.length,
      message: 'That is the variance with n; divide by n − 1 and take the square root.' },
  ],
  hint: 'Mean first; then add the squared deviations from it, divide by n − 1, and take the square root.',
  steps: ({ x }) => [
    `Mean = ${f(sum(x), 1)} / ${x.length} = ${f(mean(x), 4)}.`,
    `Squared deviations: ${vec(squares(x), 4)}; sum ${f(sum(squares(x)), 4)}.`,
    `Variance = ${f(sum(squares(x)), 4)} / ${x.length - 1} = ${f(sum(squares(x)) / (x.length - 1), 4)}.`,
    `SD = √${f(sum(squares(x)) / (x.length - 1), 4)} = ${f(Math.sqrt(sum(squares(x)) / (x.length - 1)), 4)}.`,
  ],
};

const attentionCost = {
  id: 'attention-cost',
  digits: 0,
  draw(rng) {
    const heads = pick(rng, [2, 4, 8]);
    return { T: pick(rng, [8, 16, 32, 64, 128]), D: heads * pick(rng, [4, 8, 16]), heads };
  },
  answer: ({ T, D }) => T * T * D,
  question: ({ T, D, heads }) => [
    `A full window of w = ${T} slots at width d = ${D}, split into n_heads = ${heads} heads of d_k = ${D / heads}.`,
    'How many multiply-adds does scoring every query against every key (QKᵀ, all heads) take?',
  ],
  mistakes: [
    { name: 'times-heads', value: ({ T, D, heads }) => T * T * D * heads,
      message: 'The heads share the width (n_heads · d_k = d), so more heads do not multiply the work.' },
    { name: 'one-head', value: ({ T, D, heads }) => (T * T * D) / heads,
      message: 'That is one head; the heads together cover the whole width d.' },
    { name: 'final-query', value: ({ T, D }) => T * D,
      message: 'That is the final query only; in a full window every one of the w queries meets every key.' },
  ],
  hint: 'One head compares w queries with w keys, d_k multiply-adds each; then count the heads.',
  steps: ({ T, D, heads }) => [
    `One head: w · w · d_k = ${T}·${T}·${D / heads} = ${(T * T * D) / heads}.`,
    `${heads} heads: ${heads} · ${(T * T * D) / heads} = ${T * T * D}, which is w²·d.`,
  ],
};

export const PART3 = [headSplit, allowedSources, neverDrawn, perplexity, meanSd, attentionCost];
