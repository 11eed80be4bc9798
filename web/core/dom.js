// The one set of DOM and number-format helpers of the lab and the slide
// widgets. Every piece of user or model text goes in through textContent
// (el()), never innerHTML, so a prompt can never become markup.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key === 'style' && typeof value === 'object') Object.assign(node.style, value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// A token as visible text: control and format characters (NUL, RTL marks, ...)
// are spelled out as U+XXXX so that they can be seen and cannot reorder the line.
const INVISIBLE = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]$/u;
export function visibleToken(tok) {
  if (INVISIBLE.test(tok)) return `U+${tok.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  return tok;
}

const missing = (n) => n === null || n === undefined || Number.isNaN(n);

export const fmt = {
  int: (n) => (missing(n) ? '–' : Math.round(n).toLocaleString('en-US')),
  ms: (n) => (missing(n) ? '–' : n >= 100 ? `${Math.round(n)} ms` : `${n.toFixed(1)} ms`),
  s: (n) => (missing(n) ? '–' : `${n.toFixed(2)} s`),
  mb: (bytes) => `${(bytes / 1e6).toFixed(2)} MB`,
  pct: (p) => (missing(p) ? '–' : p >= 0.0995 ? `${(100 * p).toFixed(1)}%` : `${(100 * p).toFixed(2)}%`),
  num: (x, digits = 2) => (missing(x) ? '–' : x.toFixed(digits)),
  weight: (w) => (w >= 0.995 ? '1' : w >= 0.005 ? w.toFixed(2).replace(/^0/, '') : ''),
  meanSd: (stat, digits, unit = '') => {
    if (!stat || missing(stat.mean)) return 'not measured yet';
    return missing(stat.sd) ? `${stat.mean.toFixed(digits)}${unit} (one seed)`
      : `${stat.mean.toFixed(digits)} ± ${stat.sd.toFixed(digits)}${unit}`;
  },
};

// Fixed decimals with a true minus sign, like the decks' m.num; never "−0.000";
// strings pass through, missing values print as an em dash.
export function num(x, digits = 3) {
  if (typeof x === 'string') return x;
  if (x === null || x === undefined) return '—';
  let s = Number(x).toFixed(digits);
  if (/^-0(\.0*)?$/.test(s)) s = s.slice(1);
  return s.replace('-', '−');
}
