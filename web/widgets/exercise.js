// One exercise (m.exercise('ID') in a deck): fresh numbers from a seed, an answer
// field checked exactly, named mistakes, a hint, then a worked solution with the
// same numbers. The arithmetic is web/core/exercises.js; this file is the page.
//
// Test contract: the element [data-exercise] carries data-inputs (JSON of the
// numbers shown), one <input>, buttons [data-action=check|new|solution] (and
// hint), [data-verdict] ("", then "correct" or "wrong" after Check) and
// [data-solution], whose last number is the answer.
//
// The seed: ?seed=N in the page address gives every exercise of the page that
// seed (a teacher hands a class one link); without it each visit draws one.
// "New numbers" moves to the next seed whose answer differs.
import { el } from '../core/dom.js';
import { f } from '../core/exercise-kit.js';
import {
  SEED_MAX, describe, formatAnswer, isSeed, judge, kindOf, nextSeed, parseAnswer, shownTexts,
} from '../core/exercises.js';

let pageSeed = null;

export function seedFromAddress(search) {
  const text = new URLSearchParams(search).get('seed');
  if (text !== null && /^\d{1,10}$/.test(text.trim()) && isSeed(Number(text.trim()))) return Number(text.trim());
  return null;
}

// What a learner reads when the address carries a seed the page cannot use
// (null when it carries none, or a good one): the page then draws its own.
export function refusedSeed(search) {
  const text = new URLSearchParams(search).get('seed');
  if (text === null || seedFromAddress(search) !== null) return null;
  const shown = text.length > 24 ? `${text.slice(0, 24)}…` : text;
  const bound = SEED_MAX.toLocaleString('en-US');
  return `The address's seed "${shown}" is not a whole number from 0 to ${bound}, so this page drew its own.`;
}

let refused = null;

function startingSeed() {
  if (pageSeed === null) {
    pageSeed = seedFromAddress(location.search);
    refused = refusedSeed(location.search);
    if (pageSeed === null) pageSeed = crypto.getRandomValues(new Uint32Array(1))[0] % 10000;
  }
  return pageSeed;
}

function addressWithSeed(seed) {
  const params = new URLSearchParams(location.search);
  params.set('seed', String(seed));
  return `${location.pathname}?${params}${location.hash}`;
}

let count = 0;

export function mount(element) {
  const id = element.dataset.exercise || '';
  const kind = kindOf(id);
  const uid = `ex-${id}-${++count}`;
  let seed = startingSeed();
  let inputs = null;

  const seedLine = el('p', { class: 'ex-seed' });
  const question = el('div', { class: 'ex-question' });
  const input = el('input', {
    id: `${uid}-answer`, type: 'text', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off',
    'aria-describedby': `${uid}-message`,
  });
  const message = el('p', { id: `${uid}-message`, class: 'ex-message', 'aria-live': 'polite' });
  const check = el('button', { type: 'submit', dataset: { action: 'check' } }, 'Check');
  const form = el('form', { class: 'ex-form', novalidate: true },
    el('label', { for: input.id }, `Your answer (${describe(kind)})`),
    el('span', { class: 'ex-field' }, input, check), message);
  const hint = el('p', { id: `${uid}-hint`, class: 'ex-hint', hidden: true });
  const solution = el('ol', { id: `${uid}-solution`, class: 'ex-solution', hidden: true, dataset: { solution: '' } });
  const hintButton = el('button', { type: 'button', 'aria-expanded': 'false', 'aria-controls': hint.id,
    dataset: { action: 'hint' } }, 'Hint');
  const solutionButton = el('button', { type: 'button', 'aria-expanded': 'false', 'aria-controls': solution.id,
    dataset: { action: 'solution' } }, 'Worked solution');
  const newButton = el('button', { type: 'button', dataset: { action: 'new' } }, 'New numbers');
  const verdict = el('p', { class: 'ex-verdict', role: 'status', dataset: { verdict: '' } });

  function toggle(button, panel, show) {
    panel.hidden = !show;
    button.setAttribute('aria-expanded', String(show));
  }

  function render() {
    const shown = shownTexts(id, seed);
    inputs = shown.inputs;
    element.dataset.inputs = JSON.stringify(inputs);
    element.dataset.seed = String(seed);
    const lines = shown.question;
    question.replaceChildren(...lines.map((line, i) => el('p', { class: i === lines.length - 1 ? 'ex-ask' : undefined },
      line)));
    const link = el('a', { href: addressWithSeed(seed) });
    // the slide's #/N changes after the widget is drawn: take the address when the link is used
    for (const type of ['focus', 'pointerenter', 'click']) {
      link.addEventListener(type, () => { link.href = addressWithSeed(seed); });
    }
    const note = refused !== null && seed === pageSeed ? [el('span', { class: 'ex-refused' }, refused), ' '] : [];
    link.textContent = shown.seedLine[1];
    seedLine.replaceChildren(...note, shown.seedLine[0], link, shown.seedLine[2]);
    hint.textContent = shown.hint;
    solution.replaceChildren(...shown.steps.map((step) => el('li', {}, step)),
      el('li', { class: 'ex-answer' }, shown.answer));
    toggle(hintButton, hint, false);
    toggle(solutionButton, solution, false);
    input.value = '';
    input.removeAttribute('aria-invalid');
    message.textContent = '';
    verdict.dataset.verdict = '';
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const parsed = parseAnswer(input.value, kind);
    if (parsed.error) {
      input.setAttribute('aria-invalid', 'true');
      message.textContent = parsed.error;
      verdict.dataset.verdict = '';
      verdict.textContent = '';
      return;
    }
    input.removeAttribute('aria-invalid');
    message.textContent = '';
    const result = judge(id, inputs, parsed.value);
    verdict.dataset.verdict = result.correct ? 'correct' : 'wrong';
    verdict.dataset.mistake = result.mistake ? result.mistake.name : '';
    if (result.correct) {
      verdict.textContent = `Correct: ${formatAnswer(kind, result.exact)}`
        + (kind.digits ? ` (unrounded ${f(result.exact, kind.digits + 3)}).` : '.');
    } else {
      const why = result.mistake ? result.mistake.message : result.reason || 'Check each step, or open the hint.';
      verdict.textContent = `Not yet: ${input.value.trim()} is not the answer. ${why}`;
    }
  });
  hintButton.addEventListener('click', () => toggle(hintButton, hint, hint.hidden));
  solutionButton.addEventListener('click', () => {
    toggle(solutionButton, solution, solution.hidden);
    if (!solution.hidden) toggle(hintButton, hint, true);
  });
  newButton.addEventListener('click', () => {
    seed = nextSeed(id, seed);
    render();
    verdict.textContent = `New numbers, from seed ${seed}.`;
  });

  element.append(seedLine, question, form,
    el('div', { class: 'ex-buttons' }, hintButton, solutionButton, newButton), verdict, hint, solution);
  render();
  hidePrintedCopy(element);
  openWhenAlone(element);
  besideWhenOpen(element);
}

// A slide whose body holds nothing but exercises ("Your turn") would show one
// closed line: there the exercise opens in place, as the slide's content
// (exercise.css .exercise-alone), with nothing of the slide to cover.
function openWhenAlone(element) {
  const box = element.closest('.exercise-box');
  const body = box && box.parentElement;
  if (!body || !body.matches('.reveal .slide-body')) return;
  if ([...body.children].some((c) => !c.matches('.exercise-box, .exercise-static'))) return;
  box.classList.add('exercise-alone');
  box.open = true;
}

// Opened on a slide that holds anything else (a figure, a table, the text it
// asks about), an exercise never covers the slide: the slide's body splits in
// two (exercise.css .exercise-beside), the slide's own content in one column
// (.ex-figure: it shrinks, or scrolls inside the column, where it is too tall)
// and the slide's exercises beside it (.ex-side), above the takeaway strip; on
// a phone the exercises stack under the figure. Each moved node leaves a
// placeholder, so closing the last exercise puts the slide back as it was.
function besideWhenOpen(element) {
  const box = element.closest('.exercise-box');
  const body = box && box.closest('.reveal .slide-body');
  if (!body || box.classList.contains('exercise-alone')) return;
  box.addEventListener('toggle', () => {
    arrange(body);
    if (box.open) requestAnimationFrame(() => showOpened(box));
  });
}

// On a phone the slide scrolls up and down and the opened exercise stands under
// the slide's content: scroll the slide so that as much of it shows as the screen
// holds, its heading line first (a wide slide is never scrolled: it does not scroll).
function showOpened(box) {
  const section = box.closest('section');
  if (!section || getComputedStyle(section).overflowY !== 'auto') return;
  const b = box.getBoundingClientRect();
  const s = section.getBoundingClientRect();
  const down = Math.min(b.top - s.top - 8, b.bottom - s.bottom + 8);
  if (down > 0) section.scrollTop += down;
}

function arrange(body) {
  const split = body.classList.contains('exercise-beside');
  const boxes = [...body.querySelectorAll('.exercise-box')];
  const open = boxes.some((b) => b.open);
  if (open === split) return;
  const focused = document.activeElement;
  if (open) {
    const side = el('div', { class: 'ex-side' });
    for (const b of boxes) {
      b.before(document.createComment('exercise'));
      side.append(b);
    }
    const figure = el('div', { class: 'ex-figure' }, ...body.childNodes);
    body.append(figure, side);
    body.classList.add('exercise-beside');
    requestAnimationFrame(() => reachableFigure(figure));
  } else {
    const side = body.querySelector(':scope > .ex-side');
    const figure = body.querySelector(':scope > .ex-figure');
    body.replaceChildren(...figure.childNodes);
    const marks = [];
    const walk = document.createTreeWalker(body, NodeFilter.SHOW_COMMENT);
    while (walk.nextNode()) if (walk.currentNode.data === 'exercise') marks.push(walk.currentNode);
    const moved = [...side.children];
    moved.forEach((b, i) => (marks[i] ? marks[i].replaceWith(b) : body.append(b)));
    marks.slice(moved.length).forEach((m) => m.remove());
    body.classList.remove('exercise-beside');
  }
  // moving a focused control drops its focus: give it back (a keyboard user stays on the summary)
  if (focused && focused !== document.activeElement && body.contains(focused)) focused.focus({ preventScroll: true });
}

// a column that scrolls is reached from the keyboard too (as deck.js does for a listing)
function reachableFigure(figure) {
  const scrolls = figure.scrollHeight > figure.clientHeight + 1 || figure.scrollWidth > figure.clientWidth + 1;
  const focusable = figure.querySelector('a[href], button, input, select, textarea, summary, [tabindex]');
  if (scrolls && !focusable) {
    figure.setAttribute('tabindex', '0');
    figure.setAttribute('role', 'group');
    figure.setAttribute('aria-label', 'The slide, beside its exercise');
  }
}

// The built page's copy of the exercise (site_builder/exercises.py: the question and
// worked solution for the printed seed, right after the box) is for print and for a
// page read without JavaScript: once the exercise works, the screen shows only the
// box (exercise.css shows the copy again in print).
function hidePrintedCopy(element) {
  const box = element.closest('.exercise-box');
  const copy = box && box.nextElementSibling;
  if (copy && copy.matches('.exercise-static')) copy.hidden = true;
}
