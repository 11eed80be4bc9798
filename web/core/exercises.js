// The exercises' JavaScript twin of the course arithmetic: every kind of every
// deck (web/core/exercises-*.js), their seeded draws (mulberry32, the decoding
// rule's generator), reading what a learner typed, and judging it. No DOM: the
// widget is web/widgets/exercise.js; the Python reference of every answer is
// export/exercises.py (tests/test_exercises_parity.py compares the two).
import { mulberry32 } from './decoding.js';
import { f } from './exercise-kit.js';
import { MAPS } from './exercises-maps.js';
import { PART2 } from './exercises-part2.js';
import { PART3 } from './exercises-part3.js';
import { RESULTS } from './exercises-results.js';

export const DECKS = { maps: MAPS, part2: PART2, part3: PART3, results: RESULTS };
export const KINDS = Object.fromEntries(Object.values(DECKS).flat().map((kind) => [kind.id, kind]));
export const SEED_MAX = 0xFFFFFFFF;
// The seed the built pages print (the reading view, ?print-pdf and a page read
// without JavaScript: site_builder/exercise_texts.mjs); a visit draws its own.
export const PRINTED_SEED = 0;
const LARGEST = 1e12; // no answer comes near it: a longer number is a typing slip

export function kindOf(id) {
  if (!Object.hasOwn(KINDS, id)) throw new Error(`unknown exercise ${JSON.stringify(id)}`);
  return KINDS[id];
}

// FNV-1a of the id: two exercises on a page share the page's seed but not its draws.
function idHash(id) {
  let h = 0x811C9DC5;
  for (const ch of id) h = Math.imul(h ^ ch.codePointAt(0), 0x01000193) >>> 0;
  return h;
}

export function isSeed(seed) {
  return Number.isInteger(seed) && seed >= 0 && seed <= SEED_MAX;
}

// The numbers an exercise shows for one seed: the same seed, the same numbers.
export function draw(id, seed) {
  if (!isSeed(seed)) throw new Error(`a seed is a whole number from 0 to ${SEED_MAX}, got ${seed}`);
  return kindOf(id).draw(mulberry32((idHash(id) ^ seed) >>> 0));
}

export function answer(id, inputs) {
  return kindOf(id).answer(inputs);
}

// Half a unit in the last decimal asked for: 0.123 is right for 0.1234 and 0.1226.
export function tolerance(digits) {
  return 0.5 * 10 ** -digits * (1 + 1e-9);
}

// The first seed after `seed` whose answer differs at the precision asked for, so
// that "New numbers" always changes the answer, not only the question.
export function nextSeed(id, seed) {
  const kind = kindOf(id);
  const before = kind.answer(draw(id, seed));
  for (let step = 1; step <= 100; step++) {
    const next = (seed + step) % (SEED_MAX + 1);
    if (Math.abs(kind.answer(draw(id, next)) - before) > 1.5 * tolerance(kind.digits)) return next;
  }
  return (seed + 1) % (SEED_MAX + 1);
}

export function formatAnswer(kind, value) {
  return `${f(value, kind.digits)}${kind.percent ? '%' : ''}`;
}

// What form the answer takes, as the answer field's label and the solution's last line say it.
export function describe(kind) {
  if (kind.digits === 0) return 'a whole number';
  const places = kind.digits === 1 ? '1 decimal' : `${kind.digits} decimals`;
  return kind.percent ? `a percentage, to ${places}` : `to ${places}`;
}

// Every text the exercise shows for one seed, in the widget's words: the seed line
// (before, link, after), the question's lines, the hint, the worked steps and the
// answer line. The widget (web/widgets/exercise.js) and the built page's printed
// copy (site_builder/exercises.py, through exercise_texts.mjs) both use it.
export function shownTexts(id, seed) {
  const kind = kindOf(id);
  const inputs = draw(id, seed);
  return {
    inputs,
    seedLine: [`Seed ${seed}: the same seed gives the same numbers (`, 'a link with this seed', ').'],
    question: kind.question(inputs).map(grouped),
    hint: `Hint: ${kind.hint}`,
    steps: kind.steps(inputs).map(grouped),
    answer: grouped(`Answer (${describe(kind)}): ${formatAnswer(kind, kind.answer(inputs))}`),
  };
}

// Whole numbers of 4 or more digits written with thousands commas (16,384), as
// everywhere in the course (content/notation.toml); decimals and their digits
// after the point stay as they are. parseAnswer reads "16,384" back.
export function grouped(text) {
  return text.replace(/(?<![\d.,])\d{4,}(?!\d|,\d|\.\d)/g, (n) => Number(n).toLocaleString('en-US'));
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const GROUPED = /^[+-]?\d{1,3}(,\d{3})+$/;

// What the learner typed -> { value } or { error } (a message for next to the field).
// Accepts a comma decimal ("0,5"), a true minus sign, "+", a trailing "%" on a
// percentage, and thousands commas in a whole number ("16,384").
export function parseAnswer(text, { digits = 3, percent = false } = {}) {
  let s = String(text ?? '').trim().replace(/[\u2212\u2012\u2013\uFE63\uFF0D]/g, '-');
  if (!s) return { error: 'Type your answer as a number first.' };
  if (s.endsWith('%')) {
    if (!percent) return { error: 'This answer is not a percentage: type a plain number, without %.' };
    s = s.slice(0, -1).trim();
  }
  if (digits === 0 && GROUPED.test(s)) s = s.replaceAll(',', '');
  else if (/^[^,.]*,[^,.]*$/.test(s)) s = s.replace(',', '.');
  if (s.includes(',')) return { error: 'Write one number, with a dot or a comma before the decimals (0.5 or 0,5).' };
  if (!NUMBER.test(s)) {
    if (/^[+-]?(nan|inf|infinity)$/i.test(s)) return { error: 'That is not a number the question can have: type digits.' };
    return { error: 'Type a number such as 0.25: digits, a dot or a comma for the decimals, a minus sign if needed.' };
  }
  const value = Number(s);
  if (!Number.isFinite(value) || Math.abs(value) > LARGEST) {
    return { error: 'That number is far too large for this question: check for extra digits.' };
  }
  if (digits === 0 && !Number.isInteger(value)) {
    return { error: 'The answer is a whole number: type it without decimals.' };
  }
  return { value };
}

// How a (parsed) answer compares with the exact one: correct within the rounding
// asked for; otherwise the first named mistake it matches (mistakes whose value
// cannot be told apart from the answer at that rounding are skipped), a number
// outside the possible range, or a near miss (rounded differently).
export function judge(id, inputs, value) {
  const kind = kindOf(id);
  const exact = kind.answer(inputs);
  const tol = tolerance(kind.digits);
  if (Math.abs(value - exact) <= tol) return { correct: true, exact };
  for (const mistake of kind.mistakes) {
    const slip = mistake.value(inputs);
    if (slip === null || !Number.isFinite(slip) || Math.abs(slip - exact) <= 1.5 * tol) continue;
    if (Math.abs(value - slip) <= tol) return { correct: false, exact, mistake };
  }
  if (kind.range && (value < kind.range.min || value > kind.range.max)) {
    return { correct: false, exact, reason: kind.range.message };
  }
  if (kind.digits > 0 && Math.abs(value - exact) <= 6 * tol) {
    return { correct: false, exact, reason: 'Close, but it does not round to the answer: keep more digits '
      + 'in the intermediate steps and round only at the end.' };
  }
  return { correct: false, exact };
}
