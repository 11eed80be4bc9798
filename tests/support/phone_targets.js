// What tests/test_lab_phone.py measures on the lab at phone width: every
// visible token and toggle smaller than 44 x 44 px, and every visible text under
// 14 px outside the dense grids that scroll at their own size (EXEMPT).
/* global document, getComputedStyle, NodeFilter */
() => {
  const EXEMPT = 'table.attention, .matrix-grid, .score-tokens, svg, .visually-hidden, .skip-link';
  const TARGETS = 'button.tok, .tl-step, .head-toggle, .restore, .model-tabs button, .predict-choice, '
    + '.predict-toggle, .predict-skip';
  const visible = (e) => {
    const b = e.getBoundingClientRect();
    return b.width > 0 && b.height > 0 && getComputedStyle(e).visibility !== 'hidden'
      && !e.closest('[hidden], details:not([open]) > :not(summary)');
  };
  const small = [];
  for (const e of document.querySelectorAll(TARGETS)) {
    if (!visible(e)) continue;
    const b = e.getBoundingClientRect();
    if (b.width < 44 || b.height < 44) {
      small.push(`${e.tagName}.${e.className} ${Math.round(b.width)}x${Math.round(b.height)}`);
    }
  }
  const tiny = {};
  const walker = document.createTreeWalker(document.querySelector('main') || document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walker.nextNode());) {
    const el = n.parentElement;
    if (!n.textContent.trim() || el.closest(EXEMPT) || !visible(el)) continue;
    const fs = parseFloat(getComputedStyle(el).fontSize);
    if (fs < 14) {
      const k = `${el.tagName}.${el.className} ${fs}`;
      tiny[k] = (tiny[k] || 0) + 1;
    }
  }
  return { small, tiny };
}
