// Exercises of Part II (attention). The same shape as exercises-maps.js; the
// Python reference of every answer is export/exercises.py.
import { dec, dot, f, int, paren, pick, products, shareOf, softmax, sum, vec, vector } from './exercise-kit.js';

const videoScore = {
  id: 'video-score',
  digits: 2,
  draw(rng) {
    const q = vector(rng, 3, 0, 2);
    for (;;) {
      const k = vector(rng, 3, -1, 2);
      if (k.some((x) => x < 0)) return { q, k };
    }
  },
  answer: ({ q, k }) => dot(q, k),
  question: ({ q, k }) => [
    `A query q = ${vec(q)} and a video's key k = ${vec(k)}, on the same three topics.`,
    'What is the match score q·k, to 2 decimals?',
  ],
  mistakes: [
    { name: 'added', value: ({ q, k }) => sum(q) + sum(k),
      message: 'That adds query and key coordinates; a match multiplies them coordinate by coordinate, '
        + 'then adds the products.' },
    { name: 'sign-dropped', value: ({ q, k }) => sum(q.map((x, i) => Math.abs(x * k[i]))),
      message: 'A minus sign was dropped: a negative key coordinate lowers the score.' },
    { name: 'sums-multiplied', value: ({ q, k }) => sum(q) * sum(k),
      message: 'That multiplies the two sums; multiply matching coordinates first, then add.' },
  ],
  hint: 'Multiply the first coordinates, then the second, then the third, and add the three products.',
  steps: ({ q, k }) => [
    `q·k = ${products(q, k)}`,
    `= ${q.map((x, i) => paren(x * k[i], 2)).join(' + ')}`,
    `= ${f(dot(q, k), 2)}.`,
  ],
};

const best = (s) => s.indexOf(Math.max(...s));
const unique = (s) => s.filter((x) => x === Math.max(...s)).length === 1;

const retrievalTemperature = {
  id: 'retrieval-temperature',
  digits: 3,
  range: { min: 0, max: 1, message: 'A softmax weight lies between 0 and 1.' },
  draw(rng) {
    const T = pick(rng, [0.5, 2, 4]);
    for (;;) {
      const scores = vector(rng, 4, 0, 3);
      if (unique(scores)) return { scores, T };
    }
  },
  answer: ({ scores, T }) => softmax(scores.map((s) => s / T))[best(scores)],
  question: ({ scores, T }) => [
    `Match scores of four videos: s = ${vec(scores)}; the temperature is T = ${f(T, 1)}.`,
    `What weight does softmax(s / T) give the best match (score ${f(Math.max(...scores), 1)}), to 3 decimals?`,
  ],
  mistakes: [
    { name: 'temperature-forgotten', value: ({ scores }) => softmax(scores)[best(scores)],
      message: 'The temperature was left out: divide every score by T before the softmax.' },
    { name: 'times-temperature', value: ({ scores, T }) => softmax(scores.map((s) => s * T))[best(scores)],
      message: 'The scores were multiplied by T; softmax(s / T) divides them.' },
    { name: 'not-normalised', value: ({ scores, T }) => Math.exp(Math.max(...scores) / T),
      message: 'That is e^(s/T) of the best video alone: softmax not normalised. Divide by the sum over all four.' },
  ],
  hint: 'Divide every score by T, take e to each result, and divide the best one by their sum.',
  steps: ({ scores, T }) => {
    const e = scores.map((s) => Math.exp(s / T));
    return [
      `s / T = ${vec(scores.map((s) => s / T), 3)}.`,
      `e^(s/T) = ${vec(e, 4)}; sum ${f(sum(e), 4)}.`,
      `Weight of the best match: ${f(e[best(scores)], 4)} / ${f(sum(e), 4)} = ${f(e[best(scores)] / sum(e), 4)}.`,
    ];
  },
};

const scaledSoftmax = {
  id: 'scaled-softmax',
  digits: 3,
  range: { min: 0, max: 1, message: 'A softmax weight lies between 0 and 1.' },
  draw: (rng) => ({ raw: vector(rng, 3, 0, 4), d_k: int(rng, 2, 9), source: int(rng, 1, 3) }),
  answer: ({ raw, d_k: dk, source }) => softmax(raw.map((s) => s / Math.sqrt(dk)))[source - 1],
  question: ({ raw, d_k: dk, source }) => [
    `Raw scores q·k of three sources: ${vec(raw)}; the head has d_k = ${dk}.`,
    `What weight does source ${source} get after dividing by √d_k and the softmax, to 3 decimals?`,
  ],
  mistakes: [
    { name: 'scaling-forgotten', value: ({ raw, source }) => softmax(raw)[source - 1],
      message: 'That is the softmax of the raw scores: the scaling was forgotten. Divide them by √d_k first.' },
    { name: 'divided-by-dk', value: ({ raw, d_k: dk, source }) => softmax(raw.map((s) => s / dk))[source - 1],
      message: 'That divides by d_k itself; the scores are divided by its square root.' },
    { name: 'no-exponential', value: ({ raw, source }) => raw[source - 1] / sum(raw),
      message: 'That shares out the scores themselves; softmax shares out e to the scaled scores.' },
  ],
  hint: 'Divide each raw score by √d_k, take e to each, and divide the source\'s value by the sum.',
  steps: ({ raw, d_k: dk, source }) => {
    const scaled = raw.map((s) => s / Math.sqrt(dk));
    const e = scaled.map(Math.exp);
    return [
      `√d_k = √${dk} = ${f(Math.sqrt(dk), 4)}; scaled scores ${vec(scaled, 4)}.`,
      `e to each: ${vec(e, 4)}; sum ${f(sum(e), 4)}.`,
      `Weight of source ${source}: ${f(e[source - 1], 4)} / ${f(sum(e), 4)} = ${f(e[source - 1] / sum(e), 4)}.`,
    ];
  },
};

const delta = ({ m, W_O: W, coordinate: c }) => m[0] * W[0][c - 1] + m[1] * W[1][c - 1];

const residualUpdate = {
  id: 'residual-update',
  digits: 3,
  draw(rng) {
    for (;;) {
      const inputs = {
        e: vector(rng, 4, -1, 1), m: vector(rng, 2, -1, 1, 2),
        W_O: [vector(rng, 4, -1, 1), vector(rng, 4, -1, 1)], coordinate: int(rng, 1, 4),
      };
      if (Math.abs(delta(inputs)) >= 0.05) return inputs;
    }
  },
  answer: (x) => x.e[x.coordinate - 1] + delta(x),
  question: ({ e, m, W_O: W, coordinate }) => [
    `Row e = ${vec(e)}; message m = ${vec(m, 2)}; W_O has rows ${vec(W[0])} and ${vec(W[1])}.`,
    `What is coordinate ${coordinate} of e′ = e + m·W_O, to 3 decimals?`,
  ],
  mistakes: [
    { name: 'residual-forgotten', value: delta,
      message: 'That is the update Δe alone; the residual adds it to the row: e′ = e + Δe.' },
    { name: 'one-term', value: ({ e, m, W_O: W, coordinate: c }) => e[c - 1] + m[0] * W[0][c - 1],
      message: 'Only the first message coordinate went in; Δe uses both: m₁·W_O[1, c] + m₂·W_O[2, c].' },
    { name: 'subtracted', value: (x) => x.e[x.coordinate - 1] - delta(x),
      message: 'The update was subtracted; the residual adds it.' },
  ],
  hint: 'Column c of W_O turns the two message coordinates into Δe_c = m₁·W_O[1, c] + m₂·W_O[2, c]; '
    + 'then add e_c.',
  steps: (x) => {
    const c = x.coordinate;
    return [
      `Δe_${c} = ${f(x.m[0], 2)}·${paren(x.W_O[0][c - 1])} + ${paren(x.m[1], 2)}·${paren(x.W_O[1][c - 1])}`
        + ` = ${f(delta(x), 3)}.`,
      `e′_${c} = ${f(x.e[c - 1])} + ${paren(delta(x), 3)} = ${f(x.e[c - 1] + delta(x), 3)}.`,
    ];
  },
};

const causalMask = {
  id: 'causal-mask',
  digits: 0,
  draw: (rng) => ({ T: int(rng, 3, 12) }),
  answer: ({ T }) => (T * (T + 1)) / 2,
  question: ({ T }) => [
    `A prefix of ${T} tokens: row i is a query, column j a source, and a source is allowed when j ≤ i.`,
    'How many (query, source) pairs does the causal mask allow?',
  ],
  mistakes: [
    { name: 'diagonal-blocked', value: ({ T }) => (T * (T - 1)) / 2,
      message: 'That blocks the diagonal too; a token may read itself (j ≤ i).' },
    { name: 'no-mask', value: ({ T }) => T * T,
      message: 'That allows every pair; the mask blocks every source that comes after its query.' },
    { name: 'diagonal-only', value: ({ T }) => T,
      message: 'That lets each query read only itself; it may also read every earlier token.' },
  ],
  hint: 'Row 1 may read one source, row 2 two sources, and so on up to the last row.',
  steps: ({ T }) => [
    `Row 1 allows 1 source, row 2 allows 2, …, row ${T} allows ${T}.`,
    `1 + 2 + … + ${T} = ${T}·${T + 1} / 2 = ${(T * (T + 1)) / 2}.`,
  ],
};

const reluUnit = {
  id: 'relu-unit',
  digits: 2,
  draw(rng) {
    const negative = rng() < 0.5;
    for (;;) {
      const x = vector(rng, 3, -1, 1), w = vector(rng, 3, -2, 2), b = dec(rng, -1, 1, 1);
      const z = dot(x, w) + b;
      if (Math.abs(z) >= 0.05 && (z < 0) === negative) return { x, w, b };
    }
  },
  answer: ({ x, w, b }) => Math.max(0, dot(x, w) + b),
  question: ({ x, w, b }) => [
    `Hidden unit c reads the row e′ = ${vec(x)} with its weights W₁[:, c] = ${vec(w)} and bias b₁[c] = ${f(b)}.`,
    'What does it output, h_c = ReLU(e′·W₁[:, c] + b₁[c]), to 2 decimals?',
  ],
  mistakes: [
    { name: 'relu-forgotten', value: ({ x, w, b }) => dot(x, w) + b,
      message: 'ReLU was left out: a negative sum becomes 0.' },
    { name: 'bias-forgotten', value: ({ x, w }) => Math.max(0, dot(x, w)),
      message: 'The bias b₁[c] is missing: add it before the ReLU.' },
    { name: 'relu-before-bias', value: ({ x, w, b }) => Math.max(0, dot(x, w)) + b,
      message: 'ReLU comes after the bias is added: h_c = ReLU(e′·W₁[:, c] + b₁[c]).' },
  ],
  hint: 'Multiply e′ and W₁[:, c] coordinate by coordinate, add the products and the bias; '
    + 'a negative result becomes 0.',
  steps: ({ x, w, b }) => {
    const z = dot(x, w) + b;
    return [
      `e′·W₁[:, c] = ${products(x, w)} = ${f(dot(x, w), 2)}.`,
      `e′·W₁[:, c] + b₁[c] = ${f(dot(x, w), 2)} + ${paren(b)} = ${f(z, 2)}.`,
      z < 0 ? `The sum is negative, so ReLU gives ${f(0, 2)}.` : `The sum is positive, so ReLU keeps ${f(z, 2)}.`,
    ];
  },
};

// ---- multi-step: a masked softmax row, and a query projected then scored ----

// Query i's row with the causal mask: sources after i become null (−∞).
const causalRow = ({ scores, query }) => scores.map((s, c) => (c < query ? s : null));

const maskedRow = {
  id: 'masked-row',
  digits: 3,
  range: { min: 0, max: 1, message: 'A softmax weight lies between 0 and 1.' },
  draw(rng) {
    const n = int(rng, 4, 6);
    const query = int(rng, 2, n - 1);
    return { scores: vector(rng, n, -1, 3), query, source: int(rng, 1, query - 1) };
  },
  answer: (x) => softmax(causalRow(x))[x.source - 1],
  question: ({ scores, query, source }) => [
    `A prefix of ${scores.length} tokens. The scaled scores of query ${query} (its row of QKᵀ/√d_k) for sources `
      + `1 to ${scores.length}: ${vec(scores)}.`,
    `After the causal mask and the softmax, what weight does query ${query} give source ${source}, to 3 decimals?`,
  ],
  mistakes: [
    { name: 'no-mask', value: ({ scores, source }) => softmax(scores)[source - 1],
      message: 'The later sources were not masked (or were zeroed after the softmax without renormalising): '
        + 'query i reads only sources j ≤ i, and those weights add up to 1.' },
    { name: 'diagonal-masked', value: ({ scores, query, source }) =>
      softmax(scores.map((s, c) => (c < query - 1 ? s : null)))[source - 1],
    message: 'That masks the diagonal too: a query token may read itself (j ≤ i).' },
    { name: 'past-masked', value: () => 0,
      message: 'That masks the past: the causal mask hides the sources after the query (j > i), so an earlier '
        + 'source keeps a weight.' },
    { name: 'no-exponential', value: (x) => {
      const kept = causalRow(x).slice(0, x.query);
      return shareOf(kept[x.source - 1], kept);
    },
    message: 'That shares out the scores themselves; softmax shares out e to each score.' },
  ],
  hint: 'Keep the sources 1 to i of query i and give the later ones −∞; then e to each kept score, '
    + 'divided by their sum.',
  steps: (x) => {
    const row = causalRow(x);
    const e = row.slice(0, x.query).map(Math.exp);
    const w = softmax(row)[x.source - 1];
    return [
      `Query ${x.query} may read sources 1 to ${x.query} (j ≤ i): masked row ${vec(row)}.`,
      `e^s over sources 1 to ${x.query}: ${vec(e, 4)}; sum ${f(sum(e), 4)}.`,
      `Weight of source ${x.source}: ${f(e[x.source - 1], 4)} / ${f(sum(e), 4)} = ${f(w, 4)}.`,
    ];
  },
};

const column = (W, c) => W.map((row) => row[c]);
const project = (e, W) => [0, 1].map((c) => dot(e, column(W, c)));
const projectedScore = ({ e, W_Q: W, k }) => dot(project(e, W), k) / Math.SQRT2;

const queryProjection = {
  id: 'query-projection',
  digits: 3,
  draw(rng) {
    for (;;) {
      const e = vector(rng, 4, -1, 1);
      const W = [0, 1, 2, 3].map(() => [int(rng, -1, 2), int(rng, -1, 2)]);
      const x = { e, W_Q: W, k: vector(rng, 2, -1, 2) };
      const q = project(e, W);
      if (q.every((v) => Math.abs(v) >= 0.1) && Math.abs(q[0] - q[1]) >= 0.1 && Math.abs(projectedScore(x)) >= 0.1) {
        return x;
      }
    }
  },
  answer: projectedScore,
  question: ({ e, W_Q: W, k }) => [
    `A token row e = ${vec(e)} (d = 4) and W_Q, d × d_k = 4 × 2, with rows ${W.map((r) => vec(r, 0)).join(', ')}.`,
    `A key k = ${vec(k)}.`,
    'What is the scaled score q·k / √d_k, with q = e W_Q, to 3 decimals?',
  ],
  mistakes: [
    { name: 'scaling-forgotten', value: (x) => projectedScore(x) * Math.SQRT2,
      message: 'That is q·k before the scaling: divide it by √d_k = √2.' },
    { name: 'divided-by-dk', value: (x) => projectedScore(x) / Math.SQRT2,
      message: 'That divides by d_k = 2 itself; the scaling divides by its square root, √2.' },
    { name: 'columns-swapped', value: ({ e, W_Q: W, k }) => dot(project(e, W).reverse(), k) / Math.SQRT2,
      message: 'The query coordinates were paired with the wrong key coordinates: q_1 comes from the first column '
        + 'of W_Q and meets k_1.' },
    { name: 'sign-dropped', value: ({ e, W_Q: W, k }) =>
      dot([0, 1].map((c) => sum(e.map((v, i) => Math.abs(v * W[i][c])))), k) / Math.SQRT2,
    message: 'A minus sign was dropped in e W_Q: a negative product lowers the query coordinate.' },
  ],
  hint: 'Coordinate c of q is e times column c of W_Q (four products, added); then q·k, divided by √d_k = √2.',
  steps: ({ e, W_Q: W, k }) => {
    const q = project(e, W);
    const raw = dot(q, k);
    return [
      ...[0, 1].map((c) => `q_${c + 1} = e·W_Q[:, ${c + 1}] = ${products(e, column(W, c), 1, 0)} = ${f(q[c], 1)}.`),
      `q·k = ${products(q, k)} = ${f(raw, 2)}.`,
      `Scaled: ${f(raw, 2)} / √2 = ${f(raw / Math.SQRT2, 4)}.`,
    ];
  },
};

export const PART2 = [videoScore, retrievalTemperature, scaledSoftmax, residualUpdate, causalMask, reluUnit,
  maskedRow, queryProjection];
