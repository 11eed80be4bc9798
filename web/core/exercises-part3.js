// Exercises of Part III (multi-head attention and TinyStories). The same shape
// as exercises-maps.js; the Python reference of every answer is export/exercises.py.
import {
  asPrinted, dec, dot, f, hundredths, int, mean, paren, pick, products, softmax, sum, vec, vector,
} from './exercise-kit.js';

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
      message: 'That divides by the number of runs; the sample SD divides the squared deviations by one fewer.' },
    { name: 'variance', value: ({ x }) => sum(squares(x)) / (x.length - 1),
      message: 'That is the variance; the SD is its square root.' },
    { name: 'variance-by-n', value: ({ x }) => sum(squares(x)) / x.length,
      message: 'That is the variance over the number of runs; divide by one fewer and take the square root.' },
  ],
  hint: 'Mean first; then add the squared deviations from it, divide by the number of runs minus 1, '
    + 'and take the square root.',
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

// ---- multi-step: two heads at one query, and top-k / top-p renormalised ----

const headMessages = ({ scores, values }) => scores.map((s, g) => dot(softmax(s), values[g]));
const update = (m, w) => m[0] * w[0] + m[1] * w[1];

const twoHeads = {
  id: 'two-heads',
  digits: 2,
  draw(rng) {
    for (;;) {
      const x = {
        scores: [vector(rng, 3, -1, 3), vector(rng, 3, -1, 3)],
        values: [vector(rng, 3, -2, 2), vector(rng, 3, -2, 2)],
        W_O: vector(rng, 2, -1, 1),
      };
      if (Math.abs(update(headMessages(x), x.W_O)) >= 0.05) return x;
    }
  },
  answer: (x) => update(headMessages(x), x.W_O),
  question: ({ scores, values, W_O: w }) => [
    'One query token, three sources and two heads; each head\'s value rows are one coordinate wide here.',
    `Head 1: scaled scores ${vec(scores[0])}, values ${vec(values[0])}. `
      + `Head 2: scaled scores ${vec(scores[1])}, values ${vec(values[1])}.`,
    `Column c of W_O (one entry per coordinate of the joined messages [m₁, m₂]): ${vec(w)}.`,
    'What is coordinate c of the update [m₁, m₂]·W_O, to 2 decimals?',
  ],
  mistakes: [
    { name: 'one-softmax', value: ({ scores, values, W_O: w }) => {
      const a = softmax([...scores[0], ...scores[1]]);
      const n = scores[0].length;
      return update([dot(a.slice(0, n), values[0]), dot(a.slice(n), values[1])], w);
    },
    message: 'That is one softmax over all six scores; each head has its own softmax over the three sources, '
      + 'so each head\'s weights add up to 1.' },
    { name: 'heads-swapped', value: ({ scores, values, W_O: w }) =>
      update([dot(softmax(scores[0]), values[1]), dot(softmax(scores[1]), values[0])], w),
    message: 'Each head\'s weights went to the other head\'s values: head g mixes its own value rows.' },
    { name: 'averaged-scores', value: ({ scores, values, W_O: w }) => {
      const a = softmax(scores[0].map((s, j) => (s + scores[1][j]) / 2));
      return update([dot(a, values[0]), dot(a, values[1])], w);
    },
    message: 'That averages the two heads\' scores into one weight row; each head keeps its own weights.' },
    { name: 'one-head', value: (x) => headMessages(x)[0] * x.W_O[0],
      message: 'Only head 1\'s message went through W_O; the joined message [m₁, m₂] has both.' },
    { name: 'messages-added', value: (x) => sum(headMessages(x)),
      message: 'That adds the two messages; they are placed side by side and W_O weighs each coordinate.' },
  ],
  hint: 'For each head on its own: softmax of its scores, then the weighted sum of its values (m₁, m₂). '
    + 'Then coordinate c of the update is m₁·W_O[1, c] + m₂·W_O[2, c].',
  steps: (x) => {
    const m = headMessages(x);
    const lines = x.scores.flatMap((s, g) => {
      const e = s.map(Math.exp);
      const a = softmax(s);
      return [
        `Head ${g + 1}: e^s = ${vec(e, 4)}; sum ${f(sum(e), 4)}; weights ${vec(a, 4)}.`,
        `m${'₁₂'[g]} = ${products(a, x.values[g], 4, 1)} = ${f(dot(a.map((v) => asPrinted(v)), x.values[g]), 4)}.`,
      ];
    });
    // the learner goes on from the messages as printed, each from the weights as printed
    const shown = x.scores.map((s, g) => asPrinted(dot(softmax(s).map((v) => asPrinted(v)), x.values[g])));
    return [
      ...lines,
      `Coordinate c: m₁·W_O[1, c] + m₂·W_O[2, c] = ${f(shown[0], 4)}·${paren(x.W_O[0])} + `
        + `${paren(shown[1], 4)}·${paren(x.W_O[1])} = ${f(update(shown, x.W_O), 4)}; `
        + `with nothing rounded on the way, ${f(update(m, x.W_O), 4)}.`,
    ];
  },
};

const WORDS = ['ball', 'park', 'cat', 'tree', 'dog'];
const distinct = (xs) => new Set(xs).size === xs.length;
// The indices of probabilities from the largest down.
const ranked = (p) => p.map((_, i) => i).sort((a, b) => p[b] - p[a] || a - b);
const listLine = (p) => p.map((x, i) => `“${WORDS[i]}” ${f(x, 2)}`).join(', ');
const share = (p, kept, i) => p[i] / sum(kept.map((j) => p[j]));

const topK = {
  id: 'top-k-renormalised',
  digits: 3,
  range: { min: 0, max: 1, message: 'A probability lies between 0 and 1.' },
  draw(rng) {
    for (;;) {
      const p = hundredths(rng, 5, 3).map((c) => c / 100);
      if (distinct(p)) return { p, token: ranked(p)[int(rng, 0, 1)] + 1 };
    }
  },
  answer: ({ p, token }) => share(p, ranked(p).slice(0, 2), token - 1),
  question: ({ p, token }) => [
    `Next-token probabilities over five tokens: ${listLine(p)}.`,
    `After top-k = 2 and renormalising, what probability does “${WORDS[token - 1]}” get, to 3 decimals?`,
  ],
  mistakes: [
    { name: 'not-renormalised', value: ({ p, token }) => p[token - 1],
      message: 'That is the probability before the cut: the two kept tokens are renormalised to add up to 1.' },
    { name: 'top-three', value: ({ p, token }) => share(p, ranked(p).slice(0, 3), token - 1),
      message: 'That renormalises over three tokens; top-k = 2 keeps the two most likely.' },
    { name: 'equal-shares', value: () => 0.5,
      message: 'The kept tokens keep their proportions: divide by their summed probability, not by their number.' },
  ],
  hint: 'Sort the tokens by probability, keep the two most likely, and divide the token\'s probability '
    + 'by the sum of the two.',
  steps: ({ p, token }) => {
    const [a, b] = ranked(p);
    return [
      `The two most likely: “${WORDS[a]}” ${f(p[a], 2)} and “${WORDS[b]}” ${f(p[b], 2)}; `
        + `together ${f(p[a], 2)} + ${f(p[b], 2)} = ${f(p[a] + p[b], 2)}.`,
      `“${WORDS[token - 1]}”: ${f(p[token - 1], 2)} / ${f(p[a] + p[b], 2)} = ${f(share(p, [a, b], token - 1), 4)}.`,
    ];
  },
};

// How many of the ranked tokens top-p keeps: the fewest whose probabilities reach p.
function keptCount(probs, top) {
  let running = 0;
  for (const [n, i] of ranked(probs).entries()) {
    running += probs[i];
    if (running >= top - 1e-9) return n + 1;
  }
  return probs.length;
}

const topP = {
  id: 'top-p-renormalised',
  digits: 3,
  range: { min: 0, max: 1, message: 'A probability lies between 0 and 1.' },
  draw(rng) {
    for (;;) {
      const cents = hundredths(rng, 5, 3);
      const top = pick(rng, [5, 6, 7, 8, 9]);
      if (!distinct(cents)) continue;
      const order = ranked(cents);
      const running = order.map((_, n) => sum(order.slice(0, n + 1).map((i) => cents[i])));
      const kept = running.findIndex((r) => r >= 10 * top) + 1;
      if (running.includes(10 * top) || kept < 2 || kept > 4) continue;
      return { p: cents.map((c) => c / 100), top_p: top / 10 };
    }
  },
  answer: ({ p, top_p: top }) => share(p, ranked(p).slice(0, keptCount(p, top)), ranked(p)[0]),
  question: ({ p, top_p: top }) => [
    `Next-token probabilities over five tokens: ${listLine(p)}.`,
    `After top-p = ${f(top, 1)} and renormalising, what probability does the most likely token, `
      + `“${WORDS[ranked(p)[0]]}”, get, to 3 decimals?`,
  ],
  mistakes: [
    { name: 'not-renormalised', value: ({ p }) => p[ranked(p)[0]],
      message: 'That is the probability before the cut: the kept tokens are renormalised to add up to 1.' },
    { name: 'one-too-few', value: ({ p, top_p: top }) =>
      share(p, ranked(p).slice(0, keptCount(p, top) - 1), ranked(p)[0]),
    message: 'One token too few: top-p keeps tokens until their share reaches the threshold, '
      + 'the one that crosses it included.' },
    { name: 'one-too-many', value: ({ p, top_p: top }) =>
      share(p, ranked(p).slice(0, keptCount(p, top) + 1), ranked(p)[0]),
    message: 'One token too many: top-p stops at the first token whose running share reaches the threshold.' },
    { name: 'unsorted', value: ({ p, top_p: top }) => {
      let running = 0;
      const kept = [];
      for (let i = 0; i < p.length && running < top - 1e-9; i++) {
        kept.push(i);
        running += p[i];
      }
      return kept.includes(ranked(p)[0]) ? share(p, kept, ranked(p)[0]) : null;
    },
    message: 'That adds up the tokens in the order listed; top-p adds them from the most likely down.' },
  ],
  hint: 'Sort from the most likely down and add probabilities until the running sum reaches the top-p threshold; '
    + 'keep those tokens and divide by their sum.',
  steps: ({ p, top_p: top }) => {
    const order = ranked(p);
    const n = keptCount(p, top);
    const kept = order.slice(0, n);
    const total = sum(kept.map((i) => p[i]));
    return [
      `From the most likely down: ${order.map((i) => `“${WORDS[i]}” ${f(p[i], 2)}`).join(', ')}.`,
      `Running sums: ${order.map((_, k) => f(sum(order.slice(0, k + 1).map((i) => p[i])), 2)).join(', ')}; `
        + `the first to reach ${f(top, 1)} is the ${['1st', '2nd', '3rd', '4th', '5th'][n - 1]}, so ${n} tokens `
        + `are kept, with ${kept.map((i) => f(p[i], 2)).join(' + ')} = ${f(total, 2)}.`,
      `“${WORDS[order[0]]}”: ${f(p[order[0]], 2)} / ${f(total, 2)} = ${f(p[order[0]] / total, 4)}.`,
    ];
  },
};

export const PART3 = [headSplit, allowedSources, neverDrawn, perplexity, meanSd, attentionCost,
  twoHeads, topK, topP];
