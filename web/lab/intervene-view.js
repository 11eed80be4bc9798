// The inspect panel's experiments: hide words of the context (click a token)
// and switch heads off (a toggle per head on each attention card); the three
// models then redraw on the identical context, and one click restores.

import { PAD_ID } from '../core/tokenizer.js';
import { el, visibleToken } from '../core/dom.js';
import { noAblation } from './guards.js';
import { roving } from './roving.js';
import { headCostNote } from './head-cost.js';

// The hide strip: every token of the window as a toggle (one Tab stop, arrow
// keys inside); the newest token, the query's own slot, cannot be hidden.
export function interventionPanel({ it, vocab, metadata, ablation, onToggleHide, onRestore, readouts = [],
  digest = null }) {
  const hidden = new Set(ablation.hide);
  const last = it.context.length - 1;
  const chips = [];
  for (let j = 0; j < it.context.length; j++) {
    // a hidden token reads as PAD in the context the models got: its label comes from the original
    const id = it.original ? it.original[j] : it.context[j];
    if (id === PAD_ID) continue;
    const pos = it.offset + j;
    const newest = j === last;
    const off = hidden.has(pos);
    chips.push(el('button', { type: 'button', class: `tok hide-tok${off ? ' hidden-tok' : ''}`, 'data-pos': pos,
      'aria-pressed': off ? 'true' : 'false', 'aria-disabled': newest ? 'true' : null,
      title: newest ? 'the newest token (the query\'s own slot) is never hidden'
        : `position ${pos}: ${off ? 'hidden, select to show it again' : 'select to hide it from all three models'}`,
      onclick: () => { if (!newest) onToggleHide(pos); } }, visibleToken(vocab.token(id))));
  }
  const strip = el('div', { class: 'tokens hide-strip', role: 'group',
    'aria-label': 'The context: select a token to hide it from all three models' }, chips);
  roving(strip, '.hide-tok');
  const off = metadata.order.filter((k) => ablation.heads_off[k]?.length)
    .map((k) => `${metadata.models[k].label}: head${ablation.heads_off[k].length > 1 ? 's' : ''} ` +
      `${ablation.heads_off[k].map((h) => h + 1).join(', ')} off`);
  const changes = [hidden.size ? `${hidden.size} word${hidden.size === 1 ? '' : 's'} hidden` : null, ...off]
    .filter(Boolean);
  const active = !noAblation(ablation);
  return el('section', { class: 'intervention', 'aria-labelledby': 'intervention-heading' },
    el('h3', { id: 'intervention-heading', text: 'Experiment: hide words, switch heads off' }),
    el('p', { class: 'note' },
      'Select a word to hide it: the attention models mask it as a key exactly like <PAD>, the MLP reads <PAD> ',
      'in its slot. A head switched off sends a zero message (zero ablation, the toggles on each attention card ',
      'below): what changes shows what the rest of the model does without that head, not what the head means. ',
      'Each model keeps its own text: a position in the prompt is the same word for all three, a later one is ',
      'each model\'s own word (its context strip shows it masked). Generate and Score use the experiment too.'),
    strip,
    // each model's chosen token before and after, right under the strip that changed it
    readouts.length ? el('div', { class: 'exp-readouts', role: 'group',
      'aria-label': 'Each model\'s chosen token with your experiment' }, readouts) : null,
    digest, // each model's continuation with the experiment, when the cards show one
    el('p', { class: 'note intervention-state', 'aria-live': 'polite' },
      active ? `Now: ${changes.join('; ')}. The probabilities here and below are with these changes. `
        : 'Nothing changed yet. ',
      active ? el('button', { type: 'button', class: 'restore', onclick: onRestore,
        text: 'Restore: show every word, every head on' }) : null));
}

// A toggle per head: pressed = on; right under them the model's result with the
// heads as they are (readout); then each head's cost on the test set (head-cost.js).
export function headToggles(kind, label, heads, off, onToggle, readout = null, digest = null) {
  if (!onToggle) return null;
  const set = new Set(off || []);
  const group = el('div', { class: 'head-toggles', role: 'group', 'aria-label': `${label}: switch heads on or off` },
    el('span', { class: 'note', text: 'Heads: ' }),
    Array.from({ length: heads }, (_, h) => el('button', { type: 'button', class: 'head-toggle',
      'data-head': h, 'aria-pressed': set.has(h) ? 'false' : 'true', onclick: () => onToggle(kind, h),
      text: `Head ${h + 1} ${set.has(h) ? 'off' : 'on'}` })));
  roving(group, '.head-toggle'); // one Tab stop, arrow keys between the heads
  return [group, readout, digest, headCostNote(kind, heads)]; // beside them, what each head is worth on the test set
}
