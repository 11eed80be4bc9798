// Every worked solution agrees with itself and with its answer line
// (web/core/exercises*.js): each "expression = value" its steps print is
// recomputed from the printed numbers, and the last number the steps reach is
// the answer. A solution whose arithmetic divides by d_k while it prints √d_k,
// or whose last step disagrees with the answer under it, fails here.
import test from 'node:test';
import assert from 'node:assert/strict';

import { KINDS, answer, draw, formatAnswer, shownTexts, tolerance } from '../../web/core/exercises.js';

const SEEDS = Array.from({ length: 300 }, (_, i) => i * 7919 + 3);
const NUMBER = /[−-]?\d+(?:\.\d+)?/;
const TRAILING_EXPRESSION = /[\d\s.+\-−*/()√^·×²e]*$/;
// Counting exercises whose steps state counts in words, with no arithmetic to recompute.
const NO_ARITHMETIC = new Set(['allowed-sources']);

// The printed arithmetic as JavaScript: − × · ² √x √(..) e^x a^b.
function javascript(expression) {
  return expression
    .replace(/−/g, '-').replace(/[×·]/g, '*').replace(/²/g, '**2')
    .replace(/√\(/g, 'Math.sqrt(').replace(/√(\d+(?:\.\d+)?)/g, 'Math.sqrt($1)')
    .replace(/e\^\(/g, 'Math.exp(').replace(/e\^(-?\d+(?:\.\d+)?)/g, 'Math.exp($1)')
    .replace(/\^/g, '**');
}

// The digits of a grouped whole number (16,384) as one number.
const ungroup = (text) => text.replace(/(\d),(?=\d{3}(?!\d))/g, '$1');

// Steps that go on from the line before ("= ...", "× 2 heads ...") joined to it.
function chains(steps) {
  const out = [];
  for (const step of steps.map(ungroup)) {
    if (out.length && /^[=×·+]/.test(step.trim())) out[out.length - 1] += ` ${step.trim()}`;
    else out.push(step);
  }
  return out;
}

const LEADING_EXPRESSION = /^[\d\s.+\-−*/()√^·×²e]*/;
const OPERATOR = /[+\-−*/×·√^²]/;

// The value of printed arithmetic, and how many decimals its numbers carry.
function evaluate(expression) {
  const value = Function(`"use strict"; return (${javascript(expression)});`)();
  const places = Math.max(0, ...(expression.match(/\d+\.(\d+)/g) || []).map((n) => n.split('.')[1].length));
  return { value, places, arithmetic: OPERATOR.test(expression.replace(/^[−-]/, '')) };
}

// [left, right] for every "left = right" of a step, each the arithmetic next to the "=".
function equations(step) {
  const parts = step.replace(/\b[A-Za-z]{2,}\b/g, ' ').split(/\s=\s/);
  const found = [];
  for (let j = 1; j < parts.length; j++) {
    const tail = parts[j - 1].match(TRAILING_EXPRESSION);
    let left = tail[0];
    const before = tail.index > 0 ? parts[j - 1][tail.index - 1] : '';
    if (before === '…') continue; // 1 + 2 + … + n: not arithmetic to recompute
    if (/[\w′\]]/.test(before)) left = left.replace(/^\S*/, ''); // a label: x_1
    left = left.trim().replace(/^[^\d(√e−-]+/, '');
    const right = parts[j].match(LEADING_EXPRESSION)[0].trim().replace(/[.\s]+$/, '');
    if (/\d/.test(left) && /\d/.test(right)) found.push([left, right]);
  }
  return found;
}

test('every printed "expression = value" of every worked solution recomputes to its value', () => {
  const checked = new Set();
  for (const id of Object.keys(KINDS)) {
    for (const seed of SEEDS) {
      for (const step of chains(shownTexts(id, seed).steps)) { // what the learner reads
        for (const [left, right] of equations(step)) {
          const [l, r] = [evaluate(left), evaluate(right)];
          if (!l.arithmetic && !r.arithmetic) continue; // a number restated
          const slack = 0.5 * 10 ** -Math.min(l.places, r.places) + 0.005 * Math.abs(r.value) + 1e-12;
          const where = `${id} seed ${seed}: "${step}"`;
          assert.ok(Math.abs(l.value - r.value) <= slack, `${where}: ${left} is ${l.value}, not ${r.value}`);
          checked.add(id);
        }
      }
    }
  }
  const unchecked = Object.keys(KINDS).filter((id) => !checked.has(id));
  assert.deepEqual(unchecked, [...NO_ARITHMETIC], 'exercises whose steps print no arithmetic to recompute');
});

test('the last number the steps reach is the answer line under them', () => {
  for (const [id, kind] of Object.entries(KINDS)) {
    for (const seed of SEEDS) {
      const x = draw(id, seed);
      const shown = shownTexts(id, seed);
      const steps = shown.steps.map(ungroup);
      const numbers = steps[steps.length - 1].match(new RegExp(NUMBER.source, 'g'));
      assert.ok(numbers, `${id}: the last step prints no number`);
      const printed = numbers[numbers.length - 1];
      const last = Number(printed.replace('−', '-'));
      const line = Number(formatAnswer(kind, answer(id, x)).replace('−', '-').replace('%', ''));
      assert.ok(ungroup(shown.answer).endsWith(formatAnswer(kind, answer(id, x))), shown.answer);
      const places = (printed.split('.')[1] || '').length;
      assert.ok(
        Math.abs(last - line) <= tolerance(kind.digits) + 0.5 * 10 ** -places + 1e-12,
        `${id} seed ${seed}: the steps end at ${last}, the answer line says ${line}: ${steps.join(' / ')}`,
      );
    }
  }
});
