// One prediction (m.predict in a deck, site_builder/predictions.py): the learner
// guesses before the slide answers. The built box holds the question, the
// choices as text and the answer (computed from the tables at build time, in a
// closed <details>); this widget turns the choices into buttons and hides the
// answer until a pick or "Show the answer". Nothing here blocks the deck: the
// arrow keys still change the slide, and a prediction left unanswered is fine.
//
// Test contract: the box [data-prediction] carries data-choices (JSON) and
// data-correct (the right choice's index); the buttons are [data-choice=i] and
// [data-action=skip]; [data-verdict] is "" until the reveal, then "right",
// "wrong" or "skipped"; the box gets data-revealed="true" and the answer
// [data-prediction-answer] is shown, open.
import { el } from '../core/dom.js';

let count = 0;

export function mount(element) {
  const box = element.closest('[data-prediction]');
  if (!box) throw new Error('a prediction widget outside its box');
  const choices = JSON.parse(box.dataset.choices || '[]');
  const correct = Number(box.dataset.correct);
  const answer = box.querySelector('[data-prediction-answer]');
  const options = box.querySelector('.pr-options');
  if (!answer || !choices.length || !(correct >= 0 && correct < choices.length)) {
    throw new Error(`prediction ${box.dataset.prediction}: no answer or choices in the page`);
  }
  const uid = `pr-${box.dataset.prediction}-${++count}`;
  answer.id = answer.id || `${uid}-answer`;
  const verdict = el('p', { class: 'pr-verdict', role: 'status', dataset: { verdict: '' } });
  const buttons = choices.map((choice, i) => el('button', {
    type: 'button', 'aria-pressed': 'false', dataset: { choice: String(i) }, onclick: () => reveal(i),
  }, choice));
  const skip = el('button', {
    type: 'button', class: 'pr-skip', 'aria-controls': answer.id, dataset: { action: 'skip' },
    onclick: () => reveal(null),
  }, 'Show the answer');

  function reveal(i) {
    buttons.forEach((b, j) => b.setAttribute('aria-pressed', String(j === i)));
    const right = choices[correct];
    if (i === null) {
      verdict.dataset.verdict = 'skipped';
      verdict.textContent = `No guess this time: the answer is ${right}.`;
    } else if (i === correct) {
      verdict.dataset.verdict = 'right';
      verdict.textContent = `You picked ${choices[i]}: right.`;
    } else {
      verdict.dataset.verdict = 'wrong';
      verdict.textContent = `You picked ${choices[i]}: not this time, the answer is ${right}.`;
    }
    answer.hidden = false;
    answer.open = true;
    skip.hidden = true;
    box.dataset.revealed = 'true';
    // the slide grew: deck.js measures a slide again when a widget's data-mounted changes
    delete element.dataset.mounted;
    requestAnimationFrame(() => { element.dataset.mounted = 'true'; });
  }

  element.append(el('div', { class: 'pr-buttons', role: 'group', 'aria-label': 'Your guess' }, ...buttons, skip),
    verdict);
  if (options) options.remove();   // the buttons say the same (print lists every choice in the answer)
  answer.hidden = true;
}
