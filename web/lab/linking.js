// Pointing at or focusing anything that carries data-pos (a position in the
// token history) lights it up in every view; live matrix canvases redraw.

const canvases = new Set();
let linked = null;

export function linkedPosition() {
  return linked;
}

export function addCanvas(canvas) {
  canvases.add(canvas);
}

export function clearCanvases() {
  canvases.clear();
}

export function linkPosition(pos) {
  if (pos === linked) return;
  linked = pos;
  for (const node of document.querySelectorAll('.linked')) node.classList.remove('linked');
  if (pos !== null) {
    for (const node of document.querySelectorAll(`[data-pos="${pos}"]`)) node.classList.add('linked');
  }
  for (const c of canvases) if (c.isConnected) c.draw(); else canvases.delete(c);
}

export function installLinking(root) {
  const find = (event) => event.target.closest?.('[data-pos]');
  root.addEventListener('pointerover', (e) => { const n = find(e); if (n) linkPosition(Number(n.dataset.pos)); });
  root.addEventListener('pointerleave', () => linkPosition(null));
  root.addEventListener('focusin', (e) => { const n = find(e); linkPosition(n ? Number(n.dataset.pos) : null); });
}
