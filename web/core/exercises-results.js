// Exercises of Part IV (results). The same shape as exercises-maps.js; the
// Python reference of every answer is export/exercises.py.
import { dec, f, int, mean, paren, pick, sum, vec } from './exercise-kit.js';

const headWidth = {
  id: 'head-width',
  digits: 0,
  draw(rng) {
    const heads = pick(rng, [2, 4, 8, 16]);
    return { d: heads * pick(rng, [8, 16, 32, 64]), heads };
  },
  answer: ({ d, heads }) => d / heads,
  question: ({ d, heads }) => [
    `An attention model of width d = ${d} is split into n_heads = ${heads} heads that together keep the full width.`,
    'What is the query/key width d_k of one head?',
  ],
  mistakes: [
    { name: 'multiplied', value: ({ d, heads }) => d * heads,
      message: 'That multiplies; the heads share the width, so each gets d / n_heads.' },
    { name: 'subtracted', value: ({ d, heads }) => d - heads,
      message: 'Subtracting the head count does not split the width; divide it by the head count.' },
    { name: 'full-width', value: ({ d }) => d,
      message: 'That is the width of a single head only when there is one head; here the width is shared.' },
  ],
  hint: 'The course keeps n_heads · d_k = d.',
  steps: ({ d, heads }) => [`d_k = d / n_heads = ${d} / ${heads} = ${d / heads}.`],
};

const projectionParams = {
  id: 'projection-params',
  digits: 0,
  draw(rng) {
    const heads = pick(rng, [2, 4, 8]);
    return { d: heads * pick(rng, [4, 6, 8, 12, 16, 24, 32]), heads };
  },
  answer: ({ d }) => 4 * d * d,
  question: ({ d, heads }) => [
    `An attention layer of width d = ${d} has ${heads} heads with d_k = d_v = ${d / heads}.`,
    'How many parameters do W_Q, W_K, W_V and W_O hold together?',
  ],
  mistakes: [
    { name: 'times-heads', value: ({ d, heads }) => 4 * d * d * heads,
      message: 'Splitting into heads adds no weights: the same four d × d matrices are only reshaped.' },
    { name: 'output-forgotten', value: ({ d }) => 3 * d * d,
      message: 'W_O was left out: W_Q, W_K, W_V and W_O are four matrices.' },
    { name: 'bias-counted', value: ({ d }) => 4 * (d * d + d),
      message: 'These projections have no bias (bias=False in models/nets.py).' },
  ],
  hint: 'Each of the four projections maps d numbers to heads · d_k = d numbers, with no bias.',
  steps: ({ d }) => [
    `Each projection is a d × d matrix: ${d}·${d} = ${d * d}.`,
    `Four of them: 4 · ${d * d} = ${4 * d * d}, whatever the head count.`,
  ],
};

const weightsCount = {
  id: 'weights-count',
  digits: 0,
  draw: (rng) => ({ B: int(rng, 2, 4), heads: pick(rng, [2, 4]), T: pick(rng, [4, 6, 8, 12, 16]) }),
  answer: ({ B, heads, T }) => B * heads * T * T,
  question: ({ B, heads, T }) => [
    `forward_details runs on a batch of B = ${B} windows of w = ${T} slots, in a model with n_heads = ${heads} heads.`,
    'How many attention weights does it return (the numbers in its weights tensor)?',
  ],
  mistakes: [
    { name: 'final-query', value: ({ B, heads, T }) => B * heads * T,
      message: 'That is the final query only, what attend returns; forward_details keeps a weight row '
        + 'for every query.' },
    { name: 'one-head', value: ({ B, T }) => B * T * T,
      message: 'Each head has its own w × w weights.' },
    { name: 'one-example', value: ({ heads, T }) => heads * T * T,
      message: 'Every example of the batch has its own weights.' },
  ],
  hint: 'The weights tensor has shape [B, n_heads, w, w]: one w × w grid per head and example.',
  steps: ({ B, heads, T }) => [
    `One head, one example: w × w = ${T * T}.`,
    `× ${heads} heads × ${B} examples = ${B * heads * T * T}.`,
  ],
};

const perplexityFromLoss = {
  id: 'perplexity-from-loss',
  digits: 2,
  draw: (rng) => ({ loss: dec(rng, 1.2, 4.2, 2) }),
  answer: ({ loss }) => Math.exp(loss),
  question: ({ loss }) => [
    `A model's test cross-entropy is ${f(loss, 2)} nats per target token.`,
    'What is its test perplexity, to 2 decimals?',
  ],
  mistakes: [
    { name: 'base-2', value: ({ loss }) => 2 ** loss,
      message: 'That is 2 to the loss; the loss is in nats (natural log), so perplexity is e to the loss.' },
    { name: 'base-10', value: ({ loss }) => 10 ** loss,
      message: 'That is 10 to the loss; with the natural log, perplexity is e to the loss.' },
    { name: 'wrong-sign', value: ({ loss }) => Math.exp(-loss),
      message: 'Wrong sign: e^(−loss) is the geometric mean probability; perplexity is its inverse, e^loss.' },
  ],
  hint: 'Perplexity = e^(cross-entropy), with the cross-entropy in nats.',
  steps: ({ loss }) => [`Perplexity = e^${f(loss, 2)} = ${f(Math.exp(loss), 4)}.`],
};

const reductionPercent = {
  id: 'reduction-percent',
  digits: 1,
  percent: true,
  draw(rng) {
    const base = dec(rng, 20, 40, 1);
    return { one_head: base, four_heads: Math.round((base - dec(rng, 0.5, 5, 1)) * 10) / 10 };
  },
  answer: ({ one_head: b, four_heads: a }) => ((b - a) / b) * 100,
  question: ({ one_head: b, four_heads: a }) => [
    `Mean test perplexity over the seeds: one head ${f(b)}, four heads ${f(a)}.`,
    'By what percentage is the four-head mean lower than the one-head mean, to 1 decimal?',
  ],
  mistakes: [
    { name: 'wrong-base', value: ({ one_head: b, four_heads: a }) => ((b - a) / a) * 100,
      message: 'That divides by the four-head mean; the reduction is measured against the one-head mean.' },
    { name: 'absolute', value: ({ one_head: b, four_heads: a }) => b - a,
      message: 'That is the difference in perplexity, not a percentage of the one-head mean.' },
    { name: 'ratio', value: ({ one_head: b, four_heads: a }) => (a / b) * 100,
      message: 'That is the four-head mean as a percentage of the one-head mean; the reduction is 100% minus it.' },
  ],
  hint: 'Take the difference of the two means and divide it by the one-head mean, then multiply by 100.',
  steps: ({ one_head: b, four_heads: a }) => [
    `Difference: ${f(b)} − ${f(a)} = ${f(b - a)}.`,
    `Relative to one head: ${f(b - a)} / ${f(b)} = ${f((b - a) / b, 5)}.`,
    `As a percentage: ${f(((b - a) / b) * 100, 3)}%.`,
  ],
};

// ---- multi-step: reading the ablation evidence ----

// A loss to 3 decimals, stored as a whole number of thousandths divided once.
const milli = (x) => Math.round(x * 1000) / 1000;
const deltas = ({ on, off }) => off.map((l) => l - on);
const interaction = (x) => x.all_off - x.on - sum(deltas(x));

const ablationInteraction = {
  id: 'ablation-interaction',
  digits: 3,
  draw(rng) {
    for (;;) {
      const on = dec(rng, 3.5, 4.2, 3);
      const single = Array.from({ length: 4 }, () => dec(rng, 0.01, 0.3, 3));
      const x = {
        on, off: single.map((d) => milli(on + d)),
        all_off: milli(on + sum(single) + dec(rng, -0.3, 0.5, 3)),
      };
      if (Math.abs(interaction(x)) >= 0.01) return x;
    }
  },
  answer: interaction,
  question: ({ on, off, all_off: all }) => [
    `Test cross-entropy of a four-head model, in nats/token: every head on ${f(on, 3)}; with one head zeroed, `
      + `heads 1 to 4: ${vec(off, 3)}; with all four zeroed ${f(all, 3)}.`,
    'How much more does zeroing all four cost than the four single costs added up (negative if less), '
      + 'in nats/token, to 3 decimals?',
  ],
  mistakes: [
    { name: 'losses-not-costs', value: ({ off, all_off: all }) => all - sum(off),
      message: 'That subtracts the losses themselves; a cost is a loss minus the loss with every head on.' },
    { name: 'reversed', value: (x) => -interaction(x),
      message: 'Wrong sign: that is the sum of the single costs minus the all-off cost; the question asks for the '
        + 'all-off cost minus the sum.' },
    { name: 'all-off-loss', value: ({ all_off: all, ...x }) => all - sum(deltas(x)),
      message: 'The all-off loss was used as its cost: subtract the every-head-on loss from it first.' },
    { name: 'mean-not-sum', value: (x) => x.all_off - x.on - mean(deltas(x)),
      message: 'That compares with the mean single cost; additive heads would cost their sum.' },
  ],
  hint: 'Each cost is a loss minus the every-head-on loss. Add the four single costs, and subtract their sum '
    + 'from the all-off cost: positive means the heads together cost more than alone (super-additive).',
  steps: (x) => {
    const d = deltas(x);
    const all = x.all_off - x.on;
    const gap = interaction(x);
    return [
      `Single costs: ${x.off.map((l) => `${f(l, 3)} − ${f(x.on, 3)} = ${f(l - x.on, 3)}`).join('; ')}.`,
      `Their sum: ${d.map((v) => f(v, 3)).join(' + ')} = ${f(sum(d), 3)}.`,
      `All four off: ${f(x.all_off, 3)} − ${f(x.on, 3)} = ${f(all, 3)}.`,
      `${gap > 0 ? 'Super-additive (more than the sum): the heads cover for one another, so zeroing one alone '
        + 'costs little' : 'Sub-additive (less than the sum): the single costs overlap, each counting damage that '
        + 'any of them does'}; ${f(all, 3)} − ${paren(sum(d), 3)} = ${f(gap, 3)}.`,
    ];
  },
};

const costliest = ({ off }) => off.indexOf(Math.max(...off));
const cheapest = ({ off }) => off.indexOf(Math.min(...off));

const costliestHead = {
  id: 'costliest-head',
  digits: 2,
  draw(rng) {
    for (;;) {
      const on = dec(rng, 1.2, 2.2, 3);
      const off = Array.from({ length: 4 }, () => milli(on + dec(rng, 0.01, 0.5, 3)));
      if (new Set(off).size === 4) return { on, off };
    }
  },
  answer: (x) => Math.exp(x.off[costliest(x)]) - Math.exp(x.on),
  question: ({ on, off }) => [
    `Test cross-entropy of a four-head model, in nats/token: every head on ${f(on, 3)}; with one head zeroed, `
      + `heads 1 to 4: ${vec(off, 3)}.`,
    'The head whose zeroing costs most: by how much does zeroing it raise the test perplexity, to 2 decimals?',
  ],
  mistakes: [
    { name: 'exp-of-cost', value: (x) => Math.exp(x.off[costliest(x)] - x.on),
      message: 'That is e to the cost, the ratio of the two perplexities; the rise is e^(loss off) − e^(loss on).' },
    { name: 'cheapest-head', value: (x) => Math.exp(x.off[cheapest(x)]) - Math.exp(x.on),
      message: 'That is the head whose zeroing costs least; the largest loss with a head zeroed marks the costliest.' },
    { name: 'cost-in-nats', value: (x) => x.off[costliest(x)] - x.on,
      message: 'That is the cost in nats/token; perplexity is e to the loss, so take e^(loss) of both first.' },
    { name: 'perplexity-of-cost', value: (x) => Math.exp(x.off[costliest(x)] - x.on) - 1,
      message: 'e^(cost) − 1 is the relative rise; the question asks for the rise in perplexity itself.' },
  ],
  hint: 'Find the head with the largest loss when zeroed; perplexity is e^(loss), so the rise is '
    + 'e^(its loss) − e^(every-head-on loss).',
  steps: (x) => {
    const h = costliest(x);
    const [a, b] = [Math.exp(x.off[h]), Math.exp(x.on)];
    return [
      `Costs: ${x.off.map((l) => f(l - x.on, 3)).join(', ')} nats/token; head ${h + 1} costs most.`,
      `Perplexity with every head on: e^${f(x.on, 3)} = ${f(b, 4)}; with head ${h + 1} zeroed: `
        + `e^${f(x.off[h], 3)} = ${f(a, 4)}.`,
      `Rise: ${f(a, 4)} − ${f(b, 4)} = ${f(a - b, 4)}.`,
    ];
  },
};

const pairedPercent = ({ one_head: a, four_heads: b }) => ((Math.exp(a) - Math.exp(b)) / Math.exp(a)) * 100;

const pairedGain = {
  id: 'paired-gain',
  digits: 1,
  percent: true,
  draw(rng) {
    const one = dec(rng, 3.2, 3.9, 3);
    return { one_head: one, four_heads: milli(one - dec(rng, 0.03, 0.12, 3)) };
  },
  answer: pairedPercent,
  question: ({ one_head: a, four_heads: b }) => [
    `One seed, both models trained on the same batches: test cross-entropy ${f(a, 3)} nats/token with one head, `
      + `${f(b, 3)} with four heads.`,
    'What is the paired gain in test perplexity, as a percentage of the one-head perplexity, to 1 decimal?',
  ],
  mistakes: [
    { name: 'loss-percent', value: ({ one_head: a, four_heads: b }) => ((a - b) / a) * 100,
      message: 'That is the gain in cross-entropy as a percentage of the loss; perplexity is e^loss, so turn both '
        + 'losses into perplexities first.' },
    { name: 'nats-as-percent', value: ({ one_head: a, four_heads: b }) => (a - b) * 100,
      message: 'That reads the loss difference in nats as a percentage; the perplexities differ by a factor '
        + 'e^(difference), so the gain is (1 − e^(−difference))·100%.' },
    { name: 'wrong-base', value: ({ one_head: a, four_heads: b }) => ((Math.exp(a) - Math.exp(b)) / Math.exp(b)) * 100,
      message: 'That divides by the four-head perplexity; the gain is measured against one head\'s.' },
    { name: 'absolute', value: ({ one_head: a, four_heads: b }) => Math.exp(a) - Math.exp(b),
      message: 'That is the gain in perplexity itself, not a percentage of the one-head perplexity.' },
  ],
  hint: 'Perplexity is e^loss for each model; subtract, divide by the one-head perplexity, multiply by 100.',
  steps: ({ one_head: a, four_heads: b }) => {
    const [pa, pb] = [Math.exp(a), Math.exp(b)];
    return [
      `Perplexities: one head e^${f(a, 3)} = ${f(pa, 4)}, four heads e^${f(b, 3)} = ${f(pb, 4)}.`,
      `Gain: ${f(pa, 4)} − ${f(pb, 4)} = ${f(pa - pb, 4)}.`,
      `As a percentage of one head's: ${f(pa - pb, 4)} / ${f(pa, 4)} × 100 = `
        + `${f(pairedPercent({ one_head: a, four_heads: b }), 3)}%.`,
    ];
  },
};

export const RESULTS = [headWidth, projectionParams, weightsCount, perplexityFromLoss, reductionPercent,
  ablationInteraction, costliestHead, pairedGain];
