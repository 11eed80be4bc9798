// The slides that teach each idea the lab shows, by deck and heading. The
// build writes every deck's slide headings, in order, into the lab page
// (<script id="slide-titles">, site_builder/build.py), so a link finds its
// slide's reveal.js number (decks/<deck>.html#/<index>) even after slides are
// added or moved; tests/test_lab_views.py checks that every heading is found.

import { el } from '../core/dom.js';

export const SLIDES = {
  greedy: { deck: 'maps', title: 'Greedy choice or a sampled one' },
  softmax: { deck: 'maps', title: 'Block special tokens, then softmax' },
  eos: { deck: 'maps', title: 'Extend the history, or stop' },
  unk: { deck: 'maps', title: 'Unknown words map to UNK' },
  temperature: { deck: 'part3', title: 'Sampling: temperature' },
  topk: { deck: 'part3', title: 'Sampling: top-k and top-p cut the tail' },
  topp: { deck: 'part3', title: 'Sampling: top-k and top-p cut the tail' },
  attention: { deck: 'maps', title: 'Softmax turns scores into weights' },
  matrix: { deck: 'part2', title: 'All rows at once: the matrix form' },
  perplexity: { deck: 'part3', title: 'Perplexity: the loss as an effective number of choices' },
  results: { deck: 'results', title: 'All three models, every seed' },
  heads: { deck: 'results', title: 'Where it comes from: what each head is worth' },
};

let titles = null;
function slideTitles() {
  if (!titles) {
    const node = typeof document !== 'undefined' ? document.getElementById('slide-titles') : null;
    try { titles = node ? JSON.parse(node.textContent) : {}; } catch { titles = {}; }
  }
  return titles;
}

// The reveal.js number of the first slide with that heading; 0 (the deck's
// title slide) when the heading is not found.
export function slideIndex(key) {
  const s = SLIDES[key];
  return Math.max(0, (slideTitles()[s.deck] || []).indexOf(s.title));
}

// On a phone the link opens the slide in the deck's reading view (every slide
// in order, each with an anchor), which a narrow screen reads better than the deck.
const narrow = () => typeof matchMedia === 'function' && matchMedia('(max-width: 700px)').matches;

export function slideHref(key, phone = narrow()) {
  const s = SLIDES[key];
  return phone ? `../read/${s.deck}.html#slide-${slideIndex(key)}` : `../decks/${s.deck}.html#/${slideIndex(key)}`;
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
