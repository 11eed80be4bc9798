// Small helpers shared by the Part II widgets (not a widget itself).
// All text goes through textContent; nothing is parsed as HTML.

const STYLE_ID = "part2-widget-style";
const CSS = `
.p2 .p2-controls { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin: 0 0 8px; }
.p2 .p2-seg { display: inline-flex; border: 1px solid var(--accent); border-radius: 5px; overflow: hidden; }
.p2 .p2-seg button {
  font: inherit; border: 0; padding: 3px 12px; background: var(--paper); color: var(--accent); cursor: pointer;
}
.p2 .p2-seg button + button { border-left: 1px solid var(--accent); }
.p2 .p2-seg button[aria-pressed="true"] { background: var(--accent); color: var(--paper); font-weight: 600; }
.p2 button.p2-btn {
  font: inherit; border: 1px solid var(--accent); border-radius: 5px; padding: 3px 12px; background: var(--paper);
  color: var(--accent); cursor: pointer;
}
.p2 button:focus-visible, .p2 input:focus-visible, .p2 select:focus-visible {
  outline: 3px solid var(--focus); outline-offset: 1px;
}
.p2 button:disabled { opacity: 0.45; cursor: default; }
.p2 .p2-sentence { font-family: "DejaVu Sans Mono", monospace; font-size: 0.9em; margin: 4px 0; }
.p2 .p2-sentence span { padding: 1px 4px; margin-right: 2px; border-radius: 3px; }
.p2 .p2-sentence span.in { background: var(--accent-soft); outline: 1px solid var(--accent); }
.p2 .p2-sentence span.out { color: var(--muted); }
.p2 .p2-sentence span.query { background: var(--query); color: var(--paper); }
.p2 .p2-cols {
  display: grid; grid-template-columns: repeat(20, 1fr); gap: 3px; align-items: end; height: calc(190px + 4.6em);
  margin-top: 6px;
}
.p2 .p2-col {
  display: flex; flex-direction: column; align-items: center; justify-content: flex-end; height: 100%; min-width: 0;
}
.p2 .p2-col .v { font-size: 18px; font-variant-numeric: tabular-nums; }
.p2 .p2-col .b {
  --p: 0; /* the bar's share of the tallest bar of either sentence: part2-bars.js sets it on each bar */
  width: 80%; height: calc(150px * var(--p, 0)); background: var(--accent-mid); border-radius: 2px 2px 0 0;
}
.p2 .p2-col.top .b { background: var(--accent); }
.p2 .p2-col.top .v { font-weight: 700; }
.p2 .p2-col .n {
  font-size: 18px; font-family: "DejaVu Sans Mono", monospace; writing-mode: vertical-rl; transform: rotate(180deg);
  height: 4.6em; margin-top: 4px; text-align: left;
}
html.deck-phone .p2 .p2-cols { grid-template-columns: 1fr; gap: 2px; height: auto; }
html.deck-phone .p2 .p2-col {
  display: grid; grid-template-columns: 8ch 1fr 2.6em; gap: 6px; align-items: center; height: auto;
}
html.deck-phone .p2 .p2-col .n {
  grid-column: 1; grid-row: 1; writing-mode: horizontal-tb; transform: none; height: auto; margin: 0;
  font-size: 16px; text-align: right;
}
html.deck-phone .p2 .p2-col .b {
  grid-column: 2; grid-row: 1; justify-self: start; height: 14px; width: calc(100% * var(--p, 0));
  border-radius: 0 2px 2px 0;
}
html.deck-phone .p2 .p2-col .v { grid-column: 3; grid-row: 1; font-size: 16px; text-align: right; }
html.deck-phone .p2 .p2-sentence { display: flex; flex-wrap: wrap; row-gap: 4px; }
.p2 .p2-hbar {
  display: inline-block; height: 0.8em; background: var(--accent-mid); border-radius: 2px; vertical-align: middle;
}
.reveal .p2 table.data.compact { font-size: 18px; margin: 4px 0; }
.p2 table.data td.muted { color: var(--muted); }
.p2 table.data td button {
  font: inherit; border: 1px dashed var(--accent); background: var(--paper); color: var(--ink); padding: 0 6px;
  cursor: pointer; border-radius: 3px;
}
.p2 table.data td button[aria-pressed="true"] { background: var(--highlight); }
.p2 .p2-readout { margin: 6px 0 0; min-height: 1.4em; font-variant-numeric: tabular-nums; }
.p2 .p2-readout strong { color: var(--accent); }
.p2 output { font-weight: 700; font-variant-numeric: tabular-nums; }
`;

export function injectStyle() {
  if (document.getElementById(STYLE_ID)) return;
  const style = document.createElement("style");
  style.id = STYLE_ID;
  style.textContent = CSS;
  document.head.append(style);
}

const CONTROL_KEYS = {
  BUTTON: [" ", "Enter"],
  SELECT: [" ", "Enter", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown"],
  INPUT: [" ", "Enter", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown"],
};

/** Mark the widget root and keep keys that operate a focused control (Space on a
 *  button, arrows in a select) from also reaching the slide navigation. */
export function prepare(element) {
  injectStyle();
  element.classList.add("p2");
  element.addEventListener("keydown", (event) => {
    const keys = CONTROL_KEYS[event.target.tagName];
    if (keys && keys.includes(event.key)) event.stopPropagation();
  });
}

// el() and fmt() are the shared helpers of web/core/dom.js (fmt: true minus sign).
import { el, num as fmt } from "../core/dom.js";

export { el, fmt };

const SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉";
/** 7 -> "₇", 10 -> "₁₀". */
export function sub(n) {
  return String(n).replace(/[0-9]/g, (c) => SUBSCRIPTS[Number(c)]);
}

export function vec(values, digits = 3) {
  return `(${values.map((v) => fmt(v, digits)).join(", ")})`;
}

/** A segmented control of toggle buttons; calls onChange(value). */
export function segmented(label, options, initial, onChange) {
  const group = el("div", { class: "p2-seg", role: "group", "aria-label": label });
  const buttons = options.map(([value, text]) => el("button", {
    type: "button", "aria-pressed": String(value === initial), dataset: { value },
    onclick: () => {
      for (const b of buttons) b.setAttribute("aria-pressed", String(b.dataset.value === value));
      onChange(value);
    },
  }, text));
  group.append(...buttons);
  return group;
}

/** A labelled checkbox. */
export function checkbox(id, text, initial, onChange) {
  const input = el("input", { type: "checkbox", id });
  input.checked = initial;
  input.addEventListener("change", () => onChange(input.checked));
  return el("label", { for: id }, [input, " ", text]);
}

/** A labelled range input with a live <output>. */
export function slider(id, text, min, max, initial, describe, onChange) {
  const input = el("input", { type: "range", id, min, max, step: 1 });
  input.value = String(initial);
  const out = el("output", { for: id, dataset: { key: `${id}-out` } });
  const update = () => {
    const v = Number(input.value);
    out.textContent = describe(v);
    input.setAttribute("aria-valuetext", describe(v));
    onChange(v);
  };
  input.addEventListener("input", update);
  return { node: el("span", {}, [el("label", { for: id }, text), " ", input, " ", out]), input, update };
}

/** Unique ids when a widget appears more than once on a page. */
let counter = 0;
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** A table with header cells; returns {table, tbody}. */
export function table(header, cls = "data compact") {
  const tbody = el("tbody");
  const tableNode = el("table", { class: cls }, [
    el("thead", {}, el("tr", {}, header.map((h) => el("th", { scope: "col" }, h)))), tbody]);
  return { table: tableNode, tbody };
}

/** The tokens of a sentence as spans; cls(i) gives a class per 0-based index. */
export function sentence(tokens, cls = () => "") {
  return el("p", { class: "p2-sentence" }, tokens.map((t, i) => el("span", { class: cls(i) }, t)));
}
