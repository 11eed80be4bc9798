// Exercises of Part I (the maps deck). Each kind: draw(rng) -> the numbers shown
// (plain JSON), answer(inputs) -> the exact answer, question/steps -> text with
// those numbers, mistakes -> the values common slips give, named. The Python
// reference of every answer is export/exercises.py.
import {
  asPrinted, dec, decNonZero, dot, f, hundredths, int, mean, paren, pick, products, rawScores, scaledScores, shareOf,
  softmax, sum, vec, vector,
} from './exercise-kit.js';

const storyIds = {
  id: 'story-ids',
  digits: 0,
  draw(rng) {
    const sentences = int(rng, 2, 4);
    return { tokens: Array.from({ length: sentences }, () => int(rng, 4, 9)) };
  },
  answer: ({ tokens }) => sum(tokens) + 2,
  question: ({ tokens }) => [
    `A story has ${tokens.length} sentences with ${tokens.join(', ')} ordinary tokens (each full stop included).`,
    'How many IDs does encode_story turn the whole story into?',
  ],
  mistakes: [
    { name: 'no-boundaries', value: ({ tokens }) => sum(tokens),
      message: 'That counts only the ordinary tokens: encode_story also adds a BOS before the story '
        + 'and an EOS after it.' },
    { name: 'per-sentence', value: ({ tokens }) => sum(tokens) + 2 * tokens.length,
      message: 'That puts a BOS and an EOS around every sentence; a story gets one of each, however many sentences.' },
    { name: 'one-boundary', value: ({ tokens }) => sum(tokens) + 1,
      message: 'Only one marker was added: a story gets both a BOS and an EOS.' },
  ],
  hint: 'Add up the ordinary tokens of all sentences, then add the markers: BOS and EOS come once per story.',
  steps: ({ tokens }) => [
    `Ordinary tokens: ${tokens.join(' + ')} = ${sum(tokens)}.`,
    `One BOS before the story and one EOS after it: ${sum(tokens)} + 2 = ${sum(tokens) + 2}.`,
  ],
};

const windowsCount = {
  id: 'windows-count',
  digits: 0,
  draw(rng) {
    return { tokens: Array.from({ length: int(rng, 3, 5) }, () => int(rng, 2, 30)) };
  },
  answer: ({ tokens }) => sum(tokens) + tokens.length,
  question: ({ tokens }) => [
    `A split holds ${tokens.length} stories with ${tokens.join(', ')} ordinary tokens.`,
    'How many (window, target) pairs does make_windows cut from the split?',
  ],
  mistakes: [
    { name: 'eos-forgotten', value: ({ tokens }) => sum(tokens),
      message: 'One window per ordinary token is right, but the EOS after each story is a target too: '
        + 'one window more per story.' },
    { name: 'bos-counted', value: ({ tokens }) => sum(tokens) + 2 * tokens.length,
      message: 'That makes BOS a target as well; BOS is only ever context, never predicted.' },
    { name: 'neighbour-pairs', value: ({ tokens }) => sum(tokens) - tokens.length,
      message: 'Two windows too few per story: that counts the pairs of neighbouring ordinary tokens '
        + '(one fewer than the tokens), '
        + 'but the first ordinary token is a target too (its context is BOS), and so is the EOS.' },
  ],
  hint: 'Every ordinary token is the target of one window, and so is the EOS at the end of each story. '
    + 'BOS is never a target.',
  steps: ({ tokens }) => [
    `Ordinary tokens: ${tokens.join(' + ')} = ${sum(tokens)}.`,
    `One EOS target per story: ${sum(tokens)} + ${tokens.length} = ${sum(tokens) + tokens.length}.`,
  ],
};

const mlpHiddenParams = {
  id: 'mlp-hidden-params',
  digits: 0,
  draw: (rng) => ({ w: int(rng, 2, 8), d: int(rng, 2, 16), h: int(rng, 3, 64) }),
  answer: ({ w, d, h }) => w * d * h + h,
  question: ({ w, d, h }) => [
    `The MLP flattens w = ${w} slots of d = ${d} numbers and feeds them to H = ${h} hidden units: `
      + 'nn.Linear(w·d, H).',
    'How many parameters does this hidden layer have?',
  ],
  mistakes: [
    { name: 'bias-forgotten', value: ({ w, d, h }) => w * d * h,
      message: 'That counts the weights only; nn.Linear also has one bias per hidden unit.' },
    { name: 'one-slot', value: ({ d, h }) => d * h + h,
      message: 'That is the layer for one slot; the flattened input has w·d numbers, each with its own weights.' },
    { name: 'bias-per-input', value: ({ w, d, h }) => w * d * h + w * d,
      message: 'The biases belong to the outputs: one per hidden unit, not one per input.' },
  ],
  hint: 'A linear layer from w·d inputs to H outputs has (w·d)·H weights and H biases.',
  steps: ({ w, d, h }) => [
    `Inputs: w·d = ${w}·${d} = ${w * d}.`,
    `Weights: ${w * d}·${h} = ${w * d * h}; biases: one per hidden unit, ${h}.`,
    `Total: ${w * d * h} + ${h} = ${w * d * h + h}.`,
  ],
};

const scoreScaling = {
  id: 'score-scaling',
  digits: 3,
  draw(rng) {
    const n = int(rng, 2, 4);
    for (;;) {
      const q = vector(rng, n, -1.5, 1.5), k = vector(rng, n, -1.5, 1.5);
      if (Math.abs(dot(q, k)) >= 0.3) return { q, k };
    }
  },
  answer: ({ q, k }) => dot(q, k) / Math.sqrt(q.length),
  question: ({ q, k }) => [
    `Query q = ${vec(q)}, key k = ${vec(k)}, so d_k = ${q.length}.`,
    'What is the score s = q·k / √d_k, to 3 decimals?',
  ],
  mistakes: [
    { name: 'scaling-forgotten', value: ({ q, k }) => dot(q, k),
      message: 'That is q·k without the division by √d_k: the scaling was forgotten.' },
    { name: 'divided-by-dk', value: ({ q, k }) => dot(q, k) / q.length,
      message: 'That divides by d_k itself; the score divides by its square root, √d_k.' },
    { name: 'multiplied', value: ({ q, k }) => dot(q, k) * Math.sqrt(q.length),
      message: 'That multiplies by √d_k; the score divides by it.' },
  ],
  hint: 'Multiply q and k coordinate by coordinate, add the products, then divide by the square root of d_k.',
  steps: ({ q, k }) => [
    `q·k = ${products(q, k)} = ${f(dot(q, k), 2)}.`,
    `√d_k = √${q.length} = ${f(Math.sqrt(q.length), 4)}.`,
    `s = ${f(dot(q, k), 2)} / ${f(Math.sqrt(q.length), 4)} = ${f(dot(q, k) / Math.sqrt(q.length), 4)}.`,
  ],
};

const softmaxWeight = {
  id: 'softmax-weight',
  digits: 3,
  range: { min: 0, max: 1, message: 'A softmax weight lies between 0 and 1.' },
  draw(rng) {
    const pad = rng() < 0.5;
    const scores = Array.from({ length: 4 }, (_, i) => (pad && i === 0 ? null : dec(rng, -2, 2, 1)));
    return { scores, slot: int(rng, pad ? 1 : 0, 3) };
  },
  answer: ({ scores, slot }) => softmax(scores)[slot],
  question: ({ scores, slot }) => [
    `Scores of slots 1 to 4: s = ${vec(scores)}${scores[0] === null ? ' (slot 1 is PAD, masked to −∞)' : ''}.`,
    `What weight does the softmax over the slots give slot ${slot + 1}, to 3 decimals?`,
  ],
  mistakes: [
    { name: 'not-normalised', value: ({ scores, slot }) => Math.exp(scores[slot]),
      message: 'That is e^s of the slot alone: softmax not normalised. Divide by the sum of e^s over the slots.' },
    { name: 'no-exponential', value: ({ scores, slot }) => {
      const total = sum(scores.filter((s) => s !== null));
      return total === 0 ? null : scores[slot] / total;
    }, message: 'That shares out the scores themselves; softmax shares out e to the scores.' },
    { name: 'pad-counted', value: ({ scores, slot }) => (scores[0] !== null ? null
      : Math.exp(scores[slot]) / (sum(scores.slice(1).map(Math.exp)) + 1)),
    message: 'The PAD slot was counted with score 0 (e⁰ = 1); its score is −∞, so it adds nothing to the sum.' },
  ],
  hint: 'Take e^s for every slot that is not masked (a −∞ score gives 0), add them up, '
    + 'and divide the slot\'s e^s by that sum.',
  steps: ({ scores, slot }) => {
    const e = scores.map((s) => (s === null ? 0 : Math.exp(s)));
    return [
      `e^s per slot: ${vec(e, 4)}.`,
      `Sum: ${f(sum(e), 4)}.`,
      `Weight of slot ${slot + 1}: ${f(e[slot], 4)} / ${f(sum(e), 4)} = ${f(softmax(scores)[slot], 4)}.`,
    ];
  },
};

const messageCoordinate = {
  id: 'message-coordinate',
  digits: 3,
  draw: (rng) => ({ weights: hundredths(rng, 4, 2).map((c) => c / 100), values: vector(rng, 4, -2, 2) }),
  answer: ({ weights, values }) => dot(weights, values),
  question: ({ weights, values }) => [
    `Attention weights α = ${vec(weights, 2)}; the first coordinate of each value row: ${vec(values)}.`,
    'What is the first coordinate of the message m = Σ α_j v_j, to 3 decimals?',
  ],
  mistakes: [
    { name: 'plain-mean', value: ({ values }) => mean(values),
      message: 'That is the plain mean of the values; each value counts with its own weight.' },
    { name: 'weights-left-out', value: ({ values }) => sum(values),
      message: 'That adds the values without their weights.' },
    { name: 'hard-retrieval', value: ({ weights, values }) => values[weights.indexOf(Math.max(...weights))],
      message: 'That takes only the value with the largest weight; the message mixes every value row.' },
  ],
  hint: 'Multiply each weight by the value of its slot, then add the four products.',
  steps: ({ weights, values }) => [
    `m = ${products(weights, values, 2, 1)}`,
    `= ${weights.map((a, i) => paren(a * values[i], 3)).join(' + ')}`,
    `= ${f(dot(weights, values), 3)}.`,
  ],
};

const nll = (p) => -Math.log(p);

const crossEntropy = {
  id: 'cross-entropy',
  digits: 3,
  draw: (rng) => ({ p: Array.from({ length: int(rng, 2, 3) }, () => dec(rng, 0.05, 0.95, 2)) }),
  answer: ({ p }) => mean(p.map(nll)),
  question: ({ p }) => [
    `A batch of ${p.length} examples gives their targets the probabilities p = ${vec(p, 2)}.`,
    'What is the batch loss L, the mean of −log p (natural log), to 3 decimals?',
  ],
  mistakes: [
    { name: 'log-base-2', value: ({ p }) => mean(p.map((x) => -Math.log2(x))),
      message: 'That uses log base 2 (bits); the loss uses the natural log (nats).' },
    { name: 'log-base-10', value: ({ p }) => mean(p.map((x) => -Math.log10(x))),
      message: 'That uses log base 10; the loss uses the natural log, ln.' },
    { name: 'sign', value: ({ p }) => mean(p.map(Math.log)),
      message: 'The minus sign is missing: −log p is positive for every p below 1.' },
    { name: 'sum', value: ({ p }) => sum(p.map(nll)),
      message: 'That is the sum over the batch; L is the mean.' },
  ],
  hint: 'Take the natural log of each probability, change its sign, and average over the batch.',
  steps: ({ p }) => [
    `−ln p per example: ${vec(p.map(nll), 4)}.`,
    `L = (${p.map((x) => f(nll(x), 4)).join(' + ')}) / ${p.length} = ${f(mean(p.map(nll)), 4)}.`,
  ],
};

const sgdStep = {
  id: 'sgd-step',
  digits: 4,
  draw: (rng) => ({
    w: decNonZero(rng, -1, 1, 2), grad: decNonZero(rng, -0.5, 0.5, 3), lr: pick(rng, [0.05, 0.1, 0.2, 0.5]),
  }),
  answer: ({ w, grad, lr }) => w - lr * grad,
  question: ({ w, grad, lr }) => [
    `A weight of the vocabulary head, W₂[r, c] = ${f(w, 2)}, has gradient ∂L/∂W₂[r, c] = ${f(grad, 3)}; `
      + `the learning rate is η = ${f(lr, 2)}.`,
    'What is the weight after one SGD step, to 4 decimals?',
  ],
  mistakes: [
    { name: 'wrong-sign', value: ({ w, grad, lr }) => w + lr * grad,
      message: 'Wrong sign: that steps along the gradient; SGD steps against it, W₂[r, c] − η·∂L/∂W₂[r, c].' },
    { name: 'rate-forgotten', value: ({ w, grad }) => w - grad,
      message: 'The learning rate is missing: the step is η times the gradient.' },
    { name: 'step-only', value: ({ grad, lr }) => -lr * grad,
      message: 'That is the step alone; the new weight is the old one plus that step.' },
  ],
  hint: 'Multiply the gradient by η and subtract the product from the old weight.',
  steps: ({ w, grad, lr }) => [
    `η·∂L/∂W₂[r, c] = ${f(lr, 2)}·${paren(grad, 3)} = ${f(lr * grad, 5)}.`,
    `New W₂[r, c] = ${f(w, 2)} − ${paren(lr * grad, 5)} = ${f(w - lr * grad, 5)}.`,
  ],
};

// ---- multi-step: a whole attention step, and the weights of a padded window ----

const scoreLines = (q, keys, first = 0) => keys.map((k, j) => ({ k, j: j + first }))
  .map(({ k, j }) => `q·k_${j + 1} = ${products(q, k)} = ${f(dot(q, k), 2)}`).join('; ');

const weightsOf = ({ q, keys }) => softmax(scaledScores(q, keys));

const attentionStep = {
  id: 'attention-step',
  digits: 2,
  draw(rng) {
    const dk = pick(rng, [2, 3]);
    for (;;) {
      const q = vector(rng, dk, -1, 2);
      const keys = [0, 1, 2].map(() => vector(rng, dk, -1, 2));
      const raw = rawScores(q, keys);
      if (Math.max(...raw) - Math.min(...raw) >= 0.5) return { q, keys, values: vector(rng, 3, -2, 2) };
    }
  },
  answer: (x) => dot(weightsOf(x), x.values),
  question: ({ q, keys, values }) => [
    `A query q = ${vec(q)} (d_k = ${q.length}) and three sources with keys `
      + `${keys.map((k, j) => `k_${j + 1} = ${vec(k)}`).join(', ')}.`,
    `The first coordinate of each source's value row: v = ${vec(values)}.`,
    'What is the first coordinate of the message m = Σ α_j v_j, with α = softmax(q·k_j / √d_k) over the three '
      + 'sources, to 2 decimals?',
  ],
  mistakes: [
    { name: 'keys-mixed', value: (x) => dot(weightsOf(x), x.keys.map((k) => k[0])),
      message: 'That mixes the keys\' first coordinates; keys only decide the weights, and the message mixes '
        + 'the values.' },
    { name: 'scaling-forgotten', value: ({ q, keys, values }) => dot(softmax(rawScores(q, keys)), values),
      message: 'The scores were not divided by √d_k before the softmax.' },
    { name: 'no-exponential', value: ({ q, keys, values }) => {
      const raw = rawScores(q, keys);
      return shareOf(1, raw) === null ? null : dot(raw.map((s) => shareOf(s, raw)), values);
    },
    message: 'That shares out the scores themselves; softmax shares out e to each scaled score.' },
    { name: 'wrong-axis', value: ({ values }) => sum(values),
      message: 'Every weight came out 1: that is a softmax over the queries (one query, so one entry each). '
        + 'Softmax runs over the sources of the query\'s row, and its weights add up to 1.' },
  ],
  hint: 'Four steps: the dot product q·k_j for each source, divided by √d_k; e to each scaled score, divided by '
    + 'their sum (the weights α_j); then the weighted sum of the values.',
  steps: (x) => {
    const { q, keys, values } = x;
    const s = scaledScores(q, keys);
    const e = s.map(Math.exp);
    const alpha = weightsOf(x);
    return [
      `Scores: ${scoreLines(q, keys)}.`,
      `Divided by √d_k = √${q.length} = ${f(Math.sqrt(q.length), 4)}: s = ${vec(s, 4)}.`,
      `e^s = ${vec(e, 4)}; sum ${f(sum(e), 4)}; weights α = ${vec(alpha, 4)}.`,
      `m = ${products(alpha, values, 4, 1)} = ${f(dot(alpha.map((a) => asPrinted(a)), values), 4)}; `
        + `with the weights unrounded, m = ${f(dot(alpha, values), 4)}.`,
    ];
  },
};

// Slots 1 to `pad` are PAD (the window is left-padded); their scores are masked to −∞.
const padMasked = ({ q, keys, pad }) => scaledScores(q, keys).map((s, j) => (j < pad ? null : s));

const padMaskedWeight = {
  id: 'pad-masked-weight',
  digits: 3,
  range: { min: 0, max: 1, message: 'A softmax weight lies between 0 and 1.' },
  draw(rng) {
    const q = vector(rng, 2, -1, 2);
    const pad = int(rng, 1, 2);
    const keys = [0, 1, 2, 3].map(() => vector(rng, 2, -1, 2));
    return { q, keys, pad, slot: int(rng, pad + 1, 4) };
  },
  answer: (x) => softmax(padMasked(x))[x.slot - 1],
  question: ({ q, keys, pad, slot }) => [
    `A final query q = ${vec(q)} (d_k = 2) and the keys of slots 1 to 4: ${keys.map((k) => vec(k)).join(', ')}.`,
    pad === 1 ? 'Slot 1 is PAD; slots 2 to 4 hold real tokens.'
      : 'Slots 1 and 2 are PAD; slots 3 and 4 hold real tokens.',
    `What weight does slot ${slot} get after the scaling, the PAD mask and the softmax, to 3 decimals?`,
  ],
  mistakes: [
    { name: 'pad-counted', value: ({ q, keys, slot }) => softmax(scaledScores(q, keys))[slot - 1],
      message: 'PAD took part in the softmax: its score becomes −∞ first, so it gets weight 0 and the real slots '
        + 'share all of it.' },
    { name: 'scaling-forgotten', value: ({ q, keys, pad, slot }) =>
      softmax(rawScores(q, keys).map((s, j) => (j < pad ? null : s)))[slot - 1],
    message: 'The scores were not divided by √d_k = √2 before the softmax.' },
    { name: 'divided-by-dk', value: ({ q, keys, pad, slot }) =>
      softmax(rawScores(q, keys).map((s, j) => (j < pad ? null : s / 2)))[slot - 1],
    message: 'That divides the scores by d_k = 2 itself; the scaling divides by its square root, √2.' },
    { name: 'no-exponential', value: ({ q, keys, pad, slot }) => {
      const real = rawScores(q, keys).slice(pad);
      return shareOf(real[slot - 1 - pad], real);
    },
    message: 'That shares out the scores themselves; softmax shares out e to each scaled score.' },
  ],
  hint: 'Score the real slots (q·k_j / √d_k), give each PAD slot −∞, then take the softmax: e to each score '
    + 'over their sum, with e^(−∞) = 0.',
  steps: (x) => {
    const { q, keys, pad, slot } = x;
    const s = padMasked(x);
    const e = s.map((v) => (v === null ? 0 : Math.exp(v)));
    return [
      `Real slots: ${scoreLines(q, keys.slice(pad), pad)}.`,
      `Divided by √d_k = √2 = ${f(Math.SQRT2, 4)}, PAD masked: s = ${vec(s, 4)}.`,
      `e^s = ${vec(e, 4)} (e^(−∞) = 0); sum ${f(sum(e), 4)}.`,
      `Weight of slot ${slot}: ${f(e[slot - 1], 4)} / ${f(sum(e), 4)} = ${f(softmax(s)[slot - 1], 4)}.`,
    ];
  },
};

export const MAPS = [storyIds, windowsCount, mlpHiddenParams, scoreScaling, softmaxWeight, messageCoordinate,
  crossEntropy, sgdStep, attentionStep, padMaskedWeight];
