// Roving tabindex: a strip of buttons is one Tab stop; the arrow keys (and
// Home, End) move between its buttons. The last focused button keeps the stop,
// and buttons appended later (a streaming continuation) join the strip.

export function roving(container, selector, { start = 'first' } = {}) {
  const items = () => [...container.querySelectorAll(selector)];
  const settle = (keep) => {
    const all = items();
    if (!all.length) return;
    const current = keep && all.includes(keep) ? keep : all.find((b) => b.tabIndex === 0);
    const chosen = current || (start === 'last' ? all[all.length - 1] : all[0]);
    for (const b of all) b.tabIndex = b === chosen ? 0 : -1;
  };
  settle();
  if (container.dataset.roving) return settle;
  container.dataset.roving = '1';
  container.addEventListener('keydown', (e) => {
    const all = items();
    const at = all.indexOf(e.target.closest?.(selector));
    if (at < 0) return;
    const next = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0,
      End: all.length - 1 }[e.key];
    if (next === undefined || !all[next]) return;
    e.preventDefault();
    settle(all[next]);
    all[next].focus();
  });
  container.addEventListener('focusin', (e) => {
    const b = e.target.closest?.(selector);
    if (b) settle(b);
  });
  return settle;
}
