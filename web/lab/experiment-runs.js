// The experimental continuations beside the control that changed them (issue 33, phone: the cards
// are a screen or more above the inspect panel): one line per model under the hide strip's or a
// model's head toggles' result, whichever was used last, saying whether that model's continuation
// with the experiment as it is now is the same as without it or where it first differs. The lines
// follow the experimental run made again after each change (job-generate.js rerunExperiment).

import { detokenizePieces } from '../core/tokenizer.js';
import { el } from '../core/dom.js';
import { experimentOutcome } from './view.js';
import { S, $ } from './state.js';
import { describeAblation } from './experiment.js';

// Where the lines stand: 'words' (under the hide strip) or a model's kind (under its head toggles).
export function digestPlace(place) {
  S.digestPlace = place;
}

// The box for `place`, or null: the shown run has no experimental continuation, or the lines stand elsewhere.
export function experimentDigest(place) {
  if (!S.run?.experiment || (S.digestPlace || 'words') !== place) return null;
  const box = el('div', { class: 'exp-runs', role: 'group', 'aria-live': 'polite',
    'aria-label': 'Each model\'s continuation with your experiment' });
  fill(box);
  return box;
}

function fill(box) {
  const run = S.run;
  if (!run?.experiment) {
    box.replaceChildren();
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const lines = S.metadata.order.map((kind) => {
    const o = experimentOutcome(run, kind);
    const m = run.experiment.results[0][kind];
    const tail = o.at === null ? '' : detokenizePieces(m.tokens.slice(o.at, o.at + 6)).join('').trim();
    const text = !o.done ? 'running with your experiment…'
      : o.at === null ? `the same ${o.mine.length} token${o.mine.length === 1 ? '' : 's'} as without it.`
        : `first differs at step ${o.at + 1}: “${o.now}” instead of “${o.was}”${tail ? `: “${tail}…”` : ''}.`;
    const line = el('li', { class: 'exp-run-line', 'data-kind': kind, 'data-done': o.done ? 'true' : 'false' },
      el('strong', { text: `${S.metadata.models[kind].label}: ` }), text);
    if (o.done) line.dataset.diverge = o.at === null ? '' : String(o.at); // as the card's box: '' for the same
    return line;
  });
  const what = describeAblation(run.experiment.ablation, run.history);
  box.dataset.experiment = what; // which experiment the lines are of (a change makes them again)
  box.replaceChildren(
    el('p', { class: 'note exp-runs-title' },
      `Each model’s continuation with your experiment (${what}; `,
      el('a', { href: '#outputs-section', text: 'both runs on the cards' }), '):'),
    el('ul', { class: 'exp-run-lines' }, lines));
}

// The lines again, where they stand, after the experimental run moved on; at its end (`settle`), while
// the learner is still on the control that changed it, the lines and the control both in view.
export function refreshDigests(settle = false) {
  const boxes = $('inspect-body').querySelectorAll('.exp-runs');
  for (const box of boxes) fill(box);
  const control = document.activeElement;
  if (!settle || !boxes.length || !control?.matches('#inspect-body :is(.head-toggle, .hide-tok, .restore)')) return;
  boxes[boxes.length - 1].scrollIntoView({ block: 'nearest' });
  control.scrollIntoView({ block: 'nearest' });
}
