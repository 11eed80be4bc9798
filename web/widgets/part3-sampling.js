// Part III: temperature, top-k and top-p reshape a real next-token
// distribution (the four-head model after "Lily found"). The bars come from
// the lab's own rule, samplingWeights of web/core/decoding.js, applied to
// every logit of the table part3_decoding; greedy is the limit of a small
// temperature or k = 1.
import { samplingWeights } from "../core/decoding.js";
import { el, fmt, prepare, uid } from "./part2-kit.js";

const TEMPERATURES = Array.from({ length: 40 }, (_, i) => ((i + 1) * 5) / 100); // the lab's slider: 0.05 .. 2
const TOP_PS = Array.from({ length: 20 }, (_, i) => ((i + 1) * 5) / 100); // 0.05 .. 1

/** The probabilities sampling draws from: the lab's weights, normalised. */
export function distribution(logits, temperature, topK = 0, topP = 1) {
  const w = samplingWeights(logits, temperature, topK, topP);
  let total = 0;
  for (const x of w) total += x;
  return Array.from(w, (x) => x / total);
}

function range(id, text, values, initial, show, onChange) {
  const input = el("input", { type: "range", id, min: 0, max: values.length - 1, step: 1 });
  input.value = String(initial);
  const out = el("output", { for: id });
  const update = () => {
    const v = values[Number(input.value)];
    out.textContent = show(v);
    input.setAttribute("aria-valuetext", show(v));
    onChange();
  };
  input.addEventListener("input", update);
  return { node: el("span", {}, [el("label", { for: id }, text), " ", input, " ", out]), input, update,
    value: () => values[Number(input.value)] };
}

export function mount(element, data) {
  prepare(element);
  const { logits, labels, order } = data;
  if (!Array.isArray(logits) || !Array.isArray(order)) throw new Error("part3_decoding lacks logits/order");
  const id = uid("p3-sample");
  const kValues = Array.from({ length: 21 }, (_, i) => i); // 0 keeps all
  const render = () => update();
  const t = range(`${id}-t`, "Temperature", TEMPERATURES, TEMPERATURES.indexOf(1),
    (v) => v.toFixed(2), render);
  const k = range(`${id}-k`, "Top-k", kValues, 0, (v) => (v === 0 ? "0 (all)" : String(v)), render);
  const p = range(`${id}-p`, "Top-p", TOP_PS, TOP_PS.length - 1, (v) => (v >= 1 ? "1.00 (all)" : v.toFixed(2)),
    render);
  const bars = el("div", { class: "bars", role: "img", "aria-label": "next-token probabilities" });
  const rows = [...order.map((i) => labels[i]), "all other tokens"].map((name) => {
    const fill = el("span", { class: "bar-fill" });
    const value = el("span", { class: "bar-value" });
    const row = el("div", { class: "bar-row" }, [el("span", { class: "bar-label" }, name),
      el("span", { class: "bar-track" }, fill), value]);
    bars.append(row);
    return { row, fill, value };
  });
  const readout = el("p", { class: "p2-readout", "aria-live": "polite" });

  function update() {
    const q = distribution(logits, t.value(), k.value(), p.value());
    const shown = order.map((i) => q[i]);
    const rest = 1 - shown.reduce((a, b) => a + b, 0);
    [...shown, Math.max(0, rest)].forEach((x, j) => {
      rows[j].fill.style.width = `${Math.round(1000 * x) / 10}%`;
      rows[j].value.textContent = fmt(x, 3);
      rows[j].row.classList.toggle("hl", j === 0);
    });
    const kept = q.filter((x) => x > 0).length;
    readout.textContent = `${kept.toLocaleString("en")} tokens can be drawn; the most likely, `
      + `${labels[order[0]]}, has ${fmt(shown[0], 3)}.`;
    element.dataset.kept = String(kept);
    element.dataset.top = shown[0].toFixed(6);
  }

  element.append(el("div", { class: "p2-controls" }, [t.node, k.node, p.node]), bars, readout);
  for (const control of [t, k, p]) control.update(); // fills every <output>; the last one draws the bars
}
