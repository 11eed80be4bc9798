// The slides that teach each idea the lab shows. The index is reveal.js's
// 0-based slide number (decks/<deck>.html#/<index>); title is that slide's
// heading, and tests/test_lab_views.py checks that they still match.

import { el } from '../core/dom.js';

export const SLIDES = {
  greedy: { deck: 'maps', index: 46, title: 'Greedy choice or a sampled one' },
  softmax: { deck: 'maps', index: 45, title: 'Block special tokens, then softmax' },
  eos: { deck: 'maps', index: 47, title: 'Extend the history, or stop' },
  unk: { deck: 'maps', index: 9, title: 'Unknown words map to UNK' },
  temperature: { deck: 'part2', index: 13, title: 'Hard or soft retrieval' },
  attention: { deck: 'maps', index: 33, title: 'Softmax turns scores into weights' },
  matrix: { deck: 'part2', index: 37, title: 'All rows at once: the matrix form' },
  perplexity: { deck: 'results', index: 10, title: 'Cross-entropy and perplexity' },
  results: { deck: 'results', index: 11, title: 'Measured results' },
};

export function slideHref(key) {
  const s = SLIDES[key];
  return `../decks/${s.deck}.html#/${s.index}`;
}

export function slideLink(key, text) {
  return el('a', { class: 'slide-link', href: slideHref(key), 'data-slide': key, text });
}

// Fills the href of every <a data-slide="key"> written in the HTML.
export function linkSlides(root = document) {
  for (const a of root.querySelectorAll('a[data-slide]')) {
    if (SLIDES[a.dataset.slide]) a.href = slideHref(a.dataset.slide);
  }
}
