// Byte-counted download progress, page side: one row per file (runtime and
// each model) with the total stated before the first byte arrives.

import { el, fmt } from './view.js';

// items: [{file, label, bytes}] in display order.
export function renderPlan(container, items) {
  const total = items.reduce((a, it) => a + it.bytes, 0);
  const rows = items.map((it) => {
    const bar = el('progress', { max: String(it.bytes), value: '0', 'aria-label': `${it.label}: download` });
    const text = el('span', { class: 'progress-text', text: `0 of ${fmt.mb(it.bytes)}` });
    return el('li', { 'data-file': it.file }, el('span', { class: 'progress-label', text: it.label }), bar, text);
  });
  const summary = el('p', { class: 'progress-summary', text: `Before the first token the lab needs ${fmt.mb(total)}: ` +
    `${items.map((it) => `${it.label} ${fmt.mb(it.bytes)}`).join(', ')}. ` +
    'A visit after this one reads them from this browser\'s offline copy.' });
  container.replaceChildren(summary, el('ul', { class: 'progress-list' }, rows));
  container.hidden = false;
  return { total, done: {} };
}

export function addToPlan(container, item) {
  const list = container.querySelector('.progress-list');
  if (!list || list.querySelector(`li[data-file="${item.file}"]`)) return;
  list.append(el('li', { 'data-file': item.file }, el('span', { class: 'progress-label', text: item.label }),
    el('progress', { max: String(item.bytes), value: '0', 'aria-label': `${item.label}: download` }),
    el('span', { class: 'progress-text', text: `0 of ${fmt.mb(item.bytes)}` })));
  container.hidden = false;
}

export function updateProgress(container, { file, loaded, total, from }) {
  const row = container.querySelector(`li[data-file="${file}"]`);
  if (!row) return;
  const bar = row.querySelector('progress');
  if (total) bar.max = total;
  bar.value = loaded;
  row.querySelector('.progress-text').textContent = from === 'cache'
    ? `${fmt.mb(loaded)}, read from this browser's offline copy`
    : `${fmt.mb(loaded)} of ${fmt.mb(total || loaded)}`;
}

// Bytes still to come over all rows, for "Generate is waiting for ...".
export function remaining(container) {
  let loaded = 0;
  let total = 0;
  for (const bar of container.querySelectorAll('progress')) { loaded += Number(bar.value); total += Number(bar.max); }
  return { loaded, total };
}
